"""What a person does to their own account: signing out everywhere else; and ending all of
someone's sessions, for staff acting on another person's account."""

from __future__ import annotations

from django.contrib.auth import SESSION_KEY, authenticate, update_session_auth_hash
from django.contrib.sessions.models import Session
from django.utils import timezone

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


def end_sessions_of(user) -> int:
    """End every session `user` is signed in with, anywhere; how many there were.

    For staff acting on someone else's account, where `sign_out_everywhere`'s re-hash cannot
    serve: it needs the person's password (and one who signs on through the provider has
    none). The sessions are the database's (Django's default engine, which the settings keep);
    nothing indexes them by person, so every live one is read: for a rare act, never for a
    page's every request."""
    live = Session.objects.filter(expire_date__gt=timezone.now())
    theirs = [
        session.pk
        for session in live.iterator(chunk_size=500)
        if session.get_decoded().get(SESSION_KEY) == str(user.pk)
    ]
    Session.objects.filter(pk__in=theirs).delete()
    return len(theirs)
