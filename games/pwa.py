"""The installable app: manifest, service worker and offline page.

The service worker must be served from the site root to control every page, so it is a view
at /sw.js rather than a static file. Its cache name is a hash of the files it precaches: a
changed stylesheet or script gives a new worker, which drops the old cache.
"""

from __future__ import annotations

import hashlib
from functools import lru_cache
from pathlib import Path

from django.conf import settings
from django.contrib.staticfiles import finders
from django.http import HttpRequest, HttpResponse, JsonResponse
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
    "js/site.js",
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
            # The prefix itself: `static("")` asks the production storage's manifest for a
            # file named "", which it does not have.
            "static_url": settings.STATIC_URL,
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
