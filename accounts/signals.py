from typing import Any

from allauth.account.signals import user_signed_up
from django.dispatch import receiver
from django.http import HttpRequest

from accounts.guests import link_guest_to_user
from accounts.models import User


@receiver(user_signed_up, dispatch_uid="accounts.link_guest_on_signup")
def link_guest_on_signup(sender: Any, request: HttpRequest, user: User, **kwargs: Any) -> None:
    """A guest who signs up keeps what they played: the session's guest joins the account."""
    if request is not None and hasattr(request, "session"):
        link_guest_to_user(request, user)
