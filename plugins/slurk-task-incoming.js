;// The layout's `incoming-text` trigger (the body of incoming_text(data)): SlurkTask (slurk-task.js) shows the line,
// marked when it is not what it claims to be, and cut at the chat limit.
if (window.SlurkTask && window.SlurkTask.incoming) {
    window.SlurkTask.incoming(data);
} else if (typeof display_message === "function" && data && data.user) {
    display_message(data.user, data.timestamp, String(data.message).substring(0, 4000), data.private, false);
}
