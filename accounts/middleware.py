from collections.abc import Callable

from django.http import HttpRequest, HttpResponse
from django.utils import translation


class UserLanguageMiddleware:
    """A signed-in user's chosen language wins over the browser's (LocaleMiddleware's pick).

    Sits after LocaleMiddleware and AuthenticationMiddleware. A user without a choice keeps
    what LocaleMiddleware found: the language cookie set by the switch, else the browser.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        user = getattr(request, "user", None)
        if user is not None and user.is_authenticated and user.language:
            # LocaleMiddleware's response step reads the active language for Content-Language.
            translation.activate(user.language)
            request.LANGUAGE_CODE = user.language
        return self.get_response(request)
