// The hand replay: swipe left for the next step, right for the one before; the arrow keys too.
// The links themselves do the work (htmx swaps the step in; without script they are plain links).
// Pointer events, as the table's own gestures: the step area lets the browser scroll only
// up and down (touch-action: pan-y), so a sideways finger stays ours to the end.
(function () {
  "use strict";
  const MIN_SWIPE = 50;
  let gesture = null;

  function go(id) {
    const link = document.getElementById(id);
    if (link) link.click();
  }

  document.addEventListener("pointerdown", (event) => {
    if (event.pointerType === "mouse" || !event.target.closest("#replay-step")) return;
    gesture = { id: event.pointerId, x: event.clientX, y: event.clientY };
  });
  document.addEventListener("pointercancel", () => { gesture = null; });
  document.addEventListener("pointerup", (event) => {
    if (!gesture || event.pointerId !== gesture.id) return;
    const dx = event.clientX - gesture.x;
    const dy = event.clientY - gesture.y;
    gesture = null;
    // A mostly sideways move, long enough not to be a tap.
    if (Math.abs(dx) < MIN_SWIPE || Math.abs(dx) < 2 * Math.abs(dy)) return;
    go(dx < 0 ? "replay-next" : "replay-prev");
  });
  document.addEventListener("keydown", (event) => {
    if (event.target.closest("input, textarea, select")) return;
    if (event.key === "ArrowRight") go("replay-next");
    if (event.key === "ArrowLeft") go("replay-prev");
  });
})();
