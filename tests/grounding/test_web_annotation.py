"""Plans as W3C Web Annotations: an adjudicated plan goes out as one annotation per entry, and a
collection comes back in as a proposal, never as decisions; malformed ones are refused, naming
the annotation and the field."""

from __future__ import annotations

import copy
import json

import pytest

from grounding.adjudication import Decision, adjudicate
from grounding.segmentation import PROPOSED_MARKER, parse_segmentation_plan
from grounding.web_annotation import (
    AnnotationError,
    annotation_collection,
    proposal_from_collection,
)
from tests.grounding.test_adjudication import TEXT, WHEN, proposed_plan

COLLECTION_ID = "https://review.example.org/p/default/plans/7/annotations.jsonld"


def adjudicated():
    """The four heading entries: accepted with a note, edited (a new title), rejected, accepted."""
    proposal = proposed_plan(rules=(("rule:heading",), ("rule:heading", "rule:clean-title"),
                                    ("rule:heading",), ("rule:heading",)))  # fmt: skip
    decisions = [
        Decision.accept("ola", WHEN, "fits the code"),
        Decision.edit("kari", WHEN, title="2 Fundamentering og peler"),
        Decision.reject("ola", WHEN),
        Decision.accept("ola", WHEN),
    ]
    return parse_segmentation_plan(adjudicate(proposal, decisions, TEXT), TEXT)


def exported() -> dict:
    plan = adjudicated()
    collection = annotation_collection(plan, collection_id=COLLECTION_ID, document_title="grunn.md")
    return json.loads(json.dumps(collection))  # as it leaves: JSON, nothing else


def test_each_kept_entry_is_one_annotation_on_the_document_at_its_quote_and_position():
    plan = adjudicated()
    items = exported()["first"]["items"]

    assert [item["id"] for item in items] == [f"{COLLECTION_ID}#entry-{n}" for n in (1, 2, 3)]
    for item, entry in zip(items, plan.entries, strict=True):
        target = item["target"]
        assert target["source"] == {
            "id": f"urn:sha256:{plan.source_sha256}",
            "type": "Text",
            "title": "grunn.md",
        }
        quote, position = target["selector"]
        assert quote == {"type": "TextQuoteSelector", "exact": entry.anchor.quote,
                         "prefix": entry.anchor.prefix, "suffix": entry.anchor.suffix}  # fmt: skip
        assert TEXT[position["start"] : position["end"]] == quote["exact"]
        assert (position["start"], position["end"]) == entry.span


def test_the_body_carries_the_path_the_title_the_rules_and_the_decision():
    second = exported()["first"]["items"][1]["body"]

    assert [(body["purpose"], body["value"]) for body in second] == [
        ("identifying", "grunn/2-fundamentering"),
        ("describing", "2 Fundamentering og peler"),
        ("tagging", "rule:heading"),
        ("tagging", "rule:clean-title"),
        ("assessing", "edit"),
    ]
    assert second[-1]["creator"] == {"type": "Person", "nickname": "kari"}
    assert second[-1]["created"] == WHEN.isoformat()
    first = exported()["first"]["items"][0]["body"]
    ola = {"type": "Person", "nickname": "ola"}
    assert first[-1] == {
        "type": "TextualBody",
        "purpose": "commenting",
        "value": "fits the code",
        "creator": ola,
    }


def test_a_proposed_plan_is_not_exported():
    with pytest.raises(ValueError, match="only an adjudicated plan"):
        annotation_collection(proposed_plan(), collection_id=COLLECTION_ID, document_title="x")


def test_read_back_it_proposes_the_same_segments_at_the_same_places_and_decides_nothing():
    plan = adjudicated()

    proposal = proposal_from_collection(exported())

    read = parse_segmentation_plan(proposal, TEXT)  # every quote still quotes its span
    assert not read.adjudicated
    assert [(e.path, e.title, e.span, e.anchor, e.rules) for e in read.entries] == [
        (e.path, e.title, e.span, e.anchor, e.rules) for e in plan.entries
    ]
    assert all(entry.derived[0] == PROPOSED_MARKER for entry in read.entries)

    def provenance(of):
        return (of.source_sha256, of.extractor_id, of.extractor_version, of.proposed_by)

    assert provenance(read) == provenance(plan)


def broken(change) -> dict:
    collection = copy.deepcopy(exported())
    change(collection)
    return collection


def first_item(collection) -> dict:
    return collection["first"]["items"][0]


@pytest.mark.parametrize(
    ("change", "where", "field"),
    [
        (lambda c: c.update(type="Collection"), "collection", "type"),
        (lambda c: c.update({"@context": {"a": "b"}}), "collection", "@context"),
        (lambda c: c.pop("extractor"), "collection", "extractor"),
        (lambda c: c["first"].update(items=[]), "collection", "first.items"),
        (lambda c: c["first"].update(next="https://elsewhere/page-2"), "collection", "first.next"),
        (lambda c: c.update(total=9), "collection", "total"),
        (lambda c: first_item(c).update(type="Note"), "annotation #1", "type"),
        (
            lambda c: first_item(c)["target"].update(source="https://example.org/grunn.md"),
            "annotation #1",
            "target.source",
        ),
        (lambda c: first_item(c)["target"]["selector"].pop(0), "annotation #1", "target.selector"),
        (
            lambda c: first_item(c)["target"]["selector"][1].update(start=-1),
            "annotation #1",
            "TextPositionSelector.start",
        ),
        (
            lambda c: first_item(c)["target"]["selector"][0].update(exact=None),
            "annotation #1",
            "TextQuoteSelector.exact",
        ),
        (lambda c: first_item(c)["body"].pop(0), "annotation #1", "body"),
        (
            lambda c: first_item(c)["body"][0].update(purpose="linking"),
            "annotation #1",
            "body[0].purpose",
        ),  # fmt: skip
        # What the plan's own gate refuses, said of the annotation it came from.
        (lambda c: first_item(c)["body"][0].update(value="Not A Path"), "annotation #1", "path"),
        (
            lambda c: c["first"]["items"][2]["target"]["selector"][1].update(end=10**6),
            "annotation #3",
            "anchor.quote",
        ),
        (
            lambda c: [b for b in first_item(c)["body"] if b["purpose"] == "tagging"][0].update(
                value="heading"
            ),
            "annotation #1",
            "derived",
        ),  # fmt: skip
    ],
)
def test_a_malformed_collection_is_refused_naming_the_annotation_and_the_field(
    change, where, field
):
    with pytest.raises(AnnotationError) as refused:
        proposal_from_collection(broken(change))

    assert refused.value.where.startswith(where), str(refused.value)
    assert refused.value.field == field, str(refused.value)


def test_annotations_of_two_documents_are_refused():
    def second_document(collection):
        collection["first"]["items"][1]["target"]["source"]["id"] = "urn:sha256:" + "ab" * 32

    with pytest.raises(AnnotationError, match="2 documents"):
        proposal_from_collection(broken(second_document))


def test_a_decision_in_the_body_is_never_read_as_one():
    def decided_elsewhere(collection):
        for item in collection["first"]["items"]:
            item["body"].append({"type": "TextualBody", "purpose": "assessing", "value": "reject"})

    proposal = proposal_from_collection(broken(decided_elsewhere))

    assert proposal["adjudicated"] is False
    assert all("adjudication" not in entry for entry in proposal["entries"])
