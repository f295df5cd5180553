"""What staff and a project's leads change about projects and who works in them: making a
project, giving a person a place in one with roles (or changing their roles), and taking it
away. Each is logged in the project's decision log, as every change a person makes is."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.core.validators import validate_slug
from django.db import IntegrityError, transaction

from review.decisions import ActionRefused, decide, delete_logged, ensure_seen, record_made
from review.models import Decision, Membership, Project, Roles

ROLE_FIELDS = tuple(name for name, _ in Roles.NAMES)
MAX_NAME_CHARS = Project._meta.get_field("name").max_length
MAX_SLUG_CHARS = Project._meta.get_field("slug").max_length


class ProjectRefused(ActionRefused):
    """A refusal about one thing asked for (`field`: "name", "slug", "username"), so a form
    can show it beside that field."""

    def __init__(self, field: str, message: str):
        self.field = field
        super().__init__(message)


def check_project(name: str, slug: str) -> None:
    """Refuse (ProjectRefused) a project that could not be made as asked. Writes nothing."""
    if not name.strip():
        raise ProjectRefused("name", "Give the project a name.")
    if len(name.strip()) > MAX_NAME_CHARS:
        raise ProjectRefused("name", f"A project's name is at most {MAX_NAME_CHARS} characters.")
    if not slug or len(slug) > MAX_SLUG_CHARS:
        raise ProjectRefused(
            "slug", f"Give the project a slug of 1 to {MAX_SLUG_CHARS} characters."
        )
    try:
        validate_slug(slug)
    except ValidationError:
        raise ProjectRefused(
            "slug", f"“{slug}” is not a slug: use letters, digits, dashes and underscores only."
        ) from None
    if Project.objects.filter(slug=slug).exists():
        raise ProjectRefused("slug", f"A project with the slug “{slug}” already exists.")


def create_project(
    *, actor, name: str, slug: str, description: str = "", require_second_factor: bool = False
) -> Decision:
    """Make a project, logged as "project.create". Only staff."""
    if not actor.is_staff:
        raise ActionRefused("Only staff create projects.")
    name, slug, description = name.strip(), slug.strip(), description.strip()
    check_project(name, slug)
    try:
        with transaction.atomic():
            project = Project.objects.create(
                name=name,
                slug=slug,
                description=description,
                require_second_factor=require_second_factor,
            )
            return record_made(
                project,
                actor=actor,
                action="project.create",
                after={
                    "name": name,
                    "slug": slug,
                    "description": description,
                    "require_second_factor": require_second_factor,
                },
            )
    except IntegrityError:
        # Someone made a project with this slug between the check and the INSERT.
        raise ProjectRefused("slug", f"A project with the slug “{slug}” already exists.") from None


def require_second_factor(project: Project, required: bool, *, actor) -> Decision:
    """Say whether the project's pages are only for members signed in with a second factor,
    logged as "project.second_factor". Only staff: a lead could otherwise lift it. A project
    has no version (nothing else about it changes after it is made): the last one sent holds."""
    if not actor.is_staff:
        raise ActionRefused("Only staff say whether a project requires a second factor.")
    with transaction.atomic():
        before = {"require_second_factor": project.require_second_factor}
        Project.objects.filter(pk=project.pk).update(require_second_factor=required)
        project.require_second_factor = required
        return record_made(
            project,
            actor=actor,
            action="project.second_factor",
            before=before,
            after={"require_second_factor": required},
        )


def check_manager(project: Project, actor) -> None:
    if not project.members_managed_by(actor):
        raise ActionRefused(f"Only staff and the leads of {project} manage its members.")


def member_named(username: str):
    """The person with this username, or a refusal that names the username not found."""
    found = get_user_model().objects.filter(username=username.strip()).first()
    if found is None:
        raise ProjectRefused("username", f"Nobody has the username “{username.strip()}”.")
    return found


def set_membership(
    project: Project,
    username: str,
    *,
    actor,
    roles: dict[str, bool],
    expected_version: int | None = None,
) -> Decision:
    """Give `username` a place in `project` with `roles` ("membership.add"), or, given the
    version of their membership that the person saw, change their roles there
    ("membership.roles"; a stale version is refused with StaleVersion). Roles not named are
    not held. Staff and the project's leads only."""
    check_manager(project, actor)
    unknown = set(roles) - set(ROLE_FIELDS)
    if unknown:
        raise ActionRefused(f"No such role: {', '.join(sorted(unknown))}.")
    user = member_named(username)
    held = {name: bool(roles.get(name)) for name in ROLE_FIELDS}
    if expected_version is None:
        return _add_member(project, user, actor=actor, roles=held)
    membership = Membership.objects.filter(project=project, user=user).first()
    if membership is None:
        raise ActionRefused(f"{user.username} is no longer a member of {project}; add them again.")
    return decide(
        membership,
        expected_version=expected_version,
        actor=actor,
        action="membership.roles",
        changes=held,
    )


def _add_member(project: Project, user, *, actor, roles: dict[str, bool]) -> Decision:
    refusal = f"{user.username} is already a member of {project}: change their roles instead."
    if Membership.objects.filter(project=project, user=user).exists():
        raise ProjectRefused("username", refusal)
    try:
        with transaction.atomic():
            membership = Membership.objects.create(project=project, user=user, **roles)
            return record_made(
                membership,
                actor=actor,
                action="membership.add",
                after={"user": user.username, "project": project.slug, **roles},
            )
    except IntegrityError:
        # Added by someone else between the check and the INSERT.
        raise ProjectRefused("username", refusal) from None


def remove_membership(membership: Membership, *, actor, expected_version: int) -> Decision:
    """Take `membership` away, logged as "membership.remove" with the roles it held, if it
    is still at the version the person saw (else StaleVersion). Staff and the leads only."""
    check_manager(membership.project, actor)
    with transaction.atomic():
        current = Membership.objects.select_for_update().filter(pk=membership.pk).first()
        if current is None:
            raise ActionRefused(f"{membership.user} is no longer a member of {membership.project}.")
        ensure_seen(current, expected_version)
        return _remove_member(current, actor=actor)


def _remove_member(membership: Membership, *, actor) -> Decision:
    before = {
        "user": membership.user.username,
        "project": membership.project.slug,
        **{name: getattr(membership, name) for name in ROLE_FIELDS},
    }
    return delete_logged(
        membership, actor=actor, action="membership.remove", before=before, after={}
    )


# Who the log names for a change single sign-on made: the person signing in decided nothing.
SIGN_ON = "single sign-on"


def set_membership_by_sign_on(project: Project, user, roles: dict[str, bool] | None):
    """Make `user`'s place in `project` what their provider's claims give: a member with
    `roles`, or (None) no member at all. Logged like a manager's change ("membership.add",
    ".roles", ".remove"), by SIGN_ON; None when nothing changes. No manager is asked: the
    mappings staff keep (`ClaimRole`) are the authority, and the caller
    (`review.actions.sign_on.apply_claims`) only passes projects that have some."""
    with transaction.atomic():
        membership = (
            Membership.objects.select_for_update()
            .select_related("user", "project")
            .filter(project=project, user=user)
            .first()
        )
        if roles is None:
            return _remove_member(membership, actor=SIGN_ON) if membership else None
        held = {name: bool(roles.get(name)) for name in ROLE_FIELDS}
        if membership is None:
            return _add_member(project, user, actor=SIGN_ON, roles=held)
        if all(getattr(membership, name) == value for name, value in held.items()):
            return None
        return decide(
            membership,
            expected_version=membership.version,
            actor=SIGN_ON,
            action="membership.roles",
            changes=held,
        )
