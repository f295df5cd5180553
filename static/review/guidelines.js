// The guidelines panel of an item's page: g opens and closes it. A shortcut only: the panel
// is a disclosure that opens and closes without this script.
(function () {
  "use strict";

  function typing(target) {
    return target.closest && target.closest("input, textarea, select, [contenteditable]") !== null;
  }

  document.addEventListener("keydown", function (event) {
    if (event.key !== "g" || event.defaultPrevented || typing(event.target)) return;
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    const panel = document.querySelector("[data-guidelines-panel]");
    if (!panel) return;
    event.preventDefault();
    panel.open = !panel.open;
    if (panel.open) panel.querySelector("summary").focus({ preventScroll: true });
  });
})();
