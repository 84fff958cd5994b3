"""The installable app: manifest, service worker, offline page, and static files under daphne.

The service worker must be served from the site root to control every page, so it is a view
at /sw.js rather than a static file. Its cache name is a hash of the files it precaches: a
changed stylesheet or script gives a new worker, which drops the old cache.
"""

from __future__ import annotations

import gzip
import hashlib
import mimetypes
from functools import lru_cache
from pathlib import Path

from django.conf import settings
from django.contrib.staticfiles import finders
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.template.loader import render_to_string
from django.templatetags.static import static
from django.utils.translation import gettext as _
from django.views.decorators.cache import cache_control
from django.views.decorators.http import require_GET

THEME = "#1f5e3b"
BACKGROUND = "#f6f3ea"

# What a phone keeps for the table page and the offline page; everything else comes live.
PRECACHE = (
    "css/site.css",
    "css/table.css",
    "js/table.js",
    "django_htmx/htmx-2.min.js",
    "django_htmx/ext/hx-ws-2.min.js",
    "icons/icon-192.png",
)


@require_GET
@cache_control(max_age=3600, public=True)
def manifest(request: HttpRequest) -> JsonResponse:
    icons = [
        {"src": static(f"icons/{name}-{size}.png"), "sizes": f"{size}x{size}", "type": "image/png",
         "purpose": purpose}
        for name, purpose in (("icon", "any"), ("maskable", "maskable"))
        for size in (192, 512)
    ]  # fmt: skip
    data = {
        "id": "/",
        "name": "Toepen Club",
        "short_name": "Toepen",
        "description": _("Live Toepen tables for card clubs, on your phones."),
        "lang": getattr(request, "LANGUAGE_CODE", settings.LANGUAGE_CODE),
        "start_url": "/",
        "scope": "/",
        "display": "standalone",
        "orientation": "any",
        "theme_color": THEME,
        "background_color": BACKGROUND,
        "icons": icons,
    }
    return JsonResponse(data, content_type="application/manifest+json")


@lru_cache(maxsize=1)
def _precache_version() -> str:
    digest = hashlib.sha256()
    for name in PRECACHE:
        path = finders.find(name)
        if path:
            digest.update(Path(str(path)).read_bytes())
    digest.update(render_to_string("offline.html").encode())
    return digest.hexdigest()[:12]


@require_GET
def service_worker(request: HttpRequest) -> HttpResponse:
    body = render_to_string(
        "sw.js",
        {
            "version": _precache_version() if not settings.DEBUG else _fresh_version(),
            "precache": [static(name) for name in PRECACHE],
            "offline_url": "/offline/",
            "static_url": static(""),
        },
    )
    response = HttpResponse(body, content_type="text/javascript; charset=utf-8")
    response["Service-Worker-Allowed"] = "/"
    # The browser checks for a new worker on each visit; it must not keep an old one cached.
    response["Cache-Control"] = "no-cache"
    return response


def _fresh_version() -> str:
    _precache_version.cache_clear()
    return _precache_version()


@require_GET
def offline(request: HttpRequest) -> HttpResponse:
    return render(request, "offline.html")


# -- static files under daphne ---------------------------------------------------------------
# Daphne serves the ASGI app alone, which has no static file handler. A proxy or CDN in front
# may serve STATIC_ROOT instead; this view keeps a single daphne complete: found by the
# staticfiles finders, gzipped when the browser accepts it, revalidated by ETag.

COMPRESSIBLE = {"text/css", "text/javascript", "application/javascript", "image/svg+xml"}


@lru_cache(maxsize=256)
def _load(path: str) -> tuple[bytes, bytes | None, str, str]:
    found = finders.find(path)
    if not found or not Path(str(found)).is_file():
        raise FileNotFoundError(path)
    data = Path(str(found)).read_bytes()
    kind = mimetypes.guess_type(path)[0] or "application/octet-stream"
    packed = gzip.compress(data, 9, mtime=0) if kind in COMPRESSIBLE else None
    etag = '"' + hashlib.sha256(data).hexdigest()[:16] + '"'
    return data, packed, kind, etag


@require_GET
def static_file(request: HttpRequest, path: str) -> HttpResponse:
    if ".." in Path(path).parts:
        raise Http404
    try:
        data, packed, kind, etag = _load(path) if not settings.DEBUG else _load.__wrapped__(path)
    except FileNotFoundError:
        raise Http404 from None
    if request.headers.get("If-None-Match") == etag:
        response = HttpResponse(status=304)
    elif packed is not None and "gzip" in request.headers.get("Accept-Encoding", ""):
        response = HttpResponse(packed, content_type=kind)
        response["Content-Encoding"] = "gzip"
    else:
        response = HttpResponse(data, content_type=kind)
    response["ETag"] = etag
    response["Vary"] = "Accept-Encoding"
    response["Cache-Control"] = "public, max-age=86400"
    return response
