;// AsymPuzl page plugin: draws this seat's clues and its answer row as shapes in colour (SVG) from the JSON view the
// bot writes into #asympuzl-state (SlurkTask.watch). Clicking a position of the answer row opens a picker (shape,
// colour); "Replace" sends {command: "replace", args: [position, shape, colour]} privately to the bot
// (SlurkTask.send); "End turn" sends {command: "done"}. Messages are typed in the chat (relayed by the bot; a
// message also ends the turn). Feedback is shown as the seat's mode allows. Text goes in with textContent only.
var ASYM = window.ASYM || {sel: null, shape: null, colour: null};
window.ASYM = ASYM;
ASYM.NS = "http://www.w3.org/2000/svg";

ASYM.el = window.SlurkTask.element;   // slurk-task.js comes first in the layout
ASYM.send = window.SlurkTask.command;

ASYM.poly = function (n, r, rot, inner) {
  var pts = [], k = inner ? 2 * n : n;
  for (var i = 0; i < k; i++) {
    var a = rot + Math.PI * 2 * i / k, rr = (inner && i % 2) ? inner : r;
    pts.push((20 + rr * Math.sin(a)).toFixed(1) + "," + (20 - rr * Math.cos(a)).toFixed(1));
  }
  return pts.join(" ");
};

// Outline of each base shape in a 40x40 box: [element, attributes]
ASYM.SHAPES = {
  circle: ["circle", {cx: 20, cy: 20, r: 15}],
  square: ["rect", {x: 6, y: 6, width: 28, height: 28}],
  triangle: ["polygon", {points: ASYM.poly(3, 17, 0)}],
  rectangle: ["rect", {x: 3, y: 11, width: 34, height: 18}],
  pentagon: ["polygon", {points: ASYM.poly(5, 16, 0)}],
  hexagon: ["polygon", {points: ASYM.poly(6, 16, Math.PI / 6)}],
  octagon: ["polygon", {points: ASYM.poly(8, 16, Math.PI / 8)}],
  star: ["polygon", {points: ASYM.poly(5, 17, 0, 7)}],
  heart: ["path", {d: "M20 34 L7 21 A7 7 0 0 1 20 11 A7 7 0 0 1 33 21 Z"}],
  diamond: ["polygon", {points: "20,3 34,20 20,37 6,20"}],
  cross: ["polygon", {points: "15,4 25,4 25,15 36,15 36,25 25,25 25,36 15,36 15,25 4,25 4,15 15,15"}],
  oval: ["ellipse", {cx: 20, cy: 20, rx: 17, ry: 10}],
  crescent: ["path", {d: "M26 5 A15 15 0 1 0 26 35 A11 11 0 1 1 26 5 Z"}],
  arrow: ["polygon", {points: "3,15 22,15 22,7 37,20 22,33 22,25 3,25"}],
  trapezoid: ["polygon", {points: "11,9 29,9 37,31 3,31"}],
  parallelogram: ["polygon", {points: "12,10 37,10 28,30 3,30"}],
  ring: ["path", {d: "M20 4 A16 16 0 1 1 19.9 4 Z M20 12 A8 8 0 1 0 20.1 12 Z", "fill-rule": "evenodd"}],
  semicircle: ["path", {d: "M4 27 A16 16 0 0 1 36 27 Z"}],
  kite: ["polygon", {points: "20,3 32,15 20,37 8,15"}],
  chevron: ["polygon", {points: "4,8 20,20 36,8 36,18 20,31 4,18"}],
  drop: ["path", {d: "M20 3 C27 14 32 20 32 26 A12 12 0 0 1 8 26 C8 20 13 14 20 3 Z"}],
  bolt: ["polygon", {points: "23,2 8,22 18,22 15,38 32,16 22,16"}],
  shield: ["path", {d: "M6 6 L34 6 L34 18 C34 28 27 34 20 37 C13 34 6 28 6 18 Z"}],
  bowtie: ["polygon", {points: "4,9 20,18 36,9 36,31 20,22 4,31"}]
};

// An SVG drawing of a shape ("small star", "large circle", ...) in a colour (null: outline only)
ASYM.draw = function (shape, colour, size) {
  var svg = document.createElementNS(ASYM.NS, "svg");
  svg.setAttribute("viewBox", "0 0 40 40");
  svg.setAttribute("width", size || 40);
  svg.setAttribute("height", size || 40);
  var name = String(shape || ""), scale = 0.82;
  if (name.indexOf("small ") === 0) { name = name.slice(6); scale = 0.55; }
  if (name.indexOf("large ") === 0) { name = name.slice(6); scale = 1.0; }
  var spec = ASYM.SHAPES[name];
  if (!spec) {
    var q = document.createElementNS(ASYM.NS, "text");
    q.setAttribute("x", 20); q.setAttribute("y", 26); q.setAttribute("text-anchor", "middle");
    q.textContent = "?";
    svg.appendChild(q);
    return svg;
  }
  var g = document.createElementNS(ASYM.NS, "g");
  g.setAttribute("transform", "translate(20 20) scale(" + scale + ") translate(-20 -20)");
  var e = document.createElementNS(ASYM.NS, spec[0]);
  Object.keys(spec[1]).forEach(function (k) { e.setAttribute(k, spec[1][k]); });
  var hex = colour && ASYM.view && ASYM.view.palette ? ASYM.view.palette[colour] : null;
  e.setAttribute("fill", hex || "none");
  e.setAttribute("stroke", hex ? "#333" : "#777");
  e.setAttribute("stroke-width", hex ? 1 : 2);
  if (!hex) { e.setAttribute("stroke-dasharray", "3 2"); }
  g.appendChild(e);
  svg.appendChild(g);
  return svg;
};

ASYM.tile = function (label, shapes, colour, cls) {
  var t = ASYM.el("div", "ap-tile " + (cls || ""));
  t.appendChild(ASYM.el("div", "ap-pos", label));
  var art = ASYM.el("div", "ap-art");
  shapes.forEach(function (s) { art.appendChild(ASYM.draw(s, colour, shapes.length > 1 ? 26 : 40)); });
  t.appendChild(art);
  t.appendChild(ASYM.el("div", "ap-name", shapes.join(" or ") + (colour ? " · " + colour : "")));
  return t;
};

ASYM.feedback = function (fb) {
  var out = [];
  if (!fb) { return out; }
  if ("own_solved" in fb) { out.push(fb.own_solved ? "Your row is right." : "Your row is not right yet."); }
  if (fb.own_wrong && fb.own_wrong.length) { out.push("Wrong positions in your row: " + fb.own_wrong.join(", ") + "."); }
  if ("partner_solved" in fb) { out.push(fb.partner_solved ? "Your partner's row is right." : "Your partner's row is not right yet."); }
  if (fb.partner_wrong && fb.partner_wrong.length) { out.push("Wrong positions in your partner's row: " + fb.partner_wrong.join(", ") + "."); }
  if ("all_solved" in fb) { out.push(fb.all_solved ? "The puzzle is solved." : "The puzzle is not solved yet."); }
  return out;
};

ASYM.picker = function (v) {
  var box = ASYM.el("div", "ap-picker");
  var p = ASYM.sel;
  box.appendChild(ASYM.el("div", "ap-title", "Position " + p + ": pick a shape and a colour"));
  var shapes = ASYM.el("div", "ap-choices ap-shapes");
  v.shapes.forEach(function (s) {
    var b = ASYM.el("button", "ap-shape" + (ASYM.shape === s ? " ap-on" : ""));
    b.setAttribute("data-shape", s); b.title = s;
    b.appendChild(ASYM.draw(s, ASYM.colour, 28));
    b.addEventListener("click", function () { ASYM.shape = s; ASYM.render(v); });
    shapes.appendChild(b);
  });
  var colours = ASYM.el("div", "ap-choices ap-colours");
  v.colours.forEach(function (c) {
    var b = ASYM.el("button", "ap-colour" + (ASYM.colour === c ? " ap-on" : ""), c);
    b.setAttribute("data-colour", c);
    b.style.borderLeft = "14px solid " + (v.palette[c] || "#999");
    b.addEventListener("click", function () { ASYM.colour = c; ASYM.render(v); });
    colours.appendChild(b);
  });
  var bar = ASYM.el("div", "ap-bar");
  var ok = ASYM.el("button", "ap-replace", "Replace position " + p);
  ok.disabled = !(ASYM.shape && ASYM.colour) || v.turn !== "me";
  ok.addEventListener("click", function () {
    ASYM.send("replace", [String(p), ASYM.shape, ASYM.colour]);
    ASYM.sel = null;
  });
  var cancel = ASYM.el("button", "ap-cancel", "Cancel");
  cancel.addEventListener("click", function () { ASYM.sel = null; ASYM.render(v); });
  bar.appendChild(ok); bar.appendChild(cancel);
  box.appendChild(shapes); box.appendChild(colours); box.appendChild(bar);
  return box;
};

ASYM.render = function (v) {
  var root = document.getElementById("asympuzl-board");
  if (!root || !v || !v.hypothesis) { return; }
  ASYM.view = v;
  while (root.firstChild) { root.removeChild(root.firstChild); }
  var head = ASYM.el("div", "ap-head");
  // the page's own line above says "You are Player A (... in the chat)" when the view names the seats
  if (!(v.core && v.core.roles)) { head.appendChild(ASYM.el("strong", "", "You are Player " + v.role + ". ")); }
  head.appendChild(ASYM.el("span", "", v.role === "A" ? "You know the shape at each position, not the colours." :
    "You know each shape's colour, in a random order: not the positions."));
  var status = v.result ? "" : (v.turn === "me" ? "Your turn: change your row, then send a message in the chat (or End turn)." :
    "Your partner's turn.");
  head.appendChild(ASYM.el("div", "ap-turn" + (v.turn === "me" ? " ap-mine" : ""),
    "Round " + v.round + " of " + v.turn_limit + ". " + status));
  root.appendChild(head);
  root.appendChild(ASYM.el("div", "ap-label", "Your clues" + (v.role === "B" ? " (random order)" : "")));
  var clues = ASYM.el("div", "ap-row ap-clues");
  if (v.clue_shapes) {
    v.clue_shapes.forEach(function (c, i) { clues.appendChild(ASYM.tile(String(i + 1), c, null)); });
  } else {
    (v.clue_pairs || []).forEach(function (c) { clues.appendChild(ASYM.tile("", [c[0]], c[1])); });
  }
  root.appendChild(clues);
  root.appendChild(ASYM.el("div", "ap-label", "Your answer row (click a position to change it)"));
  var row = ASYM.el("div", "ap-row ap-hyp");
  var wrong = (v.feedback && v.feedback.own_wrong) || [];
  v.hypothesis.forEach(function (h, i) {
    var cls = "ap-cell" + (ASYM.sel === i + 1 ? " ap-sel" : "") + (wrong.indexOf(i + 1) >= 0 ? " ap-wrong" : "");
    var t = ASYM.tile(String(i + 1), [h[0] || "?"], h[1], cls);
    t.setAttribute("data-pos", String(i + 1));
    t.addEventListener("click", function () {
      if (v.result) { return; }
      ASYM.sel = i + 1; ASYM.shape = h[0]; ASYM.colour = h[1]; ASYM.render(v);
    });
    row.appendChild(t);
  });
  root.appendChild(row);
  if (ASYM.sel && !v.result) { root.appendChild(ASYM.picker(v)); }
  var fb = ASYM.feedback(v.feedback);
  var fbox = ASYM.el("div", "ap-feedback", fb.length ? "Feedback: " + fb.join(" ") :
    (v.feedback_mode === "none" ? "No feedback in this game." : ""));
  root.appendChild(fbox);
  if (v.result) {
    root.appendChild(ASYM.el("div", "ap-result " + (v.result.success ? "ap-won" : "ap-lost"), v.result.success ?
      "Solved after " + v.result.rounds + " round(s)!" : "Not solved. The hidden row was:"));
    if (v.result.success) { root.appendChild(ASYM.el("div", "ap-label", "The hidden row:")); }
    var truth = ASYM.el("div", "ap-row ap-truth");
    v.result.truth.forEach(function (t, i) { truth.appendChild(ASYM.tile(String(i + 1), [t[0]], t[1])); });
    root.appendChild(truth);
  } else {
    var bar = ASYM.el("div", "ap-bar");
    var done = ASYM.el("button", "ap-done", "End turn without a message");
    done.disabled = v.turn !== "me";
    done.addEventListener("click", function () { ASYM.send("done"); });
    bar.appendChild(done);
    if (v.noise) { bar.appendChild(ASYM.el("span", "ap-note", "Noisy channel: your partner gets your messages with random characters inserted.")); }
    root.appendChild(bar);
  }
};

window.SlurkTask.watch("asympuzl-state", function (v) { ASYM.render(v || ASYM.view || null); });
