"""Browser-facing guards: the websocket Origin check and the Permissions-Policy header (the
Content-Security-Policy is Django's own: SECURE_CSP in settings.py; a table page names its
websocket in it, games/views.py)."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from channels.security.websocket import WebsocketDenier
from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.http.request import split_domain_port, validate_host
from django.utils.http import is_same_domain

DEFAULT_PORTS = {"http": 80, "https": 443}
# A websocket's scheme as the page's: a page at http:// opens ws://, one at https:// wss://.
PAGE_SCHEMES = {"ws": "http", "wss": "https", "http": "http", "https": "https"}

Origin = tuple[str, str, int]


def _origin(url: str) -> Origin | None:
    """(scheme, host, port) of an origin such as https://toepen.example.nl; None if it is not
    one (an opaque "null", another scheme, a bad port)."""
    try:
        parts = urlsplit(url.strip().lower())
        port = parts.port
    except ValueError:
        return None
    if parts.scheme not in DEFAULT_PORTS or not parts.hostname:
        return None
    return parts.scheme, parts.hostname, port or DEFAULT_PORTS[parts.scheme]


def _request_scheme(scope: dict[str, Any], headers: dict[bytes, str]) -> str:
    """The page scheme this socket came in on, trusting X-Forwarded-Proto exactly where
    Django's own request.is_secure() does (SECURE_PROXY_SSL_HEADER, DJANGO_BEHIND_PROXY)."""
    if settings.SECURE_PROXY_SSL_HEADER:
        header, secure_value = settings.SECURE_PROXY_SSL_HEADER
        name = header.removeprefix("HTTP_").replace("_", "-").lower().encode("latin-1")
        if name in headers:
            return "https" if headers[name].split(",", 1)[0].strip() == secure_value else "http"
    return PAGE_SCHEMES.get(str(scope.get("scheme", "ws")), "http")


def _request_origin(scope: dict[str, Any], headers: dict[bytes, str]) -> Origin | None:
    """The site's own origin as this request names it (its Host), None for a host that is not
    ours (ALLOWED_HOSTS: no DNS rebinding)."""
    domain, port = split_domain_port(headers.get(b"host", ""))
    if not domain or not validate_host(domain, settings.ALLOWED_HOSTS):
        return None
    scheme = _request_scheme(scope, headers)
    return scheme, domain.strip("[]"), int(port) if port else DEFAULT_PORTS[scheme]


def _trusted(origin: Origin) -> bool:
    """One of CSRF_TRUSTED_ORIGINS (https://*.example.nl: its subdomains too)."""
    scheme, host, port = origin
    for entry in settings.CSRF_TRUSTED_ORIGINS:
        wildcard = "://*." in entry
        trusted = _origin(entry.replace("://*.", "://", 1))
        if trusted is None or trusted[0] != scheme or trusted[2] != port:
            continue
        if host == trusted[1] or (wildcard and is_same_domain(host, "." + trusted[1])):
            return True
    return False


def origin_allowed(scope: dict[str, Any]) -> bool:
    headers = {name: value.decode("latin-1") for name, value in scope.get("headers", [])}
    if b"origin" not in headers:
        return False
    origin = _origin(headers[b"origin"])
    own = _request_origin(scope, headers)
    if origin is None or own is None:
        return False
    return origin == own or _trusted(origin)


class SameOriginValidator:
    """Lets a websocket through only from a page of this site: its Origin must have the
    scheme (http for ws, https for wss), host and port of the request's own Host, that host
    being one of ALLOWED_HOSTS; or be one of CSRF_TRUSTED_ORIGINS. Channels'
    AllowedHostsOriginValidator compares host names alone, so a page on another port of the
    same host, or a plain-http page, could open a socket with the phone's session."""

    def __init__(self, application: Any) -> None:
        self.application = application

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> Any:
        if scope["type"] == "websocket" and not origin_allowed(scope):
            return await WebsocketDenier()(scope, receive, send)
        return await self.application(scope, receive, send)


class PermissionsPolicyMiddleware:
    """Adds settings.PERMISSIONS_POLICY to every response, as Permissions-Policy."""

    def __init__(self, get_response: Any) -> None:
        self.get_response = get_response
        self.header = ", ".join(
            f"{feature}=({allowed})" for feature, allowed in settings.PERMISSIONS_POLICY.items()
        )

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response: HttpResponse = self.get_response(request)
        response.headers.setdefault("Permissions-Policy", self.header)
        return response
