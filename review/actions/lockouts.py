"""Lifting a lockout of failed sign-ins before its cool-off ends: staff's, and recorded."""

from __future__ import annotations

from axes.utils import reset

from review.lockouts import lockouts_of
from review.models import SecurityEvent
from review.refusals import ActionRefused
from review.security import Kind, record


def lift_lockout(of: str, value: str, actor, request=None) -> SecurityEvent:
    """Forget the failed sign-ins of the account or the address `value` (`of`: "account" or
    "address"), so it may sign in again at once, and record who lifted it. Refused, with
    nothing changed, for anyone but staff and for one not locked now."""
    if not actor.is_staff:
        raise ActionRefused("only staff lift a lockout")
    username, address = (value, None) if of == "account" else (None, value)
    locked = lockouts_of(username, address)
    if not locked:
        raise ActionRefused(f"the {of} {value!r} is not locked out now: nothing to lift")
    if of == "account":
        reset(username=value)
    else:
        reset(ip=value)
    ended = f"{locked[0].ends_at:%Y-%m-%d %H:%M} UTC"
    return record(
        Kind.LOCKOUT_LIFTED,
        username or "",
        request=request,
        actor=actor,
        detail=f"the {of} {value}, locked until {ended}",
    )
