;// The layout's `print-history` trigger (the body of print_history(element)): a log row shown again after a (re)load,
// by the same rules as a live line (SlurkTask.history in slurk-task.js).
if (window.SlurkTask && window.SlurkTask.history) {
    window.SlurkTask.history(element);
}
