"""Plans as Label Studio tasks: labelled spans on a text task, in and out.

Label Studio (https://labelstud.io) labels spans of a task's text with a `Labels` control over
a `Text` object. Both ways use the config in `LABEL_CONFIG`: each region is one segment, its
`value` the span (`start`, `end`, the `text` it covers) and its `labels` what kind of segment
it is.

In: `proposal_from_tasks` reads Label Studio's JSON export (a list of tasks) as a *proposed*
plan payload for one document's text. The task is the one whose `data.text` is that text; its
regions come from its last annotation not cancelled, or, when nobody annotated it, from its
last prediction. Either way every entry is PROPOSED: a labelling made in Label Studio, even a
person's, is not a decision made here. Each region gives an entry with the region's span, a
title (the region's note, `meta.text`, or else the first line of its text), a path made from
the title as the proposer makes paths (unless the region names one, `meta.path`, as our own
export does), and a rule per label (`rule:label-studio-section`). Overlapping or nested
regions are refused: a plan's segments follow one another. Anything malformed is refused with
`LabelStudioError`, naming the task, the region and the field, and every task of the export is
checked, not only the one read, so a file is taken whole or not at all.

Out: `label_studio_tasks` gives an *adjudicated* plan as one task (`data.text` the document's
text) with one annotation, a region per kept entry, which Label Studio imports into a project
with `LABEL_CONFIG`. A proposed plan is refused: a proposal nobody looked at never leaves as if
decided.

Offsets: Label Studio counts a text's positions in UTF-16 code units (it is JavaScript), this
project in code points; the two differ only after a character beyond U+FFFF, and are
converted both ways.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Mapping, Sequence
from itertools import accumulate

from grounding.anchors import make_anchor
from grounding.propose import clean_title, slugify
from grounding.segmentation import (
    PROPOSED_MARKER,
    PlanError,
    SegmentationPlan,
    parse_segmentation_plan,
    shown_number,
)

FROM_NAME, TO_NAME = "label", "text"
SECTION, PREAMBLE = "Section", "Preamble"
LABEL_CONFIG = (
    f'<View><Labels name="{FROM_NAME}" toName="{TO_NAME}"><Label value="{SECTION}"/>'
    f'<Label value="{PREAMBLE}"/></Labels><Text name="{TO_NAME}" value="${TO_NAME}"/></View>'
)
RULE_PREFIX = "rule:label-studio"
# The label an exported entry carries: what the proposer called a preamble is one here too.
_PREAMBLE_RULES = frozenset({"rule:preamble", f"{RULE_PREFIX}-preamble"})
# A title made from a region's first line is cut here, at a word: a heading, not a paragraph.
MAX_TITLE_CHARS = 120
_LABELS = "labels"


class LabelStudioError(ValueError):
    """An export that is not one this project can read as a proposal. Names where."""

    def __init__(self, where: str, field: str, problem: str) -> None:
        super().__init__(f"{where}: field {field!r}: {problem}")
        self.where, self.field, self.problem = where, field, problem


# --- in ---------------------------------------------------------------------------------


def proposal_from_tasks(
    tasks: object,
    *,
    text: str,
    source_sha256: str,
    extractor_id: str,
    extractor_version: str,
    document_title: str = "the document",
) -> dict:
    """The proposed plan payload (every entry PROPOSED) that the task of `tasks` whose
    `data.text` is `text` stands for, on the document whose bytes hash to `source_sha256`
    and whose text the named extractor made; LabelStudioError naming task, region and field."""
    if not isinstance(tasks, list) or not tasks:
        raise LabelStudioError(
            "export", "(export)", f"must be a non-empty JSON list of tasks, not {_kind(tasks)}"
        )
    read = [_read_task(task, index) for index, task in enumerate(tasks)]
    mine = [task for task in read if task.text == text]
    if not mine:
        raise LabelStudioError(
            "export",
            "data.text",
            f"no task's text is the text of {document_title} ({len(text):,} characters): "
            "import the export on the document its tasks were made from",
        )
    if len(mine) > 1:
        named = ", ".join(task.where for task in mine)
        raise LabelStudioError(
            "export", "data.text", f"{named} all hold the text of {document_title}: keep one"
        )
    task = mine[0]
    if task.source is None:
        raise LabelStudioError(
            task.where,
            "annotations",
            "has no annotation that was not cancelled and no prediction: nothing to propose",
        )
    if not task.source.regions:
        raise LabelStudioError(
            task.where,
            "result",
            f"{task.source.proposed_by} labels no span of the text: nothing to propose",
        )
    payload = {
        "source_sha256": source_sha256,
        "extractor_id": extractor_id,
        "extractor_version": extractor_version,
        "proposed_by": task.source.proposed_by,
        "adjudicated": False,
        "entries": _entries(task.source.regions, text),
    }
    try:
        parse_segmentation_plan(payload, text)
    except PlanError as error:
        raise LabelStudioError(
            _region_named(error.where, task.source), error.field, error.problem
        ) from error
    return payload


class _Region:
    """One labelled span, already checked against its task's text (code-point offsets)."""

    def __init__(self, where: str, start: int, end: int, labels: list[str], meta: Mapping):
        self.where, self.start, self.end, self.labels = where, start, end, labels
        notes = meta.get("text")
        note = notes[0] if isinstance(notes, list) and notes else notes
        self.title = note.strip() if isinstance(note, str) and note.strip() else None
        path = meta.get("path")
        self.path = path if isinstance(path, str) and path.strip() else None


class _Source:
    """The labelling a task's proposal is read from: an annotation or a prediction."""

    def __init__(self, proposed_by: str, regions: list[_Region]):
        self.proposed_by, self.regions = proposed_by, regions


class _Task:
    def __init__(self, where: str, text: str, source: _Source | None):
        self.where, self.text, self.source = where, text, source


def _read_task(task: object, index: int) -> _Task:
    where = f"task #{shown_number(index)}"
    if isinstance(task, Mapping) and isinstance(task.get("id"), int):
        where = f"{where} (id {task['id']})"
    if not isinstance(task, Mapping):
        raise LabelStudioError(where, "(task)", f"must be a JSON object, not {_kind(task)}")
    if "data" not in task and "text" in task:
        raise LabelStudioError(
            where,
            "data",
            "this is Label Studio's JSON-MIN export, which drops predictions and cancelled "
            "annotations: export the project as JSON",
        )
    data = task.get("data")
    if not isinstance(data, Mapping):
        raise LabelStudioError(where, "data", f"must be an object, not {_kind(data)}")
    text = data.get(TO_NAME)
    if not isinstance(text, str) or not text:
        raise LabelStudioError(
            where, "data.text", f"must be the task's text, a non-empty string, not {_show(text)}"
        )
    annotations = _listed(task, "annotations", where)
    predictions = _listed(task, "predictions", where)
    units = _utf16_offsets(text)
    # Every labelling is checked, even the one not read: the file is taken whole or not at all.
    sources = [
        _source(item, f"{where} annotation #{shown_number(n)}", text, units, "annotation")
        for n, item in enumerate(annotations)
    ]
    guesses = [
        _source(item, f"{where} prediction #{shown_number(n)}", text, units, "prediction")
        for n, item in enumerate(predictions)
    ]
    kept = [source for source in sources if source is not None]
    # A person's labelling over a machine's; the last made of each, as Label Studio lists them.
    chosen = kept[-1] if kept else (guesses[-1] if guesses else None)
    return _Task(where, text, chosen)


def _listed(task: Mapping, name: str, where: str) -> list:
    value = task.get(name, [])
    if not isinstance(value, list):
        raise LabelStudioError(where, name, f"must be a list, not {_kind(value)}")
    return value


def _source(
    item: object, where: str, text: str, units: list[int] | None, kind: str
) -> _Source | None:
    """The labelling's regions, checked; None for a cancelled annotation (ignored: whoever
    cancelled it said it is not an answer)."""
    if isinstance(item, Mapping) and isinstance(item.get("id"), int):
        where = f"{where} (id {item['id']})"
    if not isinstance(item, Mapping):
        hint = " (an id only: export with the predictions in full)" if kind == "prediction" else ""
        raise LabelStudioError(where, "(item)", f"must be a JSON object, not {_kind(item)}{hint}")
    result = item.get("result")
    if not isinstance(result, list):
        raise LabelStudioError(where, "result", f"must be a list, not {_kind(result)}")
    regions = [
        _region(region, f"{where} region #{shown_number(n)}", text, units)
        for n, region in enumerate(result)
    ]
    if item.get("was_cancelled") is True:
        return None
    # Who proposed it, as the plan names its proposer: the model's version, or the item's id.
    version, identifier = item.get("model_version"), item.get("id")
    proposed_by = f"Label Studio {kind}"
    if kind == "prediction" and isinstance(version, str) and version.strip():
        proposed_by += f" ({version.strip()[:100]})"
    elif isinstance(identifier, int):
        proposed_by += f" {identifier}"
    return _Source(proposed_by, [region for region in regions if region is not None])


def _region(raw: object, where: str, text: str, units: list[int] | None) -> _Region | None:
    """A `labels` result as a region; None for a result of another kind (a choice, a note, a
    relation): it labels no span."""
    if not isinstance(raw, Mapping):
        raise LabelStudioError(where, "(region)", f"must be a JSON object, not {_kind(raw)}")
    if raw.get("type") != _LABELS:
        return None
    if isinstance(raw.get("id"), str):
        where = f"{where} ({raw['id'][:40]!r})"
    value = raw.get("value")
    if not isinstance(value, Mapping):
        raise LabelStudioError(where, "value", f"must be an object, not {_kind(value)}")
    start, end = (_offset(value, name, where, text, units) for name in ("start", "end"))
    if start >= end:
        raise LabelStudioError(
            where, "value.end", f"must lie after value.start ({start}), not at {end}"
        )
    quoted = value.get("text")
    if quoted is not None and quoted != text[start:end]:
        raise LabelStudioError(
            where,
            "value.text",
            f"does not match the task's text at [{start}, {end}]: "
            f"{_show(quoted)} against {_show(text[start:end])}",
        )
    labels = value.get(_LABELS)
    if (
        not isinstance(labels, list)
        or not labels
        or not all(isinstance(label, str) and label.strip() for label in labels)
    ):
        raise LabelStudioError(
            where, "value.labels", f"must be a non-empty list of labels, not {_show(labels)}"
        )
    meta = raw.get("meta")
    return _Region(where, start, end, labels, meta if isinstance(meta, Mapping) else {})


def _offset(value: Mapping, name: str, where: str, text: str, units: list[int] | None) -> int:
    offset = value.get(name)
    if not isinstance(offset, int) or isinstance(offset, bool) or offset < 0:
        raise LabelStudioError(
            where, f"value.{name}", f"must be a whole number, 0 or more, not {_show(offset)}"
        )
    if offset > (units[-1] if units else len(text)):
        raise LabelStudioError(
            where,
            f"value.{name}",
            f"{offset} lies past the end of the task's text ({len(text):,} characters)",
        )
    index = offset if units is None else _index_of_unit(units, offset)
    if index is None:
        raise LabelStudioError(
            where, f"value.{name}", f"{offset} falls inside a character of the task's text"
        )
    return index


def _entries(regions: Sequence[_Region], text: str) -> list[dict]:
    ordered = sorted(regions, key=lambda region: (region.start, -region.end))
    for before, after in zip(ordered, ordered[1:], strict=False):
        if after.start < before.end:
            how = "lies inside" if after.end <= before.end else "overlaps"
            raise LabelStudioError(
                after.where,
                "value.start",
                f"[{after.start}, {after.end}] {how} {before.where} [{before.start}, "
                f"{before.end}]: a plan's segments follow one another, so label each once",
            )
    used: set[str] = set()
    entries = []
    for region in ordered:
        title = region.title or _first_line(text[region.start : region.end]) or region.labels[0]
        path = region.path or _unique(slugify(title) or slugify(region.labels[0]), used)
        used.add(path)
        rules = dict.fromkeys(_rule(label) for label in region.labels)
        entries.append(
            {
                "path": path,
                "title": title,
                "span": [region.start, region.end],
                "anchor": make_anchor(text, region.start, region.end).to_dict(),
                "derived": [PROPOSED_MARKER, *rules],
            }
        )
    return entries


def _rule(label: str) -> str:
    slug = slugify(label)
    return f"{RULE_PREFIX}-{slug}" if slug else RULE_PREFIX


def _first_line(span_text: str) -> str:
    """The region's first line that holds words, as a heading reads (no `#` marks, no markup),
    cut at a word when it runs on."""
    for line in span_text.splitlines():
        words = clean_title(line.strip().lstrip("#").strip(), markup=True)
        if words.strip("=-~*#_ "):
            if len(words) <= MAX_TITLE_CHARS:
                return words
            return words[:MAX_TITLE_CHARS].rsplit(" ", 1)[0] + "…"
    return ""


def _unique(slug: str, used: set[str]) -> str:
    slug = slug or "section"
    candidate, number = slug, 2
    while candidate in used:
        candidate, number = f"{slug}-{number}", number + 1
    return candidate


def _region_named(where: str, source: _Source) -> str:
    """The plan's "entry #3 (...)" said as the region it came from (entries are in order)."""
    prefix = "entry #"
    if where.startswith(prefix):
        number = where[len(prefix) :].split(" ", 1)[0]
        ordered = sorted(source.regions, key=lambda region: (region.start, -region.end))
        if number.isdigit() and 0 < int(number) <= len(ordered):
            return ordered[int(number) - 1].where
    return where


# --- out --------------------------------------------------------------------------------


def label_studio_tasks(plan: SegmentationPlan, *, text: str, document_title: str) -> list[dict]:
    """The adjudicated `plan` on `text` (the text its spans count in) as Label Studio's
    import: one task with one annotation, a `labels` region per entry, in order."""
    if not plan.adjudicated:
        raise ValueError(
            "only an adjudicated plan is exported to Label Studio: this one is a proposal "
            "nobody has decided"
        )
    units = _utf16_offsets(text)
    result = []
    for index, entry in enumerate(plan.entries):
        start, end = entry.span
        label = PREAMBLE if _PREAMBLE_RULES & set(entry.rules) else SECTION
        result.append(
            {
                "id": f"entry-{shown_number(index)}",
                "from_name": FROM_NAME,
                "to_name": TO_NAME,
                "type": _LABELS,
                "origin": "manual",
                "value": {
                    "start": units[start] if units else start,
                    "end": units[end] if units else end,
                    "text": text[start:end],
                    _LABELS: [label],
                },
                # The region's note is its title; the path rides beside it, so a round trip
                # through Label Studio keeps both.
                "meta": {"text": [entry.title], "path": entry.path},
            }
        )
    data = {TO_NAME: text, "document": document_title, "source_sha256": plan.source_sha256}
    return [{"data": data, "annotations": [{"result": result, "was_cancelled": False}]}]


# --- shared -----------------------------------------------------------------------------


def _utf16_offsets(text: str) -> list[int] | None:
    """Each code-point index's offset in UTF-16 code units (one more than the text's length),
    or None when the two agree throughout, as they do without characters beyond U+FFFF."""
    if all(ord(char) <= 0xFFFF for char in text):
        return None
    return [0, *accumulate(2 if ord(char) > 0xFFFF else 1 for char in text)]


def _index_of_unit(units: list[int], offset: int) -> int | None:
    index = bisect_left(units, offset)
    return index if index < len(units) and units[index] == offset else None


def _kind(value: object) -> str:
    return "null" if value is None else type(value).__name__


def _show(value: object) -> str:
    shown = repr(value)
    return shown if len(shown) <= 60 else shown[:57] + "..."
