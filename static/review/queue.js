// Work queues on the list and item pages: n presses "Next"; an open item page says when it
// is left (so its lease goes at once instead of after the idle minutes), and remembers across
// a reload which lease it held, so the reloaded page takes it back if nobody else has (and
// not if a lead released it).
(function () {
  "use strict";

  function typing(target) {
    return target.closest && target.closest("input, textarea, select, [contenteditable]") !== null;
  }

  document.addEventListener("keydown", function (event) {
    if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey) return;
    if (event.key !== "n" || typing(event.target)) return;
    const next = document.querySelector("[data-next-button]");
    if (!next) return;
    event.preventDefault();
    next.click();
  });

  function strip() {
    return document.querySelector("[data-presence]");
  }

  function leaseKey(form) {
    return "lease:" + form.dataset.leaveUrl;
  }

  window.addEventListener("pagehide", function () {
    const form = strip();
    if (!form || !navigator.sendBeacon) return;
    if (form.dataset.lease) sessionStorage.setItem(leaseKey(form), form.dataset.lease);
    const data = new FormData();
    data.append("csrfmiddlewaretoken", form.querySelector("[name=csrfmiddlewaretoken]").value);
    navigator.sendBeacon(form.dataset.leaveUrl, data);
  });

  // The first poll after a reload names the lease the page held.
  document.addEventListener("htmx:configRequest", function (event) {
    const form = event.detail.elt;
    if (!form || !form.matches || !form.matches("[data-presence]")) return;
    const lease = sessionStorage.getItem(leaseKey(form));
    if (!lease) return;
    sessionStorage.removeItem(leaseKey(form));
    event.detail.parameters.lease = lease;
  });
})();
