;// DialOp Planning page plugin: draws this seat's view (JSON in #planning-state, SlurkTask.watch).
// User: the preferences as text, the latest proposal as a timeline (stops with price and features, travel legs,
// a score badge per slot), the scorecard (checklist, travel and stop subtotals, total, price), Accept / Reject for
// a full proposal, earlier proposals. Assistant: a map of the sites drawn as SVG (no tiles, no network), filters
// (type, max price, one box per yes/no feature with its count), a sortable site table, a detail card, a 3-slot
// builder, the search box (/search, answered privately) and Propose. All text goes in with textContent.
var PLAN = window.PLAN || {slots: [null, null, null], sort: {key: "name", desc: false}, filters: {}, detail: null};
window.PLAN = PLAN;
PLAN.COLORS = {restaurant: "#d9480f", bar: "#7048e8", cafe: "#a0522d", museum: "#1971c2", landmark: "#343a40",
  park: "#2f9e44", shop: "#c2255c"};

PLAN.el = window.SlurkTask.element;   // slurk-task.js comes first in the layout
PLAN.send = window.SlurkTask.command;
PLAN.fmt = function (v) { return v === true ? "yes" : v === false ? "no" : String(v); };
PLAN.signed = function (v) { return v > 0 ? "+" + v : String(v); };
PLAN.feats = function (f) {
  return Object.keys(f || {}).map(function (k) { return k + ": " + PLAN.fmt(f[k]); }).join(", ");
};

// ---- user ------------------------------------------------------------------------------------------------------
PLAN.renderUser = function (root, v) {
  var side = PLAN.el("div", "pl-prefs");
  side.appendChild(PLAN.el("h3", "", "Your travel preferences"));
  var ul = PLAN.el("ul");
  (v.preferences || []).forEach(function (t) { ul.appendChild(PLAN.el("li", "", t)); });
  side.appendChild(ul);
  side.appendChild(PLAN.el("p", "pl-note", "Tell the assistant what matters to you; it cannot see this list."));
  if (v.random_best !== null && v.random_best !== undefined) {
    side.appendChild(PLAN.el("p", "pl-note", "A random itinerary scores up to " + v.random_best + "."));
  }
  root.appendChild(side);
  var main = PLAN.el("div", "pl-main"), props = v.proposals || [];
  var p = props.length ? props[props.length - 1] : null;
  if (!p) {
    main.appendChild(PLAN.el("p", "pl-note", "No itinerary proposed yet."));
  } else {
    main.appendChild(PLAN.el("h3", "", "Proposal " + p.id + (p.full ? "" : " (suggestion)") + " — " + p.status));
    var tl = PLAN.el("ol", "pl-timeline"), card = p.card;
    for (var k = 0; k < 5; k++) {
      var li = PLAN.el("li", k % 2 ? "pl-leg" : "pl-stop");
      li.setAttribute("data-slot", String(k));
      li.appendChild(PLAN.el("span", "pl-badge " + (card.by_slot[k] < 0 ? "neg" : "pos"), PLAN.signed(card.by_slot[k])));
      if (k % 2 === 0) {
        var s = p.sites[k / 2];
        if (!s) { li.appendChild(PLAN.el("span", "pl-empty", "(empty)")); } else {
          li.appendChild(PLAN.el("b", "", s.name));
          li.appendChild(PLAN.el("span", "pl-meta", " " + s.etype + ", $" + s.price));
          li.appendChild(PLAN.el("div", "pl-feats", PLAN.feats(s.features)));
        }
      } else {
        var d = card.legs[(k - 1) / 2];
        li.appendChild(PLAN.el("span", "pl-meta", d === null ? "no travel" : "travel " + d + " mi"));
      }
      tl.appendChild(li);
    }
    main.appendChild(tl);
    var sc = PLAN.el("div", "pl-scorecard"), cl = PLAN.el("ul");
    card.checklist.forEach(function (c) {
      var li = PLAN.el("li", c.met ? "met" : "unmet");
      li.appendChild(PLAN.el("span", "pl-badge " + (c.score < 0 ? "neg" : "pos"), PLAN.signed(c.score)));
      li.appendChild(PLAN.el("span", "", (c.met ? "YES " : "NO ") + c.desc));
      cl.appendChild(li);
    });
    sc.appendChild(cl);
    var travel = card.by_slot[1] + card.by_slot[3], stops = card.by_slot[0] + card.by_slot[2] + card.by_slot[4];
    sc.appendChild(PLAN.el("div", "", "Travel score: " + travel + " · Stops score: " + stops + " · Price: $" + card.price));
    sc.appendChild(PLAN.el("div", "pl-total", "Overall score: " + card.total));
    main.appendChild(sc);
  }
  var bar = PLAN.el("div", "pl-bar");
  if (v.result) {
    bar.appendChild(PLAN.el("div", "pl-result", v.result.accepted ? ("Agreed. Your score " + v.result.score +
      " (best " + v.result.best + ", worst " + v.result.worst + "): " + Math.round(100 * v.result.normalized) + "%.")
      : "The game ended without an agreed itinerary."));
  } else if (v.must_respond && v.pending) {
    var a = PLAN.el("button", "pl-accept", "Accept"), r = PLAN.el("button", "pl-reject", "Reject");
    var pid = [String(v.pending.id)];  // the proposal shown: a newer one meanwhile makes the bot refuse the answer
    a.addEventListener("click", function () { PLAN.send("accept", pid); });
    r.addEventListener("click", function () { PLAN.send("reject", pid); });
    bar.appendChild(a); bar.appendChild(r);
  }
  main.appendChild(bar);
  if (props.length > 1) {
    var hist = PLAN.el("ul", "pl-history");
    props.slice(0, -1).forEach(function (q) {
      hist.appendChild(PLAN.el("li", "", "#" + q.id + " " + q.sites.map(function (s) { return s ? s.name : "(empty)"; })
        .join(" → ") + ": " + q.card.total + " (" + q.status + ")"));
    });
    main.appendChild(hist);
  }
  root.appendChild(main);
};

// ---- assistant -------------------------------------------------------------------------------------------------
PLAN.visible = function (v) {
  var f = PLAN.filters;
  return v.sites.map(function (s, i) { return i; }).filter(function (i) {
    var s = v.sites[i];
    if (f.type && s.etype !== f.type) { return false; }
    if (f.maxPrice !== undefined && f.maxPrice !== "" && s.price > Number(f.maxPrice)) { return false; }
    return Object.keys(f.feats || {}).every(function (k) { return !f.feats[k] || s.features[k] === true; });
  });
};

PLAN.drawMap = function (v, ids) {
  var NS = "http://www.w3.org/2000/svg", W = 420, H = 300, pad = 14;
  var lons = v.sites.map(function (s) { return s.loc[0]; }), lats = v.sites.map(function (s) { return s.loc[1]; });
  var x0 = Math.min.apply(null, lons), x1 = Math.max.apply(null, lons);
  var y0 = Math.min.apply(null, lats), y1 = Math.max.apply(null, lats);
  var sx = function (x) { return pad + (x - x0) / ((x1 - x0) || 1) * (W - 2 * pad); };
  var sy = function (y) { return H - pad - (y - y0) / ((y1 - y0) || 1) * (H - 2 * pad); };
  var svg = document.createElementNS(NS, "svg");
  svg.setAttribute("viewBox", "0 0 " + W + " " + H);
  svg.setAttribute("class", "pl-map");
  var chosen = PLAN.slots.filter(function (s) { return s !== null; });
  for (var k = 0; k < 2; k++) {
    if (PLAN.slots[k] !== null && PLAN.slots[k + 1] !== null) {
      var a = v.sites[PLAN.slots[k]], b = v.sites[PLAN.slots[k + 1]], ln = document.createElementNS(NS, "line");
      ln.setAttribute("x1", sx(a.loc[0])); ln.setAttribute("y1", sy(a.loc[1]));
      ln.setAttribute("x2", sx(b.loc[0])); ln.setAttribute("y2", sy(b.loc[1]));
      ln.setAttribute("class", "pl-route");
      svg.appendChild(ln);
    }
  }
  v.sites.forEach(function (s, i) {
    var c = document.createElementNS(NS, "circle");
    c.setAttribute("cx", sx(s.loc[0])); c.setAttribute("cy", sy(s.loc[1]));
    c.setAttribute("r", chosen.indexOf(i) >= 0 ? 8 : 5);
    c.setAttribute("fill", PLAN.COLORS[s.etype] || "#555");
    c.setAttribute("opacity", ids.indexOf(i) >= 0 ? "1" : "0.2");
    c.setAttribute("data-site", String(i));
    var t = document.createElementNS(NS, "title"); t.textContent = s.name + " (" + s.etype + ")"; c.appendChild(t);
    c.addEventListener("click", function () { PLAN.show(v, i); });
    svg.appendChild(c);
  });
  // names next to the dots that matter: the itinerary's, the one in the detail card, or every shown site when the
  // filters leave few (all 39 names would cover the map)
  v.sites.forEach(function (s, i) {
    var named = chosen.indexOf(i) >= 0 || PLAN.detail === i || (ids.length <= 12 && ids.indexOf(i) >= 0);
    if (!named) { return; }
    var label = document.createElementNS(NS, "text");
    label.setAttribute("x", sx(s.loc[0]) + 7); label.setAttribute("y", sy(s.loc[1]) + 3);
    label.setAttribute("class", "pl-label");
    label.textContent = s.name;
    svg.appendChild(label);
  });
  return svg;
};

// What the dot colours mean (only the types this map has).
PLAN.legend = function (v) {
  var box = PLAN.el("div", "pl-legend"), seen = {};
  v.sites.forEach(function (s) { seen[s.etype] = true; });
  Object.keys(PLAN.COLORS).filter(function (t) { return seen[t]; }).forEach(function (t) {
    var item = PLAN.el("span", "pl-legend-item"), dot = PLAN.el("span", "pl-dot");
    dot.style.background = PLAN.COLORS[t];
    item.appendChild(dot); item.appendChild(document.createTextNode(t));
    box.appendChild(item);
  });
  box.appendChild(PLAN.el("span", "pl-note", "Click a dot or a row for details; faded dots are filtered out."));
  return box;
};

// The detail card of site i, brought into view (a row far down the table would otherwise open it off screen).
PLAN.show = function (v, i) {
  PLAN.detail = i;
  PLAN.render(v);
  var card = document.querySelector("#planning-board .pl-detail");
  if (card && card.scrollIntoView) { card.scrollIntoView({block: "nearest"}); }
};

PLAN.table = function (v, ids) {
  var t = PLAN.el("table", "pl-sites"), head = PLAN.el("tr"), cols = ["name", "type", "price", "rating", "features"];
  cols.forEach(function (c) {
    var th = PLAN.el("th", "", c + (PLAN.sort.key === c ? (PLAN.sort.desc ? " ▼" : " ▲") : ""));
    th.setAttribute("data-col", c);
    th.addEventListener("click", function () {
      PLAN.sort = {key: c, desc: PLAN.sort.key === c ? !PLAN.sort.desc : false}; PLAN.render(v);
    });
    head.appendChild(th);
  });
  t.appendChild(head);
  var val = function (i, c) {
    var s = v.sites[i];
    return c === "name" ? s.name : c === "type" ? s.etype : c === "price" ? s.price :
      c === "rating" ? (s.features.rating === undefined ? -1 : s.features.rating) : PLAN.feats(s.features);
  };
  ids.slice().sort(function (a, b) {
    var x = val(a, PLAN.sort.key), y = val(b, PLAN.sort.key), o = x < y ? -1 : x > y ? 1 : 0;
    return PLAN.sort.desc ? -o : o;
  }).forEach(function (i) {
    var s = v.sites[i], tr = PLAN.el("tr", PLAN.detail === i ? "sel" : "");
    tr.setAttribute("data-site", String(i));
    [s.name, s.etype, "$" + s.price, s.features.rating === undefined ? "" : s.features.rating,
      PLAN.feats(s.features)].forEach(function (x) { tr.appendChild(PLAN.el("td", "", x)); });
    tr.addEventListener("click", function () { PLAN.show(v, i); });
    t.appendChild(tr);
  });
  return t;
};

PLAN.renderAssistant = function (root, v) {
  var left = PLAN.el("div", "pl-left"), right = PLAN.el("div", "pl-right"), ids = PLAN.visible(v);
  var f = PLAN.el("div", "pl-filters"), sel = PLAN.el("select", "pl-type");
  ["", "restaurant", "bar", "cafe", "museum", "landmark", "park", "shop"].forEach(function (t) {
    var o = PLAN.el("option", "", t || "all types"); o.value = t; if (PLAN.filters.type === t) { o.selected = true; }
    sel.appendChild(o);
  });
  sel.addEventListener("change", function () { PLAN.filters.type = sel.value; PLAN.render(v); });
  var price = PLAN.el("input", "pl-maxprice"); price.type = "number"; price.placeholder = "max $";
  price.value = PLAN.filters.maxPrice || "";
  price.addEventListener("change", function () { PLAN.filters.maxPrice = price.value; PLAN.render(v); });
  f.appendChild(sel); f.appendChild(price);
  PLAN.filters.feats = PLAN.filters.feats || {};
  Object.keys(v.features).filter(function (k) { return v.features[k].type === "bool"; }).forEach(function (k) {
    var lab = PLAN.el("label", "pl-feat"), box = PLAN.el("input");
    box.type = "checkbox"; box.checked = !!PLAN.filters.feats[k]; box.setAttribute("data-feature", k);
    box.addEventListener("change", function () { PLAN.filters.feats[k] = box.checked; PLAN.render(v); });
    var n = v.sites.filter(function (s) { return s.features[k] === true; }).length;
    lab.appendChild(box); lab.appendChild(document.createTextNode(k + " (" + n + ")"));
    f.appendChild(lab);
  });
  left.appendChild(f);
  left.appendChild(PLAN.drawMap(v, ids));
  left.appendChild(PLAN.legend(v));
  left.appendChild(PLAN.table(v, ids));
  if (PLAN.detail !== null && v.sites[PLAN.detail]) {
    var s = v.sites[PLAN.detail], card = PLAN.el("div", "pl-detail");
    card.appendChild(PLAN.el("b", "", s.name));
    card.appendChild(PLAN.el("div", "", s.etype + ", about $" + s.price));
    card.appendChild(PLAN.el("div", "pl-feats", PLAN.feats(s.features)));
    var add = PLAN.el("button", "pl-add", "Add to itinerary");
    add.addEventListener("click", function () {
      var free = PLAN.slots.indexOf(null);
      if (free >= 0 && PLAN.slots.indexOf(PLAN.detail) < 0) { PLAN.slots[free] = PLAN.detail; }
      PLAN.render(v);
    });
    card.appendChild(add);
    right.appendChild(card);
  }
  var b = PLAN.el("div", "pl-builder");
  b.appendChild(PLAN.el("h3", "", "Itinerary"));
  PLAN.slots.forEach(function (i, k) {
    var row = PLAN.el("div", "pl-slot", (k + 1) + ". " + (i === null ? "(empty)" : v.sites[i].name));
    row.setAttribute("data-slot", String(k));
    if (i !== null) {
      var x = PLAN.el("button", "pl-clear", "×");
      x.addEventListener("click", function () { PLAN.slots[k] = null; PLAN.render(v); });
      row.appendChild(x);
    }
    b.appendChild(row);
  });
  var used = PLAN.slots.filter(function (i) { return i !== null; });
  var prop = PLAN.el("button", "pl-propose", used.length === 3 ? "Propose" : "Suggest (partial)");
  prop.disabled = !used.length || !!v.result || !!v.pending;
  prop.addEventListener("click", function () {
    PLAN.send("propose", [PLAN.slots.map(function (i) { return i === null ? "NULL" : v.sites[i].name; }).join(", ")]);
  });
  b.appendChild(prop);
  if (v.pending) { b.appendChild(PLAN.el("p", "pl-note", "Waiting for the user to accept or reject.")); }
  if (v.words_left !== null && v.words_left !== undefined) { b.appendChild(PLAN.el("p", "pl-note", "Words left: " + v.words_left)); }
  right.appendChild(b);
  var form = PLAN.el("form", "pl-search"), q = PLAN.el("input", "pl-query");
  q.placeholder = "e.g. type == cafe, price <= 20";
  q.title = "Search the sites, e.g. type == cafe, has wifi, price <= 20, sort_by=price, limit=3 (only you see the answer)";
  form.appendChild(q); form.appendChild(PLAN.el("button", "", "Search"));
  form.addEventListener("submit", function (e) {
    e.preventDefault();
    var words = q.value.trim().split(/\s+/).filter(function (w) { return w; });
    if (words.length) { PLAN.send("search", words.slice(0, 30)); }
  });
  right.appendChild(form);
  (v.searches || []).slice().reverse().forEach(function (s) {
    right.appendChild(PLAN.el("pre", "pl-result-text", "/search " + s.query + "\n" + s.text));
  });
  (v.proposals || []).forEach(function (p) {
    right.appendChild(PLAN.el("div", "pl-note", "#" + p.id + " " + p.slots.map(function (i) {
      return i === null ? "(empty)" : v.sites[i].name; }).join(" → ") + " (" + p.status + ")"));
  });
  if (v.result) {  // a game closed without an agreement has a result too (accepted false)
    right.appendChild(PLAN.el("div", "pl-result", v.result.accepted ? "Agreed: " + Math.round(100 * v.result.normalized) +
      "% of the best possible." : "The game ended without an agreed itinerary."));
  }
  root.appendChild(left); root.appendChild(right);
};

PLAN.render = function (v) {
  var root = document.getElementById("planning-board");
  if (!root || !v || !v.role) { return; }
  PLAN.view = v;
  var keep = document.activeElement && document.activeElement.className === "pl-query" ? document.activeElement.value : null;
  while (root.firstChild) { root.removeChild(root.firstChild); }
  root.className = "pl-" + v.role;
  if (v.role === "user") { PLAN.renderUser(root, v); } else { PLAN.renderAssistant(root, v); }
  if (keep !== null) { var q = root.querySelector(".pl-query"); if (q) { q.value = keep; q.focus(); } }
};

window.SlurkTask.watch("planning-state", function (v) { PLAN.render(v || PLAN.view || null); });
