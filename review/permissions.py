"""Who may decide what, in which project. A person's roles are those of their membership of
the item's project (`review.models.Membership`); staff hold every role in every project; a
member with no role is a reader, who only browses; someone who is no member holds none."""

from __future__ import annotations

import copy
from typing import Any

# The roles, by the names `Membership` gives them. The groups of the same names that once
# conferred them confer nothing now: migration 0017 read them into memberships of "Default".
EDITOR = "editor"
MODERATOR = "moderator"
CURATOR = "curator"  # settles disagreements between two reviewers; reads the insights too
LEAD = "lead"
READER = "reader"
ROLES = (LEAD, EDITOR, MODERATOR, CURATOR)


def project_id_of(project: Any) -> int:
    """`project` as an id: a Project row or its id."""
    return getattr(project, "pk", project)


def _memberships(user) -> dict[int, tuple[Any, frozenset[str]]]:
    """Project id -> (the project, the roles `user` holds there), for every project they are
    a member of, in the projects' order. Cached on the user object, one query for all of a
    person's memberships: a page asks this once per button, and its address's project and
    the top bar's switcher read it too."""
    held = getattr(user, "_review_roles", None)
    if held is None:
        from review.models import Membership

        rows = (
            Membership.objects.filter(user=user)
            .select_related("project")
            .order_by("project__name", "project__pk")
        )
        held = {m.project_id: (m.project, m.role_names) for m in rows}
        user._review_roles = held
    return held


def token_holder(owner, grants) -> Any:
    """`owner` as one of their API tokens acts for them: a copy who is no staff and works in
    the projects of `grants` (each a project and the role names granted there) that `owner`
    still works in, with the roles both the grant and `owner` hold there, so a token never
    does more than its owner may today. Every rule that reads a person's projects and roles
    reads the copy's: this module's, and `Project.objects.of_member` and `where_role` (by
    `fixed_projects`)."""
    held = {}
    for project, granted in sorted(grants, key=lambda grant: (grant[0].name, grant[0].pk)):
        owners = frozenset(ROLES) if owner.is_staff else _roles(owner, project)
        if owners is not None:
            both = (granted & owners) - {READER}
            held[project.pk] = (project, both or frozenset({READER}))
    holder = copy.copy(owner)
    holder.is_staff = holder.is_superuser = False
    holder._review_roles = held
    holder._review_fixed = True
    holder.save = _not_saved
    return holder


def _not_saved(*args, **kwargs):
    # The copy is no staff: saved, it would take staff away from its owner.
    raise TypeError("a token's holder is a view of its owner, not a user to save")


def fixed_projects(user, role: str | None = None) -> list[int] | None:
    """The ids of the projects a token's holder (`token_holder`) acts for, those where it
    holds `role` if given; None for a person, whose projects are their memberships."""
    if not getattr(user, "_review_fixed", False):
        return None
    held = _memberships(user).items()
    return [pk for pk, (_, roles) in held if role is None or role in roles]


def member_projects(user) -> list:
    """The projects `user` works in, in their order, for someone who is not staff (staff
    work in every project: `Project.objects.of_member`). No query beyond the memberships'."""
    if not getattr(user, "is_authenticated", False):
        return []
    return [project for project, _ in _memberships(user).values()]


def _roles(user, project) -> frozenset[str] | None:
    """The roles `user` holds in `project` (None when they are no member of it)."""
    found = _memberships(user).get(project_id_of(project))
    return found[1] if found else None


def membership_project_id(user, slug: str) -> int | None:
    """The id of the project `slug` names, if `user` is a member of it (None otherwise):
    read from their memberships, so it costs no query of its own."""
    if not getattr(user, "is_authenticated", False):
        return None
    found = next((p for p, _ in _memberships(user).values() if p.slug == slug), None)
    return found.pk if found else None


def role_names(user, project) -> frozenset[str]:
    """The roles `user` holds in `project` by name ("reader" alone for a member with none;
    none for someone who is no member)."""
    if getattr(user, "is_staff", False):
        return frozenset(ROLES)
    return _roles(user, project) or frozenset()


def is_member(user, project) -> bool:
    """Whether `user` may read `project` at all: staff and members do. `user` None (a
    command's operator) reads as staff would."""
    if user is None:
        return True
    if not getattr(user, "is_authenticated", False):
        return False
    return user.is_staff or _roles(user, project) is not None


def has_role(user, project, role: str) -> bool:
    if user is None or not getattr(user, "is_authenticated", False):
        return False
    if user.is_staff:
        return True
    return role in (_roles(user, project) or ())


def can_decide_plans(user, project) -> bool:
    return has_role(user, project, EDITOR)


def can_decide_cases(user, project) -> bool:
    return has_role(user, project, MODERATOR)


def can_decide_answers(user, project) -> bool:
    # Publishing an answer is an editorial decision.
    return has_role(user, project, EDITOR)


def can_curate(user, project) -> bool:
    return has_role(user, project, CURATOR)


def can_read_insights(user, project) -> bool:
    # What the decisions teach is for those who make them, not for every reader.
    return any(has_role(user, project, role) for role in (EDITOR, MODERATOR, CURATOR))


def can_lead(user, project) -> bool:
    """Leads (and staff) see everyone's progress and may release another reviewer's lease."""
    return has_role(user, project, LEAD)


def role_label(user, project) -> str:
    """The person's roles in `project`, as the top bar names them."""
    if user.is_staff:
        return "Staff"
    held = _roles(user, project) if user.is_authenticated else None
    if held is None:
        return "No role"
    return ", ".join(role.capitalize() for role in ROLES if role in held) or "Reader"
