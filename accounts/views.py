from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import redirect, render
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST
from django.views.i18n import set_language as django_set_language

from accounts.forms import GuestForm, ProfileForm
from accounts.guests import get_guest, get_or_create_guest


def _safe_next(request: HttpRequest, fallback: str = "/") -> str:
    target = request.POST.get("next") or request.GET.get("next") or ""
    if url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return target
    return fallback


@login_required
@require_http_methods(["GET", "POST"])
def profile(request: HttpRequest) -> HttpResponse:
    if request.method == "POST":
        form = ProfileForm(request.POST, instance=request.user)
        if form.is_valid():
            form.save()
            messages.success(request, _("Your profile is saved."))
            return redirect("accounts:profile")
    else:
        form = ProfileForm(instance=request.user)
    return render(request, "accounts/profile.html", {"form": form})


@require_POST
def set_language(request: HttpRequest) -> HttpResponse:
    """The language switch: Django's set_language, remembered on the profile when signed in."""
    language = request.POST.get("language", "")
    if language not in dict(settings.LANGUAGES):
        messages.error(request, _("That language is not available."))
        return HttpResponseRedirect(_safe_next(request))
    if request.user.is_authenticated and request.user.language != language:
        request.user.language = language
        request.user.save(update_fields=["language"])
    return django_set_language(request)


@require_http_methods(["GET", "POST"])
def guest(request: HttpRequest) -> HttpResponse:
    """Play without an account: a display name held by this browser's session."""
    next_url = _safe_next(request)
    if request.user.is_authenticated:
        return redirect(next_url)
    current = get_guest(request)
    if request.method == "POST":
        form = GuestForm(request.POST)
        if form.is_valid():
            get_or_create_guest(request, form.cleaned_data["display_name"])
            messages.success(request, _("You play as a guest in this browser."))
            return redirect(next_url)
    else:
        form = GuestForm(initial={"display_name": current.display_name if current else ""})
    return render(
        request, "accounts/guest.html", {"form": form, "guest": current, "next": next_url}
    )
