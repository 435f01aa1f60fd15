;// Traveling Adventurers: draws the house and sends the player's moves to the bot.
// Starts with ';' on purpose: Slurk glues layout triggers together without semicolons (slurk-protocol.md §8.1).
//
// Needs slurk-task.js (listed before this file in the layout): the bot writes this seat's view as JSON into
// #travel-state (SlurkTask.watch), and the moves go privately to the bot (SlurkTask.send, a message_command
// {command: {command: "propose", args: [...]}, room, receiver_id: <bot>}).
// Everything that comes from people or the game is put into the page with textContent / DOM APIs only.
//
// The layout script is evaluated again on every `joined_room`: each evaluation makes a new TravelBoard for the
// new html; SlurkTask keeps the socket handlers and the room's last view.
//
// While the game plays, the view comes in two parts (one update per move reaches both pages): #travel-shared in
// seat-absolute terms and #travel-state with this seat's own part; TravelPage.combine puts the seat's view back
// together (tasks/travel/page.py is its Python twin; tests/test_page_parts.py runs both on the same games).
// BEGIN travel-combine
window.TravelPage = {
    combine: function (shared, own) {
        var seat = own.world, other = seat, i, p = shared.pending;
        for (i = 0; i < own.seats.length; i++) { if (own.seats[i] !== seat) { other = own.seats[i]; } }
        return {
            rooms: own.rooms, start: own.start, world: seat,
            my_coins: own.my_coins, partner_coins: own.partner_coins,
            agreed: shared.agreed,
            pending: p === null || p === undefined ? null :
                {id: p.id, by: p.by, mine: p.by === seat, path: p.path, kind: p.kind},
            submitted: {me: own.my_tour, partner: shared.submitted[other]},
            turns_left: {me: shared.turns_left[seat], partner: shared.turns_left[other]},
            result: shared.result, my_shared: own.my_shared, partner_submitted: own.partner_submitted,
            coin_range: own.coin_range, turn_limit: own.turn_limit, rules: own.rules, share: own.share
        };
    }
};
// END travel-combine
window.TravelBoard = (function () {
    "use strict";

    var SVG_NS = "http://www.w3.org/2000/svg";
    var W = 740, H = 470, NODE_R = 30;
    var COLORS = {
        hall: "#c3cad6", agreed: "#1d4ed8", pending: "#c2410c", draft: "#7e22ce", optimal: "#16a34a",
        ink: "#1d2433", muted: "#6b7385", partner: "#0f766e", start: "#b45309", visited: "#dbe7fb"
    };

    var st = {view: null, draft: [], reviseAt: null, hint: "", error: ""};

    function $id(id) { return document.getElementById(id); }

    function el(tag, attrs, text) {
        var e = document.createElement(tag);
        var k;
        for (k in (attrs || {})) {
            if (Object.prototype.hasOwnProperty.call(attrs, k)) { e.setAttribute(k, attrs[k]); }
        }
        if (text !== undefined && text !== null) { e.textContent = String(text); }
        return e;
    }

    function svg(tag, attrs, text) {
        var e = document.createElementNS(SVG_NS, tag);
        var k;
        for (k in (attrs || {})) {
            if (Object.prototype.hasOwnProperty.call(attrs, k)) { e.setAttribute(k, String(attrs[k])); }
        }
        if (text !== undefined && text !== null) { e.textContent = String(text); }
        return e;
    }

    function clear(node) { while (node && node.firstChild) { node.removeChild(node.firstChild); } }

    // ---------------------------------------------------------------------------------------------------------
    // The view

    function view() { return st.view; }
    function rooms() { return (view() && Array.isArray(view().rooms)) ? view().rooms : []; }
    function ids() { return rooms().map(function (r) { return String(r.id); }); }
    function roomName(id) {
        var r = rooms().filter(function (x) { return String(x.id) === id; })[0];
        return r && r.name ? String(r.name) : "";
    }
    function start() { var v = view(); return v && v.start ? String(v.start) : (ids()[0] || ""); }
    function agreed() { var v = view(); return v && Array.isArray(v.agreed) ? v.agreed.map(String) : []; }
    function phase() { var v = view(); return v && v.core && v.core.phase ? v.core.phase : "waiting"; }
    function playing() { return phase() === "playing"; }
    function edgeKey(a, b) { return [String(a), String(b)].sort().join("-"); }
    function coins(which, a, b) {
        var v = view(), d = v && v[which];
        if (!d || typeof d !== "object") { return null; }
        var x = d[edgeKey(a, b)];
        return (x === undefined || x === null) ? null : x;
    }

    // What Submit sends: the agreed tour; without one (a person who agreed in plain words), the tour the partner
    // submitted; else a full tour drawn on the board (independent submissions under the paper's rules).
    // The submit command's arguments (the tour shown, so a tour agreed meanwhile is never submitted unseen), or
    // null when there is nothing to submit.
    function submitTour() {
        var v = view(), drawn = draftPath().map(String);
        if (isFullTour(agreed())) { return agreed(); }
        if (v && Array.isArray(v.partner_submitted) && isFullTour(v.partner_submitted.map(String))) {
            return v.partner_submitted.map(String);
        }
        return st.draft.length && isFullTour(drawn) ? drawn : null;
    }

    function isFullTour(path) {
        var n = ids().length, seen = {}, i;
        if (!n || !path.length || path[0] !== start()) { return false; }
        var body = path;
        if (path.length === n + 1 && path[n] === start()) { body = path.slice(0, n); }
        if (body.length !== n) { return false; }
        for (i = 0; i < body.length; i++) {
            if (seen[body[i]] || ids().indexOf(body[i]) < 0) { return false; }
            seen[body[i]] = true;
        }
        return true;
    }

    function base() {
        var a = agreed();
        if (st.reviseAt !== null && st.reviseAt < a.length) { return a.slice(0, st.reviseAt + 1); }
        return a.length ? a : (start() ? [start()] : []);
    }
    function draftPath() { return base().concat(st.draft); }
    function isClosed(path) { return path.length === ids().length + 1 && path[path.length - 1] === start(); }
    function coversAll(path) {
        var all = ids();
        return all.every(function (r) { return path.indexOf(r) >= 0; });
    }
    function arrow(path) {
        return path.map(function (r) { return r; }).join(" \u2192 ");
    }

    // The path of a proposal as drawn: a full path from the start as given; a partial one hangs off the
    // agreed room it starts from, or off the end of the agreed path.
    function anchored(path) {
        var p = (path || []).map(String), a = agreed();
        if (!p.length) { return p; }
        if (p[0] === start() || a.indexOf(p[0]) >= 0) { return p; }
        var tail = a.length ? a[a.length - 1] : start();
        return [tail].concat(p);
    }

    // ---------------------------------------------------------------------------------------------------------
    // Sending

    function send(command, args) {
        window.SlurkTask.send({command: command, args: args}, function (reason) {
            setHint("The server refused the " + command + ": " + reason);
        });
    }

    // A hint that a move went through is shown only once the bot has acknowledged it (its view carries the ack);
    // until then the page says it is sending, and the shared banner says when the game master is reconnecting.
    function sendThen(command, args, sending, sent) {
        send(command, args);
        if (window.SlurkTask.keyed && window.SlurkTask.keyed()) {
            st.afterAck = sent;
            setHint(sending);
        } else {
            setHint(sent);
        }
    }

    function setHint(text) { st.hint = text || ""; var h = $id("travel-hint"); if (h) { h.textContent = st.hint; } }

    // ---------------------------------------------------------------------------------------------------------
    // Clicking rooms builds the draft

    function clickRoom(id) {
        if (!playing()) { setHint("The game is not running, so the map is read-only."); return; }
        var b = base(), path = draftPath(), a = agreed();
        var di = st.draft.indexOf(id);
        if (di >= 0 && !(id === start() && di < st.draft.length - 1)) {
            // Clicking a room of the draft cuts the draft back to it (the last one is removed).
            st.draft = (di === st.draft.length - 1) ? st.draft.slice(0, di) : st.draft.slice(0, di + 1);
            setHint(st.draft.length ? "Draft shortened." : "Draft cleared.");
        } else if (isClosed(path) && st.draft.length) {
            setHint("The tour is closed. Press Propose, or click a drafted room to shorten the draft.");
        } else if (id === start() && b.indexOf(id) === 0 && path.length > 1 && !isClosed(path)) {
            if (coversAll(path)) {
                st.draft.push(id);
                setHint("Tour closed: press Propose to suggest it to your partner.");
            } else {
                setHint("Visit every room before you return to the start room.");
            }
        } else if (b.indexOf(id) >= 0) {
            var ai = a.indexOf(id);
            if (st.draft.length) {
                setHint("Room " + id + " is already on the path. Clear the draft to go back to an earlier room.");
            } else if (ai >= 0 && ai < a.length - 1) {
                st.reviseAt = ai;
                setHint("Changing the agreed path from room " + id + ": click the rooms that should follow it.");
            } else if (st.reviseAt !== null && ai === a.length - 1) {
                st.reviseAt = null;
                setHint("Continuing from the end of the agreed path.");
            } else {
                setHint("You are in room " + id + ": click the next room.");
            }
        } else {
            st.draft.push(id);
            setHint("");
        }
        render();
    }

    function proposalArgs() {
        if (st.reviseAt !== null) { return draftPath(); }
        return st.draft.slice();
    }

    // ---------------------------------------------------------------------------------------------------------
    // Drawing

    function positions() {
        var list = ids(), n = list.length, pos = {}, i;
        var twoLines = list.some(function (r) { return wrapName(roomName(r)).length > 1; });
        var cx = W / 2, cy = H / 2 + 2, rx = 228, ry = twoLines ? 152 : 166;
        for (i = 0; i < n; i++) {
            var ang = -Math.PI / 2 + 2 * Math.PI * i / n;
            pos[list[i]] = {x: cx + rx * Math.cos(ang), y: cy + ry * Math.sin(ang), ang: ang};
        }
        return pos;
    }

    function labelText(a, b) {
        var mine = coins("my_coins", a, b), theirs = coins("partner_coins", a, b);
        return {mine: mine === null ? "\u2013" : String(mine), theirs: theirs === null ? "?" : String(theirs),
                shared: theirs !== null};
    }

    // Hallway labels sit on their own line. In a complete graph many lines cross (all diagonals of a hexagon meet
    // in the middle), so each label takes the spot along its hallway that overlaps no label or room placed before
    // it and that as few other hallways cross as possible (a label on a crossing would be ambiguous).
    function segmentHitsBox(p, q, box) {
        var x0 = box.x - box.w / 2, x1 = box.x + box.w / 2, y0 = box.y - box.h / 2, y1 = box.y + box.h / 2;
        var t0 = 0, t1 = 1, dx = q.x - p.x, dy = q.y - p.y, i;
        var ps = [-dx, dx, -dy, dy], qs = [p.x - x0, x1 - p.x, p.y - y0, y1 - p.y];
        for (i = 0; i < 4; i++) {
            if (ps[i] === 0) {
                if (qs[i] < 0) { return false; }
            } else {
                var r = qs[i] / ps[i];
                if (ps[i] < 0) { t0 = Math.max(t0, r); } else { t1 = Math.min(t1, r); }
                if (t0 > t1) { return false; }
            }
        }
        return true;
    }

    function placeLabels(pos, edges) {
        var out = {}, tries = [], t;
        for (t = 0.14; t <= 0.861; t += 0.02) { tries.push(t); }
        var nodes = ids().map(function (r) { return pos[r]; });
        function cost(box, self) {
            var bad = 0;
            Object.keys(out).forEach(function (k) {
                var p = out[k];
                if (k !== self && Math.abs(p.x - box.x) < (p.w + box.w) / 2 + 4 &&
                        Math.abs(p.y - box.y) < (p.h + box.h) / 2 + 3) {
                    bad += 100;
                }
            });
            nodes.forEach(function (c) {
                var dx = Math.max(Math.abs(c.x - box.x) - box.w / 2, 0), dy = Math.max(Math.abs(c.y - box.y) - box.h / 2, 0);
                if (dx * dx + dy * dy < (NODE_R + 6) * (NODE_R + 6)) { bad += 100; }
            });
            var grown = {x: box.x, y: box.y, w: box.w + 6, h: box.h + 6};
            edges.forEach(function (e) {
                if (e.key !== self && segmentHitsBox(pos[e.a], pos[e.b], grown)) { bad += 3; }
            });
            return bad + box.pref;
        }
        var small = ids().length > 6, fs = labelFont();
        var candidates = {};
        edges.forEach(function (e) {
            var p = pos[e.a], q = pos[e.b], lt = labelText(e.a, e.b), list = [];
            var w = (small ? 12 : 16) + fs * 0.57 * (lt.mine.length + lt.theirs.length + 3), h = small ? 19 : 22;
            var len = Math.sqrt((q.x - p.x) * (q.x - p.x) + (q.y - p.y) * (q.y - p.y)) || 1;
            var nx = -(q.y - p.y) / len, ny = (q.x - p.x) / len;
            // along the hallway, and a little to either side of it (the line still runs through the label)
            [0, 6, -6].forEach(function (side) {
                tries.forEach(function (tt) {
                    list.push({x: p.x + (q.x - p.x) * tt + nx * side, y: p.y + (q.y - p.y) * tt + ny * side, w: w, h: h,
                               pref: 4 * Math.abs(tt - 0.5) + (side ? 1 : 0)});
                });
            });
            candidates[e.key] = list;
        });
        function bestFor(key) {
            var best = null;
            candidates[key].forEach(function (box) {
                var score = cost(box, key);
                if (!best || score < best.score) { best = {box: box, score: score}; }
            });
            return best;
        }
        // greedy, then a few rounds in which every label moves to its best spot given all the others
        edges.forEach(function (e) { out[e.key] = bestFor(e.key).box; });
        var round, changed;
        for (round = 0; round < 6; round++) {
            changed = false;
            edges.forEach(function (e) {
                var now = cost(out[e.key], e.key), best = bestFor(e.key);
                if (best.score < now - 0.01) { out[e.key] = best.box; changed = true; }
            });
            if (!changed) { break; }
        }
        return out;
    }

    function labelFont() { return ids().length > 6 ? 13 : 15; }

    function pathSegments(path) {
        var segs = [], i;
        for (i = 0; i + 1 < path.length; i++) { segs.push([path[i], path[i + 1]]); }
        return segs;
    }

    function drawPath(g, pos, path, attrs) {
        pathSegments(path).forEach(function (s) {
            var p = pos[s[0]], q = pos[s[1]];
            if (!p || !q) { return; }
            var a = {x1: p.x, y1: p.y, x2: q.x, y2: q.y, fill: "none"}, k;
            for (k in attrs) { if (Object.prototype.hasOwnProperty.call(attrs, k)) { a[k] = attrs[k]; } }
            g.appendChild(svg("line", a));
        });
    }

    function drawBoard() {
        var host = $id("travel-board");
        if (!host) { return; }
        clear(host);
        var list = ids();
        if (!list.length) {
            host.appendChild(el("p", {"class": "travel-intro", style: "padding: 12px"}, "The map appears when the game starts."));
            return;
        }
        var pos = positions(), v = view(), a = agreed(), dp = draftPath(), over = phase() === "over";
        host.classList.toggle("is-locked", !playing());
        host.classList.toggle("is-live", playing());
        var root = svg("svg", {viewBox: "0 0 " + W + " " + H, role: "group", "aria-label": "House map", id: "travel-svg"});
        root.appendChild(svg("title", {}, "House map: rooms, hallways and coins"));

        // hallways; the long diagonals (which cross the most others) get their label spots first
        var edges = [], i, j, n = list.length;
        for (i = 0; i < n; i++) {
            for (j = i + 1; j < n; j++) {
                var d = Math.min(j - i, n - (j - i));
                edges.push({a: list[i], b: list[j], key: edgeKey(list[i], list[j]), d: d});
            }
        }
        edges.sort(function (x, y) { return y.d - x.d; });
        var halls = svg("g", {"class": "travel-halls"}), hallLines = {};
        edges.forEach(function (e) {
            var p = pos[e.a], q = pos[e.b];
            hallLines[e.key] = svg("line", {x1: p.x, y1: p.y, x2: q.x, y2: q.y, stroke: COLORS.hall, "stroke-width": 2,
                                            "data-edge": e.key});
            halls.appendChild(hallLines[e.key]);
        });
        root.appendChild(halls);

        var result = v && v.result;
        if (over && result && Array.isArray(result.optimal_tour) && result.optimal_tour.length > 1) {
            var og = svg("g", {"class": "travel-optimal", "data-path": result.optimal_tour.join(" ")});
            var tour = result.optimal_tour.map(String);
            if (tour[tour.length - 1] !== tour[0]) { tour = tour.concat([tour[0]]); }
            drawPath(og, pos, tour, {stroke: COLORS.optimal, "stroke-width": 16, "stroke-opacity": 0.35,
                                     "stroke-linecap": "round"});
            root.appendChild(og);
        }

        var ag = svg("g", {"class": "travel-agreed", "data-path": a.join(" ")});
        drawPath(ag, pos, a, {stroke: COLORS.agreed, "stroke-width": 7, "stroke-linecap": "round"});
        root.appendChild(ag);

        if (v && v.pending && Array.isArray(v.pending.path) && !over) {
            var pp = anchored(v.pending.path);
            var pg = svg("g", {"class": "travel-pending-path", "data-path": pp.join(" "),
                               "data-by": v.pending.mine ? "me" : "partner"});
            drawPath(pg, pos, pp, {stroke: COLORS.pending, "stroke-width": 5, "stroke-dasharray": "14 9",
                                   "stroke-linecap": "butt"});
            root.appendChild(pg);
        }

        if (st.draft.length && playing()) {
            var dg = svg("g", {"class": "travel-draft-path", "data-path": dp.join(" ")});
            var from = base().length - 1;
            drawPath(dg, pos, dp.slice(from), {stroke: COLORS.draft, "stroke-width": 5, "stroke-dasharray": "1 10",
                                               "stroke-linecap": "round"});
            root.appendChild(dg);
        }

        // coin labels
        var boxes = placeLabels(pos, edges), labels = svg("g", {"class": "travel-coins"});
        edges.forEach(function (e) {
            var b = boxes[e.key], t = labelText(e.a, e.b);
            var lg = svg("g", {"class": "travel-coin", "data-edge": e.key, "data-mine": t.mine,
                               "data-partner": t.shared ? t.theirs : ""});
            lg.appendChild(svg("title", {}, "Hallway " + e.key + ": your coins " + t.mine + ", partner's coins " +
                               (t.shared ? t.theirs : "not shared yet")));
            lg.appendChild(svg("rect", {x: b.x - b.w / 2, y: b.y - b.h / 2, width: b.w, height: b.h, rx: 6,
                                        fill: "#ffffff", stroke: t.shared ? COLORS.partner : "#aab2c0",
                                        "stroke-width": t.shared ? 1.5 : 1}));
            var tx = svg("text", {x: b.x, y: b.y + labelFont() / 3, "text-anchor": "middle", "font-size": labelFont()});
            tx.appendChild(svg("tspan", {"font-weight": 700, fill: COLORS.ink, "class": "travel-coin-mine"}, t.mine));
            tx.appendChild(svg("tspan", {fill: COLORS.muted}, " | "));
            tx.appendChild(svg("tspan", {"font-weight": t.shared ? 700 : 400, fill: t.shared ? COLORS.partner : COLORS.muted,
                                         "class": "travel-coin-partner"}, t.theirs));
            lg.appendChild(tx);
            // pointing at a label shows its hallway, since labels of crossing hallways can sit close together
            var hot = function (on) {
                var line = hallLines[e.key];
                if (line) {
                    line.setAttribute("stroke", on ? COLORS.ink : COLORS.hall);
                    line.setAttribute("stroke-width", on ? 4 : 2);
                }
            };
            lg.addEventListener("mouseenter", function () { hot(true); });
            lg.addEventListener("mouseleave", function () { hot(false); });
            labels.appendChild(lg);
        });
        root.appendChild(labels);

        // rooms
        var rg = svg("g", {"class": "travel-rooms"});
        list.forEach(function (id) {
            var p = pos[id], name = roomName(id), step = a.indexOf(id), isStart = id === start();
            var inDraft = st.draft.indexOf(id) >= 0 && playing();
            var label = "Room " + id + (name ? ", " + name : "") + (isStart ? ", start room" : "") +
                        (step >= 0 ? ", agreed step " + (step + 1) : "") + (inDraft ? ", in your draft" : "");
            var g = svg("g", {"class": "travel-room", "data-room": id, role: "button", tabindex: playing() ? 0 : -1,
                              "aria-label": label, "aria-disabled": playing() ? "false" : "true"});
            g.appendChild(svg("title", {}, label));
            if (isStart) {
                g.appendChild(svg("circle", {cx: p.x, cy: p.y, r: NODE_R + 6, fill: "none", stroke: COLORS.start,
                                             "stroke-width": 3}));
            }
            g.appendChild(svg("circle", {"class": "travel-room-ring", cx: p.x, cy: p.y, r: NODE_R,
                                         fill: step >= 0 ? COLORS.visited : "#ffffff",
                                         stroke: inDraft ? COLORS.draft : (step >= 0 ? COLORS.agreed : "#3b4a63"),
                                         "stroke-width": inDraft || step >= 0 ? 3.5 : 2}));
            g.appendChild(svg("text", {x: p.x, y: p.y + 8, "text-anchor": "middle", "font-size": 24, "font-weight": 700,
                                       fill: COLORS.ink, "class": "travel-room-letter"}, id));
            // name outside the ellipse, away from the hallways
            var c = Math.cos(p.ang), s = Math.sin(p.ang), off = NODE_R + (isStart ? 14 : 9);
            var anchor = Math.abs(c) < 0.35 ? "middle" : (c > 0 ? "start" : "end");
            var nx = p.x + c * off, lines = wrapName(name), extra = (lines.length - 1) * 16;
            var ny = p.y + s * off + (Math.abs(c) < 0.35 ? (s > 0 ? 14 : -4 - extra) : 5 - extra / 2);
            var nameText = svg("text", {x: nx, y: ny, "text-anchor": anchor, "font-size": 15, fill: COLORS.ink,
                                        "class": "travel-room-name", stroke: "#fbfcfe", "stroke-width": 4,
                                        "paint-order": "stroke", "stroke-linejoin": "round"});
            lines.forEach(function (line, k) {
                nameText.appendChild(svg("tspan", k ? {x: nx, dy: 16} : {}, line));
            });
            if (isStart) {
                nameText.appendChild(svg("tspan", {fill: COLORS.start, "font-weight": 700}, " (start)"));
            }
            g.appendChild(nameText);
            if (step >= 0) {
                // the step number sits on the side away from the room's name
                var side = c > 0.35 ? -1 : 1, bx = p.x + side * NODE_R * 0.78, by = p.y - NODE_R * 0.78;
                g.appendChild(svg("circle", {cx: bx, cy: by, r: 10, fill: COLORS.agreed}));
                g.appendChild(svg("text", {x: bx, y: by + 4.5, "text-anchor": "middle", "font-size": 12,
                                           "font-weight": 700, fill: "#ffffff"}, String(step + 1)));
            }
            g.addEventListener("click", function () { clickRoom(id); });
            g.addEventListener("keydown", function (ev) {
                if (ev.key === "Enter" || ev.key === " ") { ev.preventDefault(); clickRoom(id); }
            });
            rg.appendChild(g);
        });
        root.appendChild(rg);
        host.appendChild(root);
    }

    // Long room names go on two lines (the first keeps its trailing space, so textContent is the whole name).
    function wrapName(name) {
        if (name.length <= 16 || name.indexOf(" ") < 0) { return [name]; }
        var mid = name.length / 2, best = -1, i;
        for (i = 0; i < name.length; i++) {
            if (name.charAt(i) === " " && (best < 0 || Math.abs(i - mid) < Math.abs(best - mid))) { best = i; }
        }
        return [name.slice(0, best + 1), name.slice(best + 1)];
    }

    function swatch(color, dash, width, opacity) {
        var s = svg("svg", {width: 34, height: 12, "aria-hidden": "true"});
        var a = {x1: 2, y1: 6, x2: 32, y2: 6, stroke: color, "stroke-width": width, "stroke-linecap": "round"};
        if (dash) { a["stroke-dasharray"] = dash; }
        if (opacity) { a["stroke-opacity"] = opacity; }
        s.appendChild(svg("line", a));
        return s;
    }

    function drawLegend() {
        var host = $id("travel-legend");
        if (!host) { return; }
        clear(host);
        var items = [
            [swatch(COLORS.agreed, null, 6), "agreed"],
            [swatch(COLORS.pending, "8 5", 4), "proposal"],
            [swatch(COLORS.draft, "1 6", 4), "your draft"]
        ];
        if (phase() === "over") { items.push([swatch(COLORS.optimal, null, 10, 0.4), "best possible tour"]); }
        items.forEach(function (it) {
            var span = el("span");
            span.appendChild(it[0]);
            span.appendChild(document.createTextNode(it[1]));
            host.appendChild(span);
        });
        var coinsKey = el("span");
        coinsKey.appendChild(el("strong", {}, "5"));
        coinsKey.appendChild(document.createTextNode(" | "));
        coinsKey.appendChild(el("strong", {style: "color: " + COLORS.partner}, "3"));
        coinsKey.appendChild(document.createTextNode(" = your coins | partner's coins (? = not shared)"));
        host.appendChild(coinsKey);
    }

    function chip(label, value) {
        var c = el("span", {"class": "travel-chip"});
        c.appendChild(document.createTextNode(label + " "));
        c.appendChild(el("strong", {}, value));
        return c;
    }

    function drawInfo() {
        var host = $id("travel-info"), v = view();
        if (!host) { return; }
        clear(host);
        if (st.error) { host.appendChild(el("span", {"class": "travel-error"}, st.error)); }
        if (!v) { host.appendChild(el("span", {}, "Waiting for the game to start...")); return; }
        var ph = phase();
        host.appendChild(chip("World:", v.world ? String(v.world) : "?"));
        host.appendChild(chip("Start:", start() + (roomName(start()) ? " (" + roomName(start()) + ")" : "")));
        var tl = v.turns_left || {};
        var fmt = function (x) { return (x === null || x === undefined) ? "no limit" : String(x); };
        var turns = el("span", {"class": "travel-chip", id: "travel-turns"});
        turns.appendChild(document.createTextNode("Turns left: you "));
        turns.appendChild(el("strong", {}, fmt(tl.me)));
        turns.appendChild(document.createTextNode(", partner "));
        turns.appendChild(el("strong", {}, fmt(tl.partner)));
        host.appendChild(turns);
        var sub = v.submitted || {};
        var subs = el("span", {"class": "travel-chip", id: "travel-submitted"});
        subs.appendChild(document.createTextNode("Submitted: you "));
        subs.appendChild(el("strong", {}, sub.me ? "yes" : "no"));
        subs.appendChild(document.createTextNode(", partner "));
        subs.appendChild(el("strong", {}, sub.partner ? "yes" : "no"));
        host.appendChild(subs);
        if (ph === "waiting") { host.appendChild(el("span", {"class": "travel-chip"}, "Waiting for your partner...")); }
        if (ph === "over") {
            var status = (v.core && v.core.status) || (v.result && v.result.status) || "completed";
            var why = {completed: "finished", partner_left: "your partner left", timeout: "nobody moved for a long time",
                       no_partner: "no partner arrived", error: "a technical problem"}[status] || "finished";
            host.appendChild(chip("Game over:", why));
        }
    }

    function drawPending() {
        var host = $id("travel-pending"), v = view();
        if (!host) { return; }
        clear(host);
        var p = v && v.pending;
        if (!p || phase() === "over" || !Array.isArray(p.path)) { host.hidden = true; return; }
        host.hidden = false;
        host.classList.toggle("is-mine", !!p.mine);
        var kinds = {extend: "next room(s)", revise: "a change of the agreed path", tour: "a full tour"};
        var who = p.mine ? "You proposed " : "Your partner (" + String(p.by || "partner") + ") proposes ";
        host.appendChild(document.createTextNode(who + (kinds[p.kind] || "a path") + ": "));
        host.appendChild(el("strong", {}, arrow(p.path.map(String))));
        host.appendChild(document.createTextNode(p.mine ? ". Waiting for your partner's answer." : ". Agree or reject?"));
    }

    function drawPaths() {
        var host = $id("travel-paths"), v = view();
        if (!host) { return; }
        clear(host);
        if (!v) { return; }
        var a = agreed();
        var line1 = el("div", {id: "travel-agreed-text"});
        line1.appendChild(el("span", {"class": "travel-path-label"}, "Agreed:"));
        line1.appendChild(document.createTextNode(a.length ? arrow(a) : "nothing yet"));
        var sub = v.submitted || {}, mySub = Array.isArray(sub.me) && sub.me.length > 0;
        if (isFullTour(a) && playing() && !mySub) {
            line1.appendChild(el("strong", {}, "  (a full tour: you can submit it)"));
        }
        host.appendChild(line1);
        if (playing()) {
            var line2 = el("div", {id: "travel-draft-text"});
            line2.appendChild(el("span", {"class": "travel-path-label"}, "Your draft:"));
            line2.appendChild(document.createTextNode(
                st.draft.length ? arrow(draftPath().slice(base().length - 1)) +
                    (st.reviseAt !== null ? "  (changes the agreed path after " + base()[base().length - 1] + ")" : "")
                    : (st.reviseAt !== null ? "changing the agreed path after " + base()[base().length - 1] +
                       ": click the next rooms" : "click rooms on the map")));
            host.appendChild(line2);
        }
        if (mySub) {
            var line3 = el("div", {id: "travel-my-submission"});
            line3.appendChild(el("span", {"class": "travel-path-label"}, "You submitted:"));
            line3.appendChild(document.createTextNode(arrow(sub.me.map(String)) +
                (sub.partner ? "" : "  (waiting for your partner to submit the same tour)")));
            host.appendChild(line3);
        }
        if (Array.isArray(v.partner_submitted) && v.partner_submitted.length) {
            var line4 = el("div", {id: "travel-partner-submission"});
            line4.appendChild(el("span", {"class": "travel-path-label"}, "Partner submitted:"));
            line4.appendChild(document.createTextNode(arrow(v.partner_submitted.map(String))));
            host.appendChild(line4);
        }
    }

    function drawResult() {
        var host = $id("travel-result"), v = view(), r = v && v.result;
        if (!host) { return; }
        clear(host);
        if (!r || phase() !== "over") { host.hidden = true; return; }
        host.hidden = false;
        // A score only for a finished game: a partner who left or a timeout is not a "0 / 100" success.
        var status = (v.core && v.core.status) || r.status;
        host.classList.toggle("travel-result-stopped", status !== "completed");
        if (status !== "completed") {
            host.appendChild(el("div", {"class": "travel-stopped", id: "travel-stopped"},
                                "No tour was scored: the game ended before you both submitted one."));
        } else {
            var pct = Number(r.percentile);
            pct = isFinite(pct) ? Math.max(0, Math.min(100, Math.round(pct))) : 0;
            host.appendChild(el("div", {"class": "travel-score", id: "travel-percentile"}, "Your score: " + pct + " / 100"));
            host.appendChild(el("div", {}, "Your tour is better than or as good as " + pct +
                                            "% of all possible tours."));
            host.appendChild(el("div", {id: "travel-coins-total"},
                                "Coins collected together: " + String(r.score) + " of the best possible " +
                                String(r.optimum) + "."));
            var flags = el("div");
            [["identical", "Same tour submitted"], ["correct", "Valid tour"], ["optimal", "Best tour"]].forEach(function (f) {
                flags.appendChild(el("span", {"class": "travel-flag"}, f[1] + ": " + (r[f[0]] ? "yes" : "no")));
            });
            host.appendChild(flags);
        }
        if (Array.isArray(r.optimal_tour) && r.optimal_tour.length) {
            var best = el("div", {id: "travel-optimal-text"});
            best.appendChild(el("span", {"class": "travel-path-label"}, "Best tour:"));
            best.appendChild(document.createTextNode(arrow(r.optimal_tour.map(String)) + " (green band on the map)"));
            host.appendChild(best);
        }
        // The completion code goes into #travel-code (data-completion-code) from the shared page script.
    }

    // `my_shared` (optional in the view): the hallways whose coins this player has already shown the partner.
    function sharedAll() {
        var v = view();
        if (!v || !Array.isArray(v.my_shared) || !v.my_coins) { return false; }
        return Object.keys(v.my_coins).every(function (k) { return v.my_shared.indexOf(k) >= 0; });
    }

    function setButtons() {
        var v = view(), on = playing(), p = v && v.pending, sub = (v && v.submitted) || {};
        var partnerProposal = !!(p && !p.mine && Array.isArray(p.path));
        var enable = {
            "travel-propose": on && st.draft.length > 0,
            "travel-clear": on && (st.draft.length > 0 || st.reviseAt !== null),
            "travel-agree": on && partnerProposal,
            "travel-reject": on && partnerProposal,
            "travel-undo": on && agreed().length > 1,
            "travel-share": on && !sharedAll(),
            "travel-submit": on && submitTour() !== null && !(Array.isArray(sub.me) && sub.me.length)
        };
        Object.keys(enable).forEach(function (id) {
            var b = $id(id);
            if (b) { b.disabled = !enable[id]; }
        });
    }

    function render() {
        var app = $id("travel-app");
        if (app) { app.classList.toggle("is-over", phase() === "over"); }
        drawInfo();
        drawPending();
        drawBoard();
        drawLegend();
        drawPaths();
        drawResult();
        setButtons();
        var h = $id("travel-hint");
        if (h) { h.textContent = playing() ? st.hint : ""; }
    }

    // ---------------------------------------------------------------------------------------------------------
    // Input from the bot

    // SlurkTask calls this with every new view of #travel-state (null while there is none).
    function receive(v) {
        if (!v || typeof v !== "object") { render(); return; }
        var old = st.view;
        st.error = "";
        st.view = v;
        var oldAgreed = old && Array.isArray(old.agreed) ? old.agreed.join(" ") : null;
        var newAgreed = Array.isArray(v.agreed) ? v.agreed.join(" ") : "";
        if (oldAgreed !== newAgreed || !playing()) {
            st.draft = [];
            st.reviseAt = null;
            st.hint = "";
        }
        render();
    }

    function bindButtons() {
        var on = function (id, fn) { var b = $id(id); if (b) { b.addEventListener("click", fn); } };
        on("travel-propose", function () {
            if (!playing() || !st.draft.length) { return; }
            var args = proposalArgs();
            st.draft = [];
            st.reviseAt = null;
            sendThen("propose", args, "Sending your proposal: " + arrow(args) + "…",
                     "Proposal sent: " + arrow(args) + ". Waiting for your partner.");
            render();
        });
        on("travel-clear", function () {
            st.draft = [];
            st.reviseAt = null;
            setHint("Draft cleared.");
            render();
        });
        // The id of the proposal shown: if the partner replaced it meanwhile, the bot refuses the answer.
        var answer = function () { var p = view() && view().pending; return p && p.id ? [String(p.id)] : []; };
        on("travel-agree", function () { if (playing()) { send("agree", answer()); } });
        on("travel-reject", function () { if (playing()) { send("reject", answer()); } });
        on("travel-undo", function () { if (playing()) { send("undo", []); } });
        on("travel-share", function () {
            if (playing()) { sendThen("share", ["all"], "Sending your coins…", "Your coins were sent to your partner."); }
        });
        on("travel-submit", function () {
            var t = submitTour();
            if (playing() && t !== null) { send("submit", t); }
        });
    }

    function init() {
        bindButtons();
        if (window.SlurkTask.onAck) {
            window.SlurkTask.onAck("travel", function () {
                if (st.afterAck) { var text = st.afterAck; st.afterAck = null; setHint(text); }
            });
        }
        window.SlurkTask.watch("travel-state", receive, {
            shared: "travel-shared", combine: window.TravelPage.combine,
            invalid: function () { st.error = "Could not read the game state."; render(); }
        });
    }

    return {init: init, receive: receive, render: render, clickRoom: clickRoom,
            state: function () { return st; }};
}());

window.TravelBoard.init();
