// Work queues on the list and item pages: n presses "Next" (and z undoes the verdict it moved
// on from); an open item page says when it is left (so its lease goes at once instead of after
// the idle minutes), and remembers across a reload which lease it held, so the reloaded page
// takes it back if nobody else has (and not if a lead released it).
(function () {
  "use strict";

  function typing(target) {
    return target.closest && target.closest("input, textarea, select, [contenteditable]") !== null;
  }

  // n presses Next; z, after Next moved on from a verdict, undoes it (the page's own undo,
  // when it has one, comes first: its script takes the key).
  const KEYS = { n: "[data-next-button]", z: "[data-undo-moved-on]" };

  document.addEventListener("keydown", function (event) {
    if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey) return;
    if (!KEYS[event.key] || typing(event.target)) return;
    const button = document.querySelector(KEYS[event.key]);
    if (!button) return;
    event.preventDefault();
    button.click();
  });

  // A decision made on this page is the person's latest now: the offer to undo the one
  // before it goes (the server offers it only while it is their latest).
  document.addEventListener("htmx:afterSettle", function (event) {
    const panel = event.detail.elt;
    if (!panel || !panel.matches || !panel.matches("[data-decision-panel]")) return;
    if (!event.detail.xhr || event.detail.xhr.status !== 200) return;
    document.querySelectorAll("[data-undo-moved-on]").forEach(function (button) {
      button.closest("form").remove();
    });
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
