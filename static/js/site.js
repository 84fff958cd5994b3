// Every page: register the service worker (the installable app, the offline page). A file of
// its own, not an inline script, so the Content-Security-Policy needs no 'unsafe-inline'.
if ("serviceWorker" in navigator) {
  addEventListener("load", function () { navigator.serviceWorker.register("/sw.js").catch(function () {}); });
}

// A link to pass on (an invitation, a table): its button copies it, and says so. Over plain
// http on a club's Wi-Fi there is no Clipboard API: the selected text is copied the old way.
document.addEventListener("click", function (e) {
  var button = e.target.closest && e.target.closest("button[data-copy]");
  if (!button) return;
  var field = document.getElementById(button.dataset.copy);
  if (!field) return;
  var done = button.closest(".copy-link").querySelector(".copy-done");
  function copied() { if (done) done.hidden = false; }
  function byHand() {
    field.focus();
    field.select();
    try { if (document.execCommand("copy")) copied(); } catch (err) { /* selected: copy by hand */ }
  }
  if (navigator.clipboard && window.isSecureContext) navigator.clipboard.writeText(field.value).then(copied, byHand);
  else byHand();
});

// An id for an action a phone sends, so a frame sent again is applied once (the live and the
// slate tables alike). Not a secure context (a phone on the club's Wi-Fi over http): random
// bytes still work.
window.toepenActionId = function () {
  var c = window.crypto;
  if (c && c.randomUUID) return c.randomUUID();
  if (c && c.getRandomValues) {
    var bytes = c.getRandomValues(new Uint8Array(16));
    return Array.prototype.map.call(bytes, function (b) { return (b + 256).toString(16).slice(1); }).join("");
  }
  return Date.now().toString(36) + "-" + Math.random().toString(36).slice(2);
};
