;// DialOp Mediation page plugin: draws this seat's view (the JSON the bot writes into #mediation-state, through
// SlurkTask.watch). A user sees their own 3-day calendar (importance, shared or private), their flights (click one
// to see it on the calendar), their goals (the weights only with show_weights), and a proposal with their own score
// breakdown and Accept / Reject.
// The assistant sees each user's shared calendar and flights side by side, picks one flight per user (booking
// slots), sends the pair with Propose, and chooses who its typed lines go to (User 1, User 2 or both; relayed chat).
// Everything from the view is inserted with textContent (never innerHTML).
var MED = window.MED || {pick: [null, null], look: null, to: "both", lines: {user1: [], user2: []}};
window.MED = MED;

MED.HOUR = 20;          // pixels per hour in the calendar grid (a half-hour event is still a visible block)
MED.DAY0 = Date.UTC(2023, 4, 31);
MED.DAYS = ["Wed 5/31", "Thu 6/1", "Fri 6/2"];

MED.el = window.SlurkTask.element;   // slurk-task.js comes first in the layout
MED.send = window.SlurkTask.command;

// 12-hour clock, as the flights and events are written: 0 -> "12 AM", 15 -> "3 PM".
MED.hour12 = function (h) { return (h % 12 === 0 ? 12 : h % 12) + (h < 12 ? " AM" : " PM"); };
MED.seatName = function (seat) { return {user1: "User 1", user2: "User 2", assistant: "the assistant"}[seat] || "a user"; };
// "Wed 5/31 9:30 AM - 1:30 PM" -> "9:30 AM - 1:30 PM" (the block already sits in its day's column)
MED.clock = function (when) { return String(when || "").replace(/^[A-Z][a-z]{2} \d+\/\d+ /, ""); };

MED.minutes = function (iso) {  // minutes since 5/31 00:00 of "2023-06-01T14:30"
  var p = iso.split("T"), d = p[0].split("-"), t = p[1].split(":");
  return Math.round((Date.UTC(+d[0], +d[1] - 1, +d[2]) - MED.DAY0) / 60000) + (+t[0]) * 60 + (+t[1]);
};

// A 3-day grid (0:00-24:00); items: [{start, end, label, cls, title}]. Items crossing midnight are split.
MED.calendar = function (items) {
  var grid = MED.el("div", "md-grid");
  var cols = MED.DAYS.map(function (name) {
    var col = MED.el("div", "md-day"), body = MED.el("div", "md-daybody");
    col.appendChild(MED.el("div", "md-dayname", name));
    body.style.height = (24 * MED.HOUR) + "px";
    for (var h = 3; h < 24; h += 3) {
      var line = MED.el("div", "md-hour", MED.hour12(h));
      line.style.top = (h * MED.HOUR) + "px";
      body.appendChild(line);
    }
    col.appendChild(body);
    grid.appendChild(col);
    return body;
  });
  items.forEach(function (it) {
    var s = MED.minutes(it.start), e = MED.minutes(it.end);
    for (var d = 0; d < 3; d++) {
      var a = Math.max(s, d * 1440), b = Math.min(e, (d + 1) * 1440);
      if (b <= a) { continue; }
      var tall = (b - a) / 60 * MED.HOUR >= 13;  // room for one line of text; else the title (hover) says it
      var box = MED.el("div", "md-item " + (it.cls || ""), tall ? it.label : "");
      box.style.top = ((a - d * 1440) / 60 * MED.HOUR) + "px";
      box.style.height = Math.max(8, (b - a) / 60 * MED.HOUR - 1) + "px";
      box.title = it.title || it.label;
      cols[d].appendChild(box);
    }
  });
  return grid;
};

MED.flights = function (flights, chosen, onPick, cls) {
  var t = MED.el("table", "md-flights " + (cls || ""));
  var head = MED.el("tr");
  ["#", "carrier", "price", "when"].forEach(function (h) { head.appendChild(MED.el("th", "", h)); });
  t.appendChild(head);
  flights.forEach(function (f) {
    var tr = MED.el("tr", chosen === f.id ? "md-chosen" : "");
    [f.id, f.carrier, "$" + f.price, f.when].forEach(function (v) { tr.appendChild(MED.el("td", "", v)); });
    tr.setAttribute("data-flight", String(f.id));
    tr.addEventListener("click", function () { onPick(f.id); });
    t.appendChild(tr);
  });
  return t;
};

MED.userPage = function (root, v) {
  var p = v.pending, res = v.result;
  var shown = res ? res.flight.id : (p ? p.flight.id : MED.look);
  var items = v.calendar.map(function (e) {
    return {start: e.start, end: e.end, label: e.importance + "/10",  // a day column is narrow: the hover says more
            cls: e.shared ? "md-shared md-imp" + Math.ceil(e.importance / 4) : "md-private", title: "Meeting " + e.when +
            ", importance " + e.importance + (e.shared ? ", shared with the assistant" : ", private")};
  });
  var f = v.flights.filter(function (x) { return x.id === shown; })[0];
  if (f) { items.push({start: f.start, end: f.end, label: "Flight " + f.id, cls: "md-flight", title: "Flight " + f.id + ": " + f.when}); }
  var left = MED.el("div", "md-col");
  left.appendChild(MED.el("h4", "", "Your calendar"));
  left.appendChild(MED.calendar(items));
  left.appendChild(MED.el("div", "md-legend", "Blue: shared with the assistant (it does not see the importance). " +
    "Grey: private. n/10: how important a meeting is (hover a block for its time). Red: the flight you look at."));
  var right = MED.el("div", "md-col");
  // the goals, as the original's users were told them; the weights only with task option show_weights (ours)
  right.appendChild(MED.el("div", "md-prefs", "Your goals: flights that don't miss your important meetings, are " +
    "affordable, and arrive around the same time as your friend's."));
  if (v.prefs) {
    right.appendChild(MED.el("div", "md-prefs md-weights", "Price matters to you " + v.prefs.price_pref +
      "/20 (reference price $" + v.prefs.reference_price + "); arriving together matters " + v.prefs.arrival_pref + "/10."));
  }
  right.appendChild(MED.el("h4", "", "Your flights (click to see one on your calendar)"));
  right.appendChild(MED.flights(v.flights, shown, function (id) { MED.look = id; MED.render(v); }));
  var card = MED.el("div", "md-card");
  if (res) {
    card.appendChild(MED.el("div", "", "Booked: flight " + res.flight.id + ". Your group scored " + res.group + " (" +
      Math.round(100 * res.normalized) + "% of the way from the worst to the best pair). You got " + res.mine +
      (Math.abs(res.mine) === 1 ? " point" : " points") + " and your friend " + res.partner + "."));
  } else if (p) {
    var b = p.breakdown;
    card.appendChild(MED.el("div", "md-title", "The assistant proposes flight " + p.flight.id + " (" + p.flight.carrier +
      ", $" + p.flight.price + ", " + p.flight.when + ")"));
    [["Try not to skip important meetings", b.calendar], ["Get a good deal on the flight price", b.price],
     ["Have everyone arrive around the same time", b.arrival], ["Total score", b.total]].forEach(function (row) {
      var line = MED.el("div", "md-score");
      line.appendChild(MED.el("span", "", row[0]));
      line.appendChild(MED.el("b", "", row[1]));
      card.appendChild(line);
    });
    if (b.conflicts.length) {  // the meetings this flight makes you miss, by their time (ids are the bot's own)
      var missed = b.conflicts.map(function (id) {
        var e = v.calendar.filter(function (x) { return x.id === id; })[0];
        return e ? e.when + " (importance " + e.importance + ")" : null;
      }).filter(function (x) { return x; });
      card.appendChild(MED.el("div", "md-note", "You would miss: " + missed.join("; ")));
    }
    if (p.mine_accepted) {
      card.appendChild(MED.el("div", "md-note", "You accepted; waiting for the other user."));
    } else {
      var a = MED.el("button", "md-accept", "Accept"), r = MED.el("button", "md-reject", "Reject");
      // the id of the proposal shown: if the assistant replaced it meanwhile, the bot refuses the answer
      a.addEventListener("click", function () { MED.send("accept", [String(p.id)]); });
      r.addEventListener("click", function () { MED.send("reject", [String(p.id)]); });
      card.appendChild(a); card.appendChild(r);
    }
  } else {
    card.appendChild(MED.el("div", "md-note", "Tell the assistant (in the chat) which meetings matter to you; its " +
      "proposal will show up here."));
  }
  if (v.words_left !== null && v.words_left !== undefined) { card.appendChild(MED.el("div", "md-note", "Words left: " + v.words_left)); }
  right.insertBefore(card, right.firstChild);
  root.appendChild(left); root.appendChild(right);
};

MED.assistantPage = function (root, v) {
  var pend = v.pending, res = v.result;
  var bar = MED.el("div", "md-bar");
  bar.appendChild(MED.el("span", "", "Your messages go to:"));
  [["user1", "User 1"], ["user2", "User 2"], ["both", "Both"]].forEach(function (o) {
    var b = MED.el("button", "md-to" + (MED.to === o[0] ? " md-on" : ""), o[1]);
    b.setAttribute("data-to", o[0]);
    b.addEventListener("click", function () { MED.to = o[0]; MED.target(); MED.render(v); });
    bar.appendChild(b);
  });
  root.appendChild(bar);
  var rows = MED.el("div", "md-users");
  v.users.forEach(function (u, k) {
    var col = MED.el("div", "md-col md-user" + (k + 1));
    var chosen = res ? res.pair[k] : (pend ? pend.pair[k] : MED.pick[k]);
    col.appendChild(MED.pane(k));
    col.appendChild(MED.el("h4", "", "User " + (k + 1) + ": shared calendar and flights"));
    var items = u.calendar.map(function (e) {
      return {start: e.start, end: e.end, label: "Meeting " + MED.clock(e.when), cls: "md-shared", title: "Meeting " + e.when};
    });
    var f = u.flights.filter(function (x) { return x.id === chosen; })[0];
    if (f) { items.push({start: f.start, end: f.end, label: "Flight " + f.id, cls: "md-flight", title: "Flight " + f.id + ": " + f.when}); }
    col.appendChild(MED.calendar(items));
    col.appendChild(MED.flights(u.flights, chosen, function (id) {
      if (res) { return; }
      MED.pick[k] = MED.pick[k] === id ? null : id;
      MED.render(v);
    }, "md-pick" + (k + 1)));
    rows.appendChild(col);
  });
  root.appendChild(rows);
  var card = MED.el("div", "md-card");
  if (res) {
    card.appendChild(MED.el("div", "", "Booked flights " + res.pair[0] + " and " + res.pair[1] + ". The group scored " +
      res.group + "; the best pair scored " + res.best + " (" + Math.round(100 * res.normalized) + "%)."));
  } else {
    var slots = MED.el("div", "md-slots", "User 1 booking: " + (MED.pick[0] || "-") + "   User 2 booking: " + (MED.pick[1] || "-"));
    card.appendChild(slots);
    var go = MED.el("button", "md-propose", "Propose to both users");
    go.disabled = !(MED.pick[0] && MED.pick[1]);
    go.addEventListener("click", function () { MED.send("propose", [String(MED.pick[0]), String(MED.pick[1])]); });
    card.appendChild(go);
    if (pend) {
      card.appendChild(MED.el("div", "md-note", "Proposed flights " + pend.pair[0] + " and " + pend.pair[1] +
        (pend.accepted.length ? "; accepted by " + pend.accepted.map(MED.seatName).join(" and ") : "") + ". Waiting for the users."));
    }
    if (v.words_left !== null && v.words_left !== undefined) { card.appendChild(MED.el("div", "md-note", "Words left: " + v.words_left)); }
  }
  root.insertBefore(card, rows);
};

// One chat pane per user on the assistant's page: the lines that user wrote (Slurk's chat shows everything).
MED.PANE_LINES = 30;
MED.pane = function (k) {
  var seat = "user" + (k + 1), box = MED.el("div", "md-pane md-pane" + (k + 1));
  box.appendChild(MED.el("div", "md-panehead", "User " + (k + 1) + " says"));
  var lines = (MED.lines && MED.lines[seat]) || [];
  if (!lines.length) { box.appendChild(MED.el("div", "md-note", "Nothing yet.")); }
  lines.forEach(function (t) { box.appendChild(MED.el("div", "md-line", t)); });
  setTimeout(function () { box.scrollTop = box.scrollHeight; }, 0);
  return box;
};

MED.onChat = function (d) {
  var v = MED.view, users = v && v.core && v.core.users;
  if (!v || v.role !== "assistant" || !users || typeof d.message !== "string") { return; }
  Object.keys(users).forEach(function (seat) {
    if (MED.lines[seat] && String(users[seat]) === String(d.user.id)) {
      MED.lines[seat].push(d.message);
      if (MED.lines[seat].length > MED.PANE_LINES) { MED.lines[seat].shift(); }
      MED.render(v);
    }
  });
};

MED.target = function () {
  if (window.SlurkTask) { window.SlurkTask.setChatTarget(MED.to === "both" ? ["user1", "user2"] : [MED.to]); }
};

// The paper's turn order (task option turns=round-robin): whose turn it is; the assistant may write to the users
// whose turn it holds (the "To" switch keeps to them).
MED.turnLine = function (v) {
  var t = v.turn;
  if (!t || v.result) { return null; }
  var text = t.mine ? "Your turn (one message, proposal or answer)." : "Turns go round: waiting for " + t.now + ".";
  if (t.mine && t.write_to) { text += " You may write to " + t.write_to.map(MED.seatName).join(" or ") + "."; }
  return MED.el("div", "md-turn" + (t.mine ? " md-mine" : ""), text);
};

MED.render = function (v) {
  var root = document.getElementById("mediation-board");
  if (!root || !v || !v.role) { return; }
  MED.view = v;
  while (root.firstChild) { root.removeChild(root.firstChild); }
  if (v.turn && v.turn.write_to && v.turn.write_to.length && v.turn.write_to.indexOf(MED.to) < 0) {
    MED.to = v.turn.write_to[0];  // one user at a time, one whose turn the assistant holds
  }
  if (v.role === "assistant") { MED.target(); MED.assistantPage(root, v); } else { MED.userPage(root, v); }
  var turn = MED.turnLine(v), at = v.role === "assistant" ? root : root.lastChild;  // a user's: atop the right column
  if (turn && at) { at.insertBefore(turn, at.firstChild); }
  var end = window.SlurkTask && window.SlurkTask.ending ? window.SlurkTask.ending(v.core) : null;
  if (end && !v.result) {  // ended without a booking (a partner left, nobody moved): nothing left to press
    Array.prototype.forEach.call(root.querySelectorAll("button"), function (b) { b.disabled = true; });
    root.insertBefore(MED.el("div", "md-card md-ended", end.title), root.firstChild);
  }
};

window.SlurkTask.watch("mediation-state", function (v) { MED.render(v || MED.view || null); });
if (window.SlurkTask.onChat) { window.SlurkTask.onChat("mediation", MED.onChat); }
