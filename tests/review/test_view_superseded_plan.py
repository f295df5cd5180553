"""A superseded plan through the pages: Next and the plans list leave it out (a filter still
shows it), its page says so and links the current plan, adjudicating it or deciding one of
its entries is refused naming that plan, and the queue counts leave it out."""

from __future__ import annotations

import pytest

from review.actions.plan_reviews import differing_entries, open_review_copy
from review.models import Decision, Entry, Plan
from tests.builders.pages import html_of
from tests.builders.reviews import double_review, hand_in_review
from tests.builders.revisions import NAME, decided_plan, first_plan, revise
from tests.builders.urls import url_of
from tests.builders.users import user_in

pytestmark = pytest.mark.django_db
HTMX = {"HX-Request": "true"}


@pytest.fixture
def superseded(alice):
    """The first revision's plan, every entry decided, and the plan carried onto revision 2."""
    plan = decided_plan(alice)
    return Plan.objects.get(pk=plan.pk), revise(plan, alice).plan


def test_next_opens_the_carried_plan_not_the_superseded_one(client, editor) -> None:
    plan = first_plan()
    carried = revise(plan, editor).plan

    response = client.post(url_of("plans-next"))

    assert response.status_code == 302
    assert response["Location"] == url_of("plan", carried.pk)


def test_the_plans_list_leaves_superseded_plans_out_unless_asked(
    client, reader, superseded
) -> None:
    old, carried = superseded
    old_link = f'href="{url_of("plan", old.pk)}"'
    carried_link = f'href="{url_of("plan", carried.pk)}"'

    default = html_of(client.get(url_of("plans")))
    only_superseded = html_of(client.get(url_of("plans") + "?status=superseded"))
    every_plan = html_of(client.get(url_of("plans") + "?status=all"))

    assert carried_link in default and old_link not in default
    assert old_link in only_superseded and carried_link not in only_superseded
    assert old_link in every_plan and carried_link in every_plan
    assert '<span class="state state-superseded">Superseded</span>' in only_superseded


def test_the_superseded_plans_page_says_so_and_links_the_current_plan(
    client, reader, superseded
) -> None:
    old, carried = superseded

    page = html_of(client.get(url_of("plan", old.pk)))

    assert "This plan is superseded." in page
    assert (
        f'The current plan is <a href="{url_of("plan", carried.pk)}">plan {carried.pk}</a>' in page
    )
    assert f'<a href="{url_of("revision", carried.document_id)}">{NAME} (revision 2)</a>' in page
    assert f"Plan {old.pk} · " in page and " · Superseded · " in page
    assert 'id="adjudicate-button"' not in page and 'id="download-link"' not in page
    assert "Superseded by a newer revision; frozen." in page


def test_the_current_plans_page_has_no_superseded_banner(client, reader, superseded) -> None:
    _, carried = superseded

    page = html_of(client.get(url_of("plan", carried.pk)))

    assert "This plan is superseded" not in page
    assert "data-superseded" not in page


def test_adjudicating_a_superseded_plan_is_refused_naming_the_current_plan(
    client, editor, superseded
) -> None:
    old, carried = superseded

    response = client.post(url_of("plan-adjudicate", old.pk), {"version": old.version})

    assert response.status_code == 422
    body = html_of(response)
    assert (
        f"Plan {old.pk} is superseded by plan {carried.pk} on {NAME} (revision 2): "
        f"decide plan {carried.pk} instead."
    ) in body
    assert Plan.objects.get(pk=old.pk).status == Plan.Status.SUPERSEDED
    assert Plan.objects.get(pk=carried.pk).status == Plan.Status.OPEN
    assert not Decision.objects.filter(action="plan.adjudicate").exists()


def test_adjudicating_takes_only_a_post(client, editor, superseded) -> None:
    old, _ = superseded

    assert client.get(url_of("plan-adjudicate", old.pk)).status_code == 405


def test_a_reader_may_not_adjudicate_a_superseded_plan(client, reader, superseded) -> None:
    old, _ = superseded

    response = client.post(url_of("plan-adjudicate", old.pk), {"version": old.version})

    assert response.status_code == 403


def test_deciding_an_entry_of_a_superseded_plan_over_htmx_is_refused_naming_the_current_plan(
    client, editor, django_user_model
) -> None:
    plan = first_plan()
    carried = revise(plan, editor).plan
    entry = plan.entries.order_by("position").first()

    response = client.post(
        f"/p/default/plans/{plan.pk}/entries/{entry.pk}/accept/",
        {"version": entry.version},
        headers=HTMX,
    )

    assert response.status_code == 422
    assert "<html" not in html_of(response)
    assert f"superseded by plan {carried.pk}" in html_of(response)
    assert Entry.objects.get(pk=entry.pk).state == Entry.State.PROPOSED


def test_the_dashboard_and_progress_leave_superseded_plans_out_of_the_plans_waiting(
    client, editor, django_user_model
) -> None:
    plan = first_plan()
    carried = revise(plan, editor).plan
    proposed = carried.entries.filter(state=Entry.State.PROPOSED).count()

    queue = client.get("/").context["queues"][0]
    client.force_login(user_in(django_user_model, "lena", "Leads"))
    figures = next(
        row for row in client.get("/p/default/progress/").context["queues"] if row.name == "Plans"
    )

    assert (queue["count"], queue["detail"]) == (1, f"{proposed} entries still proposed")
    assert (figures.left, figures.left_detail) == (1, f"{proposed} entries still proposed")


def test_a_superseded_plan_in_curation_says_so_and_a_curators_pick_is_refused(
    client, editor, curator, django_user_model
) -> None:
    editor2 = user_in(django_user_model, "editor2", "Editors")
    double_review("plans")
    plan = first_plan()
    hand_in_review(open_review_copy(plan, actor=editor), editor)
    hand_in_review(open_review_copy(plan, actor=editor2), editor2, reject=[-1])
    (entry, _, _) = differing_entries(plan)[-1]
    revise(Plan.objects.get(pk=plan.pk), editor)
    current = Plan.objects.get(document__revision=2)
    client.force_login(curator)

    page = html_of(client.get(url_of("plan-curation", plan.pk)))
    response = client.post(
        url_of("plan-curate-entry", plan.pk, entry.pk),
        {"version": entry.version, "pick": "first"},
        follow=True,
    )

    assert "This plan is superseded." in page
    assert f"superseded by plan {current.pk}" in html_of(response)
    assert "the plan is adjudicated" not in html_of(response)
    assert Entry.objects.get(pk=entry.pk).state == Entry.State.PROPOSED
    assert Plan.objects.get(pk=plan.pk).status == Plan.Status.SUPERSEDED
