// Keyboard for the plan page: an editor adjudicates a whole plan without the mouse.
// j/k move between entries, J/K jump to the next/previous entry that still needs a person,
// a/r/m/e/c press the current entry's buttons, u undoes this page's last decision wherever
// the focus is, ? shows the keys (n, the next plan, is queue.js's). Text selected in the
// document pane, then e, opens the current entry's edit form with the selection's offsets
// filled in and previewed (plan-selection.js).
// Every key only presses a button or link that is on the page, so it does nothing a click
// could not, and nothing at all for someone without decision buttons.
(function () {
  "use strict";

  const planPage = (window.planPage = window.planPage || {});
  const ACTION_KEYS = { a: "accept", r: "reject", m: "merge", e: "edit", u: "undo", c: "confirm" };
  // Confirming an anchor does not move on: the entry usually still waits for its verdict.
  const ADVANCING = new Set(["accept", "reject", "merge"]);
  let currentId = null;
  let keyboardAction = false;
  // Entries this page decided, latest last: u takes back the latest, wherever the focus is.
  const decidedHere = [];
  // The entry an accept stayed on, its anchor still to confirm.
  let askingAbout = null;

  // The rows shown: the entry filter hides the others, and j/k pass them by.
  function rows() {
    return Array.from(document.querySelectorAll("#entry-list .entry:not([hidden])"));
  }

  function rowOf(id) {
    return document.getElementById("entry-" + id);
  }

  function announce(text) {
    const live = document.getElementById("announce");
    if (live) live.textContent = text;
  }

  // The entry's id in the DOM: "entry-12", "seg-12" and "mark-12" all belong to entry 12.
  function entryIdOf(el) {
    return el.id.slice(el.id.indexOf("-") + 1);
  }

  // What is marked current now: kept here rather than looked for, since a query over a page
  // of thousands of entries costs more than the rest of a key press.
  let marked = [];

  function markCurrent(id) {
    const row = rowOf(id);
    const seg = document.getElementById("seg-" + id);
    const mark = document.getElementById("mark-" + id);
    const now = [row, seg, mark].filter(Boolean);
    marked.forEach(function (el) {
      if (now.indexOf(el) < 0 && !el.classList.contains("editing")) {
        el.classList.remove("is-current");
        el.removeAttribute("aria-current");
      }
    });
    if (row) {
      row.classList.add("is-current");
      row.setAttribute("aria-current", "true");
    }
    if (seg) seg.classList.add("is-current");
    if (mark) mark.classList.add("is-current");
    marked = now;
    return { row: row, seg: seg };
  }

  function setCurrent(id, options) {
    if (id == null) return;
    // A message about the entry just left ("Undo is not available...") no longer applies.
    if (String(id) !== currentId) announce("");
    currentId = String(id);
    const found = markCurrent(currentId);
    if (found.row && (!options || options.focus !== false)) {
      found.row.focus({ preventScroll: true });
    }
    if (!options || options.scroll !== false) {
      if (found.row) found.row.scrollIntoView({ block: "nearest" });
      if (found.seg && (!options || options.text !== false)) found.seg.scrollIntoView({ block: "center" });
    }
    rememberInAddress();
  }

  // The address names the current entry, so a reload comes back to it. Written a moment after
  // the keys stop: replaceState takes tens of milliseconds on a large page, and a key press
  // should not wait for it.
  let addressTimer = null;

  function rememberInAddress() {
    clearTimeout(addressTimer);
    addressTimer = setTimeout(function () {
      const url = new URL(window.location.href);
      url.searchParams.set("entry", currentId);
      url.hash = "";
      window.history.replaceState(null, "", url);
    }, 250);
  }

  // Every row, shown or hidden, in order: a live list the browser keeps up to date, so a key
  // press matches no selector against thousands of rows.
  let everyRow = null;

  // The next row shown after (step 1) or before (step -1) the current one that is `wanted`.
  function nextShown(step, wanted) {
    if (!everyRow) {
      const list = document.getElementById("entry-list");
      everyRow = list ? list.getElementsByClassName("entry") : [];
    }
    let index = Array.prototype.indexOf.call(everyRow, rowOf(currentId));
    for (index += step; index >= 0 && index < everyRow.length; index += step) {
      if (!everyRow[index].hidden && wanted(everyRow[index])) return everyRow[index];
    }
    return null;
  }

  function move(step) {
    const next = nextShown(step, function () { return true; });
    if (next) {
      setCurrent(entryIdOf(next));
    } else {
      announce(step > 0 ? "This is the last entry." : "This is the first entry.");
    }
  }

  // Undecided (a doubtful carried entry comes back undecided) or with an anchor still to
  // confirm: Entry.needs_a_person, which every row, light or whole, carries as data-needs-you.
  function needsPerson(row) {
    return row.hasAttribute("data-needs-you");
  }

  function jump(step) {
    const next = nextShown(step, needsPerson);
    if (next) {
      setCurrent(entryIdOf(next));
    } else {
      announce(step > 0 ? "No entry after this one needs you." : "No entry before this one needs you.");
    }
  }

  function undoLast() {
    const id = decidedHere.pop();
    // Nothing decided on this page yet (it was just opened): the current entry's own undo.
    if (id !== undefined) setCurrent(id);
    press("undo");
  }

  function press(action, drawn) {
    const row = rowOf(currentId);
    if (!row) return;
    const light = planPage.lists.lightListOf(row);
    if (light) {
      // The row is light: draw its list whole, then press (once: if that failed, say so).
      if (drawn) {
        announce("This entry could not be loaded; reload the page.");
      } else {
        planPage.lists.drawWhole(light).then(function () { press(action, true); });
      }
      return;
    }
    const control = row.querySelector('[data-action="' + action + '"]');
    if (!control || control.disabled) {
      const names = { accept: "Accept", reject: "Reject", merge: "Merge into previous", edit: "Edit",
        undo: "Undo", confirm: "Confirm anchor" };
      announce(names[action] + " is not available for this entry.");
      return;
    }
    keyboardAction = true;
    announce("");
    // e with text selected in the document: the edit form opens with the selection's offsets.
    if (action === "edit") planPage.selection.keep();
    control.click();
    // An accept does not vouch for a doubtful anchor: stay on the entry, whose row then asks
    // to confirm it (c) or edit it (e), instead of c landing on the next entry.
    if (action === "accept" && row.querySelector('[data-action="confirm"]')) {
      askingAbout = currentId;
    } else if (ADVANCING.has(action)) {
      move(1);
    }
  }

  function toggleHelp(force) {
    const help = document.querySelector("[data-keys-help]");
    if (!help) return;
    const wasInside = help.contains(document.activeElement);
    help.open = force === undefined ? !help.open : force;
    if (help.open) {
      help.querySelector("summary").focus();
    } else if (wasInside) {
      // Closing the keys hands the keyboard back to the entry it was on.
      const row = rowOf(currentId);
      if (row) row.focus({ preventScroll: true });
    }
  }

  function typing(target) {
    return target.closest("input, textarea, select, [contenteditable]") !== null;
  }

  document.addEventListener("keydown", function (event) {
    if (!document.querySelector("[data-plan-page]")) return;
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    if (event.key === "Escape") {
      const cancel = document.querySelector('.editing [data-action="cancel"]');
      if (cancel) {
        event.preventDefault();
        cancel.click();
      } else {
        toggleHelp(false);
      }
      return;
    }
    if (typing(event.target)) return;
    const key = event.key;
    if (key === "?") {
      event.preventDefault();
      toggleHelp();
    } else if (key === "j" || key === "k") {
      event.preventDefault();
      move(key === "j" ? 1 : -1);
    } else if (key === "J" || key === "K") {
      event.preventDefault();
      jump(key === "J" ? 1 : -1);
    } else if (key === "u") {
      event.preventDefault();
      undoLast();
    } else if (ACTION_KEYS[key]) {
      event.preventDefault();
      press(ACTION_KEYS[key]);
    }
  });

  // A click on a row, or on a span or its mark in the text, makes that entry current.
  document.addEventListener("click", function (event) {
    const target = event.target.closest("#entry-list .entry, .seg[id], .seg-mark[id]");
    // Selecting text in the document keeps the current entry: the selection is for it.
    const selecting = target && target.closest(".doc-text") && !window.getSelection().isCollapsed;
    if (target && !selecting && !event.target.closest("button, a[hx-get], a[data-action]")) {
      if (target.classList.contains("seg-mark")) event.preventDefault();
      setCurrent(entryIdOf(target), { scroll: !target.classList.contains("entry") });
    }
  });

  // An entry's buttons and its Edit link go over htmx, sent from here rather than wired up by
  // htmx at load, which on a page of thousands of rows took a tenth of the load. Without htmx
  // (or JavaScript) they are a plain form and a plain link.
  document.addEventListener("submit", function (event) {
    const button = event.submitter;
    if (!window.htmx || !button || !event.target.matches("#entry-list form[data-entry-actions]")) return;
    event.preventDefault();
    htmx.ajax("POST", button.getAttribute("formaction"), {
      source: button, target: button.closest(".entry"), swap: "outerHTML",
    });
  });

  document.addEventListener("click", function (event) {
    const link = event.target.closest && event.target.closest('#entry-list a[data-action="edit"]');
    if (!window.htmx || !link || event.button !== 0 || event.ctrlKey || event.metaKey || event.shiftKey) return;
    event.preventDefault();
    htmx.ajax("GET", link.getAttribute("href"), {
      source: link, target: link.closest(".entry"), swap: "outerHTML",
    });
  });

  // Saving or cancelling an edit starts afresh: an earlier message no longer applies.
  document.addEventListener("htmx:beforeRequest", function (event) {
    if (event.detail.elt && event.detail.elt.closest && event.detail.elt.closest(".editing")) announce("");
  });

  // The entry a request was about and the action it asked for, read from what sent it: one of
  // the row's buttons or links (data-action), or its edit form saving. Other requests (the
  // poll, a list drawn whole, Cancel) are about no entry.
  function requestAbout(elt) {
    const row = elt && elt.closest ? elt.closest(".entry") : null;
    const control = row && elt.closest("[data-action], [data-edit-form]");
    if (!control || control.dataset.action === "cancel") return null;
    return { id: entryIdOf(row), action: control.dataset.action || "edit" };
  }

  // A key moves on to the next entry before the server answers. When the server refuses the
  // decision (409: someone decided first; 422: not possible), go back to the refused entry and
  // read out why, so the editor does not walk on past a decision that never landed.
  document.addEventListener("htmx:afterRequest", function (event) {
    const xhr = event.detail.xhr;
    const config = event.detail.requestConfig;
    // The element that sent it (event.detail.elt is its parent when a swap took it away).
    const about = requestAbout(config && config.elt);
    const posted = config && config.verb === "post";
    if (posted && xhr && xhr.status === 200 && about && about.action !== "undo") decidedHere.push(about.id);
    if (!xhr || (xhr.status !== 409 && xhr.status !== 422)) return;
    if (!about || !rowOf(about.id) || about.id === currentId) return;
    setCurrent(about.id);
    const row = rowOf(about.id);
    const number = row.querySelector(".entry-no");
    const message = row.querySelector(".row-message");
    announce((number ? "Entry " + number.textContent.trim() + ": " : "") +
      (message ? message.textContent.trim() : "not applied."));
  });

  // After htmx swaps a row (or the counters), keep one current entry, keep focus on it, and
  // when the plan has just become ready hand the keyboard to "Adjudicate plan".
  document.addEventListener("htmx:afterSettle", function (event) {
    // Only what was swapped is looked at: a query over the whole page costs milliseconds per
    // thousand entries, and a decision settles three elements (its row, its mark, the counters).
    const elt = event.detail.elt;
    const editRow = elt && elt.closest ? elt.closest(".entry.editing") : null;
    const editing = editRow && editRow.querySelector("[data-autofocus]");
    if (editing) {
      // The form came back with a question (snap to a paragraph boundary?) or an error: put the
      // keyboard there, not back on the title, where typing would overwrite it.
      const offer = editRow.querySelector(".offers button");
      const invalid = editRow.querySelector('[aria-invalid="true"]');
      if (offer) {
        offer.focus();
      } else if (invalid) {
        invalid.focus();
      } else {
        editing.focus();
        editing.select();
      }
      return;
    }
    const answered = event.detail.xhr && event.detail.xhr.status === 200;
    if (askingAbout && answered && elt && elt.id === "entry-" + askingAbout) {
      // The accept settled the anchor after all (it was kept as an edit): move on as usual.
      if (!elt.querySelector('[data-action="confirm"]') && currentId === askingAbout) move(1);
      askingAbout = null;
    }
    markCurrent(currentId);
    const counters = document.getElementById("plan-counters");
    const button = document.getElementById("adjudicate-button");
    if (keyboardAction && counters && counters.dataset.ready === "true" && button && !button.disabled) {
      keyboardAction = false;
      button.focus();
      announce("Every entry is decided. Press Enter to adjudicate the plan.");
      return;
    }
    const active = document.activeElement;
    if (!active || active === document.body || !document.body.contains(active)) {
      const row = rowOf(currentId);
      if (row) row.focus({ preventScroll: true });
    }
  });

  // A poll's rows (out of band) may have been read before a decision this page has already
  // drawn: one older than the row on the page would put the decided entry back as it was,
  // and the poll's cursor has moved past that decision, so nothing would mend it. One of the
  // same version is the row already shown: redrawing it would only move the ground under a
  // key being pressed.
  document.addEventListener("htmx:oobBeforeSwap", function (event) {
    const shown = event.detail.target;
    const incoming = event.detail.fragment && event.detail.fragment.firstElementChild;
    if (!shown || !incoming || !shown.matches(".entry[data-version]")) return;
    if (Number(incoming.dataset.version) <= Number(shown.dataset.version)) {
      event.detail.shouldSwap = false;
    }
  });

  document.addEventListener("DOMContentLoaded", function () {
    const download = document.getElementById("download-link");
    if (download) {
      download.focus();
      return;
    }
    // The server names the current entry: the one asked for, or the first still proposed.
    const list = document.getElementById("entry-list");
    const wanted = list && list.dataset.current ? rowOf(list.dataset.current) : null;
    const current = wanted || rows()[0];
    // The document opens at its top; the entry list shows the current entry.
    if (current) setCurrent(entryIdOf(current), { text: false });
  });
})();
