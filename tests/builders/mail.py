"""A real SMTP server for the tests of what the app mails (aiosmtpd, on a free port of
127.0.0.1), the settings that send Django's mail to it, and reading a link out of a message."""

from __future__ import annotations

import email
import email.policy
import re
import socket
import threading
import time
from email.message import EmailMessage

from aiosmtpd.controller import Controller

LINK = re.compile(r"https?://\S+")


class Inbox:
    """aiosmtpd's handler: every message the server accepts, parsed, in the order received."""

    def __init__(self) -> None:
        self.messages: list[EmailMessage] = []
        self._arrived = threading.Condition()

    async def handle_DATA(self, server, session, envelope) -> str:  # noqa: N802 (aiosmtpd's name)
        message = email.message_from_bytes(envelope.original_content, policy=email.policy.default)
        with self._arrived:
            self.messages.append(message)
            self._arrived.notify_all()
        return "250 Message accepted for delivery"

    def wait_for(self, count: int, seconds: float = 5) -> list[EmailMessage]:
        """The first `count` messages, once that many arrived (Django's backend returns only
        after the server answered DATA, but the handler runs in the server's own thread)."""
        deadline = time.monotonic() + seconds
        with self._arrived:
            while len(self.messages) < count:
                left = deadline - time.monotonic()
                assert left > 0, f"{len(self.messages)} of {count} messages arrived"
                self._arrived.wait(left)
            return self.messages[:count]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def start_server() -> tuple[Controller, Inbox]:
    inbox = Inbox()
    controller = Controller(inbox, hostname="127.0.0.1", port=free_port())
    controller.start()
    return controller, inbox


def smtp_settings(controller: Controller) -> dict:
    """What `override_settings` needs to send Django's mail to the server, as production does."""
    return {
        "EMAIL_BACKEND": "django.core.mail.backends.smtp.EmailBackend",
        "EMAIL_HOST": controller.hostname,
        "EMAIL_PORT": controller.port,
        "EMAIL_HOST_USER": "",
        "EMAIL_HOST_PASSWORD": "",
        "EMAIL_USE_TLS": False,
        "EMAIL_TIMEOUT": 5,
    }


def body_of(message: EmailMessage) -> str:
    return message.get_body(preferencelist=("plain",)).get_content()


def the_link(message: EmailMessage) -> str:
    """The one link in a message's text."""
    links = LINK.findall(body_of(message))
    assert len(links) == 1, links
    return links[0]
