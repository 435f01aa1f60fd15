;// Deal or No Deal page plugin: draws this seat's view (the JSON the bot writes into #dond-state, SlurkTask.watch):
// the items with their counts and YOUR values only, -/+ counters for what you ask for (the partner gets the rest),
// Propose / Accept / Reject (with an optional reason) / No deal buttons sent privately to the bot, the partner's
// standing offer, the offer history in your own frame, and the result. Text only via textContent; the ending box
// with the completion code is drawn by slurk-task.js into #dond-ending.
var DOND = window.DOND || {ask: null, key: null, confirmNoDeal: false};
window.DOND = DOND;

DOND.el = window.SlurkTask.element;   // slurk-task.js comes first in the layout
DOND.send = window.SlurkTask.command;

DOND.PLURALS = ["books", "hats", "balls"];

DOND.share = function (split, items) {
  return split.map(function (n, k) {
    return (n === 0 ? "no " : n + " ") + (n === 1 ? items[k] : DOND.PLURALS[k]);
  }).join(", ");
};

DOND.worth = function (split, values) {
  var s = 0;
  split.forEach(function (n, k) { s += n * values[k]; });
  return s;
};

DOND.standing = function (v) {
  var found = null;
  (v.offers || []).forEach(function (o) { if (o.by === "partner" && o.status === "open") { found = o; } });
  return found;
};

DOND.mine = function (v) {
  var found = null;
  (v.offers || []).forEach(function (o) { if (o.by === "me" && o.status === "open") { found = o; } });
  return found;
};

DOND.bump = function (k, d) {
  var v = DOND.view;
  if (!v || v.phase !== "negotiating") { return; }
  DOND.ask[k] = Math.max(0, Math.min(v.counts[k], DOND.ask[k] + d));
  DOND.render(v);
};

DOND.table = function (v) {
  var t = DOND.el("table", "dond-items"), head = DOND.el("tr"), live = v.phase === "negotiating";
  ["item", "count", "your value (each)", live ? "you ask for" : "you get", v.partner_name + " gets",
    "worth to you"].forEach(
    function (h) { head.appendChild(DOND.el("th", "", h)); });
  t.appendChild(head);
  v.items.forEach(function (name, k) {
    var tr = DOND.el("tr"), ask = DOND.el("td", "dond-ask");
    tr.setAttribute("data-item", name);
    tr.appendChild(DOND.el("th", "", DOND.PLURALS[k]));
    tr.appendChild(DOND.el("td", "dond-count", v.counts[k]));
    tr.appendChild(DOND.el("td", "dond-value", v.values[k]));
    var minus = DOND.el("button", "dond-minus", "\u2212"), plus = DOND.el("button", "dond-plus", "+");
    minus.setAttribute("data-item", name);
    plus.setAttribute("data-item", name);
    minus.disabled = !live || DOND.ask[k] <= 0;
    plus.disabled = !live || DOND.ask[k] >= v.counts[k];
    minus.addEventListener("click", function () { DOND.bump(k, -1); });
    plus.addEventListener("click", function () { DOND.bump(k, 1); });
    if (live) { ask.appendChild(minus); }  // once the game is over the counters are a plain result
    ask.appendChild(DOND.el("span", "dond-n", DOND.ask[k]));
    if (live) { ask.appendChild(plus); }
    tr.appendChild(ask);
    tr.appendChild(DOND.el("td", "dond-theirs", v.counts[k] - DOND.ask[k]));
    tr.appendChild(DOND.el("td", "dond-worth", DOND.ask[k] * v.values[k]));
    t.appendChild(tr);
  });
  var foot = DOND.el("tr");
  foot.appendChild(DOND.el("th", "", "total"));
  foot.appendChild(DOND.el("td", "", v.counts.reduce(function (a, b) { return a + b; }, 0)));
  foot.appendChild(DOND.el("td", "", "all worth " + v.max_value));
  foot.appendChild(DOND.el("td", "", ""));
  foot.appendChild(DOND.el("td", "", ""));
  foot.appendChild(DOND.el("td", "dond-total", DOND.worth(DOND.ask, v.values) + " of " + v.max_value));
  t.appendChild(foot);
  return t;
};

DOND.bar = function (v) {
  var bar = DOND.el("div", "dond-bar"), offer = DOND.standing(v);
  var same = offer && offer.mine.join(",") === DOND.ask.join(",");  // proposing the partner's own offer = the deal
  var propose = DOND.el("button", "dond-propose", same ? "Propose the same as " + v.partner_name + "'s offer #" +
    offer.id + " (that makes the deal)" : "Propose: I get " + DOND.share(DOND.ask, v.items));
  propose.id = "dond-propose";
  if (!DOND.ask.some(function (n) { return n > 0; })) {  // asking for nothing gives everything away: say so first
    propose.textContent = "Propose: set the counters (+) to what you want first";
    propose.disabled = true;
  }
  propose.addEventListener("click", function () {
    DOND.send("propose", DOND.ask.map(function (n, k) { return DOND.PLURALS[k] + "=" + n; }));
  });
  bar.appendChild(propose);
  var accept = DOND.el("button", "dond-accept", offer ? "Accept " + v.partner_name + "'s offer #" + offer.id :
    "Accept (no offer yet)");
  accept.id = "dond-accept";
  accept.disabled = !offer;
  accept.addEventListener("click", function () { if (offer) { DOND.send("accept", [String(offer.id)]); } });
  bar.appendChild(accept);
  var reason = DOND.el("input", "dond-reason");
  reason.id = "dond-reason";
  reason.placeholder = "why? (optional, " + v.partner_name + " sees it)";
  reason.maxLength = 200;
  reason.disabled = !offer;
  var reject = DOND.el("button", "dond-reject", "Reject");
  reject.id = "dond-reject";
  reject.disabled = !offer;
  reject.addEventListener("click", function () {
    if (!offer) { return; }
    var why = reason.value.trim().slice(0, 200);
    DOND.send("reject", why ? [String(offer.id), why] : [String(offer.id)]);
  });
  bar.appendChild(reject);
  bar.appendChild(reason);
  var nodeal = DOND.el("button", "dond-nodeal", DOND.confirmNoDeal ? "Really end with no deal (0 for both)?" :
    "No deal");
  nodeal.id = "dond-nodeal";
  nodeal.addEventListener("click", function () {
    if (DOND.confirmNoDeal) { DOND.confirmNoDeal = false; DOND.send("nodeal", []); } else { DOND.confirmNoDeal = true; }
    DOND.render(DOND.view);
  });
  bar.appendChild(nodeal);
  return bar;
};

DOND.history = function (v) {
  var box = DOND.el("div", "dond-history");
  box.appendChild(DOND.el("strong", "", "Offers so far"));
  v.offers.slice().reverse().forEach(function (o) {
    var who = o.by === "me" ? "You" : v.partner_name;
    var text = "#" + o.id + " (round " + o.round + ") " + who + ": you get " + DOND.share(o.mine, v.items) +
      " (worth " + o.my_value + " to you) \u2014 " + o.status + (o.reason ? ": \u201c" + o.reason + "\u201d" : "");
    var line = DOND.el("div", "dond-" + o.status, text);
    line.setAttribute("data-offer", String(o.id));
    box.appendChild(line);
  });
  return box;
};

DOND.render = function (v) {
  var root = document.getElementById("dond-board");
  if (!root || !v || !v.counts) { return; }
  var key = v.counts.join(",") + "/" + v.values.join(",");
  if (DOND.key !== key || !DOND.ask) {
    DOND.key = key;
    DOND.ask = [0, 0, 0];
  }
  if (v.phase === "over") { DOND.ask = v.result && v.result.deal ? v.result.mine.slice() : [0, 0, 0]; }
  DOND.view = v;
  while (root.firstChild) { root.removeChild(root.firstChild); }
  var over = v.phase === "over";
  var named = !!(v.core && v.core.roles);  // then the page's own line above says "You are Alice (...)"
  var stage = over ? "game over" : "round " + v.round + " of " + v.max_rounds + (v.last_round ? " (last round)" : "");
  root.appendChild(DOND.el("h3", "", named ? stage.charAt(0).toUpperCase() + stage.slice(1) :
    "You are " + v.me_name + " \u2014 " + stage));
  root.appendChild(DOND.el("div", "dond-note", "Your values are private: " + v.partner_name + " cannot see them, " +
    "and you cannot see " + v.partner_name + "'s. All items together are worth " + v.max_value + " to each of you."));
  root.appendChild(DOND.table(v));
  var offer = DOND.standing(v), mine = DOND.mine(v), status = DOND.el("div", "dond-status");
  if (!over) {
    root.appendChild(DOND.bar(v));
    if (offer) {
      root.appendChild(DOND.el("div", "dond-standing", v.partner_name + "'s offer #" + offer.id + ": you get " +
        DOND.share(offer.mine, v.items) + " (worth " + offer.my_value + " to you); " + v.partner_name + " gets " +
        DOND.share(offer.theirs, v.items) + "."));
    }
    status.textContent = mine ? "Your offer #" + mine.id + " is waiting for " + v.partner_name + "'s answer." :
      (offer ? "Accept or reject the offer, or set the counters and propose your own." :
        "Set the counters to what you want and press Propose, or talk in the chat.");
    root.appendChild(status);
  } else if (v.result) {
    var res = v.result;
    root.appendChild(DOND.el("div", "dond-result" + (res.deal ? "" : " dond-none"), res.deal ?
      "Deal! You get " + DOND.share(res.mine, v.items) + "; " + v.partner_name + " gets " +
      DOND.share(res.theirs, v.items) + ". Your score: " + res.my_score + " of " + v.max_value + "." :
      "No deal: you both score 0."));
  }
  if (v.offers && v.offers.length) { root.appendChild(DOND.history(v)); }
};

window.SlurkTask.watch("dond-state", function (v) { DOND.render(v || DOND.view || null); });
