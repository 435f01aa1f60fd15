;// SlurkTask: the page plumbing every task plugin shares (listed before the task plugin in the layout's `plain`).
// Starts with ';' on purpose: Slurk glues layout triggers together without semicolons (slurk-protocol.md §8.1).
//
//   SlurkTask.watch("travel-state", render, {invalid: fn})   the bot writes this seat's view as JSON into a hidden
//       element (a `text_update`, or replayed history); render(state) gets every new view, render(null) if none yet.
//   SlurkTask.send("propose L K" | {command: "move", args: ["up"]}, onRefused)   a command to the bot, privately:
//       message_command {room, command, receiver_id: <bot>}. Queued until the bot's id is known; never broadcast.
//   SlurkTask.command("move", ["up"]), SlurkTask.element("div", "cls", text)   the plugins' send and draw helpers.
//   SlurkTask.submit(room, user, timestamp, text)   the chat box (the layout's `submit-message`, slurk-task-submit.js).
//   SlurkTask.setChatTarget(["ghost"] | null), SlurkTask.onCommand(name, fn), .state(), .bot(), .chat().
//   SlurkTask.onAck(name, fn)   fn(nonce) when the bot has handled a command of this page (its view carries core.ack).
//   SlurkTask.watch(id, render, {shared: "travel-shared", combine: fn})   a page in two parts (Game.page_shared): once
//       the game plays, the bot writes the part every seat shares into the `shared` element (one update for the
//       room) and this seat's own part into `id`; render gets combine(shared, own) with both "core"s merged (own
//       wins) - tasks/core/pages.py is the Python twin. Acknowledgements then also come as core.acks[seat].
//
// Seat key: the view of this seat carries core.key, a secret only this page receives. Every command goes out in an
// envelope {key, n, ...} (a typed command as {key, n, typed: "agree"}), so the bot knows it came from this seat and
// not from someone using Slurk's `impersonate`. n is a fresh nonce; the bot acknowledges it in the next view
// (core.ack). A command not acknowledged within a few seconds shows "the game master is reconnecting" (the bot
// handles it when it is back); core.thinking lists seats whose agent is thinking. When core.phase is "over" the
// ending (why the game ended, from core.status) and core.code are shown in one box, in the banner or in the page's
// element marked data-completion-code; SlurkTask.ending() gives plugins the same words.
//
// The bot's view carries core.bot (the bot's Slurk user id) and core.chat ("open": people chat in the room;
// "relay": every line goes to the bot, which passes it on). Nothing from people reaches the page as HTML here.
// The layout script is evaluated again on every `joined_room`: the object and its socket handlers are made once.
window.SlurkTask = window.SlurkTask || (function () {
    "use strict";

    var MAX_QUEUE = 50;
    var rooms = Object.create(null);      // room -> {bot, chat, views: element id -> {text, state}}
    var watchers = Object.create(null);   // element id -> {render, invalid, lastText, observer, shared part ...}
    var sharedOf = Object.create(null);   // shared element id -> the watched element id it belongs to
    var queue = [];                       // [{room, run(info)}]: what waits for the bot's id
    var listeners = Object.create(null);  // name -> callback for the bot's commands (onCommand)
    var chatTarget = null;
    var boundSocket = null;
    var ACK_PATIENCE_MS = 5000;
    var pending = [];                     // [{room, n, at}]: commands sent, not yet acknowledged by the bot
    var ackListeners = Object.create(null);  // name -> fn(nonce), one per plugin (scripts run again on rejoin)
    var nonceCount = 0;
    var banner = null;
    var HEADER_PX = 80;                   // Slurk's #header is fixed at the top, this high (its chat.css)

    function currentRoom() { return typeof self_room === "undefined" ? null : self_room; }
    function me() { return typeof self_user === "undefined" ? null : self_user; }
    function roomInfo(room) {
        var key = String(room);
        if (!rooms[key]) { rooms[key] = {bot: null, chat: null, views: Object.create(null)}; }
        return rooms[key];
    }
    function hasSocket() { return typeof socket !== "undefined" && socket && typeof socket.emit === "function"; }

    function userId(value) {
        if (value === null || value === undefined || value === "" || typeof value === "boolean") { return null; }
        var n = Number(value);
        return isFinite(n) ? n : null;
    }

    // --- messages in the chat area (Slurk's display_message/display_info put text in with jQuery .text) --------
    function show(user, time, text, isPrivate) {
        if (typeof display_message === "function" && user) { display_message(user, time, text, !!isPrivate, false); }
    }
    function note(time, text) {
        if (typeof display_info === "function") { display_info(time === undefined ? null : time, text); }
    }

    // --- chat lines this page shows (incoming-text and print-history: slurk-task-incoming/-history.js) ---------
    // Slurk lets a participant send a line in any room member's name (`impersonate`, also privately from another
    // room) and log in under any name. Only a bot may send `html: true` (Slurk's send_html_message, never given to
    // participants), and the task bot marks every line it shows that way (bots/slurk/delivery.py `as_html`, plain
    // text escaped): so a line in the bot's name without the mark is not the game master's; a person's line in a
    // relayed room arrives only through the bot (marked); a line in one's own name was not typed here. Those, and
    // names that imitate the game master or a member of this game, are shown with a warning mark; every line is
    // cut at the chat limit.
    var MAX_CHAT = 4000;                  // tasks/core/limits.py MAX_CHAT_CHARS
    var CONFUSABLE = {"\u0430": "a", "\u0435": "e", "\u043e": "o", "\u0440": "p", "\u0441": "c", "\u0445": "x",
        "\u0443": "y", "\u0456": "l", "\u0457": "l", "\u04cf": "l", "\u0455": "s", "\u0501": "d", "\u0261": "g",
        "\u043c": "m", "\u0442": "t", "\u043a": "k", "\u0432": "b", "\u043d": "h", "\u03b1": "a", "\u03b5": "e",
        "\u03bf": "o", "\u03c1": "p", "\u03c4": "t", "\u03b9": "l", "\u03ba": "k", "\u03bd": "v", "\u03bc": "m",
        "0": "o", "1": "l", "3": "e", "4": "a", "5": "s", "7": "t", "i": "l", "|": "l", "!": "l", "$": "s", "@": "a"};
    function nameKey(name) {  // what a name looks like: case, accents, spacing, look-alike letters folded
        var s = String(name === undefined || name === null ? "" : name), out = "", i, c;
        if (s.normalize) { s = s.normalize("NFKD"); }
        s = s.toLowerCase().replace(/[\u0300-\u036f\u200b-\u200f\u2060-\u2064\ufeff]/g, "");
        for (i = 0; i < s.length; i++) { c = s.charAt(i); out += CONFUSABLE[c] || c; }
        return out.replace(/rn/g, "m").replace(/vv/g, "w").replace(/[^a-z]/g, "");
    }
    var GM_KEY = nameKey("Game Master");
    var namesSeen = Object.create(null);  // user id -> name shown with a marked line or in Slurk's user list

    function nameOf(uid) {
        if (namesSeen[uid]) { return namesSeen[uid]; }
        if (typeof user_map !== "undefined" && user_map && user_map[uid]) { return String(user_map[uid]); }
        return null;
    }

    function clip(text, isHtml) {  // at most MAX_CHAT characters (code points) of a line, said so when cut
        var chars = Array.from(String(text));
        if (chars.length <= MAX_CHAT) { return {text: String(text), html: isHtml}; }
        if (isHtml) { chars = Array.from(plainOf(String(text))); }  // never cut markup in half
        return {text: chars.slice(0, MAX_CHAT).join("") + " \u2026 [" + (chars.length - MAX_CHAT) +
                " more characters not shown]", html: false};
    }

    function plainOf(markup) {  // a marked line's text (entities decoded; a textarea parses no tags, runs nothing)
        var t = document.createElement("textarea");
        t.innerHTML = String(markup).replace(/<[^>]*>/g, "");
        return t.value;
    }

    // Why a line needs a warning mark (null: it is what it says it is).
    function suspicion(uid, name, marked, isPrivate) {
        var info = roomInfo(currentRoom()), self = me(), bot = info.bot, users = info.users || null, k;
        var key = nameKey(name), members = [];
        if (users) {
            for (k in users) { if (Object.prototype.hasOwnProperty.call(users, k)) { members.push(userId(users[k])); } }
        }
        if (bot !== null && uid === bot) { return marked ? null : "not from the game master"; }
        if (marked && bot === null) { return null; }  // before the first view: a bot's line (only bots mark)
        if (!marked) {
            if (self && uid === userId(self.id)) { return "not typed on this page"; }
            if (isPrivate) { return "a private line, not through the game"; }   // the page never sends one
            if (info.chat === "relay") { return "not sent through the game"; }
            if (users && members.indexOf(uid) < 0) { return "not in this game"; }
        }
        // A name that looks like the game master's, or like another member's (case, spacing, look-alikes).
        if (key && (key.indexOf(GM_KEY) >= 0 || (bot !== null && nameOf(bot) && key === nameKey(nameOf(bot))))) {
            return "a participant, not the game master";
        }
        for (k = 0; k < members.length; k++) {
            if (members[k] !== uid && nameOf(members[k]) && key === nameKey(nameOf(members[k]))) {
                return "not the real " + nameOf(members[k]);
            }
        }
        return null;
    }

    function showLine(user, time, message, isPrivate, marked) {
        if (!user || typeof display_message !== "function") { return; }
        var uid = userId(user.id), name = user.name === undefined || user.name === null ? "" : String(user.name);
        var text = typeof message === "string" ? message : JSON.stringify(message === undefined ? "" : message);
        if (marked && uid !== null) { namesSeen[uid] = name; }
        var why = suspicion(uid, name, marked, isPrivate), line = clip(text, marked);
        var shown = why ? {id: -1, name: "\u26a0 " + (name || "someone") + " (" + why + ")"} : user;  // never "You"
        display_message(shown, time, line.text, !!isPrivate, line.html);
        if (why && typeof document !== "undefined") {
            var area = document.getElementById("chat-area"), last = area ? area.lastElementChild : null;
            if (last) {
                last.classList.add("slurk-task-suspect");
                last.setAttribute("data-warning", why);
                var box = last.querySelector(".message-box") || last;
                box.style.border = "2px solid #b02a37";
                box.style.background = "#f8d7da";
            }
        }
    }

    // A live text_message (Slurk's incoming_text; lines of other rooms are not this page's).
    function incoming(d) {
        if (!d || !d.user) { return; }
        if (d.room !== undefined && d.room !== null && String(d.room) !== String(currentRoom())) { return; }
        showLine(d.user, d.timestamp, d.message, !!d.private, d.html === true);
    }

    // A row of the room's log when the page (re)loads (Slurk's print_history). The row names its real sender.
    function history(row) {
        if (!row || row.event !== "text_message" || !row.data) { return; }
        var time = row.date_modified !== null && row.date_modified !== undefined ? row.date_modified : row.date_created;
        var user = row.user || {id: row.user_id, name: nameOf(userId(row.user_id)) || ""};
        showLine(user, time, row.data.message, row.receiver_id !== null && row.receiver_id !== undefined,
                 row.data.html === true);
    }

    // What chat listeners (onChat) get: lines that are what they say, with a marked line's plain text.
    function trusted(d) {
        var uid = d && d.user ? userId(d.user.id) : null;
        if (uid === null || suspicion(uid, d.user.name, d.html === true, !!d.private)) { return null; }
        if (d.html !== true) { return d; }
        var copy = {}, k;
        for (k in d) { if (Object.prototype.hasOwnProperty.call(d, k)) { copy[k] = d[k]; } }
        copy.message = plainOf(d.message);
        copy.html = false;
        return copy;
    }

    // --- the bot's view ---------------------------------------------------------------------------------------
    function remember(id, text, state, sharedText) {
        var info = roomInfo(currentRoom());
        info.views[id] = {text: text, state: state, sharedText: sharedText === undefined ? null : sharedText};
        var core = state && typeof state.core === "object" && state.core ? state.core : {};
        var bot = userId(core.bot);
        if (bot !== null) { info.bot = bot; }
        if (core.chat === "open" || core.chat === "relay") { info.chat = core.chat; }
        if (typeof core.key === "string" && core.key) { info.key = core.key; }
        if (core.users && typeof core.users === "object") { info.users = core.users; }
        if (core.ack !== undefined && core.ack !== null) { acknowledged(currentRoom(), String(core.ack)); }
        var acks = core.acks && typeof core.acks === "object" ? core.acks : null;
        if (acks && typeof core.seat === "string" && acks[core.seat] !== undefined && acks[core.seat] !== null) {
            acknowledged(currentRoom(), String(acks[core.seat]));
        }
        showStatus(core);
    }

    // --- acknowledgements, and what the page says about the game master -------------------------------------
    function nonce() {
        nonceCount += 1;
        return Date.now().toString(36) + "-" + nonceCount.toString(36) + "-" +
            Math.floor(Math.random() * 1e9).toString(36);
    }

    function acknowledged(room, n) {
        var i, at = -1;
        for (i = 0; i < pending.length; i++) {
            if (String(pending[i].room) === String(room) && pending[i].n === n) { at = i; }
        }
        if (at < 0) { return; }
        // Commands are handled in order: everything sent before the acknowledged one was handled too.
        var done = pending.filter(function (p, j) { return j <= at && String(p.room) === String(room); });
        pending = pending.filter(function (p, j) { return !(j <= at && String(p.room) === String(room)); });
        done.forEach(function (p) { Object.keys(ackListeners).forEach(function (k) { ackListeners[k](p.n); }); });
        refreshBanner();
    }

    function bannerElement() {
        if (banner && document.body && document.body.contains(banner)) { return banner; }
        if (!document.body) { return null; }
        banner = document.getElementById("slurk-task-banner");
        if (!banner) {
            banner = document.createElement("div");
            banner.id = "slurk-task-banner";
            banner.setAttribute("role", "status");
            banner.setAttribute("aria-live", "polite");
            banner.style.cssText = "position:fixed;top:" + (HEADER_PX + 8) + "px;right:8px;z-index:1000;max-width:22em;" +
                "font:14px sans-serif;" +
                "display:none;flex-direction:column;gap:4px;";
            document.body.appendChild(banner);
        }
        return banner;
    }

    function line(kind, text, colours) {
        var div = document.createElement("div");
        div.className = "slurk-task-" + kind;
        div.style.cssText = "padding:6px 10px;border-radius:6px;box-shadow:0 1px 3px rgba(0,0,0,.25);" + colours;
        div.textContent = text;
        return div;
    }

    var statusCore = {};
    function showStatus(core) { statusCore = core || {}; noteRole(statusCore); noteReturn(statusCore); refreshBanner(); }

    // "You are Player 2 (Jordan in the chat). Your partner is Player 1 (Casey in the chat)." at the top of the task
    // area: the role name is what the game master and the page call this person; the chat shows login names.
    function whoText(core) {
        var roles = core && core.roles && typeof core.roles === "object" ? core.roles : null;
        var people = core && core.people && typeof core.people === "object" ? core.people : {};
        if (!roles || typeof core.seat !== "string" || !roles[core.seat]) { return null; }
        var named = function (s) {
            var role = String(roles[s]), chat = people[s] ? String(people[s]) : "";
            return chat && chat !== role ? role + " (" + chat + " in the chat)" : role;
        };
        var others = Object.keys(roles).filter(function (s) { return s !== core.seat; }).map(named);
        var text = "You are " + named(core.seat) + ".";
        if (others.length === 1) { text += " Your partner is " + others[0] + "."; }
        else if (others.length > 1) {
            text += " Also in this game: " + others.slice(0, -1).join(", ") + " and " + others[others.length - 1] + ".";
        }
        return text;
    }
    function noteRole(core) {
        var host = document.getElementById("custom"), el = document.getElementById("slurk-task-role");
        var text = whoText(core);
        if (!host || !text) { return; }
        if (!el) {
            el = document.createElement("div");
            el.id = "slurk-task-role";
            el.className = "slurk-task-role";
            el.style.cssText = "font:bold 14px sans-serif;color:#00305E;margin:6px 8px;";
        }
        el.textContent = text;
        if (host.firstChild !== el) { host.insertBefore(el, host.firstChild); }
    }

    function refreshBanner() {
        var host = bannerElement();
        if (!host) { return; }
        while (host.firstChild) { host.removeChild(host.firstChild); }
        var room = currentRoom(), now = Date.now();
        var late = pending.some(function (p) { return String(p.room) === String(room) && now - p.at > ACK_PATIENCE_MS; });
        if (late) {
            host.appendChild(line("reconnecting", "The game master is reconnecting. Your last move is kept and " +
                "will be handled when it is back.", "background:#fff3cd;color:#664d03;"));
        }
        var thinking = Array.isArray(statusCore.thinking) ? statusCore.thinking : [];
        if (thinking.length && statusCore.phase !== "over") {
            host.appendChild(line("thinking", thinking.length > 1 ? "Your partners are thinking…" :
                "Your partner is thinking…", "background:#e7f1ff;color:#084298;"));
        }
        var own = document.querySelector("[data-completion-code]") || endingHost(statusCore);
        if (own) {
            drawEnding(own, statusCore, true);   // the page's own place for it (travel, dond), else ours below
        } else if (statusCore.phase === "over") {
            drawEnding(host, statusCore, false);
        }
        host.style.display = host.firstChild ? "flex" : "none";
    }

    // A page without its own place for the ending gets one at the top of the task area, under "You are ...": in
    // the page, so the code box never covers Slurk's header or the board. When the game ends the page scrolls up
    // to it once, so it is seen wherever the person was.
    var scrolledToEnding = false;
    function endingHost(core) {
        var area = document.getElementById("custom");
        if (!area || !core || core.phase !== "over") { return null; }
        var el = document.createElement("div");
        el.id = "slurk-task-ending-box";
        el.setAttribute("data-completion-code", "page");
        el.setAttribute("role", "status");
        var e = ending(core), good = e && e.kind === "good";
        el.style.cssText = "margin:6px 8px;padding:8px 12px;border-radius:6px;font:15px sans-serif;line-height:1.5;" +
            (good ? "background:#d1e7dd;color:#0f5132;" : "background:#f1f3f5;color:#343a40;");
        var role = document.getElementById("slurk-task-role");
        area.insertBefore(el, role && role.parentNode === area ? role.nextSibling : area.firstChild);
        if (!scrolledToEnding && typeof window.scrollTo === "function") { scrolledToEnding = true; window.scrollTo(0, 0); }
        return el;
    }

    // --- the ending: every task page says how the game ended and shows the code the same way ------------------
    var ENDINGS = {
        completed: ["The game is over.", "Thank you for playing!", "good"],
        partner_left: ["The game is over: your partner left.", "The game was closed early; nothing more to do here.",
                       "stopped"],
        timeout: ["The game is over: nobody moved for a long time.", "The game was closed after a long inactivity.",
                  "stopped"],
        no_partner: ["No partner arrived.", "The game could not start; nothing more to do here.", "stopped"],
        left: ["The game is over: you left before it ended.", "The game was closed for your partner while you were " +
               "away. A code is shown only if this study pays for a game that was left.", "stopped"],
        error: ["The game was closed after a technical problem.", "Sorry: this was not your fault.", "stopped"]
    };
    function ending(core) {
        core = core || statusCore;
        if (!core || core.phase !== "over") { return null; }
        var e = ENDINGS[core.status] || ["The game is over.", "", "stopped"];
        return {status: core.status || null, title: e[0], text: e[1], kind: e[2],
                code: core.code ? String(core.code) : null};
    }

    // host: the banner (a box among its lines) or a page element marked data-completion-code (filled, shown).
    function drawEnding(host, core, inPage) {
        var e = ending(core);
        if (inPage) {
            while (host.firstChild) { host.removeChild(host.firstChild); }
            host.hidden = !e;
            if (!e) { return; }
        }
        var colours = e.kind === "good" ? "background:#d1e7dd;color:#0f5132;" : "background:#f1f3f5;color:#343a40;";
        var box = inPage ? document.createElement("div") : line("ending", "", colours);
        box.className = "slurk-task-ending";
        box.setAttribute("data-status", e.status || "");
        var title = document.createElement("strong");
        title.className = "slurk-task-ending-title";
        title.textContent = e.title;
        box.appendChild(title);
        if (e.text) {
            var text = document.createElement("div");
            text.textContent = e.text;
            box.appendChild(text);
        }
        if (e.code) {
            var codeLine = document.createElement("div");
            codeLine.className = "slurk-task-code";
            codeLine.appendChild(document.createTextNode("Your completion code: "));
            var value = document.createElement("code");
            value.className = "slurk-task-code-value";
            if (inPage && host.id) { value.id = host.id + "-value"; }
            value.style.cssText = "font-weight:bold;user-select:all;";
            value.textContent = e.code;
            codeLine.appendChild(value);
            box.appendChild(codeLine);
        }
        host.appendChild(box);
    }

    // Slurk's login link works once (a second use says the token was already used); this browser's session cookie
    // still opens the room at the server's root. A small line under the task area says so while the game runs (not
    // in the chat, where it would scroll away).
    function noteReturn(core) {
        var host = document.getElementById("custom") || document.body, el = document.getElementById("slurk-task-return");
        var show = core && (core.phase === "playing" || core.phase === "waiting");
        if (!host) { return; }
        if (!show) { if (el && el.parentNode) { el.parentNode.removeChild(el); } return; }
        if (!el) {
            el = document.createElement("div");
            el.id = "slurk-task-return";
            el.style.cssText = "font:12px sans-serif;color:#666;margin:6px 8px;";
        }
        el.textContent = "If this tab closes, open " + location.origin + "/ in this same browser to come back to " +
            "this game (your login link works only once).";
        if (el.parentNode !== host || host.lastChild !== el) { host.appendChild(el); }
    }

    setInterval(function () { if (pending.length) { refreshBanner(); } }, 1000);

    function parsed(w, text) {  // the JSON object of an element's text, or null (said through w.invalid)
        var state;
        try { state = JSON.parse(text); } catch (e) { if (w.invalid) { w.invalid(text, e); } return null; }
        if (!state || typeof state !== "object") { if (w.invalid) { w.invalid(text, null); } return null; }
        return state;
    }

    // The state element's text (part "own": a whole view, or this seat's own part) or the shared element's.
    function take(id, w, text, part) {
        var own = part !== "shared", seen = own ? "lastText" : "lastShared";
        if (text === null || text === undefined) { return; }
        text = String(text);
        if (text === w[seen]) { return; }
        w[seen] = text;
        if (!text.trim()) { return; }
        var state = parsed(w, text);
        if (state === null) { return; }
        if (own) { w.own = state; } else { w.shared = state; }
        draw(id, w);
    }

    // A whole view (the game waits for people) carries core.phase; an own part does not and waits for the shared.
    function combineParts(w) {
        var own = w.own, shared = w.shared, core = {}, a = {}, b = {}, k, view;
        var sc = shared.core && typeof shared.core === "object" ? shared.core : {};
        var oc = own.core && typeof own.core === "object" ? own.core : {};
        for (k in sc) { if (Object.prototype.hasOwnProperty.call(sc, k)) { core[k] = sc[k]; } }
        for (k in oc) { if (Object.prototype.hasOwnProperty.call(oc, k)) { core[k] = oc[k]; } }
        for (k in shared) { if (k !== "core" && Object.prototype.hasOwnProperty.call(shared, k)) { a[k] = shared[k]; } }
        for (k in own) { if (k !== "core" && Object.prototype.hasOwnProperty.call(own, k)) { b[k] = own[k]; } }
        if (w.combine) {
            view = w.combine(a, b);
        } else {
            view = {};
            for (k in a) { if (Object.prototype.hasOwnProperty.call(a, k)) { view[k] = a[k]; } }
            for (k in b) { if (Object.prototype.hasOwnProperty.call(b, k)) { view[k] = b[k]; } }
        }
        view.core = core;
        return view;
    }

    function draw(id, w) {
        var own = w.own, state = own;
        if (!own) { return; }
        var whole = !w.sharedId || (own.core && typeof own.core === "object" && own.core.phase !== undefined);
        if (!whole) {
            if (!w.shared) { remember(id, w.lastText, own, null); flush(); return; }  // its key and the bot's id
            try { state = combineParts(w); } catch (e) { if (w.invalid) { w.invalid(w.lastShared, e); } return; }
        }
        remember(id, w.lastText, state, whole ? null : w.lastShared);
        flush();
        w.render(state);
    }

    function watch(id, render, options) {
        var old = watchers[id];
        if (old && old.observer) { old.observer.disconnect(); }
        var w = {render: render, invalid: (options && options.invalid) || null, lastText: null, observer: null,
                 sharedId: (options && options.shared) || null, combine: (options && options.combine) || null,
                 lastShared: null, own: null, shared: null, sharedObserver: null};
        if (old && old.sharedObserver) { old.sharedObserver.disconnect(); }
        watchers[id] = w;
        if (w.sharedId) { sharedOf[w.sharedId] = id; }
        bindSocket();
        var el = document.getElementById(id);
        if (el && typeof MutationObserver !== "undefined") {
            // Any way the element's text changes: Slurk's own text_update handler, history replays.
            w.observer = new MutationObserver(function () { if (watchers[id] === w) { take(id, w, el.textContent); } });
            w.observer.observe(el, {childList: true, characterData: true, subtree: true});
        }
        var sharedEl = w.sharedId ? document.getElementById(w.sharedId) : null;
        if (sharedEl && typeof MutationObserver !== "undefined") {
            w.sharedObserver = new MutationObserver(function () {
                if (watchers[id] === w) { take(id, w, sharedEl.textContent, "shared"); }
            });
            w.sharedObserver.observe(sharedEl, {childList: true, characterData: true, subtree: true});
        }
        var text = el ? el.textContent : "";
        var sharedText = sharedEl ? sharedEl.textContent : "";
        var cached = roomInfo(currentRoom()).views[id];
        if (text && text.trim()) {
            if (sharedText && sharedText.trim()) { take(id, w, sharedText, "shared"); }
            take(id, w, text);
        } else if (cached) {
            // The layout's html was put in again (rejoin): draw the last view of this room.
            w.lastText = cached.text;
            w.lastShared = cached.sharedText;
            try {
                w.own = cached.text ? JSON.parse(cached.text) : null;
                w.shared = cached.sharedText ? JSON.parse(cached.sharedText) : null;
            } catch (e) { w.own = w.shared = null; }
            w.render(cached.state);
        } else {
            render(null);
        }
        return w;
    }

    function lastState(id) {
        var views = roomInfo(currentRoom()).views, k;
        if (id) { return views[id] ? views[id].state : null; }
        for (k in views) { if (watchers[k]) { return views[k].state; } }
        return null;
    }

    // --- page -> bot ------------------------------------------------------------------------------------------
    // The command in this seat's envelope (see the top): an object gets key and n added, text goes as `typed`.
    function envelope(room, command) {
        var info = roomInfo(room), env = {key: info.key, n: nonce()}, k;
        if (!info.key) { return {command: command, n: null}; }
        if (typeof command === "string") {
            env.typed = command;
        } else if (command && typeof command === "object" && !Array.isArray(command)) {
            for (k in command) { if (Object.prototype.hasOwnProperty.call(command, k) && k !== "key" && k !== "n") { env[k] = command[k]; } }
        } else {
            return {command: command, n: null};
        }
        return {command: env, n: env.n};
    }

    function emit(room, bot, command, onRefused) {
        if (!hasSocket()) { refused(onRefused, "not connected to the chat server"); return; }
        var wrapped = envelope(room, command);
        if (wrapped.n !== null) { pending.push({room: room, n: wrapped.n, at: Date.now()}); }
        socket.emit("message_command", {room: room, command: wrapped.command, receiver_id: bot}, function (ok, reason) {
            if (ok !== true) {
                pending = pending.filter(function (p) { return p.n !== wrapped.n; });
                refreshBanner();
                refused(onRefused, reason);
            }
        });
    }

    function refused(onRefused, reason) {
        var why = (reason === undefined || reason === null || reason === "") ? "unknown reason" : String(reason);
        if (typeof onRefused === "function") { onRefused(why); } else { note(null, "Not sent: " + why); }
    }

    // Run `run(info)` once the bot of `room` is known (at once if it is).
    function whenBotKnown(room, run) {
        var info = roomInfo(room);
        if (info.bot !== null) { run(info); return true; }
        if (queue.length >= MAX_QUEUE) { queue.shift(); }
        queue.push({room: room, run: run});
        return false;
    }

    function flush() {
        var room = currentRoom(), info = roomInfo(room);
        if (info.bot === null || !queue.length) { return; }
        var now = queue.filter(function (q) { return String(q.room) === String(room); });
        queue = queue.filter(function (q) { return String(q.room) !== String(room); });
        now.forEach(function (q) { q.run(info); });
    }

    function send(command, onRefused, room) {
        if (command === null || command === undefined || command === "") { return false; }
        var r = (room === undefined || room === null) ? currentRoom() : room;
        return whenBotKnown(r, function (info) { emit(r, info.bot, command, onRefused); });
    }

    // The two helpers every task plugin draws and sends with: a named command with its arguments, and an element
    // with an optional class and text (always textContent, never HTML).
    function command(name, args) { return send({command: name, args: args || []}); }

    function element(tag, cls, text) {
        var e = document.createElement(tag);
        if (cls) { e.className = cls; }
        if (text !== undefined && text !== null) { e.textContent = String(text); }
        return e;
    }

    // --- the chat box (submit-message) ------------------------------------------------------------------------
    function submit(room, user, time, text) {
        if (typeof text !== "string" || !text.trim()) { return; }
        var r = (room === undefined || room === null) ? currentRoom() : room;
        var who = user || me();
        var size = text.length > MAX_CHAT ? Array.from(text).length : 0;
        if (size > MAX_CHAT) {
            // Refused here, before anything is sent: in an open room Slurk would show the line to everyone before
            // the bot could refuse it. The text goes back into the box to be shortened.
            var box = document.getElementById("text");
            if (box && !box.value) { box.value = text; }
            note(time, "Your message is too long (" + size.toLocaleString("en") + " characters; the limit is " +
                MAX_CHAT.toLocaleString("en") + "), so it was not sent. Please shorten it.");
            return;
        }
        if (text.charAt(0) === "/") {
            // A command: only the bot gets it. The person sees their own line (marked private).
            var command = text.substring(1);
            show(who, time, text, true);
            if (command.trim()) {
                send(command, function (why) { note(time, "The command was not sent: " + why); }, r);
            }
            return;
        }
        var waiting = roomInfo(r).bot === null;
        if (waiting && !queue.length) { note(time, "The game is starting: your message is sent when it is ready."); }
        whenBotKnown(r, function (info) {
            if (info.chat === "relay") {
                // The bot passes accepted lines on to everyone who may read them, the sender included: no echo.
                var payload = {chat: text};
                if (chatTarget) { payload.to = chatTarget.slice(); }
                emit(r, info.bot, payload, function (why) {
                    show(who, time, text, true);
                    note(time, "Your message was not sent: " + why);
                });
            } else {
                sendText(r, who, time, text);
            }
        });
    }

    function sendText(room, who, time, text) {
        var ok = function () { show(who, time, text, false); };
        var bad = function (why) {
            show(who, time, text, true);
            note(time, "Your message was not sent: " + (why || "unknown reason"));
        };
        if (typeof submit_text === "function" && String(room) === String(currentRoom())) {
            submit_text(text, ok, bad);
        } else if (hasSocket()) {
            socket.emit("text", {room: room, message: text}, function (res, why) {
                if (res === true) { ok(); } else { bad(why); }
            });
        }
    }

    function setChatTarget(seats) {
        chatTarget = Array.isArray(seats) && seats.length ? seats.map(String) : null;
    }

    // --- bot -> page ------------------------------------------------------------------------------------------
    // One callback per name, so a plugin evaluated again replaces its own; fn = null removes it.
    var chatListeners = {};
    function onChat(name, fn) {  // every chat line this page receives (a plugin sorts them, e.g. one pane per seat)
        if (typeof fn === "function") { chatListeners[String(name)] = fn; } else { delete chatListeners[String(name)]; }
    }

    function onCommand(name, fn) {
        if (typeof fn === "function") { listeners[String(name)] = fn; } else { delete listeners[String(name)]; }
    }

    function bindSocket() {
        if (typeof socket === "undefined" || !socket || typeof socket.on !== "function") { return; }
        if (boundSocket === socket || socket.__slurkTaskBound) { boundSocket = socket; return; }
        boundSocket = socket;
        socket.__slurkTaskBound = true;
        socket.on("text_update", function (d) {
            var w = d && typeof d.id === "string" ? watchers[d.id] : null;
            if (w) { take(d.id, w, d.text); return; }
            var owner = d && typeof d.id === "string" ? sharedOf[d.id] : undefined;
            if (owner !== undefined && watchers[owner] && watchers[owner].sharedId === d.id) {
                take(owner, watchers[owner], d.text, "shared");
            }
        });
        socket.on("command", function (d) {
            // Only the bot's commands count: a person (or anyone) may send one to their partner, even in the bot's
            // name (`impersonate`); so a command from the bot must also carry this seat's key.
            var info = roomInfo(currentRoom()), bot = info.bot, from = d && d.user ? userId(d.user.id) : null;
            if (bot === null || from !== bot) { return; }
            if (!d.command || typeof d.command !== "object" || !info.key || d.command.key !== info.key) { return; }
            if (d.room !== undefined && d.room !== null && String(d.room) !== String(currentRoom())) { return; }
            Object.keys(listeners).forEach(function (k) { listeners[k](d.command, d); });
        });
        socket.on("text_message", function (d) {
            var line = d && d.user && (d.room === undefined || d.room === null ||
                String(d.room) === String(currentRoom())) ? trusted(d) : null;
            if (line) { Object.keys(chatListeners).forEach(function (k) { chatListeners[k](line); }); }
            // Slurk's page drops every text_message whose user is oneself. A private one can only be the bot
            // handing a relayed line back in the sender's name, and so is a public one in a relayed room (the page
            // never sends public text there): either is shown (as text, by incoming_text).
            var self = me();
            if (!d || !d.user || !self || userId(d.user.id) !== userId(self.id)) { return; }
            if (!d.private && roomInfo(currentRoom()).chat !== "relay") { return; }
            if (typeof incoming_text === "function") { incoming_text(d); }
        });
    }

    bindSocket();

    return {
        watch: watch,
        send: send,
        command: command,
        element: element,
        submit: submit,
        incoming: incoming,
        history: history,
        nameKey: nameKey,
        maxChat: MAX_CHAT,
        setChatTarget: setChatTarget,
        chatTarget: function () { return chatTarget ? chatTarget.slice() : null; },
        onCommand: onCommand,
        onChat: onChat,
        onAck: function (name, fn) {
            if (typeof fn === "function") { ackListeners[String(name)] = fn; } else { delete ackListeners[String(name)]; }
        },
        unacknowledged: function () { return pending.length; },
        keyed: function () { return !!roomInfo(currentRoom()).key; },
        state: lastState,
        ending: function (core) { return ending(core || statusCore); },
        who: function (core) { return whoText(core || statusCore); },
        bot: function () { return roomInfo(currentRoom()).bot; },
        chat: function () { return roomInfo(currentRoom()).chat || "open"; },
        pending: function () { return queue.length; },
        bindSocket: bindSocket
    };
}());

window.SlurkTask.bindSocket();

// --- pairing: a stray `left_room` (study flow, issue 27) ------------------------------------------------------
// Slurk's page makes the chat box read-only ("Disconnected!") and hides the user list on ANY `left_room`. When the
// concierge's moves cross (the task room's `joined_room` handled before the waiting room's `left_room`), the page
// would stay dead in the room it is in. A `left_room` for another room restores what Slurk's `joined_room` set: the
// chat box (unless the room or its layout is read-only) and the user list / latency as the layout says. Registered
// once per socket (this script runs again on every `joined_room`); Slurk's own handler runs first.
(function () {
    "use strict";
    if (typeof socket === "undefined" || !socket || typeof socket.on !== "function" || socket.__slurkTaskLeftRoom) {
        return;
    }
    socket.__slurkTaskLeftRoom = true;
    var known = Object.create(null);  // room -> {readOnly, users, latency} as last read from Slurk
    function here() { return typeof self_room === "undefined" ? null : self_room; }
    function apply(room, info) {
        if (String(here()) !== String(room)) { return; }  // moved on meanwhile: that room's joined_room decides
        var text = document.getElementById("text");
        if (text) {
            text.readOnly = !!info.readOnly;
            text.placeholder = info.readOnly ? "This room is read-only" : "Enter your message here!";
        }
        if (typeof $ === "function") {
            $("#user-list").fadeTo(null, info.users ? 1 : 0);
            $("#latency").fadeTo(null, info.latency ? 1 : 0);
        }
    }
    function read(path) {
        var token = typeof TOKEN === "undefined" ? "" : TOKEN;
        return fetch(location.origin + "/slurk/api/" + path, {headers: {"Authorization": "Bearer " + token}})
            .then(function (r) { if (!r.ok) { throw new Error(path + ": " + r.status); } return r.json(); });
    }
    socket.on("left_room", function (d) {
        var room = here();
        if (!d || room === null || room === undefined || String(d.room) === String(room)) { return; }
        apply(room, known[room] || {readOnly: false, users: true, latency: false});  // at once, then as Slurk says
        read("rooms/" + room).then(function (r) {
            return read("layouts/" + r.layout_id).then(function (layout) {
                known[room] = {readOnly: !!(r.read_only || layout.read_only), users: !!layout.show_users,
                               latency: !!layout.show_latency};
                apply(room, known[room]);
            });
        }).catch(function (e) { if (window.console) { console.warn("slurk-task: room state not read", e); } });
    });
}());
