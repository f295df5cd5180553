"""Settings for Grounding Review.

DJANGO_ENV says how the app runs:

- "demo" (also when unset, so the test suite, the benchmarks and one-off commands run as they
  always have): DEBUG on unless DJANGO_DEBUG=0, a published demo key, loopback host names, SQLite
  under var/ unless DATABASE_URL names another database.
- "production" (set by `make serve` and by gunicorn.conf.py): DEBUG off, and the app refuses
  to start without DJANGO_SECRET_KEY, DJANGO_ALLOWED_HOSTS and DATABASE_URL. HTTPS is on
  (redirect, HSTS, secure cookies) unless the environment turns a part of it off, and whitenoise
  serves the collected static files, compressed and under hashed names.

The headers (Content-Security-Policy, Permissions-Policy and Django's own) are the same in both,
so the demo and the browser tests run under the policy that production sends.
"""

import ipaddress
import os
from datetime import timedelta
from pathlib import Path

import dj_database_url
from csp.constants import NONE, SELF
from django.core.exceptions import ImproperlyConfigured

BASE_DIR = Path(__file__).resolve().parent.parent

ENVIRONMENTS = ("demo", "production")
# The "django-insecure-" prefix makes `check --deploy` flag this key wherever it is used.
DEMO_SECRET_KEY = "django-insecure-grounding-review-demo-key-published-with-the-code"  # noqa: S105
ONE_DAY = 24 * 3600
ONE_YEAR = 365 * ONE_DAY


def _env_flag(name: str, default: bool) -> bool:
    value = os.environ.get(name, "").strip()
    if not value:
        return default
    if value not in ("0", "1"):
        raise ImproperlyConfigured(f"{name} must be 0 or 1, not {value!r}.")
    return value == "1"


def _env_seconds(name: str, default: int, maximum: int, minimum: int = 0) -> int:
    return _env_count(name, default, minimum, maximum, "seconds")


def _env_count(name: str, default: int, minimum: int, maximum: int, unit: str = "") -> int:
    value = os.environ.get(name, "").strip()
    if not value:
        return default
    if not value.isdigit() or not minimum <= int(value) <= maximum:
        of = f" of {unit}" if unit else ""
        raise ImproperlyConfigured(
            f"{name} must be a whole number{of} from {minimum} to {maximum}, not {value!r}."
        )
    return int(value)


PRODUCTION_NEEDS_IT = (
    "With DJANGO_ENV=production the app does not start without it"
    " (for example {name}={example}); `make demo` runs the local demo instead."
)


def _env_required(name: str, example: str, because: str = PRODUCTION_NEEDS_IT) -> str:
    value = os.environ.get(name, "").strip()
    if not value:
        raise ImproperlyConfigured(
            f"{name} is not set. " + because.format(name=name, example=example)
        )
    return value


def _comma_list(value: str) -> list[str]:
    return [item.strip() for item in value.split(",") if item.strip()]


ENVIRONMENT = os.environ.get("DJANGO_ENV", "").strip() or "demo"
if ENVIRONMENT not in ENVIRONMENTS:
    raise ImproperlyConfigured(
        f"DJANGO_ENV must be one of {', '.join(ENVIRONMENTS)}, not {ENVIRONMENT!r}."
    )
PRODUCTION = ENVIRONMENT == "production"

if PRODUCTION:
    SECRET_KEY = _env_required("DJANGO_SECRET_KEY", "<50 or more random characters>")
    if SECRET_KEY == DEMO_SECRET_KEY:
        raise ImproperlyConfigured(
            "DJANGO_SECRET_KEY is the demo key, which is published with the code;"
            " production needs a key of its own."
        )
    if _env_flag("DJANGO_DEBUG", False):
        raise ImproperlyConfigured("DJANGO_DEBUG=1 is refused with DJANGO_ENV=production.")
    DEBUG = False
    ALLOWED_HOSTS = _comma_list(_env_required("DJANGO_ALLOWED_HOSTS", "review.example.org"))
else:
    SECRET_KEY = os.environ.get("DJANGO_SECRET_KEY", "").strip() or DEMO_SECRET_KEY
    DEBUG = _env_flag("DJANGO_DEBUG", True)
    ALLOWED_HOSTS = _comma_list(
        os.environ.get("DJANGO_ALLOWED_HOSTS", "127.0.0.1,localhost,testserver")
    )

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django.contrib.postgres",
    "csp",
    "django_htmx",
    "template_partials",
    "django_tasks",
    "django_tasks_db",
    "axes",
    "django_otp",
    "django_otp.plugins.otp_totp",
    "django_otp.plugins.otp_static",
    # For its static files: the copy of Swagger UI that /api/docs draws the API with.
    "ninja",
    "review",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "csp.middleware.CSPMiddleware",
    "django_permissions_policy.PermissionsPolicyMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    # Between the two: it reads the session, and widens the policy CSPMiddleware then writes.
    "review.sign_on_provider.SignOutMayReachProvider",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # Right after Django's, as django-otp asks: `request.user.is_verified()` for the gate below.
    "django_otp.middleware.OTPMiddleware",
    "django.contrib.auth.middleware.LoginRequiredMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "review.middleware.RefuseNulInForms",
    "review.middleware.ProjectFromUrl",
    # After ProjectFromUrl, whose project may require a second factor.
    "review.middleware.SecondFactorGate",
    # Last, as django-axes asks: it turns a refused sign-in into the lockout page.
    "axes.middleware.AxesMiddleware",
]
if PRODUCTION:
    # Right after SecurityMiddleware, as whitenoise asks, so static files skip the rest.
    MIDDLEWARE.insert(1, "whitenoise.middleware.WhiteNoiseMiddleware")

ROOT_URLCONF = "review.urls"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "review.context_processors.project",
                "review.context_processors.projects",
            ],
        },
    },
]

WSGI_APPLICATION = "review.wsgi.application"
ASGI_APPLICATION = "review.asgi.application"

SQLITE_PATH = BASE_DIR / "var" / "db.sqlite3"
SQLITE_PATH.parent.mkdir(exist_ok=True)
if PRODUCTION:
    # No silent fallback to a file under the checkout: production names its database.
    DATABASES = {
        "default": dj_database_url.parse(
            _env_required("DATABASE_URL", "postgres://review:PASSWORD@127.0.0.1:5432/review"),
            conn_max_age=60,
            conn_health_checks=True,
        )
    }
else:
    DATABASES = {
        "default": dj_database_url.config(default=f"sqlite:///{SQLITE_PATH}", conn_max_age=0)
    }
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # Two reviewers deciding at once: IMMEDIATE makes a writer wait for the lock (up to
    # the timeout) instead of failing with "database is locked"; WAL lets readers go on
    # while someone writes.
    DATABASES["default"].setdefault("OPTIONS", {}).update(
        {
            "transaction_mode": "IMMEDIATE",
            "timeout": 10,
            "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
        }
    )
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# Outside the demo (whose users share the password "demo"), Django's own checks hold every
# password set with createsuperuser, changepassword or the admin.
AUTH_PASSWORD_VALIDATORS = (
    [
        {"NAME": f"django.contrib.auth.password_validation.{name}"}
        for name in (
            "UserAttributeSimilarityValidator",
            "MinimumLengthValidator",
            "CommonPasswordValidator",
            "NumericPasswordValidator",
        )
    ]
    if PRODUCTION
    else []
)

# --- Signing in ------------------------------------------------------------------------------
# django-axes counts failed sign-ins at every door that takes a password (the site's form and
# the admin's; the API takes keys, never a password) and refuses more, even the right password,
# for a while: per account, from any address, and per address, for any account.
AXES_LOCKOUT_PARAMETERS = ["username", "ip_address"]
AXES_FAILURE_LIMIT = _env_count("REVIEW_SIGN_IN_FAILURE_LIMIT", 5, 1, 1000)
AXES_COOLOFF_TIME = timedelta(
    seconds=_env_seconds("REVIEW_SIGN_IN_COOLOFF_SECONDS", 15 * 60, ONE_DAY, minimum=1)
)
# A try during a lockout does not push its end back: the page's "until" holds, and someone
# guessing at an account cannot keep its owner out for ever.
AXES_RESET_COOL_OFF_ON_FAILURE_DURING_LOCKOUT = False
# A sign-in does not wipe the count (axes' default, kept on purpose): it would wipe its
# address's too, so one good account would let its holder guess at others without end.
AXES_RESET_ON_SUCCESS = False
# The attempts are rows in the database (axes' own handler), not in the cache: every gunicorn
# worker sees the same count (the cache here is each process's own memory), a restart does not
# forget a lockout, staff can list the lockouts in force to lift one, and each test's rows go
# with its transaction, so no test is locked out by another's failures.
AXES_HANDLER = "axes.handlers.database.AxesDatabaseHandler"
# The address is REMOTE_ADDR, as the security log's (gunicorn sets it behind a proxy it trusts).
AXES_IPWARE_META_PRECEDENCE_ORDER = ("REMOTE_ADDR",)
AXES_LOCKOUT_CALLABLE = "review.views.lockouts.locked_out"
# The security log records every sign-in and its address already; axes keeps only its counts.
AXES_DISABLE_ACCESS_LOG = True
# Lockouts are lifted on /security/lockouts/, which records who lifted them; not in the admin,
# which would lift them without a trace.
AXES_ENABLE_ADMIN = False
# Single sign-on by OpenID Connect (mozilla-django-oidc), on when OIDC_RP_CLIENT_ID is set: the
# client's secret is then required, and the provider's endpoints: from its discovery document
# when OIDC_ISSUER is set (review/sign_on_provider.py fetches it at the first sign-in, not here,
# so the app starts while the provider is down), else all four set by hand. One set by hand wins
# over the document's. Password sign-in stays on unless REVIEW_PASSWORD_SIGN_IN=0, which leaves
# it to one break-glass account, for when the provider is down.
OIDC_RP_CLIENT_ID = os.environ.get("OIDC_RP_CLIENT_ID", "").strip()
SSO_ENABLED = bool(OIDC_RP_CLIENT_ID)
OIDC_ISSUER = os.environ.get("OIDC_ISSUER", "").strip()
OIDC_OP_AUTHORIZATION_ENDPOINT = os.environ.get("OIDC_OP_AUTHORIZATION_ENDPOINT", "").strip()
OIDC_OP_TOKEN_ENDPOINT = os.environ.get("OIDC_OP_TOKEN_ENDPOINT", "").strip()
OIDC_OP_USER_ENDPOINT = os.environ.get("OIDC_OP_USER_ENDPOINT", "").strip()
OIDC_OP_JWKS_ENDPOINT = os.environ.get("OIDC_OP_JWKS_ENDPOINT", "").strip()
if SSO_ENABLED:
    OIDC_RP_CLIENT_SECRET = _env_required(
        "OIDC_RP_CLIENT_SECRET",
        "<secret>",
        "With OIDC_RP_CLIENT_ID set (single sign-on on) the app does not start without it"
        " (for example {name}={example}).",
    )
    _unset = [
        name
        for name in (
            "OIDC_OP_AUTHORIZATION_ENDPOINT",
            "OIDC_OP_TOKEN_ENDPOINT",
            "OIDC_OP_USER_ENDPOINT",
            "OIDC_OP_JWKS_ENDPOINT",
        )
        if not globals()[name]
    ]
    if not OIDC_ISSUER and _unset:
        raise ImproperlyConfigured(
            f"OIDC_ISSUER is not set, nor {', '.join(_unset)}. With OIDC_RP_CLIENT_ID set"
            " (single sign-on on) the app does not start without the provider's issuer (for"
            " example OIDC_ISSUER=https://id.example.org, whose"
            " /.well-known/openid-configuration names its endpoints) or all four endpoints."
        )
OIDC_RP_SIGN_ALGO = os.environ.get("OIDC_RP_SIGN_ALGO", "").strip() or "RS256"
OIDC_RP_SCOPES = os.environ.get("OIDC_RP_SCOPES", "").strip() or "openid profile email groups"
# What the sign-in page's button names the provider.
SSO_PROVIDER_NAME = os.environ.get("REVIEW_SSO_PROVIDER_NAME", "").strip() or "single sign-on"
# The claim a new account's username is made from, and the claim whose values staff map to
# project roles (/sign-on/roles/).
SSO_USERNAME_CLAIM = os.environ.get("REVIEW_SSO_USERNAME_CLAIM", "").strip() or "preferred_username"
SSO_ROLES_CLAIM = os.environ.get("REVIEW_SSO_ROLES_CLAIM", "").strip() or "groups"
PASSWORD_SIGN_IN = _env_flag("REVIEW_PASSWORD_SIGN_IN", True)
BREAK_GLASS_USERNAME = os.environ.get("REVIEW_BREAK_GLASS_USERNAME", "").strip()
if not PASSWORD_SIGN_IN and not SSO_ENABLED:
    raise ImproperlyConfigured(
        "REVIEW_PASSWORD_SIGN_IN=0 needs single sign-on (OIDC_RP_CLIENT_ID and the provider's"
        " settings): without either, nobody could sign in."
    )
# The provider's own settings are read by mozilla-django-oidc; these are ours for it. PKCE and
# a nonce bind the provider's answer to the browser that asked; the client authenticates to
# the token endpoint with HTTP Basic, which every provider must accept (RFC 6749, 2.3.1).
OIDC_USE_PKCE = True
OIDC_TOKEN_USE_BASIC_AUTH = True
OIDC_TIMEOUT = 10
# Signing out of the app signs out of the provider too, when its discovery document names an
# end_session_endpoint (RP-initiated logout): else the next "Sign in with …" would let anyone at
# that browser straight back in. The ID token is kept in the session for that (id_token_hint).
SSO_SIGN_OUT_OF_PROVIDER = _env_flag("REVIEW_SSO_SIGN_OUT_OF_PROVIDER", True)
OIDC_STORE_ID_TOKEN = SSO_SIGN_OUT_OF_PROVIDER
OIDC_AUTHENTICATION_CALLBACK_URL = "sign-on-callback"
LOGIN_REDIRECT_URL_FAILURE = "/accounts/login/?sign_on=failed"
# Axes' first: it refuses a locked-out account or address before any password is checked. The
# password backend (review.backends.PasswordBackend) refuses every account but the break-glass
# one when password sign-in is off; the provider's is only there when it is on.
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "review.backends.PasswordBackend",
    *(["review.backends.SignOnBackend"] if SSO_ENABLED else []),
]

# Two-factor sign-in (django-otp): a code from an authenticator app, or one of ten recovery
# codes, after the password or single sign-on. Anyone may enrol on /account/; with
# REVIEW_REQUIRE_SECOND_FACTOR=1 everyone must, and a project can require it of its members.
REQUIRE_SECOND_FACTOR = _env_flag("REVIEW_REQUIRE_SECOND_FACTOR", False)
# What an authenticator app names the account it holds a code for.
OTP_TOTP_ISSUER = "Grounding Review"
# The admin lists devices without their secrets.
OTP_ADMIN_HIDE_SENSITIVE_DATA = True

LOGIN_URL = "/accounts/login/"
LOGIN_REDIRECT_URL = "/"
LOGOUT_REDIRECT_URL = "/accounts/login/"

# --- mail: password resets and invitations -------------------------------------------------
# Production sends through an SMTP server (Django's defaults: localhost:25, no TLS, no login);
# the demo prints every mail on the console instead, so `make demo` shows the links it sends.
if PRODUCTION:
    EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
else:
    EMAIL_BACKEND = "django.core.mail.backends.console.EmailBackend"
EMAIL_HOST = os.environ.get("EMAIL_HOST", "").strip() or "localhost"
EMAIL_PORT = _env_count("EMAIL_PORT", 25, 1, 65535)
EMAIL_HOST_USER = os.environ.get("EMAIL_HOST_USER", "").strip()
EMAIL_HOST_PASSWORD = os.environ.get("EMAIL_HOST_PASSWORD", "")
EMAIL_USE_TLS = _env_flag("EMAIL_USE_TLS", False)
# Django waits for ever by default: a mail server that never answers would hold the request
# (and its worker) as long. Seconds, at least one (0 would not wait at all).
EMAIL_TIMEOUT = _env_count("EMAIL_TIMEOUT", 10, 1, 300, "seconds")
DEFAULT_FROM_EMAIL = (
    os.environ.get("DEFAULT_FROM_EMAIL", "").strip() or "Grounding Review <webmaster@localhost>"
)
# How long an invitation's link may be followed (once); a password reset's link lasts
# Django's PASSWORD_RESET_TIMEOUT, three days.
INVITATION_EXPIRY_SECONDS = _env_seconds(
    "REVIEW_INVITATION_EXPIRY_SECONDS", 7 * ONE_DAY, 90 * ONE_DAY
)

LANGUAGE_CODE = "en"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
# Where `collectstatic` puts the files whitenoise serves; the tests collect into a directory
# of their own.
STATIC_ROOT = Path(os.environ.get("DJANGO_STATIC_ROOT", "").strip() or BASE_DIR / "var" / "static")
if PRODUCTION:
    # Hashed names let whitenoise tell browsers to keep a file for ever; a changed file
    # gets a new name. Needs `collectstatic` first, which `make serve` runs.
    STORAGES = {
        "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
        "staticfiles": {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"},
    }

# Uploaded documents are stored in the database, not on disk; keep uploads bounded.
DATA_UPLOAD_MAX_MEMORY_SIZE = 20 * 1024 * 1024
FILE_UPLOAD_MAX_MEMORY_SIZE = 20 * 1024 * 1024

# Everything the pages load comes from this origin: our CSS and scripts, and the htmx that
# django-htmx bundles. No inline script or style anywhere (base.html turns off the indicator
# styles htmx would inject, and its eval), so no nonce is needed.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [NONE],
        "script-src": [SELF],
        "style-src": [SELF],
        "img-src": [SELF],
        "font-src": [SELF],
        "connect-src": [SELF],
        "form-action": [SELF],
        "base-uri": [NONE],
        "frame-ancestors": [NONE],
    },
}
# A review tool needs none of the browser's powerful features; no page may ask for them.
PERMISSIONS_POLICY = {
    feature: []
    for feature in (
        "accelerometer",
        "autoplay",
        "camera",
        "display-capture",
        "geolocation",
        "gyroscope",
        "magnetometer",
        "microphone",
        "midi",
        "payment",
        "usb",
    )
}

if PRODUCTION:
    # Behind a TLS-terminating proxy gunicorn marks requests as HTTPS from X-Forwarded-Proto
    # (see gunicorn.conf.py); each part can be turned off where the proxy does it instead.
    SECURE_SSL_REDIRECT = _env_flag("DJANGO_SECURE_SSL_REDIRECT", True)
    SECURE_HSTS_SECONDS = _env_seconds("DJANGO_SECURE_HSTS_SECONDS", ONE_YEAR, 2 * ONE_YEAR)
    SECURE_HSTS_INCLUDE_SUBDOMAINS = _env_flag("DJANGO_SECURE_HSTS_INCLUDE_SUBDOMAINS", True)
    SECURE_HSTS_PRELOAD = _env_flag("DJANGO_SECURE_HSTS_PRELOAD", False)
    SESSION_COOKIE_SECURE = _env_flag("DJANGO_SECURE_COOKIES", True)
    CSRF_COOKIE_SECURE = SESSION_COOKIE_SECURE
    CSRF_TRUSTED_ORIGINS = _comma_list(os.environ.get("DJANGO_CSRF_TRUSTED_ORIGINS", ""))
    # Asking browsers to preload HSTS is hard to undo, so it is the site owner's choice
    # (DJANGO_SECURE_HSTS_PRELOAD=1), not a warning on every deployment check.
    SILENCED_SYSTEM_CHECKS = ["security.W021"]

# --- insights -------------------------------------------------------------------------------
# A proposer rule is shown as validated once it was decided on at least this many documents
# and the lower bound of its acceptance's Wilson 95 % interval reaches this share.
INSIGHTS_MIN_DOCUMENTS = int(os.environ.get("REVIEW_INSIGHTS_MIN_DOCUMENTS", "5"))
INSIGHTS_MIN_LOWER_BOUND = float(os.environ.get("REVIEW_INSIGHTS_MIN_LOWER_BOUND", "0.8"))
# How long the figures are kept once counted; any new decision or import counts them afresh.
INSIGHTS_CACHE_SECONDS = int(os.environ.get("REVIEW_INSIGHTS_CACHE_SECONDS", "60"))
# How long the dashboard keeps what it counts over the cases, the answers and the log (the
# plans' figures are stored counters, always exact): a glance at the queues and at one's own
# pace does not need the last second, and counting them over a large log costs seconds.
DASHBOARD_CACHE_SECONDS = int(os.environ.get("REVIEW_DASHBOARD_CACHE_SECONDS", "30"))

# --- Bounds on what a person or a pipeline may send ------------------------------------------
# Every door (upload forms, the API, the commands) refuses more than this, naming the limit,
# before any work is done.
REVIEW_MAX_UPLOAD_BYTES = int(os.environ.get("REVIEW_MAX_UPLOAD_BYTES", 10 * 1024 * 1024))
# The API's JSON-lines imports (POST /api/cases, /api/answers) take a larger body, as a job:
# the worker imports it a batch at a time, and the request only keeps it.
REVIEW_MAX_JOB_UPLOAD_BYTES = int(os.environ.get("REVIEW_MAX_JOB_UPLOAD_BYTES", 100 * 1024 * 1024))
# A cap on proposed segments is 0 (none) or at least this many characters: a cap of 1 turns
# one document into thousands of entries.
REVIEW_MIN_SEGMENT_CHARS = 200
# A document's extracted text: a compressed PDF can inflate far past its upload size.
REVIEW_MAX_DOCUMENT_CHARS = 10_000_000
# Placing a plan's anchors is linear in its entries and its text (one index of the text).
REVIEW_MAX_PLAN_ENTRIES = 10_000
# Imports are read and written a batch at a time: this bounds an import's time, not memory.
REVIEW_MAX_IMPORT_LINES = 100_000
# JSON nested deeper than this is refused (Python's parser would fail at about 1,000 levels).
REVIEW_MAX_JSON_DEPTH = 64
# The most rows one page of /api/plans or /api/decisions holds.
REVIEW_API_PAGE_MAX = 500
# First, so that nothing reads an oversized body before it is refused.
MIDDLEWARE = ["review.middleware.RefuseOversizedBodies", *MIDDLEWARE]
# A lease on a queue item ends after this long without its page renewing it (the page renews
# it with its poll, every 4 seconds, while open).
LEASE_IDLE_SECONDS = int(os.environ.get("REVIEW_LEASE_IDLE_SECONDS", "180"))
# Long work (review.jobs) runs as tasks: queued in the database, run by `manage.py db_worker`
# (`make demo` and `make serve` start one). Inputs at or under these sizes still run inline,
# in the request.
TASKS = {"default": {"BACKEND": "django_tasks_db.DatabaseBackend", "QUEUES": ["default"]}}
JOB_INLINE_MAX_BYTES = int(os.environ.get("REVIEW_JOB_INLINE_MAX_BYTES", str(1024 * 1024)))
JOB_INLINE_MAX_PDF_PAGES = int(os.environ.get("REVIEW_JOB_INLINE_MAX_PDF_PAGES", "20"))
JOB_INLINE_MAX_LINES = int(os.environ.get("REVIEW_JOB_INLINE_MAX_LINES", "1000"))
# A running job whose worker said nothing (no start, no progress) for this long is marked
# failed, and can be retried: its worker died.
JOB_HEARTBEAT_SECONDS = int(os.environ.get("REVIEW_JOB_HEARTBEAT_SECONDS", "300"))


# Webhooks (review/webhooks/): each delivery is made by the worker, signed as the Standard
# Webhooks specification says. Addresses: an endpoint's host must resolve to public addresses
# only, unless an address is in WEBHOOK_ALLOWED_NETWORKS (loopback, private, link-local and
# the rest are refused by default, so a webhook cannot reach the app's own network); with
# WEBHOOK_ALLOWED_HOSTS set, only the hosts it names are accepted at all.
def _env_networks(name: str) -> list:
    networks = []
    for item in _comma_list(os.environ.get(name, "")):
        try:
            networks.append(ipaddress.ip_network(item, strict=False))
        except ValueError as error:
            raise ImproperlyConfigured(f"{name}: {item!r} is not a network ({error}).") from None
    return networks


def _env_schedule(name: str, default: tuple[int, ...]) -> tuple[int, ...]:
    items = _comma_list(os.environ.get(name, ""))
    if not items:
        return default
    if not all(item.isdigit() and int(item) <= ONE_DAY for item in items) or len(items) > 50:
        raise ImproperlyConfigured(
            f"{name} must be up to 50 comma-separated whole numbers of seconds, each at most "
            f"a day, not {os.environ[name]!r}."
        )
    return tuple(int(item) for item in items)


WEBHOOK_ALLOWED_HOSTS = [
    host.lower() for host in _comma_list(os.environ.get("REVIEW_WEBHOOK_ALLOWED_HOSTS", ""))
]
WEBHOOK_ALLOWED_NETWORKS = _env_networks("REVIEW_WEBHOOK_ALLOWED_NETWORKS")
# The wait before each retry after a failed attempt: 1 and 5 minutes, half an hour, 2, 5 and
# 10 hours, and the rest of a day; after the last, the delivery has failed and its endpoint is
# disabled.
WEBHOOK_RETRY_SECONDS = _env_schedule(
    "REVIEW_WEBHOOK_RETRY_SECONDS", (60, 300, 1800, 7200, 18000, 36000, 23040)
)
WEBHOOK_TIMEOUT_SECONDS = _env_seconds("REVIEW_WEBHOOK_TIMEOUT_SECONDS", 10, 60, minimum=1)
# How often the worker looks for deliveries whose task was lost (a worker killed mid-send).
WEBHOOK_SWEEP_SECONDS = _env_seconds("REVIEW_WEBHOOK_SWEEP_SECONDS", 60, 3600, minimum=1)
# What of a receiver's answer is read (the delivery log keeps its start).
WEBHOOK_MAX_RESPONSE_BYTES = 4096
# Endpoints in one project, and deliveries one run of the worker's task sends.
WEBHOOK_MAX_ENDPOINTS = 20
WEBHOOK_MAX_BATCH = 100
# Where the app is reached from outside: the addresses the events name to fetch an object.
SITE_URL = os.environ.get("REVIEW_SITE_URL", "").strip().rstrip("/") or (
    f"https://{ALLOWED_HOSTS[0]}" if ENVIRONMENT == "production" else "http://127.0.0.1:8000"
)
if not SITE_URL.startswith(("https://", "http://")):
    raise ImproperlyConfigured(
        f"REVIEW_SITE_URL must start with https:// (or http://), not {SITE_URL!r}."
    )
