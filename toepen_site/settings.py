"""Settings for Toepen Club, read from the environment.

With nothing set, the app runs on the embedded default: SQLite and the in-memory channel layer
in one process, DEBUG on, a throwaway secret key. Production sets DJANGO_DEBUG=false and then
must provide DJANGO_SECRET_KEY and DJANGO_ALLOWED_HOSTS; see docs/configuration.md.
"""

import os
import re
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured
from django.utils.csp import CSP

BASE_DIR = Path(__file__).resolve().parent.parent


def envbool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    lowered = value.strip().lower()
    if lowered in {"1", "true", "yes", "on"}:
        return True
    if lowered in {"0", "false", "no", "off"}:
        return False
    raise ImproperlyConfigured(f"{name} must be true or false, not {value!r}")


def envint(name: str, default: int) -> int:
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    try:
        return int(value)
    except ValueError:
        raise ImproperlyConfigured(f"{name} must be a whole number, not {value!r}") from None


def envlist(name: str, default: list[str]) -> list[str]:
    value = os.environ.get(name)
    if value is None or value.strip() == "":
        return default
    return [item.strip() for item in value.split(",") if item.strip()]


def envrate(name: str, default: str) -> tuple[int, int]:
    """A rate such as 20/10m (20 in ten minutes; units s, m, h, d) as (count, seconds)."""
    value = os.environ.get(name) or default
    match = re.fullmatch(r"\s*([1-9]\d*)\s*/\s*([1-9]\d*)?\s*([smhd])\s*", value)
    if match is None:
        raise ImproperlyConfigured(f"{name} must be a rate such as 20/10m, not {value!r}")
    unit = {"s": 1, "m": 60, "h": 3600, "d": 86400}[match[3]]
    return int(match[1]), int(match[2] or 1) * unit


DEBUG = envbool("DJANGO_DEBUG", True)

SECRET_KEY = os.environ.get("DJANGO_SECRET_KEY", "")
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured("DJANGO_SECRET_KEY must be set when DJANGO_DEBUG is false")
    SECRET_KEY = "dev-only-insecure-key-do-not-use-in-production"  # noqa: S105

ALLOWED_HOSTS = envlist(
    "DJANGO_ALLOWED_HOSTS", ["localhost", "127.0.0.1", "[::1]"] if DEBUG else []
)
if not DEBUG and not ALLOWED_HOSTS:
    raise ImproperlyConfigured("DJANGO_ALLOWED_HOSTS must be set when DJANGO_DEBUG is false")
CSRF_TRUSTED_ORIGINS = envlist("DJANGO_CSRF_TRUSTED_ORIGINS", [])

INSTALLED_APPS = [
    "daphne",
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "servestatic",
    "channels",
    "django_htmx",
    "allauth",
    "allauth.account",
    "accounts",
    "clubs",
    "games",
    "nights",
    "tournaments",
    # The site's own management commands: backup and restore_backup.
    "toepen_site",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "servestatic.middleware.ServeStaticMiddleware",
    "django.middleware.csp.ContentSecurityPolicyMiddleware",
    "toepen_site.security.PermissionsPolicyMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # After LocaleMiddleware and authentication: a signed-in user's own language wins.
    "accounts.middleware.UserLanguageMiddleware",
    "allauth.account.middleware.AccountMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "games.throttle.ThrottleMiddleware",
]

ROOT_URLCONF = "toepen_site.urls"

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
                "django.template.context_processors.i18n",
            ],
        },
    },
]

WSGI_APPLICATION = "toepen_site.wsgi.application"
ASGI_APPLICATION = "toepen_site.asgi.application"

# SQLite by default; DATABASE_URL (postgres://user@host:5432/name) for the scale-out set-up.
DATABASES = {
    "default": dj_database_url.parse(
        os.environ.get("DATABASE_URL") or f"sqlite:///{BASE_DIR / 'db.sqlite3'}",
        # A connection the database dropped meanwhile is noticed and replaced before it is used.
        conn_health_checks=envbool("DATABASE_CONN_HEALTH_CHECKS", True),
    )
}
_ENGINE = DATABASES["default"]["ENGINE"]
# Under ASGI every request runs in a thread of its own, so a connection kept per thread
# (CONN_MAX_AGE above 0) is never reused and stays open: on PostgreSQL the server's
# connections then grow with the requests until it refuses everyone. PostgreSQL goes through
# Django's connection pool instead (psycopg_pool): a request or a socket's database call borrows
# a connection and gives it back, and a process holds at most DATABASE_POOL_SIZE of them (beside
# the live core's two of its own, games/services/store/). On SQLite a connection is an open
# file, no server's slot, and opening one costs milliseconds (Django registers its SQL functions
# on each): the server's threads keep theirs (a hundred or so, however many requests).
DATABASE_POOL_SIZE = envint("DATABASE_POOL_SIZE", 8 if _ENGINE.endswith("postgresql") else 0)
if DATABASE_POOL_SIZE < 0:
    raise ImproperlyConfigured("DATABASE_POOL_SIZE must be 0 (no pool) or more")
DATABASES["default"]["CONN_MAX_AGE"] = envint(
    "DATABASE_CONN_MAX_AGE", 0 if DATABASE_POOL_SIZE or _ENGINE.endswith("postgresql") else 60
)
if DATABASE_POOL_SIZE:
    if not _ENGINE.endswith("postgresql"):
        raise ImproperlyConfigured("DATABASE_POOL_SIZE is for PostgreSQL only: set it to 0")
    if DATABASES["default"]["CONN_MAX_AGE"]:
        raise ImproperlyConfigured(
            "DATABASE_CONN_MAX_AGE must be 0 with the pool (DATABASE_POOL_SIZE above 0)"
        )
    DATABASES["default"].setdefault("OPTIONS", {})["pool"] = {
        "min_size": min(2, DATABASE_POOL_SIZE),
        "max_size": DATABASE_POOL_SIZE,
        # How long a request waits for a free connection (or for the database to answer
        # again) before it is told to try again (503, toepen_site/unavailable.py).
        "timeout": envint("DATABASE_POOL_TIMEOUT", 10),
        # Connections beyond min_size idle this long are closed.
        "max_idle": 300,
    }
if _ENGINE == "django.db.backends.sqlite3":
    # Several writers (the server, timers) share the file: wait for the lock instead of failing.
    # WAL: readers never wait for the writer, and a killed server loses no committed change.
    DATABASES["default"].setdefault("OPTIONS", {}).update(
        {
            "timeout": 20,
            "transaction_mode": "IMMEDIATE",
            "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
        }
    )
    # Tests use a file too: live tables touch the database from several threads at once,
    # which SQLite's shared in-memory database refuses instead of waiting.
    # One file per test process, so that two test runs on one machine never share it.
    DATABASES["default"]["TEST"] = {"NAME": str(BASE_DIR / f".test-db-{os.getpid()}.sqlite3")}
elif _ENGINE == "django.db.backends.postgresql":
    # Every wait is bounded (docs/live.md, "A stuck process"): a row lock is waited for at
    # most DATABASE_LOCK_TIMEOUT_MS (then the action is refused as busy, to be tried again),
    # and a transaction left open by a stuck process loses its session, and its locks, after
    # DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS. Milliseconds; 0 turns one off (a long
    # migration may need DATABASE_STATEMENT_TIMEOUT_MS=0).
    _timeouts = {
        "lock_timeout": envint("DATABASE_LOCK_TIMEOUT_MS", 2000),
        "idle_in_transaction_session_timeout": envint(
            "DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS", 5000
        ),
        "statement_timeout": envint("DATABASE_STATEMENT_TIMEOUT_MS", 30000),
    }
    _options = DATABASES["default"].setdefault("OPTIONS", {})
    # A database host that does not answer at all is given up on, not waited for forever.
    _options.setdefault("connect_timeout", 5)
    _options["options"] = " ".join(
        [_options.get("options", ""), *(f"-c {name}={ms}" for name, ms in _timeouts.items())]
    ).strip()

REDIS_URL = os.environ.get("REDIS_URL", "")
# The tables' changes travel between processes as PostgreSQL notices (games/live/notices.py), and
# a phone hears them from its process's hub, never on a channel: nothing of the app sends on a
# channel layer. The in-memory one carries bench/fanout_asgi.py's groups (the bare Channels
# fan-out the live benchmark compares the app with), within one process.
CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}

# The cache holds allauth's rate-limit counters: per process by default, shared through Redis
# when REDIS_URL is set, so several server processes count login failures together (through
# one client a process, not one a request: toepen_site/cache.py).
if REDIS_URL:
    CACHES = {
        "default": {
            "BACKEND": "toepen_site.cache.SharedRedisCache",
            "LOCATION": REDIS_URL,
            # A Redis that does not answer costs a request a second at most: the cache then
            # lets everyone through (toepen_site/cache.py).
            "OPTIONS": {"socket_connect_timeout": 1, "socket_timeout": 1},
        }
    }
else:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}

AUTH_USER_MODEL = "accounts.User"
AUTHENTICATION_BACKENDS = [
    "django.contrib.auth.backends.ModelBackend",
    "allauth.account.auth_backends.AuthenticationBackend",
]
LOGIN_URL = "account_login"
LOGIN_REDIRECT_URL = "clubs:list"
ACCOUNT_LOGIN_METHODS = {"email", "username"}
ACCOUNT_SIGNUP_FIELDS = ["username*", "email*", "password1*", "password2*"]
# "optional": a new account can sign in at once; the confirmation mail is still sent.
ACCOUNT_EMAIL_VERIFICATION = os.environ.get("ACCOUNT_EMAIL_VERIFICATION", "optional")
ACCOUNT_UNIQUE_EMAIL = True
ACCOUNT_LOGOUT_ON_PASSWORD_CHANGE = False
ACCOUNT_USER_DISPLAY = "accounts.models.user_display"
ACCOUNT_EMAIL_SUBJECT_PREFIX = "[Toepen Club] "
ACCOUNT_ADAPTER = "accounts.adapter.AccountAdapter"
# Failed sign-ins: 10 a minute from one address, 5 in 5 minutes for one account from one
# address ("key" is the account and the client together, accounts/adapter.py: a stranger
# cannot lock a member out by failing on purpose).
ACCOUNT_RATE_LIMITS = {
    "login_failed": os.environ.get("ACCOUNT_LOGIN_FAILED_RATE", "10/m/ip,5/5m/key"),
}

# Throttles per client (games/throttle.py): wrong table codes, and seats taken; and how
# many sockets one browser session may hold open at once (a shared phone needs one).
TOEPEN_CODE_GUESS_RATE = envrate("TOEPEN_CODE_GUESS_RATE", "20/10m")
TOEPEN_JOIN_RATE = envrate("TOEPEN_JOIN_RATE", "30/m")
TOEPEN_SOCKETS_PER_SESSION = envint("TOEPEN_SOCKETS_PER_SESSION", 20)
# All the sockets of one client address, whatever their sessions (a pub's phones share one).
TOEPEN_SOCKETS_PER_CLIENT = envint("TOEPEN_SOCKETS_PER_CLIENT", 100)
# How many tables' snapshots a server process keeps (games/services/snapshots.py): the tables
# it carries should fit, or their actions and views are read from the database again.
TOEPEN_SNAPSHOT_TABLES = envint("TOEPEN_SNAPSHOT_TABLES", 4096)
if TOEPEN_SNAPSHOT_TABLES < 1:
    raise ImproperlyConfigured("TOEPEN_SNAPSHOT_TABLES must be at least 1")

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en"
LANGUAGES = [("nl", "Nederlands"), ("de", "Deutsch"), ("en", "English")]
LOCALE_PATHS = [BASE_DIR / "locale"]
TIME_ZONE = os.environ.get("DJANGO_TIME_ZONE", "Europe/Amsterdam")
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = Path(os.environ.get("DJANGO_STATIC_ROOT", BASE_DIR / "staticfiles"))
# ServeStatic serves the static files from daphne itself, so one process is a whole site (a
# proxy or CDN in front may serve STATIC_ROOT instead). `collectstatic` writes each file's
# gzip and Brotli copies (and, in production, hashed names that may be cached for a year).
# In development the files come straight from the finders unless
# DJANGO_STATIC_FROM_FINDERS=false says to serve what `collectstatic` wrote.
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": "servestatic.storage.CompressedStaticFilesStorage"
        if DEBUG
        else "servestatic.storage.CompressedManifestStaticFilesStorage"
    },
}
SERVESTATIC_USE_FINDERS = envbool("DJANGO_STATIC_FROM_FINDERS", DEBUG)

# Django's BigAutoField, but its foreign keys make no model field at each join (games/keys.py).
DEFAULT_AUTO_FIELD = "games.keys.Key"

# Mail (Django 6.1 mailers): printed on the console in development; SMTP in production or
# whenever EMAIL_HOST is set (the host defaults to localhost, like Django's own default).
if os.environ.get("EMAIL_HOST") or not DEBUG:
    MAILERS = {
        "default": {
            "BACKEND": os.environ.get(
                "DJANGO_EMAIL_BACKEND", "django.core.mail.backends.smtp.EmailBackend"
            ),
            "OPTIONS": {
                "host": os.environ.get("EMAIL_HOST", "localhost"),
                "port": envint("EMAIL_PORT", 587),
                "username": os.environ.get("EMAIL_HOST_USER", ""),
                "password": os.environ.get("EMAIL_HOST_PASSWORD", ""),
                "use_tls": envbool("EMAIL_USE_TLS", True),
            },
        }
    }
else:
    MAILERS = {
        "default": {
            "BACKEND": os.environ.get(
                "DJANGO_EMAIL_BACKEND", "django.core.mail.backends.console.EmailBackend"
            )
        }
    }
DEFAULT_FROM_EMAIL = os.environ.get("DEFAULT_FROM_EMAIL", "Toepen Club <noreply@localhost>")

# A proxy in front (nginx, Caddy, a load balancer) that terminates TLS and sets
# X-Forwarded-Proto and X-Forwarded-For: only then are those headers believed. Without one,
# any client could send them, to pass for https or for another address in the rate limits.
BEHIND_PROXY = envbool("DJANGO_BEHIND_PROXY", False)
if BEHIND_PROXY:
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    # The client is the address the proxy saw: the last hop of X-Forwarded-For (allauth's rate
    # limits and games/throttle.py).
    ALLAUTH_TRUSTED_PROXY_COUNT = 1

# Production hardening: on whenever DEBUG is off, so `check --deploy` is clean.
if not DEBUG:
    SECURE_SSL_REDIRECT = envbool("DJANGO_SECURE_SSL_REDIRECT", True)
    # The health check is asked by the proxy and systemd on the processes' own sockets.
    SECURE_REDIRECT_EXEMPT = [r"^healthz$"]
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    SECURE_HSTS_SECONDS = envint("DJANGO_HSTS_SECONDS", 60 * 60 * 24 * 365)
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    SECURE_HSTS_PRELOAD = envbool("DJANGO_HSTS_PRELOAD", True)
    SECURE_CONTENT_TYPE_NOSNIFF = True
    SECURE_REFERRER_POLICY = "same-origin"

# Content-Security-Policy on every response (Django's own): scripts, styles and everything else
# from this site only; no inline script or style, no eval (htmx is configured for it in
# base.html). The table page also names its own websocket origin (games/views.py).
SECURE_CSP = {
    "default-src": [CSP.SELF],
    "script-src": [CSP.SELF],
    "style-src": [CSP.SELF],
    "img-src": [CSP.SELF],
    "connect-src": [CSP.SELF],
    "object-src": [CSP.NONE],
    "base-uri": [CSP.NONE],
    "form-action": [CSP.SELF],
    "frame-ancestors": [CSP.NONE],
}
# Permissions-Policy on every response (toepen_site/security.py): the table keeps the screen
# awake during a hand; nothing here needs a camera, a microphone, the location, payment or
# devices, so no page (nor anything injected into one) may ask for them. Vibration is not a
# policy feature: it needs no entry.
PERMISSIONS_POLICY = {
    "screen-wake-lock": "self",
    **dict.fromkeys(
        [
            "accelerometer",
            "camera",
            "display-capture",
            "geolocation",
            "gyroscope",
            "hid",
            "magnetometer",
            "microphone",
            "midi",
            "payment",
            "publickey-credentials-get",
            "serial",
            "usb",
            "xr-spatial-tracking",
        ],
        "",
    ),
}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": os.environ.get("DJANGO_LOG_LEVEL", "INFO")},
}
