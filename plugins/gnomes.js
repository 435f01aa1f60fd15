;// Gnomes at Night page plugin: draws this seat's side of the maze from the JSON view that the bot writes into
// #gnomes-state, and sends moves from the arrow buttons and the keyboard arrow keys.
// Needs slurk-task.js (listed before this file in the layout): SlurkTask.watch reads #gnomes-state and
// SlurkTask.send gives each move privately to the bot (message_command with receiver_id = the bot).
// Starts with ";" because Slurk glues layout scripts together without semicolons. Data only ever reaches the page
// through textContent and SVG attributes (never innerHTML).
var GNOMES = window.GNOMES || {};
window.GNOMES = GNOMES;

GNOMES.SVG = "http://www.w3.org/2000/svg";
GNOMES.CELL = 40;
GNOMES.PAD = 22;
GNOMES.KEYS = {ArrowRight: "right", ArrowUp: "up", ArrowLeft: "left", ArrowDown: "down"};
GNOMES.ARROWS = {up: "\u2191", left: "\u2190", stay: "stay", right: "\u2192", down: "\u2193"};
GNOMES.LABELS = {up: "Move up", left: "Move left", stay: "Stay (pass this turn)", right: "Move right",
                 down: "Move down"};

GNOMES.el = function (tag, attrs, text) {
  var e = document.createElement(tag);
  Object.keys(attrs || {}).forEach(function (k) { e.setAttribute(k, attrs[k]); });
  if (text !== undefined && text !== null) { e.textContent = String(text); }
  return e;
};

GNOMES.svg = function (tag, attrs) {
  var e = document.createElementNS(GNOMES.SVG, tag);
  Object.keys(attrs || {}).forEach(function (k) { e.setAttribute(k, String(attrs[k])); });
  return e;
};

// The game is over when the match says so (a timeout or a partner leaving ends it with turns still open) or when
// the last round is done.
GNOMES.over = function (v) { return !!(v && ((v.core && v.core.phase === "over") || v.finished)); };
GNOMES.myTurn = function (v) { return !!(v && v.your_turn && !GNOMES.over(v)); };

GNOMES.send = function (dir) {
  var v = GNOMES.view;
  if (!GNOMES.myTurn(v) || !window.SlurkTask) { return; }
  window.SlurkTask.send({command: "move", args: [dir]});  // a refusal is shown in the chat
};

GNOMES.drawBoard = function (v) {
  var C = GNOMES.CELL, P = GNOMES.PAD, n = v.size || 9, W = P + n * C + 4;
  var s = GNOMES.svg("svg", {width: W, height: W, viewBox: "0 0 " + W + " " + W, "class": "gnomes-svg",
                             role: "img", "aria-label": "maze"});
  var i, x, y;
  for (i = 0; i < n; i++) {  // axis numbers: messages name columns and rows by them
    var cx = GNOMES.svg("text", {x: P + i * C + C / 2, y: P - 7, "class": "gnomes-axis"});
    cx.textContent = String(i);
    s.appendChild(cx);
    var ry = GNOMES.svg("text", {x: P - 8, y: P + i * C + C / 2 + 4, "class": "gnomes-axis"});
    ry.textContent = String(i);
    s.appendChild(ry);
  }
  for (y = 0; y < n; y++) {
    for (x = 0; x < n; x++) {
      s.appendChild(GNOMES.svg("rect", {x: P + x * C, y: P + y * C, width: C, height: C, "class": "gnomes-cell"}));
    }
  }
  var start = v.start || [0, 0];
  var st = GNOMES.svg("text", {x: P + start[0] * C + 3, y: P + (start[1] + 1) * C - 3, "class": "gnomes-start"});
  st.textContent = "start";
  s.appendChild(st);
  var line = function (x1, y1, x2, y2) {
    s.appendChild(GNOMES.svg("line", {x1: x1, y1: y1, x2: x2, y2: y2, "class": "gnomes-wall"}));
  };
  s.appendChild(GNOMES.svg("rect", {x: P, y: P, width: n * C, height: n * C, "class": "gnomes-border"}));
  ((v.walls && v.walls.right) || []).forEach(function (p) {
    line(P + (p[0] + 1) * C, P + p[1] * C, P + (p[0] + 1) * C, P + (p[1] + 1) * C);
  });
  ((v.walls && v.walls.below) || []).forEach(function (p) {
    line(P + p[0] * C, P + (p[1] + 1) * C, P + (p[0] + 1) * C, P + (p[1] + 1) * C);
  });
  if (v.treasure) {
    var t = GNOMES.svg("text", {x: P + v.treasure[0] * C + C / 2, y: P + v.treasure[1] * C + C / 2 + 9,
                                "class": "gnomes-treasure"});
    t.textContent = "\u2605";
    s.appendChild(t);
  }
  if (v.token) {
    s.appendChild(GNOMES.svg("circle", {cx: P + v.token[0] * C + C / 2, cy: P + v.token[1] * C + C / 2,
                                        r: C * 0.32, "class": "gnomes-token"}));
  }
  return s;
};

GNOMES.render = function (v) {
  GNOMES.view = v;
  var root = document.getElementById("gnomes-board");
  if (!root) { return; }
  while (root.firstChild) { root.removeChild(root.firstChild); }
  var over = GNOMES.over(v), mine = GNOMES.myTurn(v);
  var ending = over && window.SlurkTask && window.SlurkTask.ending ? window.SlurkTask.ending(v.core) : null;
  if (!v || !v.round) {
    root.appendChild(GNOMES.el("div", {"class": "gnomes-status"},
      ending ? ending.title : "Waiting for the game to start\u2026"));
    return;
  }
  var head = GNOMES.el("div", {"class": "gnomes-status"});
  head.appendChild(GNOMES.el("strong", {}, "Round " + v.round + " of " + v.rounds));
  var whose = over ? "Game over" : (mine ? "Your turn" : "Partner's turn");
  head.appendChild(GNOMES.el("span", {"class": over ? "gnomes-turn gnomes-over" : (mine ? "gnomes-turn gnomes-mine" :
                                      "gnomes-turn")}, whose));
  head.appendChild(GNOMES.el("span", {"class": "gnomes-count"},
    "Turns: " + v.turns + (v.turn_cap ? " / " + v.turn_cap : "")));
  root.appendChild(head);
  root.appendChild(GNOMES.el("div", {"class": "gnomes-note"}, over ? (ending ? ending.title : "The game is over.") :
    (v.sees_treasure ? "You can see the treasure (\u2605): guide your partner." :
                       "Your partner sees the treasure: ask where to go.")));
  root.appendChild(GNOMES.drawBoard(v));
  if (v.last && v.last.seat === v.seat && v.last.blocked) {
    root.appendChild(GNOMES.el("div", {"class": "gnomes-note gnomes-blocked"},
      "Your last move (" + v.last.action + ") hit a wall on your side."));
  }
  var pad = GNOMES.el("div", {"class": "gnomes-pad"});
  ["up", "left", "stay", "right", "down"].forEach(function (dir) {
    var b = GNOMES.el("button", {type: "button", "class": "gnomes-btn gnomes-" + dir, title: GNOMES.LABELS[dir],
                                 "aria-label": GNOMES.LABELS[dir]}, GNOMES.ARROWS[dir]);
    b.disabled = !mine;
    b.addEventListener("click", function () { GNOMES.send(dir); });
    pad.appendChild(b);
  });
  root.appendChild(pad);
  if (!over) {
    // The arrow keys move the token only while the chat box does not have the focus (there they move the cursor).
    root.appendChild(GNOMES.el("div", {"class": "gnomes-note gnomes-keys"}, GNOMES.typing() ?
      "Arrow keys move the cursor in the chat box: click the maze (or press Esc) to move with them." :
      "You can also move with the arrow keys."));
  }
  if (v.results && v.results.length) {
    var list = GNOMES.el("ol", {"class": "gnomes-results"});
    v.results.forEach(function (r) {
      list.appendChild(GNOMES.el("li", {}, "Round " + r.round + ": " +
        (r.status === "found" ? "found in " + r.turns + " turns" : "turn limit reached") +
        " (best possible " + r.optimum + ")"));
    });
    root.appendChild(list);
  }
};

// The layout script runs again on every joined_room, so the key listener is bound once and looks elements up each
// time; SlurkTask.watch replaces the previous watcher of #gnomes-state (text that is not JSON keeps the last board).
GNOMES.typing = function () {
  var tag = (document.activeElement && document.activeElement.tagName) || "";
  return tag === "INPUT" || tag === "TEXTAREA";
};
GNOMES.showKeys = function () {
  var k = document.querySelector("#gnomes-board .gnomes-keys");
  if (k) {
    k.textContent = GNOMES.typing() ?
      "Arrow keys move the cursor in the chat box: click the maze (or press Esc) to move with them." :
      "You can also move with the arrow keys.";
  }
};
if (!GNOMES.bound) {
  GNOMES.bound = true;
  document.addEventListener("keydown", function (ev) {
    if (ev.key === "Escape" && GNOMES.typing()) { document.activeElement.blur(); GNOMES.showKeys(); return; }
    var dir = GNOMES.KEYS[ev.key];
    if (!dir || GNOMES.typing()) { return; }  // arrows in the chat box move the cursor (the note says so)
    ev.preventDefault();
    GNOMES.send(dir);
  });
  document.addEventListener("focusin", GNOMES.showKeys);
  document.addEventListener("focusout", function () { setTimeout(GNOMES.showKeys, 0); });
  document.addEventListener("mousedown", function (ev) {
    var board = document.getElementById("gnomes-board");
    if (board && board.contains(ev.target) && GNOMES.typing()) { document.activeElement.blur(); }
  });
}
window.SlurkTask.watch("gnomes-state", function (v) { GNOMES.render(v || GNOMES.view || null); });
