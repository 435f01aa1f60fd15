;// Negotiation-games page plugin: draws this seat's payoff matrix (my moves as rows, my reward first) or game tree
// from the JSON view the bot writes into #matrix-games-state (SlurkTask.watch); shows the negotiation rounds (whose
// turn, the lines so far, a Stop-talking button = /halt), the move buttons (sent privately to the bot), "sealed"
// once committed and the partner's "has moved" without the move, then the reveal. Text only via textContent.
var MG = window.MG || {};
window.MG = MG;

MG.el = window.SlurkTask.element;   // slurk-task.js comes first in the layout
MG.send = window.SlurkTask.command;

MG.last = function (v) {
  var o = v.outcomes || [];
  return o.length ? o[o.length - 1] : null;
};

MG.matrix = function (v) {
  var t = MG.el("table", "mg-matrix"), head = MG.el("tr"), last = MG.last(v);
  head.appendChild(MG.el("th", "", "you \u2193 / " + v.partner_name + " \u2192"));
  v.their_actions.forEach(function (a) { head.appendChild(MG.el("th", "", a)); });
  t.appendChild(head);
  v.my_actions.forEach(function (a, i) {
    var tr = MG.el("tr"), sealed = v.commit && v.commit.sealed;
    if (sealed && sealed.sealed_move === a) { tr.className = "mg-mine"; }
    tr.appendChild(MG.el("th", "", a));
    v.matrix[i].forEach(function (c, j) {
      var td = MG.el("td");
      td.setAttribute("data-cell", i + ":" + j);
      td.appendChild(MG.el("span", "mg-me", c.me));
      td.appendChild(document.createTextNode(", "));
      td.appendChild(MG.el("span", "mg-them", c.them));
      if (last && last.my_move === a && last.their_move === v.their_actions[j]) { td.className = "mg-outcome"; }
      tr.appendChild(td);
    });
    t.appendChild(tr);
  });
  return t;
};

MG.tree = function (node, path, depth, v) {
  var ul = MG.el("ul", "mg-tree");
  Object.keys(node.moves).forEach(function (label) {
    var li = MG.el("li"), child = node.moves[label];
    var who = node.mover === "me" ? "you" : v.partner_name;
    var onPath = path !== null && path[depth] === label;
    if (onPath) { li.className = "mg-path"; }
    var edge = MG.el("span", "mg-edge", who + ": " + label);
    li.appendChild(edge);
    if (child.mover === undefined) {
      li.appendChild(document.createTextNode(" \u2192 "));
      li.appendChild(MG.el("span", "mg-me", "you " + child.me));
      li.appendChild(document.createTextNode(", "));
      li.appendChild(MG.el("span", "mg-them", v.partner_name + " " + child.them));
    } else {
      li.appendChild(MG.tree(child, onPath ? path : null, depth + 1, v));
    }
    ul.appendChild(li);
  });
  return ul;
};

MG.render = function (v) {
  var root = document.getElementById("matrix-games-board");
  if (!root || !v || !v.game) { return; }
  MG.view = v;
  while (root.firstChild) { root.removeChild(root.firstChild); }
  var title = v.game.title + (v.trials > 1 ? " \u2014 trial " + v.trial + " of " + v.trials : "");
  root.appendChild(MG.el("h3", "", title));
  root.appendChild(MG.el("div", "mg-desc", (v.core && v.core.roles ? "" : "You are " + v.me_name + ". ") + v.game.description +
    " Your reward is shown first (blue), " + v.partner_name + "'s second."));
  var last = MG.last(v);
  if (v.game.kind === "matrix") {
    root.appendChild(MG.matrix(v));
  } else {
    var shown = v.path && v.path.length ? v.path : (last && v.done ? last.path : v.path);
    root.appendChild(MG.tree(v.tree, shown || [], 0, v));
  }
  var neg = v.negotiation, status = MG.el("div", "mg-status"), bar = MG.el("div", "mg-bar");
  if (v.stage === "negotiate") {
    status.textContent = "Negotiation, round " + neg.round + " of " + neg.rounds + ": " +
      (neg.turn === "me" ? "your turn to write in the chat." : "waiting for " + v.partner_name + " to write.");
    if (neg.halt_asked.partner && !neg.halt_asked.me) { status.textContent += " " + v.partner_name + " asks to stop talking."; }
    var halt = MG.el("button", "mg-halt", neg.halt_asked.me ? "Waiting for " + v.partner_name + " to stop too" : "Stop talking");
    halt.disabled = !!neg.halt_asked.me;
    halt.addEventListener("click", function () { MG.send("halt"); });
    bar.appendChild(halt);
  } else if (v.stage === "move") {
    if (v.moves && v.moves.length) {
      status.textContent = v.game.kind === "matrix" ? "Choose your move (it stays sealed until both moves are in):" : "Your move:";
      v.moves.forEach(function (m) {
        var b = MG.el("button", "mg-move", m);
        b.setAttribute("data-move", m);
        b.addEventListener("click", function () { MG.send("move", [m]); });
        bar.appendChild(b);
      });
    } else if (v.commit && v.commit.sealed) {
      status.textContent = "Your move " + v.commit.sealed.sealed_move + " is sealed. " +
        (v.commit.partner ? "" : "Waiting for " + v.partner_name + " to move.");
    } else {
      status.textContent = "Waiting for " + v.partner_name + " to move.";
    }
    if (v.commit && v.commit.partner && !v.commit.me) { status.textContent += " " + v.partner_name + " has moved (sealed)."; }
  }
  root.appendChild(status);
  root.appendChild(bar);
  if (neg.messages && neg.messages.length) {
    var talk = MG.el("div", "mg-talk");
    neg.messages.forEach(function (m) {
      talk.appendChild(MG.el("div", "mg-line", (m.who === "me" ? "You" : v.partner_name) + ": " + m.text));
    });
    root.appendChild(talk);
  }
  if (last) {
    var r = MG.el("div", "mg-reveal");
    var moves = last.my_move !== undefined ? "You played " + last.my_move + ", " + v.partner_name + " played " +
      last.their_move + ". " : "Moves: " + last.path.join(", then ") + ". ";
    r.textContent = (v.trials > 1 ? "Trial " + last.trial + ": " : "") + moves + "Your reward: " + last.me + ", " +
      v.partner_name + "'s: " + last.them + "." + (last.is_ne ? " That is an equilibrium." : "");
    root.appendChild(r);
  }
};

window.SlurkTask.watch("matrix-games-state", function (v) { MG.render(v || MG.view || null); });
