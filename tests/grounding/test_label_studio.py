"""Plans as Label Studio tasks: the exports Label Studio 1.23.2 wrote (tests/data/label_studio)
come in as proposals, each region an entry at its span, the annotation over the prediction and
a cancelled annotation never; an adjudicated plan goes out as one task that comes back in as
the same segments; malformed exports are refused, naming the task, the region and the field."""

from __future__ import annotations

import copy
import hashlib
import json
from pathlib import Path

import pytest

from grounding.adjudication import Decision, adjudicate
from grounding.label_studio import (
    FROM_NAME,
    LABEL_CONFIG,
    TO_NAME,
    LabelStudioError,
    label_studio_tasks,
    proposal_from_tasks,
)
from grounding.propose import propose_plan, slugify
from grounding.segmentation import PROPOSED_MARKER, parse_segmentation_plan
from tests.grounding.test_adjudication import TEXT, WHEN, proposed_plan

FIXTURES = Path(__file__).parents[1] / "data" / "label_studio"
CORPUS = Path(__file__).parents[2] / "benchmarks" / "corpus" / "proposer" / "text"


def export() -> list:
    return json.loads((FIXTURES / "export.json").read_text(encoding="utf-8"))


def task_of(tasks: list, name: str) -> dict:
    return next(task for task in tasks if task["data"]["document"] == name)


def propose(tasks, name: str) -> dict:
    data = (CORPUS / name).read_bytes()
    return proposal_from_tasks(
        tasks,
        text=data.decode("utf-8"),
        source_sha256=hashlib.sha256(data).hexdigest(),
        extractor_id="text",
        extractor_version="1",
        document_title=name,
    )


def regions_of(labelling: dict) -> list[tuple]:
    return sorted(
        (r["value"]["start"], r["value"]["end"], r["value"]["text"], tuple(r["value"]["labels"]))
        for r in labelling["result"]
        if r["type"] == "labels"
    )


def entries_of(payload: dict, text: str) -> list[tuple]:
    return [
        (
            e["span"][0],
            e["span"][1],
            text[e["span"][0] : e["span"][1]],
            tuple(rule.removeprefix("rule:label-studio-").title() for rule in e["derived"][1:]),
        )
        for e in payload["entries"]
    ]


@pytest.mark.parametrize(
    ("name", "kind"),
    [
        ("pep-0257.txt", "predictions"),
        ("blog-rust-challenges.md", "annotations"),
        ("apache-2.0.txt", "annotations"),
    ],
)
def test_each_task_of_the_real_export_proposes_its_regions_as_entries(name, kind):
    tasks = export()
    task = task_of(tasks, name)
    text = task["data"]["text"]
    # The labelling read: the annotation not cancelled, else the prediction.
    labelling = [item for item in task[kind] if not item.get("was_cancelled")][-1]

    payload = propose(tasks, name)

    assert payload["adjudicated"] is False
    assert entries_of(payload, text) == regions_of(labelling)
    assert all(entry["derived"][0] == PROPOSED_MARKER for entry in payload["entries"])
    for entry in payload["entries"]:
        start, end = entry["span"]
        assert entry["anchor"]["quote"] == text[start:end]
    # The gate every plan passes: the positions are of the document's own text.
    assert len(parse_segmentation_plan(payload, text).entries) == len(labelling["result"])


def test_titles_come_from_the_regions_note_or_else_its_first_line_and_paths_from_titles():
    payload = propose(export(), "blog-rust-challenges.md")

    titles = [(entry["title"], entry["path"]) for entry in payload["entries"]]
    assert titles == [
        ("Universal challenges", "universal-challenges"),  # the region's note (meta.text)
        ("Challenges that are domain-specific", "challenges-that-are-domain-specific"),
    ]


def test_a_person_s_annotation_wins_over_the_prediction_and_a_cancelled_one_is_ignored():
    tasks = export()
    apache = task_of(tasks, "apache-2.0.txt")
    annotation = next(item for item in apache["annotations"] if not item["was_cancelled"])

    payload = propose(tasks, "apache-2.0.txt")

    assert payload["proposed_by"] == f"Label Studio annotation {annotation['id']}"
    assert len(payload["entries"]) == len(annotation["result"]) == 3
    # The cancelled annotation's one region spans the whole text; no entry does.
    assert all(entry["span"][1] < len(apache["data"]["text"]) for entry in payload["entries"])

    for item in apache["annotations"]:
        item["was_cancelled"] = True
    by_prediction = propose(tasks, "apache-2.0.txt")
    prediction = apache["predictions"][-1]
    assert by_prediction["proposed_by"] == (
        f"Label Studio prediction ({prediction['model_version']})"
    )
    assert entries_of(by_prediction, apache["data"]["text"]) == regions_of(prediction)


def test_the_min_export_is_refused_naming_what_to_export_instead():
    tasks = json.loads((FIXTURES / "export-min.json").read_text(encoding="utf-8"))

    with pytest.raises(LabelStudioError, match="JSON-MIN export.*export the project as JSON"):
        propose(tasks, "pep-0257.txt")


def adjudicated():
    """The four heading entries: accepted, edited (a new title), rejected, accepted."""
    proposal = proposed_plan(rules=(("rule:heading",), ("rule:heading", "rule:clean-title"),
                                    ("rule:heading",), ("rule:heading",)))  # fmt: skip
    decisions = [
        Decision.accept("ola", WHEN, "fits the code"),
        Decision.edit("kari", WHEN, title="2 Fundamentering og peler"),
        Decision.reject("ola", WHEN),
        Decision.accept("ola", WHEN),
    ]
    return parse_segmentation_plan(adjudicate(proposal, decisions, TEXT), TEXT)


def exported(plan=None) -> list:
    plan = plan or adjudicated()
    tasks = label_studio_tasks(plan, text=TEXT, document_title="grunn.md")
    return json.loads(json.dumps(tasks))  # as it leaves: JSON, nothing else


def test_the_export_is_one_task_with_one_annotation_a_region_per_kept_entry():
    plan = adjudicated()
    [task] = exported(plan)

    assert task["data"] == {
        "text": TEXT,
        "document": "grunn.md",
        "source_sha256": plan.source_sha256,
    }
    [annotation] = task["annotations"]
    assert annotation["was_cancelled"] is False
    assert len(annotation["result"]) == len(plan.entries) == 3
    for region, entry in zip(annotation["result"], plan.entries, strict=True):
        # The names the documented config gives its Labels control and its Text.
        assert f'name="{region["from_name"]}"' in LABEL_CONFIG
        assert f'toName="{region["to_name"]}"' in LABEL_CONFIG
        assert (region["from_name"], region["to_name"], region["type"]) == (
            FROM_NAME,
            TO_NAME,
            "labels",
        )
        value = region["value"]
        assert (value["start"], value["end"]) == entry.span
        assert value["text"] == TEXT[entry.span[0] : entry.span[1]]
        assert [f'<Label value="{label}"/>' in LABEL_CONFIG for label in value["labels"]] == [True]
        assert region["meta"] == {"text": [entry.title], "path": entry.path}


def test_the_export_has_the_shape_of_label_studio_s_own():
    """Every key our task and region carry is one Label Studio's own export holds too."""
    [ours] = exported()
    theirs = task_of(export(), "blog-rust-challenges.md")
    their_region = theirs["annotations"][0]["result"][0]
    assert set(ours) <= set(theirs)
    assert set(ours["annotations"][0]) <= set(theirs["annotations"][0]) | {"result"}
    for region in ours["annotations"][0]["result"]:
        assert set(region) <= set(their_region) | {"origin"}
        assert set(region["value"]) == set(their_region["value"])
        assert set(region["meta"]) >= set(their_region["meta"])


def test_round_trip_gives_the_same_segments_proposed_again():
    plan = adjudicated()
    tasks = exported(plan)

    payload = proposal_from_tasks(
        tasks,
        text=TEXT,
        source_sha256=plan.source_sha256,
        extractor_id=plan.extractor_id,
        extractor_version=plan.extractor_version,
    )

    assert [(e["path"], e["title"], tuple(e["span"])) for e in payload["entries"]] == [
        (entry.path, entry.title, entry.span) for entry in plan.entries
    ]
    assert {e["derived"][0] for e in payload["entries"]} == {PROPOSED_MARKER}
    assert payload["adjudicated"] is False and "rejected" not in payload


def test_a_proposed_plan_is_not_exported():
    proposal = proposed_plan()
    with pytest.raises(ValueError, match="only an adjudicated plan"):
        label_studio_tasks(proposal, text=TEXT, document_title="grunn.md")


def test_offsets_count_utf16_units_as_label_studio_does_beyond_u_ffff():
    text = "# 🔥 Brann\n\nTekst om brann.\n\n# Røyk\n\nTekst om røyk.\n"
    second = text.index("# Røyk")
    tasks = [{"data": {"text": text}, "annotations": [{"result": [
        {"type": "labels", "id": "a", "value": {"start": 0, "end": second + 1,
                                                "text": text[:second], "labels": ["Section"]}},
        {"type": "labels", "id": "b", "value": {"start": second + 1, "end": len(text) + 1,
                                                "text": text[second:], "labels": ["Section"]}},
    ]}]}]  # fmt: skip

    payload = proposal_from_tasks(
        tasks, text=text, source_sha256="a" * 64, extractor_id="x", extractor_version="1"
    )

    assert [e["span"] for e in payload["entries"]] == [[0, second], [second, len(text)]]
    assert [e["title"] for e in payload["entries"]] == ["🔥 Brann", "Røyk"]


def broken(change) -> list:
    tasks = export()
    change(tasks)
    return tasks


def blog_regions(tasks: list) -> list:
    return task_of(tasks, "blog-rust-challenges.md")["annotations"][0]["result"]


def set_in(getter, key, value):
    def change(tasks):
        getter(tasks)[key] = value

    return change


@pytest.mark.parametrize(
    ("change", "where", "field", "problem"),
    [
        (lambda tasks: tasks.clear(), "export", "(export)", "non-empty JSON list"),
        (lambda tasks: tasks.append(7), "task #4", "(task)", "not int"),
        (
            lambda tasks: task_of(tasks, "pep-0257.txt")["data"].pop("text"),
            "task #1 (id 1)",
            "data.text",
            "not None",
        ),
        (
            set_in(lambda tasks: blog_regions(tasks)[1]["value"], "text", "something else"),
            "task #2 (id 2) annotation #1 (id 1) region #2 ('blog-1')",
            "value.text",
            "does not match the task's text at [8833, 10245]",
        ),
        (
            set_in(lambda tasks: blog_regions(tasks)[1]["value"], "end", 10**6),
            "region #2 ('blog-1')",
            "value.end",
            "1000000 lies past the end of the task's text (10,245 characters)",
        ),
        (
            set_in(lambda tasks: blog_regions(tasks)[0]["value"], "start", -1),
            "region #1 ('blog-0')",
            "value.start",
            "must be a whole number",
        ),
        (
            set_in(lambda tasks: blog_regions(tasks)[0]["value"], "labels", []),
            "region #1 ('blog-0')",
            "value.labels",
            "non-empty list of labels",
        ),
        (
            # A region of a task not read (the cancelled annotation) is checked all the same.
            set_in(
                lambda tasks: task_of(tasks, "apache-2.0.txt")["annotations"][1]["result"][0],
                "value",
                None,
            ),
            "task #3 (id 3) annotation #2 (id 3) region #1 ('apache-c0')",
            "value",
            "must be an object",
        ),
        (
            set_in(lambda tasks: task_of(tasks, "pep-0257.txt")["predictions"], 0, 1),
            "task #1 (id 1) prediction #1",
            "(item)",
            "an id only: export with the predictions in full",
        ),
    ],
)
def test_a_malformed_export_is_refused_naming_the_task_the_region_and_the_field(
    change, where, field, problem
):
    with pytest.raises(LabelStudioError) as refused:
        propose(broken(change), "blog-rust-challenges.md")

    assert where in refused.value.where
    assert refused.value.field == field
    assert problem in refused.value.problem


def test_overlapping_or_nested_regions_are_refused_naming_both():
    def nest(tasks):
        inner = copy.deepcopy(blog_regions(tasks)[0])
        inner["id"] = "inner"
        inner["value"]["start"] += 10
        inner["value"]["end"] -= 10
        text = task_of(tasks, "blog-rust-challenges.md")["data"]["text"]
        inner["value"]["text"] = text[inner["value"]["start"] : inner["value"]["end"]]
        blog_regions(tasks).append(inner)

    with pytest.raises(LabelStudioError) as refused:
        propose(broken(nest), "blog-rust-challenges.md")

    assert "'inner'" in refused.value.where
    assert "lies inside" in refused.value.problem and "'blog-0'" in refused.value.problem


def test_an_export_without_the_document_s_text_is_refused_naming_the_document():
    with pytest.raises(LabelStudioError, match="no task's text is the text of mpl-2.0.txt"):
        propose(export(), "mpl-2.0.txt")


def test_a_task_with_nothing_labelled_is_refused():
    def forget(tasks):
        task_of(tasks, "pep-0257.txt")["predictions"].clear()

    with pytest.raises(LabelStudioError, match="nothing to propose"):
        propose(broken(forget), "pep-0257.txt")


def test_a_labelling_with_no_labelled_span_is_refused_naming_it():
    def unlabel(tasks):
        blog_regions(tasks).clear()

    with pytest.raises(LabelStudioError, match="annotation 1 labels no span of the text"):
        propose(broken(unlabel), "blog-rust-challenges.md")


def test_regions_titled_alike_get_paths_of_their_own():
    text = "Notes\n\nfirst\n\nNotes\n\nsecond\n"
    middle = text.index("Notes", 1)
    tasks = [{"data": {"text": text}, "predictions": [{"result": [
        {"type": "labels", "value": {"start": 0, "end": middle, "labels": ["Section"]}},
        {"type": "labels", "value": {"start": middle, "end": len(text), "labels": ["Section"]}},
        {"type": "choices", "value": {"choices": ["ignored: it labels no span"]}},
    ]}]}]  # fmt: skip

    payload = proposal_from_tasks(
        tasks, text=text, source_sha256="b" * 64, extractor_id="x", extractor_version="1"
    )

    assert [e["path"] for e in payload["entries"]] == [slugify("Notes"), "notes-2"]
    assert [e["derived"] for e in payload["entries"]] == [
        [PROPOSED_MARKER, "rule:label-studio-section"]
    ] * 2


def test_our_export_through_the_real_label_studio_comes_back_as_the_proposer_s_segments():
    """round-trip.json is what Label Studio exported after importing our export of the blog
    post's plan, every entry accepted (tests/data/label_studio/README.md)."""
    name = "blog-rust-challenges.md"
    data = (CORPUS / name).read_bytes()
    proposed = parse_segmentation_plan(propose_plan(name, data), data.decode("utf-8"))
    tasks = json.loads((FIXTURES / "round-trip.json").read_text(encoding="utf-8"))

    payload = propose(tasks, name)

    assert [(e["path"], e["title"], tuple(e["span"])) for e in payload["entries"]] == [
        (entry.path, entry.title, entry.span) for entry in proposed.entries
    ]
    assert payload["proposed_by"].startswith("Label Studio annotation ")
