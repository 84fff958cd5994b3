// The slate on a phone: sends what the keeper taps, in order, once each (ids), and keeps it
// while the pub's wifi is away. It works out nothing: an entry shows as "entered, not yet
// counted" until the server's engine has counted it, and the slate shown is the server's.
(function () {
  "use strict";
  var page = document.querySelector(".slate-page");
  if (!page) return;
  var KEY = "toepen-slate-" + page.dataset.table;
  var SPEAK_KEY = "toepen-slate-speak";
  var BEAT_MS = (+page.dataset.heartbeat || 5) * 1000;
  var socket = null;
  var open = false;
  var inflight = null; // the id of the entry sent and not yet answered
  var tries = 0;
  var version = -1;
  var hand = null;
  var watchdog = null;
  var wakeLock = null;

  function live() { return document.getElementById("slate-live"); }

  var actionId = window.toepenActionId;  // static/js/site.js

  // -- the queue, kept in the phone ----------------------------------------------------------
  // Three lists, each kept through a reload: the entries not yet counted, the entries this
  // phone had counted (to tell its own from another phone's beside a refusal), and the
  // refused ones, shown until the keeper has read them: nothing entered is lost silently.
  function load(key) {
    try { return JSON.parse(localStorage.getItem(key) || "[]"); } catch (err) { return []; }
  }
  function keep(key, list) {
    try { localStorage.setItem(key, JSON.stringify(list)); } catch (err) { /* private mode */ }
  }
  var queue = load(KEY);
  var counted = load(KEY + "-counted");
  var refusals = load(KEY + "-refused");
  function store() {
    keep(KEY, queue);
    show();
  }

  function show() {
    var list = document.getElementById("slate-pending");
    if (!list) return;
    list.textContent = "";
    queue.forEach(function (entry) {
      var li = document.createElement("li");
      li.className = "is-pending";
      li.dataset.id = entry.frame.id;
      li.textContent = entry.text + " · " + list.dataset.label;
      list.appendChild(li);
    });
  }

  // An entry as the server's `#slate-since` names it (games/view/slate_html.py `_entry`).
  function keyOf(hand, e) {
    return JSON.stringify([hand, e.act, e.seat, e.target, e.clean, !!e.auto]);
  }

  function wasCounted(entry) {
    var f = entry.frame;
    if (!f.act) return; // an undo, a break: no entry of the hand
    counted.push({ hand: f.hand, base: f.base, key: keyOf(f.hand, f) });
    counted = counted.slice(-100);
    keep(KEY + "-counted", counted);
  }

  // What the server counted on the refused entry's hand since its slate was shown, less
  // what this phone itself had counted since: another phone's entries, or the table's.
  function others(doc, entry) {
    var since = doc.getElementById("slate-since");
    if (!since || since.dataset.id !== entry.frame.id) return [];
    var f = entry.frame;
    var mine = counted.filter(function (c) { return c.hand === f.hand && c.base >= f.base; })
      .map(function (c) { return c.key; });
    var found = [];
    Array.prototype.forEach.call(since.querySelectorAll("li"), function (li) {
      var at = mine.indexOf(keyOf(f.hand, JSON.parse(li.dataset.entry)));
      if (at >= 0) mine.splice(at, 1);
      else found.push(li.textContent);
    });
    return found;
  }

  function refused(entry, message, besides) {
    refusals.push({ id: entry.frame.id, text: entry.text, reason: message, others: besides });
    keep(KEY + "-refused", refusals);
    showRefused();
  }

  function showRefused() {
    var list = document.getElementById("slate-refused");
    if (!list) return;
    list.textContent = "";
    refusals.forEach(function (r) {
      var li = document.createElement("li");
      li.className = "is-refused";
      li.dataset.id = r.id;
      function line(cls, text) {
        var p = document.createElement("p");
        p.className = cls;
        p.textContent = text;
        li.appendChild(p);
      }
      line("refused-entry", r.text);
      line("refused-why", list.dataset.refused + " " + r.reason);
      (r.others || []).forEach(function (text) { line("refused-other", text); });
      var done = document.createElement("button");
      done.type = "button";
      done.className = "slate-button slate-dismiss";
      done.textContent = list.dataset.dismiss;
      done.addEventListener("click", function () {
        refusals = refusals.filter(function (x) { return x.id !== r.id; });
        keep(KEY + "-refused", refusals);
        showRefused();
      });
      li.appendChild(done);
      list.appendChild(li);
    });
  }

  function enter(frame, text) {
    frame.id = actionId();
    var slate = live();
    // How many of its hand's entries the slate showed: a refusal then says what was counted
    // since (games/live/slate_consumer.py).
    if (slate) frame.base = +slate.dataset.step;
    queue.push({ frame: frame, text: text });
    store();
    pump();
  }

  // At most one entry a GAP_MS: a queue sent after the wifi is back stays under the
  // server's limit of frames a second (games/live/consumers.py).
  var GAP_MS = 150;
  var sentAt = 0;
  var waiting = null;
  function pump() {
    if (!open || inflight || !queue.length || waiting) return;
    var wait = sentAt + GAP_MS - Date.now();
    if (wait > 0) {
      waiting = setTimeout(function () { waiting = null; pump(); }, wait);
      return;
    }
    inflight = queue[0].frame.id;
    sentAt = Date.now();
    socket.send(JSON.stringify(queue[0].frame));
  }

  function entryOf(id) {
    return queue.filter(function (entry) { return entry.frame.id === id; })[0];
  }

  function answered(id) {
    queue = queue.filter(function (entry) { return entry.frame.id !== id; });
    if (inflight === id) inflight = null;
    tries = 0;
    store();
    pump();
  }

  // -- the socket ------------------------------------------------------------------------------
  var connecting = null; // a socket opening, not open yet
  var retry = null; // the timer of the next try

  function connect() {
    clearTimeout(retry);
    retry = null;
    // One socket at a time; none while the phone says it has no network ("online" comes).
    if (connecting || open || navigator.onLine === false) return;
    var scheme = location.protocol === "https:" ? "wss://" : "ws://";
    var ws = new WebSocket(scheme + location.host + page.dataset.ws);
    connecting = ws;
    ws.onopen = function () {
      if (connecting === ws) connecting = null;
      socket = ws;
      open = true;
      tries = 0;
      inflight = null; // an entry sent before the drop goes again, with its id: applied once
      setOffline(false);
      listen();
      pump();
    };
    ws.onclose = function (e) {
      if (connecting === ws) connecting = null;
      if (socket === ws) {
        socket = null;
        open = false;
      } else if (open) {
        return; // an old socket, already replaced
      }
      inflight = null;
      clearTimeout(watchdog);
      setOffline(true);
      // 4xxx: the table says no, and will keep saying it.
      if (e.code < 4000 || e.code >= 5000) {
        retry = setTimeout(connect, Math.min(250 * Math.pow(2, tries++), 4000));
      }
    };
    ws.onmessage = function (e) { listen(); hear(e.data); };
  }

  // The phone knows before the socket does: entries wait in the queue at once, and go as
  // soon as the network is back.
  window.addEventListener("offline", function () {
    var dead = socket;
    socket = null;
    open = false;
    inflight = null;
    clearTimeout(watchdog);
    setOffline(true);
    if (dead) dead.close();
  });
  window.addEventListener("online", function () {
    tries = 0;
    connect();
  });

  function listen() {
    clearTimeout(watchdog);
    watchdog = setTimeout(function () {
      // Nothing heard for two heartbeat rounds: the socket may look open and be dead.
      setOffline(true);
      if (socket) socket.close();
    }, BEAT_MS * 2);
  }

  function hear(text) {
    if (text.charAt(0) === "{") {
      var word = JSON.parse(text);
      if (word.ack) {
        var done = entryOf(word.ack);
        if (done) wasCounted(done);
        answered(word.ack);
      }
      return;
    }
    var doc = new DOMParser().parseFromString(text, "text/html");
    var error = doc.getElementById("table-error");
    if (error) {
      var id = error.dataset.id;
      var entry = entryOf(id);
      if (entry && error.dataset.code === "retry") {
        inflight = null;
        setTimeout(pump, 1000);
      } else if (entry) {
        refused(entry, error.textContent, others(doc, entry));
        answered(id);
      } else {
        // Not about an entry (too many frames at once): the one in flight goes again.
        if (inflight) { inflight = null; setTimeout(pump, 1000); }
        var box = document.getElementById("table-error");
        if (box) box.textContent = error.textContent;
      }
    }
    var fresh = doc.getElementById("slate-live");
    if (fresh) {
      var v = +fresh.dataset.version;
      if (v < version) return; // an older slate after a newer one: keep the newer
      version = v;
      var old = live();
      if (old) {
        // A row's "away" choices stay open for the keeper who opened them.
        Array.prototype.forEach.call(old.querySelectorAll("details[open]"), function (d) {
          var same = fresh.querySelector('details[data-seat="' + d.dataset.seat + '"]');
          if (same) same.open = true;
        });
        old.replaceWith(document.adoptNode(fresh));
      }
      var box2 = document.getElementById("table-error");
      if (box2 && !error) box2.textContent = "";
      after();
    }
  }

  function setOffline(off) {
    var note = document.getElementById("slate-offline");
    if (note) note.hidden = !off;
    page.classList.toggle("is-offline", off);
  }

  // -- after a new slate: the score aloud, the screen awake -------------------------------------
  function after() {
    var el = live();
    if (!el) return;
    if (hand !== null && el.dataset.hand !== hand) speak(el.dataset.speech);
    hand = el.dataset.hand;
    awake(el.dataset.status === "playing");
  }

  var speakBox = document.getElementById("slate-speak");
  function speaking() { try { return localStorage.getItem(SPEAK_KEY) === "1"; } catch (err) { return false; } }
  if (speakBox) {
    speakBox.checked = speaking();
    speakBox.addEventListener("change", function () {
      try { localStorage.setItem(SPEAK_KEY, speakBox.checked ? "1" : "0"); } catch (err) { /* private mode */ }
    });
  }
  function speak(text) {
    if (!speaking() || !text || !window.speechSynthesis) return;
    var said = new SpeechSynthesisUtterance(text);
    said.lang = page.dataset.lang || document.documentElement.lang || "en";
    speechSynthesis.cancel();
    speechSynthesis.speak(said);
  }

  function awake(playing) {
    if (!("wakeLock" in navigator)) return;
    if (playing && !wakeLock && document.visibilityState === "visible") {
      wakeLock = true;
      navigator.wakeLock.request("screen").then(function (lock) {
        wakeLock = lock;
        lock.addEventListener("release", function () { wakeLock = null; });
      }, function () { wakeLock = null; });
    }
  }
  document.addEventListener("visibilitychange", function () {
    if (document.visibilityState === "visible") after();
  });

  // -- taps --------------------------------------------------------------------------------------
  function who(button) {
    var row = button.closest(".slate-player");
    var name = row && row.querySelector(".slate-name");
    return name ? name.textContent + ": " + button.textContent : button.textContent;
  }

  page.addEventListener("click", function (e) {
    var button = e.target.closest && e.target.closest("button[data-frame]");
    if (!button) return;
    var frame = JSON.parse(button.dataset.frame);
    if (frame.type === "next_rubber") {
      if (open) socket.send(JSON.stringify(frame));
      return;
    }
    enter(frame, who(button));
    button.classList.add("is-entered");
  });

  // A double tap on a player's name knocks for her, as at the app's tables. The two taps are
  // matched by the player's seat, not by the element: a view that arrives between them (the
  // socket's first view after the page, another phone's entry) puts new names in place.
  var lastTap = null;
  page.addEventListener("click", function (e) {
    var name = e.target.closest && e.target.closest(".slate-name");
    var player = name && name.closest(".slate-player");
    if (!player) { lastTap = null; return; }
    // When the finger touched, not when the script got to it: a busy phone's late handler
    // does not split a double tap.
    var now = e.timeStamp;
    if (lastTap && lastTap.seat === player.dataset.seat && now - lastTap.t < 400) {
      lastTap = null;
      if (name.dataset.knock) enter(JSON.parse(name.dataset.knock), name.dataset.knockText);
      return;
    }
    lastTap = { seat: player.dataset.seat, t: now };
  });

  var first = live();
  if (first) { version = +first.dataset.version; hand = first.dataset.hand; }
  show();
  showRefused();
  connect();
  after();
})();
