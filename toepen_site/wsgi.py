"""WSGI entry point, for management tooling; the app itself is served by daphne (asgi.py)."""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "toepen_site.settings")
application = get_wsgi_application()
