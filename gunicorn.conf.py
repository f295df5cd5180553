"""Gunicorn's settings for `make serve` (gunicorn reads this file from the working directory).

The app runs in production mode (see review/settings.py) unless DJANGO_ENV says otherwise.
Where to listen comes from HOST and PORT; behind a TLS-terminating proxy on another machine,
set FORWARDED_ALLOW_IPS to its address so its X-Forwarded-Proto is believed.
"""

import os

os.environ.setdefault("DJANGO_ENV", "production")
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "review.settings")

MAX_WORKERS = 32


def _workers() -> int:
    # Sync workers: two per core and one more keeps both cores busy while one worker
    # waits on the database. WEB_CONCURRENCY is the usual way to say otherwise.
    value = os.environ.get("WEB_CONCURRENCY", "").strip()
    if not value:
        return 2 * (os.cpu_count() or 1) + 1
    if not value.isdigit() or not 1 <= int(value) <= MAX_WORKERS:
        raise SystemExit(f"WEB_CONCURRENCY must be a number from 1 to {MAX_WORKERS}, not {value!r}")
    return int(value)


wsgi_app = "review.wsgi:application"
bind = f"{os.environ.get('HOST', '127.0.0.1')}:{os.environ.get('PORT', '8000')}"
workers = _workers()

# The slowest honest request uploads a document of up to 20 MB and proposes its plan on the
# spot; a worker silent for longer than this is stuck and is restarted.
timeout = 60
graceful_timeout = 30
keepalive = 5
# Recycling workers now and then bounds the memory a long-running process can gather.
max_requests = 1000
max_requests_jitter = 100
accesslog = "-"
errorlog = "-"
# The control socket is a runtime console nobody here uses; without it two instances on one
# machine do not fight over the same socket path.
control_socket_disable = True
