// The entry edit form's span on the plan page: text selected in the document pane, then e
// (plan-keys.js keeps the selection), fills the form's start and end; the form previews what
// its start and end would cut, as they are typed, before anything is saved.
(function () {
  "use strict";

  const planPage = (window.planPage = window.planPage || {});
  let selectedSpan = null;

  function oneLine(text) {
    return text.replace(/\s+/g, " ");
  }

  function previewSpan(form) {
    const preview = form.querySelector("[data-span-preview]");
    const start = parseInt(form.querySelector('[name="start"]').value, 10);
    const end = parseInt(form.querySelector('[name="end"]').value, 10);
    if (!preview) return;
    const text = planPage.text.documentText();
    if (!(start >= 0 && end > start && end <= text.length)) {
      preview.textContent = "";
      return;
    }
    const context = 40;
    preview.textContent =
      "New span " + start + "–" + end + " (" + (end - start) + " characters).\n" +
      "Starts: …" + oneLine(text.slice(Math.max(0, start - context), start)) + " ⟦" +
      oneLine(text.slice(start, start + context)) + "…\n" +
      "Ends: …" + oneLine(text.slice(Math.max(start, end - context), end)) + "⟧ " +
      oneLine(text.slice(end, end + context)) + "…";
  }

  function fillSelection(form) {
    form.querySelector('[name="start"]').value = selectedSpan.start;
    form.querySelector('[name="end"]').value = selectedSpan.end;
    selectedSpan = null;
    previewSpan(form);
  }

  // Called as the edit form is asked for: what is selected in the document then.
  planPage.selection = {
    keep: function () { selectedSpan = planPage.text.selectionSpan(); },
  };

  document.addEventListener("input", function (event) {
    const form = event.target.closest && event.target.closest("[data-edit-form]");
    if (form && (event.target.name === "start" || event.target.name === "end")) previewSpan(form);
  });

  // An edit form that came in (or came back) is previewed, filled from the selection first.
  document.addEventListener("htmx:afterSettle", function (event) {
    const elt = event.detail.elt;
    const editRow = elt && elt.closest ? elt.closest(".entry.editing") : null;
    const editForm = editRow && editRow.querySelector("[data-edit-form]");
    if (editForm && selectedSpan) {
      fillSelection(editForm);
    } else if (editForm) {
      previewSpan(editForm);
    }
  });
})();
