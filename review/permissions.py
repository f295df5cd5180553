"""Who may decide what. Staff may do everything; Readers only browse."""

from __future__ import annotations

EDITORS = "Editors"
MODERATORS = "Moderators"
READERS = "Readers"
# Settle disagreements between two reviewers (double review); they read the insights too.
CURATORS = "Curators"
LEADS = "Leads"
GROUPS = (LEADS, EDITORS, MODERATORS, READERS, CURATORS)


def _in_group(user, name: str) -> bool:
    if not user.is_authenticated:
        return False
    if user.is_staff:
        return True
    # Cached on the user object: a page asks this once per button.
    names = getattr(user, "_review_group_names", None)
    if names is None:
        names = set(user.groups.values_list("name", flat=True))
        user._review_group_names = names
    return name in names


def can_decide_plans(user) -> bool:
    return _in_group(user, EDITORS)


def can_decide_cases(user) -> bool:
    return _in_group(user, MODERATORS)


def can_decide_answers(user) -> bool:
    # Publishing an answer is an editorial decision.
    return _in_group(user, EDITORS)


def can_curate(user) -> bool:
    return _in_group(user, CURATORS)


def can_read_insights(user) -> bool:
    # What the decisions teach is for those who make them, not for every reader.
    return any(_in_group(user, name) for name in (EDITORS, MODERATORS, CURATORS))


def can_lead(user) -> bool:
    """Leads (and staff) see everyone's progress and may release another reviewer's lease."""
    return _in_group(user, LEADS)


def role_label(user) -> str:
    if user.is_staff:
        return "Staff"
    names = [name for name in GROUPS if _in_group(user, name)]
    return ", ".join(name.removesuffix("s") for name in names) or "No role"
