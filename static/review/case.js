// Keys and highlights for the case page. Everything here is a
// shortcut: without it the links, forms and buttons work the same.
(function () {
  "use strict";

  function highlightEvidence(ids, on, className) {
    ids.forEach(function (id) {
      var row = id && document.getElementById(id);
      if (row) row.classList.toggle(className, on);
    });
  }

  // Hovering over or focusing a citation lights up its evidence row.
  ["mouseover", "focusin"].forEach(function (type) {
    document.addEventListener(type, function (event) {
      var cite = event.target.closest && event.target.closest("a.cite[data-ev]");
      if (cite) highlightEvidence([cite.dataset.ev], true, "is-highlighted");
    });
  });
  ["mouseout", "focusout"].forEach(function (type) {
    document.addEventListener(type, function (event) {
      var cite = event.target.closest && event.target.closest("a.cite[data-ev]");
      if (cite) highlightEvidence([cite.dataset.ev], false, "is-highlighted");
    });
  });

  // --- Walking the sentences -------------------------------------------------
  var current = -1;

  function sentences() {
    return Array.prototype.slice.call(document.querySelectorAll("[data-sentence]"));
  }

  function select(index, options) {
    var all = sentences();
    if (!all.length) return;
    index = Math.max(0, Math.min(all.length - 1, index));
    var before = all[current];
    if (before) {
      before.classList.remove("is-current");
      highlightEvidence(before.dataset.cites.split(" "), false, "is-cited-by-current");
    }
    current = index;
    var sentence = all[current];
    sentence.classList.add("is-current");
    highlightEvidence(sentence.dataset.cites.split(" "), true, "is-cited-by-current");
    if (options && options.focus === false) return;
    sentence.focus({ preventScroll: true });
    sentence.scrollIntoView({ block: "nearest" });
  }

  // A sentence reached another way (an "s2" link in the evidence table, a click, Tab to one of
  // its citations) becomes the current one, so j and k walk on from there.
  document.addEventListener("focusin", function (event) {
    var sentence = event.target.closest && event.target.closest("[data-sentence]");
    if (!sentence) return;
    var index = sentences().indexOf(sentence);
    if (index !== current) select(index, { focus: false });
  });

  // --- Verdict keys -------------------------------------------------------------
  var pendingAction = null;

  function verdictButton(action) {
    return document.querySelector('[data-verdict-form] button[data-action="' + action + '"]');
  }

  function decide(action) {
    var button = verdictButton(action);
    if (!button) return false;
    var note = document.querySelector("[data-note]");
    if (button.hasAttribute("data-note-required") && note && !note.value.trim()) {
      // Ask for the note first; Ctrl+Enter in the note then sends this action.
      pendingAction = action;
      var hint = document.querySelector("[data-note-hint]");
      if (hint) {
        hint.textContent = button.textContent.trim() +
          " needs a note. Write it, then press Ctrl+Enter to " + button.textContent.trim().toLowerCase() + ".";
        hint.hidden = false;
      }
      note.focus();
      return true;
    }
    button.click();
    return true;
  }

  // A verdict that did not land (someone decided first) swaps in a fresh panel; put the note
  // the moderator wrote back into it, so deciding again does not mean writing it again.
  var sentNote = "";
  document.addEventListener("htmx:beforeRequest", function (event) {
    var note = event.detail.elt.closest && event.detail.elt.closest("[data-verdict-form]") &&
      document.querySelector("[data-note]");
    if (note) sentNote = note.value;
  });
  document.addEventListener("htmx:afterSettle", function (event) {
    if (!event.detail.elt || event.detail.elt.id !== "verdict") return;
    pendingAction = null;
    var note = document.querySelector("[data-note]");
    if (note && !note.value && sentNote && event.detail.xhr && event.detail.xhr.status === 409) {
      note.value = sentNote;
    }
    sentNote = "";
  });

  function isTyping(target) {
    return target.closest && target.closest("input, textarea, select, [contenteditable]");
  }

  document.addEventListener("keydown", function (event) {
    if (event.defaultPrevented || event.altKey || event.metaKey) return;
    if (isTyping(event.target)) {
      if (event.target.matches("[data-note]") && event.key === "Enter" && event.ctrlKey && pendingAction) {
        event.preventDefault();
        verdictButton(pendingAction).click();
        pendingAction = null;
      } else if (event.target.matches("[data-note]") && event.key === "Enter" && event.ctrlKey) {
        // The note came before the verdict: keep it, and let the next key choose the verdict.
        event.preventDefault();
        event.target.blur();
        var hint = document.querySelector("[data-note-hint]");
        if (hint) {
          hint.textContent = "Your note is kept. Press u to uphold, o to overturn or w for a rewrite; it is sent with that verdict.";
          hint.hidden = false;
        }
      } else if (event.key === "Escape") {
        event.target.blur();
      }
      return;
    }
    if (event.ctrlKey || !document.querySelector("[data-case-page]")) return;
    var handled = true;
    switch (event.key) {
      case "j": select(current + 1); break;
      case "k": select(current - 1); break;
      case "u": decide("uphold"); break;
      case "o": decide("overturn"); break;
      case "w": decide("needs_rewrite"); break;
      // While the page offers to undo the verdict Next moved on from, z is that offer's
      // (queue.js): it is the moderator's own latest decision.
      case "z": handled = !document.querySelector("[data-undo-moved-on]") && decide("undo"); break;
      default: handled = false;
    }
    if (handled) event.preventDefault();
  });
})();
