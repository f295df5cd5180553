// The curation page of a double-reviewed plan: u undoes the latest settlement (the entry goes
// back to be settled again), as u undoes the last decision on the plan page.
(function () {
  "use strict";

  document.addEventListener("keydown", function (event) {
    if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey) return;
    if (event.key !== "u" || !document.querySelector("[data-curation-page]")) return;
    if (event.target.closest && event.target.closest("input, textarea, select, [contenteditable]")) return;
    const undo = document.querySelector("[data-undo-last]");
    if (!undo) return;
    event.preventDefault();
    undo.click();
  });
})();
