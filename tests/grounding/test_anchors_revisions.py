"""Anchors across the edits documentation gets: blank lines, reflows, neighbours rewritten."""

from __future__ import annotations

import re

from grounding.anchors import (
    DISTINCT_QUOTE_CHARS,
    FUZZY,
    MOVED,
    ORPHANED,
    PLACED,
    Anchor,
    locate,
    make_anchor,
    relocate,
)

CHANGELOG = """\
Changelog
=========

Version 2.1.0
-------------

Unreleased

-   Drop support for Python 3.7, which reached the end of its life.

-   The development server binds to 127.0.0.1 unless a host is given.

-   Loading configuration from a file accepts a ``text`` argument.

-   Sessions are refreshed on each request when the lifetime is set.

Version 2.0.3
-------------

Released 2026-02-15

-   Fix a crash when a template name contains a backslash on Windows.

-   The test client keeps cookies across redirects.
"""

GUIDE = """\
# Installing the tool

The tool runs on any system with a recent interpreter.

## From packages

Most distributions ship the tool. On Debian and Ubuntu, open a terminal
and type the install command shown below.

    sudo apt install thetool

## From source

Clone the repository, then build it with the usual commands. The build
needs a compiler and about five minutes.

## Getting help

Ask on the mailing list, or open an issue describing what you tried.
"""


def paragraphs(text: str) -> list[tuple[int, int]]:
    """One span per paragraph (a run of non-blank lines), as an editor's entries would be."""
    return [match.span() for match in re.finditer(r"\S[^\n]*(?:\n[ \t]*\S[^\n]*)*", text)]


def plan_of(text: str, spans: list[tuple[int, int]] | None = None) -> tuple[list[Anchor], list]:
    spans = spans if spans is not None else paragraphs(text)
    return [make_anchor(text, start, end) for start, end in spans], [start for start, _ in spans]


def found_text(new: str, anchors: list[Anchor], hints: list) -> list[str]:
    return [new[location.start : location.end] for location in relocate(new, anchors, hints)]


# --- white space and typography alone ------------------------------------------------------------


def test_a_change_that_only_removes_blank_lines_between_entries_flags_nothing() -> None:
    anchors, hints = plan_of(CHANGELOG)
    tight = CHANGELOG.replace(".\n\n-   ", ".\n-   ")
    assert tight != CHANGELOG
    found = relocate(tight, anchors, hints)
    assert {location.status for location in found} <= PLACED
    assert [tight[location.start : location.end] for location in found] == [
        anchor.quote for anchor in anchors
    ]


def test_typography_changed_around_a_quote_flags_nothing() -> None:
    old = 'Say "yes" -- or "no" -- when asked.\n\nThe answer is stored for the next run.\n\n'
    old += "Nothing else is kept between runs.\n"
    anchors, hints = plan_of(old)
    new = old.replace('"yes"', "\u201cyes\u201d").replace('"no"', "\u201cno\u201d")
    new = new.replace(" -- ", " \u2014 ")
    found = relocate(new, anchors, hints)
    # The sentence that was retypeset itself is edited text, and a person looks at it; the one
    # whose surroundings alone were retypeset is placed.
    assert found[0].status == FUZZY
    assert [location.status for location in found[1:]] == [MOVED, MOVED]
    assert new[found[1].start : found[1].end] == anchors[1].quote


def test_a_retypeset_context_alone_is_enough_for_a_single_anchor_too() -> None:
    old = "Intro line here.\n\nThe build needs a compiler and about five minutes.\n\nEnd.\n"
    anchor, hint = make_anchor(old, *paragraphs(old)[1]), paragraphs(old)[1][0]
    new = old.replace("Intro line here.\n\n", "Intro  line  here.\n\n\n")
    found = locate(new, anchor, hint)
    assert found.status == MOVED
    assert new[found.start : found.end] == anchor.quote


def test_an_underlined_heading_survives_a_reflow_of_the_paragraph_after_it() -> None:
    old = (
        "Setting up\n==========\n\nRead this first.\n\n"
        "Configuration\n-------------\n\n"
        "The application reads its settings from a file named in the environment, then from\n"
        "the command line, which wins where both set the same key.\n\n"
        "Logging\n-------\n\nLogs go to standard error.\n"
    )
    anchors, hints = plan_of(old)
    heading = anchors.index(make_anchor(old, *_span(old, "Configuration\n-------------")))
    reflowed = old.replace(
        "The application reads its settings from a file named in the environment, then from\n"
        "the command line, which wins where both set the same key.",
        "The application reads its settings from a file named in\n"
        "the environment, then from the command line, which wins where both set\n"
        "the same key.",
    )
    found = relocate(reflowed, anchors, hints)
    assert found[heading].status in PLACED
    assert reflowed[found[heading].start : found[heading].end] == "Configuration\n-------------"
    assert found[heading + 1].status == FUZZY  # the reflowed paragraph itself


# --- verbatim quotes whose neighbours were edited ------------------------------------------------


def test_a_verbatim_unique_quote_whose_neighbours_were_edited_is_placed_not_orphaned() -> None:
    anchors, hints = plan_of(GUIDE)
    command = anchors.index(make_anchor(GUIDE, *_span(GUIDE, "sudo apt install thetool")))
    new = GUIDE.replace("and type the install command shown below.", "and run:").replace(
        "## From source", "## Building it yourself"
    )
    found = relocate(new, anchors, hints)
    assert found[command].status == MOVED
    assert new[found[command].start : found[command].end] == "sudo apt install thetool"


def test_a_verbatim_quote_continuing_a_placed_neighbour_is_moved() -> None:
    # The heading's prefix was rewritten; its suffix runs on, verbatim, into the paragraph after,
    # which is placed: one unbroken stretch of the old text.
    anchors, hints = plan_of(GUIDE)
    heading = anchors.index(make_anchor(GUIDE, *_span(GUIDE, "## From source")))
    new = GUIDE.replace("    sudo apt install thetool", "    sudo apt-get install -y thetool")
    found = relocate(new, anchors, hints)
    assert found[heading - 1].status == FUZZY  # the command itself was edited
    assert found[heading].status == MOVED
    assert new[found[heading].start : found[heading].end] == "## From source"


def test_alone_a_verbatim_quote_with_edited_context_is_still_only_fuzzy() -> None:
    # Without neighbours nothing proves the place; a person confirms it, but it is not lost.
    start, end = _span(GUIDE, "## From source")
    new = GUIDE.replace("    sudo apt install thetool\n\n", "    sudo dnf install thetool\n\n")
    new = new.replace("Clone the repository", "Fetch the sources")
    found = locate(new, make_anchor(GUIDE, start, end), start)
    assert found.status == FUZZY
    assert new[found.start : found.end] == "## From source"


def test_a_short_quote_between_rewritten_neighbours_is_flagged_not_placed() -> None:
    # "## Getting help" is too short to be told from a new heading of the same words.
    assert len("## Getting help") < DISTINCT_QUOTE_CHARS
    anchors, hints = plan_of(GUIDE)
    heading = anchors.index(make_anchor(GUIDE, *_span(GUIDE, "## Getting help")))
    new = GUIDE.replace("about five minutes.", "a few minutes on a laptop.").replace(
        "Ask on the mailing list", "Write to the forum"
    )
    found = relocate(new, anchors, hints)
    assert found[heading].status == FUZZY
    assert new[found[heading].start : found[heading].end] == "## Getting help"


def test_a_title_at_the_start_stays_placed_when_the_paragraph_after_it_is_rewritten() -> None:
    anchors, hints = plan_of(GUIDE)
    new = GUIDE.replace("The tool runs on", "This program works on")
    found = relocate(new, anchors, hints)
    assert found[0].status in PLACED
    assert (found[0].start, found[0].end) == (0, len("# Installing the tool"))


def test_link_definitions_moved_to_the_end_are_found_not_orphaned() -> None:
    body = (
        "Read a line with [`read_line`][read] and parse it.\n\n"
        "[read]: https://example.org/std/io/read_line.html\n\n"
        "Then compare it with the secret number; see [ordering][cmp].\n\n"
        "[cmp]: https://example.org/std/cmp/enum.Ordering.html\n\n"
        "Finally, print the result.\n"
    )
    anchors, hints = plan_of(body)
    links = [i for i, anchor in enumerate(anchors) if anchor.quote.startswith("[")]
    tidied = (
        "Read a line with [`read_line`][read] and parse it.\n\n"
        "Then compare it with the secret number; see [ordering][cmp].\n\n"
        "Finally, print the result.\n\n"
        "[read]: https://example.org/std/io/read_line.html\n"
        "[cmp]: https://example.org/std/cmp/enum.Ordering.html\n"
    )
    found = relocate(tidied, anchors, hints)
    for i in links:
        assert found[i].status != ORPHANED
        assert tidied[found[i].start : found[i].end] == anchors[i].quote


def test_an_indented_command_moved_to_another_section_is_found_not_orphaned() -> None:
    # Too short to be placed on its own word, and far from where it was, but whole lines then
    # and now, and the only copy: a person confirms it, but it is not lost.
    settings = "".join(
        f"The key {key} sets how the tool {does}. It is documented with its default below.\n\n"
        for key, does in (("jobs", "runs in parallel"), ("cache", "stores"), ("log", "reports"))
    )
    old = "## Fedora\n\nInstall it with:\n\n    dnf install thetool\n\n" + settings
    anchors, hints = plan_of(old)
    command = anchors.index(make_anchor(old, *_span(old, "dnf install thetool")))
    new = "## Fedora\n\n" + settings + "## Notes\n\nOn Fedora:\n\n    dnf install thetool\n"
    found = relocate(new, anchors, hints)
    assert found[command].status == FUZZY
    assert new[found[command].start : found[command].end] == "dnf install thetool"


def test_a_heading_that_gained_a_link_target_is_flagged_whole() -> None:
    # The edit went in just after the heading's "#### "; the span still starts at the "#### ".
    section = (
        "#### Device whitelist\n\n**`devices`** (array of objects, OPTIONAL) configures the\n"
        "device whitelist. The runtime MUST apply entries in the listed order.\n\n"
        "* **`allow`** (boolean, REQUIRED) - whether the entry is allowed or denied.\n"
        "* **`type`** (string, OPTIONAL) - type of device: `a` (all), `c` (char), or `b` (block).\n"
        "* **`access`** (string, OPTIONAL) - cgroup permissions for device."
    )
    old = '```json\n   "devices": [\n      {"allow": false, "access": "rwm"}\n   ]\n```\n\n'
    old += section + "\n\n#### Memory\n\nNone yet.\n"
    start, end = _span(old, section)
    tag = '<a name="configLinuxDeviceWhitelist" />'
    new = old.replace("#### Device whitelist", "#### " + tag + "Device whitelist")
    found = locate(new, make_anchor(old, start, end), start)
    assert found.status == FUZZY
    assert (found.start, found.end) == (start, end + len(tag))


# --- identical passages, and what must still not be placed ---------------------------------------


def test_identical_entries_are_told_apart_by_the_release_they_follow() -> None:
    old = (
        "== 2.0.7\n\nBug Fixes::\n\n  * fix a crash when an include is missing\n\n"
        "== 2.0.6\n\nBug Fixes::\n\n  * keep the trailing newline of a listing\n"
    )
    anchors, hints = plan_of(old)
    second = [i for i, anchor in enumerate(anchors) if anchor.quote == "Bug Fixes::"][1]
    # A new release on top, and the entry after the second heading rewritten: the two headings
    # still read the same, and drift alone no longer agrees on either side of the second.
    new = "== 2.0.8\n\nBug Fixes::\n\n  * nothing yet\n\n" + old.replace(
        "keep the trailing newline of a listing", "keep a listing's trailing newline"
    )
    found = relocate(new, anchors, hints)
    assert found[second].status == MOVED
    assert found[second].start == new.index("Bug Fixes::", new.index("== 2.0.6"))


def test_a_quote_whose_context_went_half_with_each_of_two_copies_is_not_placed() -> None:
    # The first copy continues the unchanged opening of the text, the second the unchanged
    # ending: the old surroundings split between them, and neither is proof.
    old = "Alpha paragraph stands here.\n\nShared words.\n\nOmega paragraph stands here.\n"
    anchor, hint = make_anchor(old, *_span(old, "Shared words.")), old.index("Shared words.")
    new = (
        "Alpha paragraph stands here.\n\nShared words.\n\nSomething new.\n\n"
        "Other text.\n\nShared words.\n\nOmega paragraph stands here.\n"
    )
    assert locate(new, anchor, hint).status not in PLACED


def test_the_same_line_in_a_new_passage_far_away_is_not_placed() -> None:
    # A short line deleted here and written anew elsewhere, inside other lines: not the anchor.
    filler = "A paragraph that stays as it was, long enough to put some distance in between.\n\n"
    old = "First part.\n\nSee the notes.\n\nSecond part.\n\n" + filler
    anchors, hints = plan_of(old)
    new = "First part.\n\nSecond part.\n\n" + filler + "Appendix: See the notes. They are long.\n"
    found = relocate(new, anchors, hints)
    assert found[1].status == ORPHANED


def _span(text: str, quote: str) -> tuple[int, int]:
    start = text.index(quote)
    return start, start + len(quote)
