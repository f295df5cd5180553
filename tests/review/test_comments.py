"""Discussion on an item, below the views: who reads a comment (the model's rule and its
queryset twin, held to one answer), edits that keep the earlier text, mentions, replies, and
that a comment is never a decision."""

from __future__ import annotations

import pytest
from django.core.exceptions import PermissionDenied

from review.actions.cases import decide_case
from review.actions.comments import add_comment, edit_comment, mark_mention_read
from review.actions.plan_reviews import open_review_copy
from review.models import Comment, Decision, Membership, Mention, Project
from review.refusals import ActionRefused, StaleEdit
from tests.builders.cases_answers import make_answer, make_case
from tests.builders.plan_views import entries_of, make_plan
from tests.builders.reviews import double_review, hand_in_review
from tests.builders.users import user_in

pytestmark = pytest.mark.django_db


@pytest.fixture
def people(django_user_model):
    made = {
        name: user_in(django_user_model, name, group)
        for name, group in (
            ("first", "Moderators"),
            ("second", "Moderators"),
            ("curator", "Curators"),
            ("reader", "Readers"),
        )
    }
    made["staff"] = django_user_model.objects.create_user("boss", is_staff=True)
    return made


def member(user, project_id):
    Membership.objects.get_or_create(project_id=project_id, user=user)
    return user


def test_editing_a_comment_keeps_the_earlier_text_and_says_it_was_edited(people):
    case = make_case("c-1")
    comment = add_comment(case, author=people["first"], text="Looks upheld.")

    edited = edit_comment(comment, actor=people["first"], expected_version=1, text="Overturn.")

    assert (edited.text, edited.version, edited.edited) == ("Overturn.", 2, True)
    assert list(edited.revisions.values_list("version", "text")) == [(1, "Looks upheld.")]


def test_an_edit_against_an_older_version_is_refused_and_changes_nothing(people):
    case = make_case("c-1")
    comment = add_comment(case, author=people["first"], text="one")
    edit_comment(comment, actor=people["first"], expected_version=1, text="two")

    with pytest.raises(StaleEdit, match="first saved a newer version"):
        edit_comment(comment, actor=people["first"], expected_version=1, text="three")

    comment.refresh_from_db()
    assert (comment.text, comment.revisions.count()) == ("two", 1)


def test_only_its_author_edits_a_comment(people):
    comment = add_comment(make_case("c-1"), author=people["first"], text="mine")
    with pytest.raises(PermissionDenied):
        edit_comment(comment, actor=people["second"], expected_version=1, text="yours")


def test_an_empty_comment_is_refused_by_saying_so(people):
    with pytest.raises(ActionRefused, match="needs some text"):
        add_comment(make_case("c-1"), author=people["first"], text="   ")


def test_a_reply_to_a_reply_joins_the_first_comment_of_its_thread(people):
    case = make_case("c-1")
    top = add_comment(case, author=people["first"], text="top")
    reply = add_comment(case, author=people["second"], text="re", reply_to=top)

    again = add_comment(case, author=people["first"], text="re re", reply_to=reply)

    assert again.reply_to == top


def test_a_reply_on_another_item_than_its_comment_is_refused(people):
    top = add_comment(make_case("c-1"), author=people["first"], text="top")
    with pytest.raises(ActionRefused, match="item of the comment"):
        add_comment(make_case("c-2"), author=people["first"], text="re", reply_to=top)


def test_a_comment_is_not_a_decision(people):
    case = make_case("c-1")
    comment = add_comment(case, author=people["first"], text="a")
    edit_comment(comment, actor=people["first"], expected_version=1, text="b")
    assert not Decision.objects.exists()


def test_a_mention_is_made_for_a_member_of_the_project_only(people, django_user_model):
    case = make_case("c-1")
    member(people["second"], case.project_id)
    outsider_project = Project.objects.create(name="Other", slug="other")
    # Everyone `people` makes is a member of Default, the case's project: the outsider is not.
    member(django_user_model.objects.create_user("outsider"), outsider_project.pk)

    comment = add_comment(
        case, author=people["first"], text="@second and @outsider and @nobody, ask @first"
    )

    # Not the outsider, nobody unknown, and not the author: and staff are in every project.
    assert list(comment.mentions.values_list("user__username", flat=True)) == ["second"]


def test_a_mention_added_by_an_edit_is_made_once(people):
    case = make_case("c-1")
    member(people["second"], case.project_id)
    comment = add_comment(case, author=people["first"], text="hm")
    edited = edit_comment(comment, actor=people["first"], expected_version=1, text="@second?")
    edit_comment(edited, actor=people["first"], expected_version=2, text="@second, please")
    assert Mention.objects.filter(user=people["second"]).count() == 1


def test_a_mention_read_is_no_longer_unread_and_only_its_person_reads_it(people):
    case = make_case("c-1")
    member(people["second"], case.project_id)
    add_comment(case, author=people["first"], text="@second look")
    mention = Mention.objects.get()

    with pytest.raises(PermissionDenied):
        mark_mention_read(mention, user=people["first"])
    mark_mention_read(mention, user=people["second"])

    assert not Mention.objects.unread_for(people["second"]).exists()


# --- blindness: the rule and its twin -------------------------------------------------------

CASE_STAGES = ("single", "awaiting_second", "both_in")


def case_at(stage: str, people):
    if stage != "single":
        double_review("cases")
    case = make_case("c-9")
    comments = [
        add_comment(case, author=people[name], text=f"by {name}")
        for name in ("first", "second", "curator")
    ]
    if stage != "single":
        decide_case(case, "uphold", actor=people["first"], expected_version=case.version, note="")
    if stage == "both_in":
        case.refresh_from_db()
        decide_case(case, "overturn", actor=people["second"], expected_version=case.version,
                    note="no")  # fmt: skip
    return case, comments


@pytest.mark.parametrize("stage", CASE_STAGES)
def test_a_case_comments_rule_and_its_queryset_twin_agree_for_every_reader(people, stage):
    case, comments = case_at(stage, people)
    case.refresh_from_db()

    for reader in [*people.values(), None]:
        readable = set(Comment.objects.visible_to(reader).values_list("pk", flat=True))
        for comment in Comment.objects.select_related("case").filter(
            pk__in=[c.pk for c in comments]
        ):
            assert comment.visible_to(reader) == (comment.pk in readable), (stage, reader)


def test_while_a_second_opinion_is_awaited_a_reviewer_reads_only_their_own_comments(people):
    case, _ = case_at("awaiting_second", people)

    def read_by(name):
        return set(Comment.objects.visible_to(people[name]).values_list("text", flat=True))

    assert read_by("second") == {"by second"}
    assert read_by("first") == {"by first", "by second", "by curator"}  # they decided already


def test_once_both_opinions_are_in_every_reader_reads_every_comment(people):
    case_at("both_in", people)
    assert Comment.objects.visible_to(people["second"]).count() == 3


def test_an_answer_awaiting_its_second_opinion_hides_the_others_comments(people):
    double_review("answers")
    answer = make_answer("a-1")
    add_comment(answer, author=people["first"], text="by first")
    answer.first_opinion, answer.first_by = "published", people["first"]
    answer.save(update_fields=["first_opinion", "first_by"])

    comment = Comment.objects.select_related("answer").get()
    assert not comment.visible_to(people["second"])
    assert not Comment.objects.visible_to(people["second"]).exists()


@pytest.mark.parametrize("stage", ("copy_open", "both_in"))
def test_a_review_copy_entry_comments_rule_and_twin_agree(django_user_model, stage):
    first = user_in(django_user_model, "first_editor", "Editors")
    second = user_in(django_user_model, "second_editor", "Editors")
    curator = user_in(django_user_model, "a_curator", "Curators")
    double_review("plans")
    plan = make_plan(3)
    copy = open_review_copy(plan, actor=first)
    add_comment(entries_of(copy)[0], author=first, text="in my copy")
    if stage == "both_in":
        hand_in_review(copy, first)
        hand_in_review(open_review_copy(plan, actor=second), second, reject=[-1])

    comment = Comment.objects.select_related("entry__plan__review_of").get()
    for reader in (first, second, curator, None):
        readable = Comment.objects.visible_to(reader).filter(pk=comment.pk).exists()
        assert comment.visible_to(reader) == readable, (stage, reader)
    assert not comment.visible_to(second)
