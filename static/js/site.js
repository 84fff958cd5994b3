// Every page: register the service worker (the installable app, the offline page). A file of
// its own, not an inline script, so the Content-Security-Policy needs no 'unsafe-inline'.
if ("serviceWorker" in navigator) {
  addEventListener("load", function () { navigator.serviceWorker.register("/sw.js").catch(function () {}); });
}
