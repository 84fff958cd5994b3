// The hand replay: swipe left for the next step, right for the one before; the arrow keys too.
// The links themselves do the work (htmx swaps the step in; without script they are plain links).
(function () {
  "use strict";
  const MIN_SWIPE = 50;

  function go(id) {
    const link = document.getElementById(id);
    if (link) link.click();
  }

  let startX = null;
  let startY = null;
  document.addEventListener("touchstart", (event) => {
    if (!event.target.closest("#replay-step") || event.touches.length !== 1) return;
    startX = event.touches[0].clientX;
    startY = event.touches[0].clientY;
  }, { passive: true });
  document.addEventListener("touchend", (event) => {
    if (startX === null) return;
    const dx = event.changedTouches[0].clientX - startX;
    const dy = event.changedTouches[0].clientY - startY;
    startX = startY = null;
    // A mostly sideways move, long enough not to be a tap or a scroll.
    if (Math.abs(dx) < MIN_SWIPE || Math.abs(dx) < 2 * Math.abs(dy)) return;
    go(dx < 0 ? "replay-next" : "replay-prev");
  });
  document.addEventListener("keydown", (event) => {
    if (event.target.closest("input, textarea, select")) return;
    if (event.key === "ArrowRight") go("replay-next");
    if (event.key === "ArrowLeft") go("replay-prev");
  });
})();
