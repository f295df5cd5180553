"""The annotation export is Web Annotation JSON-LD: expanded against the W3C's own context
(tests/data/w3c/anno.jsonld, served by a loader that fetches nothing else), every term is the
vocabulary's or ours, none is dropped, and the model's properties are where it puts them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pyld import jsonld

from grounding.web_annotation import ANNO_CONTEXT, REVIEW_CONTEXT, VOCABULARY
from tests.grounding.test_web_annotation import exported

CONTEXT_FILE = Path(__file__).resolve().parent.parent / "data" / "w3c" / "anno.jsonld"
OA = "http://www.w3.org/ns/oa#"
# The namespaces anno.jsonld maps the terms the export uses to, and our own.
NAMESPACES = (
    OA,
    "http://purl.org/dc/terms/",
    "http://purl.org/dc/dcmitype/",
    "http://www.w3.org/ns/activitystreams#",
    "http://xmlns.com/foaf/0.1/",
    "http://www.w3.org/1999/02/22-rdf-syntax-ns#",
    "http://www.w3.org/2000/01/rdf-schema#",
    "http://www.w3.org/2001/XMLSchema#",
    VOCABULARY,
)


def local_context_only(url: str, options=None) -> dict:
    """The W3C's context from the committed copy; any other address is refused, so a test
    never reaches the network."""
    if url != ANNO_CONTEXT:
        raise jsonld.JsonLdError(f"only {ANNO_CONTEXT} is served here, not {url}", "loading")
    document = json.loads(CONTEXT_FILE.read_text(encoding="utf-8"))
    return {"contextUrl": None, "documentUrl": url, "document": document}


OPTIONS = {"documentLoader": local_context_only}


@pytest.fixture(scope="module")
def expanded() -> list:
    return jsonld.expand(exported(), OPTIONS)


def iris(node) -> list[str]:
    """Every IRI the expanded form names: its property keys, its types and its @vocab values."""
    found: list[str] = []
    if isinstance(node, list):
        for item in node:
            found += iris(item)
    elif isinstance(node, dict):
        for key, value in node.items():
            if not key.startswith("@"):
                found.append(key)
            if key == "@type":
                found += value if isinstance(value, list) else [value]
            elif key == "@id" and not node.keys() - {"@id"}:
                found.append(value)  # a value of a @vocab term (a purpose, a motivation)
            else:
                found += iris(value)
    return found


def test_every_iri_of_the_expanded_export_is_the_vocabularys_or_ours(expanded):
    named = iris(expanded)

    foreign = sorted({iri for iri in named if not iri.startswith(NAMESPACES)})
    assert foreign == []
    for term in ("hasSelector", "hasTarget", "hasBody", "hasSource", "hasPurpose", "exact",
                 "prefix", "suffix", "start", "end", "TextQuoteSelector",
                 "TextPositionSelector", "TextualBody", "Annotation", "identifying", "tagging",
                 "describing", "assessing", "commenting"):  # fmt: skip
        assert OA + term in named, term
    assert "http://purl.org/dc/terms/title" in named


def test_no_term_is_left_unmapped(expanded):
    """JSON-LD drops a key it cannot map without a word: compacted again with the same context,
    the expansion gives back every key and value the export had."""
    original = exported()

    compacted = jsonld.compact(expanded, {"@context": original["@context"]}, OPTIONS)

    assert compacted == original


def test_the_loader_fetches_nothing_but_the_w3c_context():
    elsewhere = {**exported(), "@context": [ANNO_CONTEXT, "https://example.org/other.jsonld"]}

    with pytest.raises(jsonld.JsonLdError):
        jsonld.expand(elsewhere, OPTIONS)


def test_our_terms_are_only_those_the_w3c_context_lacks():
    w3c = json.loads(CONTEXT_FILE.read_text(encoding="utf-8"))["@context"]

    assert not set(REVIEW_CONTEXT) & set(w3c)
