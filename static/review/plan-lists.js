// The plan page's entry list: the lists drawn light, and the entry filter.
// A long plan's page draws the lists of entries far from the current one light (number, title,
// state): each is drawn whole as it nears the view, or when a key needs its row (plan-keys.js
// asks through window.planPage.lists). The filter is applied in place as it changes (the same
// rule as the server's, for a page without JavaScript): by state ("needs a person": proposed,
// or an anchor to confirm), rule and anchor status.
(function () {
  "use strict";

  const planPage = (window.planPage = window.planPage || {});
  const drawing = new Map();

  function lightListOf(row) {
    return row ? row.closest("[data-light]") : null;
  }

  function drawWhole(list) {
    if (!list || !window.htmx) return Promise.resolve();
    if (!drawing.has(list)) {
      // Sent from outside the entry list, so that it does not queue behind (or hold up) the
      // decisions the list's requests are kept in order with.
      const drawn = htmx.ajax("GET", list.dataset.light, {
        source: document.getElementById("entries-heading"), target: list, swap: "outerHTML",
      }).catch(function () {}).then(function () { drawing.delete(list); });
      drawing.set(list, drawn);
    }
    return drawing.get(list);
  }

  planPage.lists = { lightListOf: lightListOf, drawWhole: drawWhole };

  const nearView = "IntersectionObserver" in window ? new IntersectionObserver(function (seen) {
    seen.forEach(function (item) {
      if (!item.isIntersecting) return;
      nearView.unobserve(item.target);
      drawWhole(item.target);
    });
  }, { rootMargin: "100% 0px" }) : null;

  document.addEventListener("DOMContentLoaded", function () {
    if (nearView) document.querySelectorAll("[data-light]").forEach(function (light) { nearView.observe(light); });
  });

  // A light row's title opens the page at the entry without JavaScript; here the row's list
  // is drawn whole in place instead.
  document.addEventListener("click", function (event) {
    const lightTitle = event.target.closest(".entry-light .entry-title a");
    if (lightTitle) {
      event.preventDefault();
      drawWhole(lightListOf(lightTitle));
    }
  });

  // The poll that brings other people's changes leaves alone the entry being edited here, so
  // its form keeps what the editor typed.
  document.addEventListener("htmx:configRequest", function (event) {
    if (!event.detail.elt || !event.detail.elt.matches || !event.detail.elt.matches("[data-presence]")) return;
    const editing = document.querySelector("#entry-list .entry.editing");
    if (editing) event.detail.parameters.editing = editing.id.slice("entry-".length);
  });

  // --- the entry filter ------------------------------------------------------------------

  function matches(row, filter) {
    const state = filter.get("state");
    if (state === "needs") {
      // Undecided or its anchor unsettled (Entry.needs_a_person): light rows say so too.
      if (!row.hasAttribute("data-needs-you")) return false;
    } else if (state && !row.classList.contains("state-" + state)) {
      return false;
    }
    const rule = filter.get("rule");
    if (rule && row.dataset.rules.split(", ").indexOf(rule) < 0) return false;
    const anchor = filter.get("anchor");
    return !anchor || row.dataset.anchor === anchor;
  }

  function apply(form) {
    const filter = new FormData(form);
    let shown = 0;
    document.querySelectorAll("#entry-list .entry").forEach(function (row) {
      row.hidden = !matches(row, filter);
      if (!row.hidden) shown += 1;
    });
    const live = document.getElementById("announce");
    if (live) live.textContent = shown + " entries shown.";
  }

  document.addEventListener("change", function (event) {
    const form = event.target.closest && event.target.closest("[data-entry-filter]");
    if (form) apply(form);
  });
  document.addEventListener("submit", function (event) {
    if (!event.target.matches("[data-entry-filter]")) return;
    event.preventDefault();
    apply(event.target);
  });
  // A row redrawn by a decision or a poll, or a list drawn whole, comes back unfiltered:
  // filter what came again (the other rows have not changed).
  document.addEventListener("htmx:afterSettle", function (event) {
    const elt = event.detail.elt;
    if (!elt || !elt.matches) return;
    let came = [];
    if (elt.matches("#entry-list .entry")) came = [elt];
    else if (elt.matches("#entry-list .entry-chunk-holder")) came = elt.querySelectorAll(".entry");
    const form = document.querySelector("[data-entry-filter]");
    if (!form || came.length === 0) return;
    const filter = new FormData(form);
    if (!(filter.get("state") || filter.get("rule") || filter.get("anchor"))) return;
    came.forEach(function (row) { row.hidden = !matches(row, filter); });
  });
})();
