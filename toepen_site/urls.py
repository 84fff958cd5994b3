from allauth.account.decorators import secure_admin_login
from django.contrib import admin
from django.urls import include, path

from accounts import views as account_views
from games import views as game_views
from toepen_site import health

# The admin's own sign-in form has no limit on failed attempts: send it through allauth's
# sign-in, which has (ACCOUNT_RATE_LIMITS), as allauth's documentation advises.
admin.site.login = secure_admin_login(admin.site.login)  # type: ignore[method-assign]

urlpatterns = [
    path("", game_views.home, name="home"),
    # For nginx, systemd and monitoring: 200, or 503 naming what is down (toepen_site/health.py).
    path("healthz", health.healthz, name="healthz"),
    path("admin/", admin.site.urls),
    path("accounts/", include("accounts.urls")),
    path("accounts/", include("allauth.urls")),
    # The switch on every page; remembers the choice on a signed-in user's profile.
    path("i18n/setlang/", account_views.set_language, name="set_language"),
    path("", include("clubs.urls")),
    path("", include("games.urls")),
    path("", include("nights.urls")),
    path("", include("tournaments.urls")),
]

# A database out of reach gets a 503 page that says to try again (and a warning, not an error).
handler500 = "toepen_site.unavailable.server_error"
