// The plan page's document pane, read as text: the pane draws the document's text once, in
// order (a region per entry); marks, end signs and "not found" notes are drawn around it and
// are not part of it. Offsets into the text, the text itself, and Find in the document.
// The other plan-*.js files read this as window.planPage.text.
(function () {
  "use strict";

  const planPage = (window.planPage = window.planPage || {});
  const DECORATION = ".seg-mark, .seg-end, .not-found";

  function pane() {
    return document.querySelector(".doc-text");
  }

  // The pane's text nodes in order: the document's own, or (withMarks) the marks' words too,
  // which Find in the document also looks through.
  function textNodes(withMarks) {
    const root = pane();
    const nodes = [];
    if (!root) return nodes;
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      if (withMarks || !node.parentElement.closest(DECORATION)) nodes.push(node);
    }
    return nodes;
  }

  // The document offset of a point (node, offset) in the pane.
  function offsetAt(node, offset) {
    const probe = document.createRange();
    probe.setStart(pane(), 0);
    probe.setEnd(node, offset);
    let total = 0;
    for (const text of textNodes()) {
      if (text === node) return total + offset;
      if (probe.comparePoint(text, text.length) !== 0) break;
      total += text.length;
    }
    return total;
  }

  // The document's offsets of what is selected in the pane, if anything is.
  function selectionSpan() {
    const selection = window.getSelection();
    const root = pane();
    if (!root || !selection || selection.rangeCount === 0 || selection.isCollapsed) return null;
    const range = selection.getRangeAt(0);
    if (!root.contains(range.startContainer) || !root.contains(range.endContainer)) return null;
    const start = offsetAt(range.startContainer, range.startOffset);
    const end = offsetAt(range.endContainer, range.endOffset);
    return end > start ? { start: start, end: end } : null;
  }

  function documentText() {
    return textNodes().map(function (node) { return node.data; }).join("");
  }

  planPage.text = { documentText: documentText, selectionSpan: selectionSpan };

  // Find in the document: each press selects the next place the words occur, after the last.
  let lastEnd = 0;
  let lastTerm = "";

  function find(term) {
    if (!pane() || !term) return;
    const nodes = textNodes(true);
    const text = nodes.map(function (node) { return node.data; }).join("");
    const lower = text.toLowerCase();
    const needle = term.toLowerCase();
    if (term !== lastTerm) lastEnd = 0;
    lastTerm = term;
    let at = lower.indexOf(needle, lastEnd);
    if (at < 0) at = lower.indexOf(needle);
    const live = document.getElementById("announce");
    if (at < 0) {
      if (live) live.textContent = "“" + term + "” is not in the document.";
      return;
    }
    lastEnd = at + needle.length;
    const range = document.createRange();
    let offset = 0;
    nodes.forEach(function (node) {
      const end = offset + node.data.length;
      if (at >= offset && at < end) range.setStart(node, at - offset);
      if (lastEnd > offset && lastEnd <= end) range.setEnd(node, lastEnd - offset);
      offset = end;
    });
    const selection = window.getSelection();
    selection.removeAllRanges();
    selection.addRange(range);
    const holder = range.startContainer.parentElement;
    if (holder) holder.scrollIntoView({ block: "center" });
    if (live) live.textContent = "Found “" + term + "”.";
  }

  document.addEventListener("submit", function (event) {
    if (!event.target.matches("[data-doc-search]")) return;
    event.preventDefault();
    find(event.target.querySelector("[name=find]").value.trim());
  });
})();
