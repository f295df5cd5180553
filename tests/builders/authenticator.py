"""What an authenticator app shows, computed here as the app would, for the browser tests that
enrol one from the secret a page shows."""

from __future__ import annotations

import base64
import time

from django_otp.oath import TOTP


def code_from_secret(secret: str, steps_ahead: int = 0) -> str:
    """What an authenticator app shows for the base32 secret it was given (six digits, every
    30 seconds); a code is taken once, so the second one is the next step's."""
    key = base64.b32decode(secret + "=" * (-len(secret) % 8))
    totp = TOTP(key)
    totp.time = time.time() + steps_ahead * 30
    return f"{totp.token():06d}"
