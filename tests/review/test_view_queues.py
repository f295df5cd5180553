"""The queue pages: "Next" (GET shows, POST takes), an open page's poll (who else is here,
the lease renewed, what others changed), leaving, a lead's release, moving on after a verdict."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.utils import timezone

from review.actions import leases
from review.models import Case, Decision, Lease, ReviewerSettings
from review.models.projects import default_project_id
from tests.builders.cases_answers import make_answer, make_case
from tests.builders.live import seen_on
from tests.builders.plan_views import entries_of, make_plan
from tests.builders.users import user_in

pytestmark = pytest.mark.django_db

HTMX = {"HX-Request": "true"}
CASES = Lease.Queue.CASES


@pytest.fixture
def cases():
    return [make_case(f"c-{n}") for n in (1, 2, 3)]


def test_next_shown_by_get_takes_nothing(client, moderator, cases) -> None:
    response = client.get("/p/default/cases/next/")
    assert response.status_code == 200
    assert "3 waiting that nobody holds" in response.content.decode()
    assert not Lease.objects.exists()


def test_next_by_post_holds_the_first_case_and_opens_it(client, moderator, cases) -> None:
    response = client.post("/p/default/cases/next/")
    assert response.status_code == 302
    assert response.url == f"/p/default/cases/{cases[0].pk}/"
    lease = Lease.objects.get()
    assert (lease.queue, lease.item_id, lease.holder) == (CASES, cases[0].pk, moderator)


def test_a_reader_may_look_at_next_but_not_take(client, reader, cases) -> None:
    assert "nothing to take" in client.get("/p/default/cases/next/").content.decode()
    assert client.post("/p/default/cases/next/").status_code == 403


def test_next_when_everything_is_held_says_so(client, moderator, cases, django_user_model):
    other = user_in(django_user_model, "moderator2", "Moderators")
    for _ in cases:
        leases.take_next(
            CASES, user_in(django_user_model, f"m{_.pk}", "Moderators"), default_project_id()
        )
    assert other.leases.count() == 0
    response = client.post("/p/default/cases/next/", follow=True)
    assert "Nothing is waiting in cases that nobody else holds" in response.content.decode()


def test_the_case_list_shows_who_holds_what(client, moderator, cases, django_user_model):
    other = user_in(django_user_model, "moderator2", "Moderators")
    leases.take_next(CASES, other, default_project_id())
    body = client.get("/p/default/cases/").content.decode()
    assert "moderator2 since" in body
    assert "Release" not in body  # a moderator is not a lead


def test_a_lead_releases_a_lease_from_the_list_and_it_is_logged(client, cases, django_user_model):
    holder = user_in(django_user_model, "moderator2", "Moderators")
    lease = leases.take_next(CASES, holder, default_project_id())
    lead = user_in(django_user_model, "lena", "Leads")
    client.force_login(lead)
    assert "Release" in client.get("/p/default/cases/").content.decode()
    response = client.post(f"/p/default/leases/{lease.pk}/release/")
    assert response.status_code == 302
    assert not Lease.objects.exists()
    assert Decision.objects.get().action == "lease.release"


def test_a_moderator_may_not_release_another_s_lease(client, moderator, cases, django_user_model):
    lease = leases.take_next(
        CASES, user_in(django_user_model, "moderator2", "Moderators"), default_project_id()
    )
    assert client.post(f"/p/default/leases/{lease.pk}/release/").status_code == 403
    assert client.get(f"/p/default/leases/{lease.pk}/release/").status_code == 405
    assert Lease.objects.exists()


def test_the_poll_renews_the_lease_and_says_who_else_is_here(
    client, moderator, cases, django_user_model
):
    case = cases[0]
    lease = leases.take_next(CASES, moderator, default_project_id())
    Lease.objects.update(expires_at=timezone.now() + timedelta(seconds=3))
    other = user_in(django_user_model, "moderator2", "Moderators")
    leases.mark_present(CASES, case.pk, other)
    response = client.post(
        f"/p/default/open/cases/{case.pk}/here/", {"seen": case.version}, headers=HTMX
    )
    body = response.content.decode()
    assert response.status_code == 200 and "<html" not in body
    assert "Also here: moderator2" in body
    assert "You hold this case" in body
    assert Lease.objects.get(pk=lease.pk).expires_at > timezone.now() + timedelta(seconds=60)


def test_the_poll_says_who_holds_a_case_someone_else_took(
    client, moderator, cases, django_user_model
):
    leases.take_next(
        CASES, user_in(django_user_model, "moderator2", "Moderators"), default_project_id()
    )
    body = client.post(f"/p/default/open/cases/{cases[0].pk}/here/", headers=HTMX).content.decode()
    assert "Held by moderator2" in body


def test_the_poll_brings_another_s_verdict_but_leaves_the_panel_alone(
    client, moderator, cases, django_user_model
):
    case = cases[0]
    seen = seen_on(client.get(f"/p/default/cases/{case.pk}/").content.decode())
    other = user_in(django_user_model, "moderator2", "Moderators")
    client.force_login(other)
    client.post(f"/p/default/cases/{case.pk}/overturn/", {"version": 1, "note": "Satire."})
    client.force_login(moderator)
    here = f"/p/default/open/cases/{case.pk}/here/"
    body = client.post(here, {"seen": seen}, headers=HTMX).content.decode()
    assert 'id="verdict-badge" hx-swap-oob="true"' in body and "Verdict: Overturned" in body
    assert "moderator2 decided this case" in body and "Satire." in body
    assert 'id="verdict"' not in body  # the note being typed stays where it is
    again = client.post(here, {"seen": seen_on(body)}, headers=HTMX)
    assert "verdict-badge" not in again.content.decode()


def test_the_poll_brings_entries_another_editor_decided_but_not_one_s_own(
    client, editor, django_user_model
):
    plan = make_plan(3)
    first, second = entries_of(plan)[:2]
    seen = timezone.now().isoformat()
    other = user_in(django_user_model, "editor2", "Editors")
    client.force_login(other)
    client.post(f"/p/default/plans/{plan.pk}/entries/{first.pk}/accept/", {"version": 1})
    client.force_login(editor)
    client.post(f"/p/default/plans/{plan.pk}/entries/{second.pk}/reject/", {"version": 1})
    body = client.post(
        f"/p/default/open/plans/{plan.pk}/here/", {"seen": seen}, headers=HTMX
    ).content.decode()
    assert re.search(
        rf'<li id="entry-{first.pk}" class="entry state-accepted"[^>]*hx-swap-oob="true"', body
    )
    assert f'id="entry-{second.pk}"' not in body
    assert 'id="plan-counters"' in body


def test_the_poll_leaves_alone_the_entry_being_edited(client, editor, django_user_model):
    plan = make_plan(3)
    first = entries_of(plan)[0]
    seen = timezone.now().isoformat()
    client.force_login(user_in(django_user_model, "editor2", "Editors"))
    client.post(f"/p/default/plans/{plan.pk}/entries/{first.pk}/accept/", {"version": 1})
    client.force_login(editor)
    data = {"seen": seen, "editing": first.pk}
    body = client.post(
        f"/p/default/open/plans/{plan.pk}/here/", data, headers=HTMX
    ).content.decode()
    assert f'id="entry-{first.pk}"' not in body


def test_leaving_the_page_releases_its_lease(client, moderator, cases) -> None:
    case = cases[0]
    leases.take_next(CASES, moderator, default_project_id())
    leases.mark_present(CASES, case.pk, moderator)
    assert client.post(f"/p/default/open/cases/{case.pk}/leave/").status_code == 204
    assert not Lease.objects.exists()
    assert not leases.Presence.objects.exists()


def test_a_poll_of_an_unknown_queue_or_item_is_404_and_records_nobody(client, moderator) -> None:
    assert client.post("/p/default/open/tasks/1/here/").status_code == 404
    assert client.post("/p/default/open/cases/999/here/").status_code == 404
    assert client.get("/p/default/open/cases/999/here/").status_code == 405
    assert not leases.Presence.objects.exists()


def test_a_verdict_on_a_case_taken_from_the_queue_opens_the_next_one(client, moderator, cases):
    client.post("/p/default/cases/next/")
    response = client.post(f"/p/default/cases/{cases[0].pk}/uphold/", {"version": 1})
    assert response.status_code == 302 and response.url == f"/p/default/cases/{cases[1].pk}/"
    assert Lease.objects.get().item_id == cases[1].pk


def test_over_htmx_the_next_case_opens_by_hx_redirect(client, moderator, cases) -> None:
    client.post("/p/default/cases/next/")
    response = client.post(f"/p/default/cases/{cases[0].pk}/uphold/", {"version": 1}, headers=HTMX)
    assert response["HX-Redirect"] == f"/p/default/cases/{cases[1].pk}/"


def test_a_reviewer_who_chose_to_stay_stays_and_lets_the_case_go(client, moderator, cases):
    client.post("/settings/stay/", {"stay": "1"})
    assert ReviewerSettings.objects.get(user=moderator).stay_after_deciding
    client.post("/p/default/cases/next/")
    response = client.post(f"/p/default/cases/{cases[0].pk}/uphold/", {"version": 1})
    assert response.url == f"/p/default/cases/{cases[0].pk}/"
    assert not Lease.objects.exists()


def test_a_case_opened_from_the_list_is_not_moved_on_from(client, moderator, cases) -> None:
    response = client.post(f"/p/default/cases/{cases[0].pk}/uphold/", {"version": 1})
    assert response.url == f"/p/default/cases/{cases[0].pk}/"


def test_a_refused_verdict_does_not_move_on(client, moderator, cases) -> None:
    client.post("/p/default/cases/next/")
    response = client.post(
        f"/p/default/cases/{cases[0].pk}/overturn/", {"version": 1}, headers=HTMX
    )
    assert response.status_code == 422 and "HX-Redirect" not in response
    assert Lease.objects.get().item_id == cases[0].pk


def test_publishing_an_answer_taken_from_the_queue_opens_the_next(client, editor) -> None:
    first, second = make_answer("a-1"), make_answer("a-2")
    client.post("/p/default/answers/next/")
    response = client.post(f"/p/default/answers/{first.pk}/publish/", {"version": 1})
    assert response.url == f"/p/default/answers/{second.pk}/"


def test_the_plans_list_offers_next_to_an_editor_only(client, editor, django_user_model) -> None:
    make_plan(2)
    assert "data-next-button" in client.get("/p/default/plans/").content.decode()
    client.force_login(user_in(django_user_model, "rita", "Readers"))
    assert "data-next-button" not in client.get("/p/default/plans/").content.decode()


def test_every_case_page_has_its_presence_strip(client, moderator, cases) -> None:
    body = client.get(f"/p/default/cases/{cases[0].pk}/").content.decode()
    assert f'hx-post="/p/default/open/cases/{cases[0].pk}/here/"' in body
    assert Case.objects.count() == 3
