"""What a person does to their own account: signing out everywhere else."""

from __future__ import annotations

from django.contrib.auth import authenticate, update_session_auth_hash

from review.models import SecurityEvent
from review.refusals import ActionRefused
from review.security import Kind, record


def sign_out_everywhere(request, password: str) -> SecurityEvent:
    """End every session of the person signed in on `request` but this one, and record it.

    Django signs a session with a hash of its user's password hash and ends any session whose
    hash no longer matches (`get_session_auth_hash`). Hashing the same password again, with a
    new salt, changes it: every other session ends at its next request, and no session row is
    read. This one is signed again. The password is checked through `authenticate`, so a wrong
    one counts as a failed sign-in (and towards a lockout) like any other. Refused, with
    nothing changed, for a wrong password."""
    user = request.user
    if authenticate(request, username=user.get_username(), password=password) != user:
        raise ActionRefused("That is not your password: no session was ended.")
    user.set_password(password)
    user.save(update_fields=["password"])
    update_session_auth_hash(request, user)
    return record(Kind.SIGNED_OUT_EVERYWHERE, user.get_username(), request=request)
