;// DialOp Assignment page plugin: draws this seat's reviewer x paper table from the JSON view the bot writes into
// #assignment-state (SlurkTask.watch); clicking cells builds a matching (one per row and column; clicking again
// removes), "Propose" sends it privately to the bot (SlurkTask.send), Accept / Reject answer the partner's
// proposal (highlighted). After the game: the score and a toggle that outlines the best matching on the pooled
// table. Everything from the view is inserted with textContent (never innerHTML).
var ASSIGN = window.ASSIGN || {picked: {}, showBest: false};
window.ASSIGN = ASSIGN;

ASSIGN.el = window.SlurkTask.element;   // slurk-task.js comes first in the layout
ASSIGN.send = window.SlurkTask.command;

ASSIGN.click = function (r, p) {
  var v = ASSIGN.view;
  if (!v || v.result) { return; }
  var picked = ASSIGN.picked;
  if (picked[r] === p) { delete picked[r]; } else {
    Object.keys(picked).forEach(function (k) { if (picked[k] === p) { delete picked[k]; } });
    picked[r] = p;
  }
  ASSIGN.render(v);
};

ASSIGN.propose = function () {
  var v = ASSIGN.view, parts = [];
  Object.keys(ASSIGN.picked).forEach(function (r) {
    parts.push(v.papers[ASSIGN.picked[r]] + "=" + v.reviewers[r]);
  });
  ASSIGN.send("propose", [parts.join(", ")]);
};

ASSIGN.render = function (v) {
  var root = document.getElementById("assignment-board");
  if (!root || !v || !v.table) { return; }
  ASSIGN.view = v;
  while (root.firstChild) { root.removeChild(root.firstChild); }
  var res = v.result, pend = v.pending ? v.pending.matching : null;
  var table = (res && ASSIGN.showBest) ? res.pooled : v.table;
  var t = ASSIGN.el("table"), head = ASSIGN.el("tr");
  head.appendChild(ASSIGN.el("th", "", ""));
  v.papers.forEach(function (p, j) { var th = ASSIGN.el("th", "", p); th.title = v.titles[j]; head.appendChild(th); });
  t.appendChild(head);
  v.reviewers.forEach(function (name, r) {
    var tr = ASSIGN.el("tr");
    tr.appendChild(ASSIGN.el("th", "", name));
    table[r].forEach(function (val, p) {
      var td = ASSIGN.el("td", val === null ? "as-unknown" : "", val === null ? "" : val);
      if (pend && pend[r] === p) { td.className += " as-pending"; }
      if (!res && ASSIGN.picked[r] === p) { td.className += " as-picked"; }
      if (res && ASSIGN.showBest && res.best_matching[r] === p) { td.className += " as-best"; }
      if (res && !ASSIGN.showBest && res.matching && res.matching[r] === p) { td.className += " as-picked"; }
      td.setAttribute("data-cell", r + ":" + p);
      td.addEventListener("click", function () { ASSIGN.click(r, p); });
      tr.appendChild(td);
    });
    t.appendChild(tr);
  });
  root.appendChild(t);
  var bar = ASSIGN.el("div", "as-bar"), note = ASSIGN.el("div", "as-note");
  if (res) {
    note.textContent = res.accepted ? ("Your matching is worth " + res.score + "; the best possible was " + res.best +
      " (" + Math.round(100 * res.normalized) + "%).") : "The game ended without an agreed matching.";
    var tog = ASSIGN.el("button", "as-toggle", ASSIGN.showBest ? "Show our matching" : "Show the best possible solution");
    tog.addEventListener("click", function () { ASSIGN.showBest = !ASSIGN.showBest; ASSIGN.render(v); });
    bar.appendChild(tog);
  } else if (v.must_respond) {
    note.textContent = "Your partner proposed the highlighted matching. Accept or reject it.";
    var a = ASSIGN.el("button", "as-accept", "Accept"), j = ASSIGN.el("button", "as-reject", "Reject");
    var pid = [String(v.pending.id)];  // the proposal shown: a newer one meanwhile makes the bot refuse the answer
    a.addEventListener("click", function () { ASSIGN.send("accept", pid); });
    j.addEventListener("click", function () { ASSIGN.send("reject", pid); });
    bar.appendChild(a); bar.appendChild(j);
  } else {
    var n = Object.keys(ASSIGN.picked).length;
    var b = ASSIGN.el("button", "as-propose", "Propose (" + n + "/8)");
    b.disabled = n !== 8;
    b.addEventListener("click", ASSIGN.propose);
    var c = ASSIGN.el("button", "as-clear", "Clear");
    c.addEventListener("click", function () { ASSIGN.picked = {}; ASSIGN.render(v); });
    bar.appendChild(b); bar.appendChild(c);
    note.textContent = v.pending ? "Waiting for your partner to answer your proposal." :
      "Click one cell per reviewer and paper to build a matching.";
    if (v.words_left !== null && v.words_left !== undefined) { note.textContent += " Words left: " + v.words_left + "."; }
  }
  root.appendChild(bar);
  root.appendChild(note);
};

window.SlurkTask.watch("assignment-state", function (v) { ASSIGN.render(v || ASSIGN.view || null); });
