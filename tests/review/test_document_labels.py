"""Two revisions of one document never read the same: `Document.label` names the revision,
and every page that names a document asks it (the plan's header, the import form's choices,
the insights filter's choices)."""

from __future__ import annotations

import pytest

from review.forms import PlanUploadForm
from tests.builders.pages import html_of
from tests.builders.revisions import NAME, first_plan, revise
from tests.builders.urls import url_of

pytestmark = pytest.mark.django_db


@pytest.fixture
def revised(editor):
    plan = first_plan()
    return plan, revise(plan, editor)


def test_a_document_is_named_with_its_revision_from_the_second_on(revised) -> None:
    plan, second = revised

    assert (plan.document.label, str(plan.document)) == (NAME, NAME)
    assert second.revision.label == str(second.revision) == f"{NAME} (revision 2)"


def test_the_plan_header_names_the_revision(client, editor, revised) -> None:
    _, second = revised

    page = html_of(client.get(url_of("plan", second.plan.pk)))

    assert f"<h1>{NAME} (revision 2)</h1>" in page
    assert f"<title>{NAME} (revision 2) · plan {second.plan.pk}" in page


def test_the_import_form_offers_the_latest_revision_by_its_label_and_not_the_one_before(
    revised,
) -> None:
    plan, second = revised

    choices = dict(PlanUploadForm().fields["document"].widget.choices)

    assert choices[second.revision.pk] == f"{NAME} (revision 2)"
    assert plan.document.pk not in choices


def test_the_insights_filter_tells_two_revisions_apart(client, editor, revised) -> None:
    plan, second = revised

    page = html_of(client.get("/p/default/insights/"))

    assert f'<option value="{plan.document.pk}">{NAME}</option>' in page
    assert f'<option value="{second.revision.pk}">{NAME} (revision 2)</option>' in page
