"""Offers of boundaries are only ones an edit accepts: on a PDF's text, every boundary the edit
form lists and every boundary offered for a span typed mid-paragraph is saved as it is."""

from __future__ import annotations

import pytest
from django.db import transaction

from review.actions.entries import BoundaryOffer, EditRequest, edit_entry, nearby_boundaries
from review.adapters.plans import propose_document
from review.management.commands.demo import DEMO_DATA
from review.models import Entry

pytestmark = pytest.mark.django_db
PDF = "veileder-brannsikkerhet-bolig.pdf"


@pytest.fixture
def entries():
    plan = propose_document(PDF, (DEMO_DATA / PDF).read_bytes(), path_prefix="veileder-bolig")
    return list(plan.entries.select_related("plan").order_by("position"))


def saves(entry: Entry, actor, start: int, end: int) -> bool:
    """Whether the edit is saved as asked (then taken back, so each try starts afresh)."""
    entry = Entry.objects.select_related("plan").get(pk=entry.pk)
    request = EditRequest(title=entry.title, path=entry.path, start=start, end=end)
    with transaction.atomic():
        try:
            edit_entry(entry, request, actor=actor, expected_version=entry.version)
        except BoundaryOffer:
            return False
        transaction.set_rollback(True)
    return True


def test_every_boundary_the_edit_form_lists_on_a_pdf_is_one_an_edit_accepts(alice, entries):
    listed = 0
    for entry in entries:
        text = entry.plan.document_text
        choices = nearby_boundaries(entry, text)
        for boundary in choices.get("start", []):
            listed += 1
            assert saves(entry, alice, boundary.offset, entry.span_end), (entry.title, boundary)
        for boundary in choices.get("end", []):
            listed += 1
            assert saves(entry, alice, entry.span_start, boundary.offset), (entry.title, boundary)
    assert listed > len(entries), "the PDF's paragraphs give the form boundaries to offer"


def test_every_boundary_offered_for_an_end_typed_mid_paragraph_is_saved(alice, entries):
    offered = 0
    for entry in entries:
        text = entry.plan.document_text
        middle = text.index(" ", (entry.span_start + entry.span_end) // 2)
        request = EditRequest(
            title=entry.title, path=entry.path, start=entry.span_start, end=middle
        )
        try:
            with transaction.atomic():
                edit_entry(entry, request, actor=alice, expected_version=entry.version)
                transaction.set_rollback(True)
            continue
        except BoundaryOffer as offer:
            boundaries = offer.offers["end"]
        for boundary in boundaries:
            offered += 1
            assert saves(entry, alice, entry.span_start, boundary.offset), (entry.title, boundary)
    assert offered


def test_the_page_break_inside_a_sentence_is_never_offered(alice, entries):
    text = entries[0].plan.document_text
    page_break = text.index("\n\n") + 2
    for entry in entries:
        choices = nearby_boundaries(entry, text, count=6)
        offsets = {b.offset for found in choices.values() for b in found}
        assert page_break not in offsets
