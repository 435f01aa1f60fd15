;// The layout's `submit-message` trigger (the body of keypress(current_room, current_user, current_timestamp, text)):
// hands the chat box line to SlurkTask (slurk-task.js), which sends `/commands` privately to the bot.
if (window.SlurkTask) {
    window.SlurkTask.submit(current_room, current_user, current_timestamp, text);
} else if (typeof display_info === "function") {
    display_info(current_timestamp, "The page is not ready yet: please reload it and send your message again.");
}
