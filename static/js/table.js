// The table on a phone: names gestures as the actions the server offered, gives the knock and
// turn cues, keeps the screen awake and the socket fresh. It decides no rule: a swipe sends the
// fold the view carries, a double tap presses the knock button, and every frame is the server's.
(function () {
  "use strict";
  var page = document.querySelector(".table-page");
  if (!page) return;
  var MUTE_KEY = "toepen-muted";
  var reduced = window.matchMedia && matchMedia("(prefers-reduced-motion: reduce)").matches;
  var socket = null; // htmx's socket wrapper (send, reconnect)
  var open = false;
  var last = null; // what the last frame said: version, hand, knocks, turn
  var fresh = true; // the first frame after (re)connecting may jump versions
  var syncTimer = null;
  var audio = null;
  var wakeLock = null;

  // Reconnect quickly after a restart or a sleep, but back off while the server stays away.
  if (window.htmx) {
    htmx.config.wsReconnectDelay = function (n) {
      return Math.min(250 * Math.pow(2, n), 4000) * (0.5 + Math.random() / 2);
    };
  }

  function live() { return document.getElementById("table-live"); }

  var actionId = window.toepenActionId;  // static/js/site.js

  var sentAt = 0; // when this phone last sent the server anything
  function send(frame) {
    if (socket) { sentAt = Date.now(); socket.send(JSON.stringify(frame)); }
  }

  // The server says something at least every 1.25 heartbeat rounds (TOEPEN_HEARTBEAT_SECONDS);
  // a phone that hears nothing for two says so on screen and asks, and reconnects when nothing
  // answers (sync).
  var BEAT_MS = (+page.dataset.heartbeat || 5) * 1000;
  var watchdog = null;
  function listen() {
    clearTimeout(watchdog);
    if (!open) return;
    watchdog = setTimeout(function () { setOffline(true); sync(); }, BEAT_MS * 2);
  }

  // The server counts a player as at the table while her phone is heard: a phone that has
  // sent nothing for a heartbeat round pings, so one whose network went quiet stops counting
  // (its grace runs) even while its socket looks open at the server.
  var pinger = null;
  function ping() {
    if (open && Date.now() - sentAt >= BEAT_MS * 0.9) send({ type: "ping" });
  }

  function sync() {
    send({ type: "sync" });
    // A socket that sleeps with the phone may look open and be dead: no answer, new socket.
    clearTimeout(syncTimer);
    syncTimer = setTimeout(function () { if (socket) { fresh = true; socket.reconnect(); } }, 4000);
  }

  // -- actions the server has not confirmed ----------------------------------------------------
  // An action is kept until the server says it took it (the change's view carries data-ack; a
  // repeated id, or a view overtaken by a newer one, gets {"ack": id}) or refused it with a
  // reason (an error naming its id), however long that takes. It is sent again, with the same
  // id, after a reconnect, when the server answers "retry" (its database was away; again and
  // again, every two seconds at most), and when the server is back after saying it waits for
  // its database: the server applies an id once, so a resend is safe. Meanwhile the phone says
  // the server is catching up and the tap is kept.
  var pending = {};
  var RETRY_MS = [250, 500, 1000, 2000];
  var waiting = false; // the server said it cannot reach its database ({"wait":1})

  function keep(frame) {
    if (frame && frame.id && (frame.act || frame.type === "ready")) pending[frame.id] = { frame: frame, tries: 0 };
  }
  function answered(id) {
    delete pending[id];
    showWaiting();
  }
  function resendAll() {
    Object.keys(pending).forEach(function (id) { send(pending[id].frame); });
  }
  function retry(id) {
    var p = pending[id];
    if (!p) return;
    p.retrying = true;
    showWaiting();
    var pause = RETRY_MS[Math.min(p.tries++, RETRY_MS.length - 1)];
    clearTimeout(p.timer);
    p.timer = setTimeout(function () { if (pending[id] && open) send(p.frame); }, pause);
  }
  // "The server is catching up": while it says it waits for its database, or a tap is being
  // sent again because it could not be taken yet. Not "Reconnecting": the socket is open.
  function showWaiting() {
    var note = document.getElementById("table-waiting");
    var retrying = Object.keys(pending).some(function (id) { return pending[id].retrying; });
    if (note) note.hidden = !(open && (waiting || retrying));
  }
  function serverBack() {
    if (!waiting) return;
    waiting = false;
    resendAll();
    showWaiting();
  }

  // -- the socket ------------------------------------------------------------------------------
  // A frame's first element, its opening tag parsed alone by the browser (a view's
  // #table-live, a refusal's #table-error): its data-* attributes are read by name, whatever
  // order the server writes them in, before htmx swaps the frame in.
  function frameRoot(text) {
    var tag = /^\s*<[a-z][^>]*>/.exec(text);
    if (!tag) return null;
    var holder = document.createElement("template");
    holder.innerHTML = tag[0];
    return holder.content.firstElementChild;
  }

  document.body.addEventListener("htmx:wsConfigSend", function (e) {
    var p = e.detail.parameters;
    if (p && (p.act || p.type === "ready") && !p.id) p.id = actionId();
    keep(p);
    sentAt = Date.now();
  });
  document.body.addEventListener("htmx:wsOpen", function (e) {
    socket = e.detail.socketWrapper;
    open = true;
    fresh = true;
    waiting = false;
    setOffline(false);
    listen();
    sentAt = 0;
    resendAll();
    ping(); // at once: from its first ping on, the server goes by what this phone sends
    clearInterval(pinger);
    pinger = setInterval(ping, BEAT_MS);
    showWaiting();
  });
  document.body.addEventListener("htmx:wsClose", function (e) {
    var code = e.detail.event && e.detail.event.code;
    open = false;
    clearTimeout(watchdog);
    clearInterval(pinger);
    setOffline(true);
    showWaiting();
    // htmx retries 1006/1011/1012/1013 by itself; a clean close from a restarting server (1001,
    // 1000) is retried here. 4xxx is the table saying no: no retry.
    if (code === 1000 || code === 1001) setTimeout(function () { if (socket) socket.reconnect(); }, 300);
  });
  document.body.addEventListener("htmx:wsBeforeMessage", function (e) {
    clearTimeout(syncTimer);
    listen();
    var text = e.detail.message;
    if (text.charAt(0) === "{") {
      // Not a view: the server's word on an action, or its heartbeat.
      e.preventDefault();
      var word = JSON.parse(text);
      if (word.ack) answered(word.ack);
      if (open) setOffline(false);
      if (word.wait) {
        waiting = true;
        showWaiting();
      } else if (word.beat) {
        serverBack();
      }
      return;
    }
    var root = frameRoot(text);
    if (!root) return;
    if (root.id === "table-error" && root.dataset.code === "retry") {
      // Not a refusal: the tap is kept and goes again; the note says so, not the error box.
      e.preventDefault();
      if (root.dataset.id) retry(root.dataset.id);
      else { waiting = true; showWaiting(); }
      return;
    }
    if (root.id === "table-error" && root.dataset.id) answered(root.dataset.id);
    if (root.id !== "table-live" || !root.dataset.version) return;
    serverBack();
    // The view of a change this phone's action made says so: it answers the action.
    if (root.dataset.ack) answered(root.dataset.ack);
    var version = +root.dataset.version;
    if (last && version < last.version) {
      e.preventDefault(); // an older view after a newer one: keep the newer
      return;
    }
    if (last && !fresh && version > last.version + 1) sync();
    fresh = false;
  });
  document.body.addEventListener("htmx:wsAfterMessage", function (e) {
    if (open) setOffline(false);
    var el = live();
    if (!el) return;
    if (e.detail.message.indexOf('id="table-live"') >= 0) tableChanged();
    var now = read(el);
    cue(last, now);
    last = now;
    holdTrick();
    keepMenu();
    countdown();
    awake(now.status === "playing");
  });

  // -- refusals -------------------------------------------------------------------------------
  // A refusal says why, then goes: with the next change at the table once it has been up long
  // enough to read, or after a few seconds when nothing changes.
  var READ_MS = 1500;
  var SHOWN_MS = 5000;
  var refusedAt = 0;
  var refusalTimer = null;
  document.body.addEventListener("htmx:oobAfterSwap", function (e) {
    if (e.target.id !== "table-error" || !e.target.textContent.trim()) return;
    refusedAt = Date.now();
    clearTimeout(refusalTimer);
    refusalTimer = setTimeout(clearRefusal, SHOWN_MS);
  });
  function tableChanged() {
    if (!refusedAt) return;
    clearTimeout(refusalTimer);
    refusalTimer = setTimeout(clearRefusal, Math.max(0, READ_MS - (Date.now() - refusedAt)));
    refusedAt = 0;
  }
  function clearRefusal() {
    refusedAt = 0;
    var box = document.getElementById("table-error");
    if (box) box.textContent = "";
  }

  function read(el) {
    var d = el.dataset;
    return {
      version: +d.version, hand: d.rubber + "/" + d.hand, knocks: +d.knocks || 0,
      knocker: d.knocker, seats: (d.seats || "").split(" "), turn: d.turn === "1", status: d.status,
      playing: d.in === "1" // a player of this phone is in the hand, not folded, not out
    };
  }

  function setOffline(off) {
    var note = document.getElementById("table-offline");
    if (note) note.hidden = !off;
    page.classList.toggle("is-offline", off);
  }

  // -- cues --------------------------------------------------------------------------------------
  function cue(before, now) {
    if (!before || before.hand !== now.hand) {
      if (now.turn && before) soft();
      return;
    }
    // A knock is felt by those it concerns: never its knocker, nor a player out or folded.
    if (now.knocks > before.knocks && now.seats.indexOf(now.knocker) < 0) {
      if (now.playing) knockKnock();
    } else if (now.turn && !before.turn) soft();
  }

  function knockKnock() {
    if (navigator.vibrate) navigator.vibrate([70, 90, 70]);
    shake("is-knocked");
    sound([0, 0.16], 0.9);
  }

  function soft() {
    if (navigator.vibrate) navigator.vibrate(30);
    shake("is-nudged");
    sound([0], 0.35);
  }

  function shake(cls) {
    page.classList.remove("is-knocked", "is-nudged");
    void page.offsetWidth; // restart the animation
    page.classList.add(cls);
    setTimeout(function () { page.classList.remove(cls); }, 700);
  }

  function muted() {
    try { return localStorage.getItem(MUTE_KEY) === "1"; } catch (err) { return false; }
  }

  // A knuckle on wood: a short low thump with a click on top, made here, no sound file.
  function sound(times, gain) {
    if (muted()) return;
    var ctx = audioContext();
    if (!ctx) return;
    times.forEach(function (t) {
      var at = ctx.currentTime + t + 0.01;
      var osc = ctx.createOscillator();
      var vol = ctx.createGain();
      osc.type = "triangle";
      osc.frequency.setValueAtTime(180, at);
      osc.frequency.exponentialRampToValueAtTime(60, at + 0.09);
      vol.gain.setValueAtTime(gain, at);
      vol.gain.exponentialRampToValueAtTime(0.001, at + 0.12);
      osc.connect(vol).connect(ctx.destination);
      osc.start(at);
      osc.stop(at + 0.13);
    });
  }

  function audioContext() {
    var Ctx = window.AudioContext || window.webkitAudioContext;
    if (!Ctx) return null;
    if (!audio) audio = new Ctx();
    if (audio.state === "suspended") audio.resume();
    return audio;
  }

  // Browsers start audio only after a tap: unlock it on the first one.
  document.addEventListener("pointerdown", function () { if (!muted()) audioContext(); }, { once: true });

  // The button's words say how the sound is now ("Sound on" / "Sound off"); a tap turns it over.
  var muteButton = document.getElementById("table-mute");
  function showMute() {
    if (!muteButton) return;
    var off = muted();
    muteButton.textContent = off ? muteButton.dataset.off : muteButton.dataset.on;
    muteButton.classList.toggle("is-muted", off);
  }
  if (muteButton) {
    showMute();
    muteButton.addEventListener("click", function () {
      try { localStorage.setItem(MUTE_KEY, muted() ? "0" : "1"); } catch (err) { /* private mode */ }
      showMute();
    });
  }

  // The answer window's countdown ticks here between frames; the server keeps the real clock.
  var ticking = null;
  function countdown() {
    clearInterval(ticking);
    var started = Date.now();
    var clocks = Array.prototype.slice.call(document.querySelectorAll(".countdown[data-seconds]"));
    if (!clocks.length) return;
    ticking = setInterval(function () {
      var gone = Math.floor((Date.now() - started) / 1000);
      clocks.forEach(function (c) { c.textContent = Math.max(0, +c.dataset.seconds - gone); });
    }, 250);
  }

  // -- a finished trick stays on the felt ------------------------------------------------------
  // The table goes on at once (a computer player leads the next trick within a second): the
  // trick just taken stays in view for TRICK_MS, saying who took it, beside the next trick,
  // whose cards show as they are played (a player sees her own card go down at once); the
  // rest of each view is the server's as it comes.
  var TRICK_MS = 2000;
  var taken = null; // the trick last taken: its key, its markup, and until when it stays
  var trickTimer = null;
  function holdTrick() {
    var trick = document.getElementById("table-trick");
    if (!trick) return;
    var now = Date.now();
    if (trick.querySelector(".trick-taker")) {
      if (!taken || taken.key !== trick.dataset.trick) {
        clearTimeout(trickTimer); // the trick before is shown no longer: its time is over
        taken = { key: trick.dataset.trick, html: trick.outerHTML, until: now + TRICK_MS };
      }
      return;
    }
    if (!taken || now >= taken.until) { taken = null; return; }
    var holding = taken;
    var holder = document.createElement("template");
    holder.innerHTML = holding.html;
    var held = holder.content.firstElementChild;
    held.id = "table-trick-held";
    held.classList.add("is-held");
    trick.parentNode.insertBefore(held, trick);
    clearTimeout(trickTimer);
    trickTimer = setTimeout(function () {
      var shown = document.getElementById("table-trick-held");
      if (shown) shown.remove();
      if (taken === holding) taken = null;
    }, holding.until - now);
  }

  // The menu of going away stays open over the frames that come while a player reads it, and
  // closes once she chose.
  var menuOpen = false;
  document.addEventListener("toggle", function (e) {
    if (e.target.classList && e.target.classList.contains("away-menu")) menuOpen = e.target.open;
  }, true);
  document.addEventListener("click", function (e) {
    if (e.target.closest && e.target.closest(".away-choices button")) menuOpen = false;
  });
  function keepMenu() {
    var menu = document.querySelector(".away-menu");
    if (!menu) menuOpen = false;
    else if (menuOpen && !menu.open) menu.open = true;
  }

  // -- gestures --------------------------------------------------------------------------------
  var SLOP = 10; // px a tap may wander and still be a tap
  var gesture = null;

  page.addEventListener("pointerdown", function (e) {
    var hand = e.target.closest && e.target.closest("#table-hand.can-fold");
    if (!hand || (e.pointerType === "mouse" && e.button !== 0)) return;
    gesture = { id: e.pointerId, hand: hand, x: e.clientX, y: e.clientY, dy: 0, moved: false };
  });

  window.addEventListener("pointermove", function (e) {
    if (!gesture || e.pointerId !== gesture.id) return;
    var dy = e.clientY - gesture.y;
    var dx = e.clientX - gesture.x;
    if (!gesture.moved && Math.abs(dy) < SLOP && Math.abs(dx) < SLOP) return;
    gesture.moved = true;
    gesture.dy = Math.max(0, dy); // only down, off the table, counts
    var h = gesture.hand;
    h.classList.add("is-dragging");
    h.style.transform = "translateY(" + gesture.dy + "px)";
    h.style.opacity = String(Math.max(0.3, 1 - gesture.dy / (threshold(h) * 2)));
    h.classList.toggle("is-past", gesture.dy >= threshold(h));
  });

  function threshold(hand) { return Math.max(80, hand.offsetHeight * 0.6); }

  function endGesture(e, cancelled) {
    if (!gesture || e.pointerId !== gesture.id) return;
    var g = gesture;
    gesture = null;
    if (!g.moved) return;
    var h = g.hand;
    h.classList.remove("is-dragging", "is-past");
    var fold = !cancelled && g.dy >= threshold(h) && h.dataset.fold;
    if (fold) {
      var frame = JSON.parse(fold);
      frame.id = actionId();
      keep(frame);
      send(frame);
      h.classList.add("is-folding");
    } else {
      h.style.transform = "";
      h.style.opacity = "";
    }
    // A drag is not a tap: the card under the finger must not be played.
    var swallow = function (ev) { ev.stopPropagation(); ev.preventDefault(); };
    window.addEventListener("click", swallow, { capture: true, once: true });
    setTimeout(function () { window.removeEventListener("click", swallow, true); }, 400);
  }
  window.addEventListener("pointerup", function (e) { endGesture(e, false); });
  window.addEventListener("pointercancel", function (e) { endGesture(e, true); });

  // A double tap on the felt knocks: it presses the knock button, so only when it is offered.
  var lastTap = null;
  page.addEventListener("pointerup", function (e) {
    var felt = e.target.closest && e.target.closest("#table-felt");
    if (!felt || e.target.closest("button, a, input")) { lastTap = null; return; }
    var now = e.timeStamp; // when the finger lifted, however late the handler runs
    if (lastTap && now - lastTap.t < 400 && Math.abs(e.clientX - lastTap.x) < 40 && Math.abs(e.clientY - lastTap.y) < 40) {
      lastTap = null;
      var knock = document.querySelector("#table-actions .action-knock");
      if (knock && !knock.disabled) {
        knock.click();
        shake("is-nudged");
      } else if (knock) {
        var why = document.getElementById("knock-why");
        if (why) { why.classList.remove("is-flash"); void why.offsetWidth; why.classList.add("is-flash"); }
      }
      return;
    }
    lastTap = { t: now, x: e.clientX, y: e.clientY };
  });

  var first = live();
  if (first) {
    last = read(first);
    holdTrick();
    countdown();
  }

  // -- awake and fresh -------------------------------------------------------------------------
  function awake(playing) {
    if (!("wakeLock" in navigator)) return;
    if (playing && !wakeLock && document.visibilityState === "visible") {
      wakeLock = true; // a request in flight
      navigator.wakeLock.request("screen").then(function (lock) {
        wakeLock = lock;
        lock.addEventListener("release", function () { wakeLock = null; });
      }, function () { wakeLock = null; });
    } else if (!playing && wakeLock && wakeLock.release) {
      wakeLock.release();
      wakeLock = null;
    }
  }

  function wake() {
    if (document.visibilityState !== "visible") return;
    if (socket && open) sync();
    else if (socket) { fresh = true; socket.reconnect(); }
    if (last) awake(last.status === "playing");
  }
  document.addEventListener("visibilitychange", wake);
  window.addEventListener("pageshow", function (e) { if (e.persisted) wake(); });
  window.addEventListener("online", wake);
  if (last) awake(last.status === "playing");
})();
