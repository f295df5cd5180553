"""What a reviewer keeps about themselves, outside the decision log: the choice to stay on an
item after deciding it, and the conflicts (409s) they met, which the progress page counts."""

from __future__ import annotations

from review.decisions import StaleVersion, object_type_of
from review.models import ConflictMet, ReviewerSettings


def do_set_stay_after_deciding(user, stay: bool) -> ReviewerSettings:
    """After a verdict or an adjudication, stay on the item (True) or open the next one."""
    settings, _ = ReviewerSettings.objects.update_or_create(
        user=user, defaults={"stay_after_deciding": stay}
    )
    return settings


def do_note_conflict(user, stale: StaleVersion) -> ConflictMet:
    """Count the 409 `user` met, naming the object someone else decided first."""
    current = stale.current
    return ConflictMet.objects.create(
        user=user,
        object_type=object_type_of(current),
        object_id=str(current.pk),
        # Every decided row names its project; a row of none (were there one) counts nowhere.
        project_id=getattr(current, "decision_project_id", None),
    )
