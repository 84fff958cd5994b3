"""The Jinja2 environment of Django's second template engine (settings.TEMPLATES), which writes
the live view: `games/jinja2/games/live.html` and its pieces in `games/live/parts.html`.

Autoescape is on, and the i18n extension's callables (`_`, `gettext`, `ngettext`, `pgettext`)
are newstyle, over the view's cached translations (games.view.html `_translated`): Django's
gettext looks the active language up on every call, which was half of a view's time. `speak`
sets the language of a thread's next renders.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator
from typing import Any

from django.template import engines
from django.urls import reverse
from django.utils import translation
from jinja2 import Environment, StrictUndefined
from jinja2.ext import Extension
from jinja2.lexer import Token, TokenStream
from markupsafe import Markup

from games.view import html
from games.view.html import speak

LAYOUT = re.compile(r"\n[ \t]*")


class Compact(Extension):
    """The live view is one line of HTML: in a template's text, a line break and the
    indentation after it are layout only, dropped when the template is compiled (so a tag is
    not broken across lines where a space is meant). Tags, expressions and the line numbers
    of errors are as written."""

    def filter_stream(self, stream: TokenStream) -> Iterator[Token]:
        for token in stream:
            if token.type != "data":
                yield token
            elif text := LAYOUT.sub("", token.value):
                yield Token(token.lineno, "data", text)


# As the i18n extension's newstyle callables, which it would wrap around ours and look up in the
# template's context at every call (three calls deep for `_`): a translation is markup, always
# formatted with its variables escaped (`%%` is a percent sign); ngettext's `num` and
# pgettext's `context` are variables too.


@functools.lru_cache(maxsize=4096)
def _markup(language: str, context: str, singular: str, plural: str, n: int) -> Markup:
    # The catalogues are ours: a translation is trusted as markup, as the extension trusts it.
    return Markup(html._translated(language, context, singular, plural, n))  # noqa: S704


@functools.lru_cache(maxsize=4096)
def _alone(language: str, message: str) -> Markup:
    return _markup(language, "", message, "", 0) % {}


def gettext(message: str, **variables: Any) -> Markup:
    if not variables:
        return _alone(html._rendering.language, message)
    return _markup(html._rendering.language, "", message, "", 0) % variables


def ngettext(singular: str, plural: str, n: int, **variables: Any) -> Markup:
    variables.setdefault("num", n)
    return _markup(html._rendering.language, "", singular, plural, n) % variables


def pgettext(context: str, message: str, **variables: Any) -> Markup:
    variables.setdefault("context", context)
    return _markup(html._rendering.language, context, message, "", 0) % variables


def url(name: str, *args: object) -> str:
    return reverse(name, args=args)


def shared_part(
    store: dict[Any, Any] | None, key: tuple[Any, ...], part: Callable[..., str], *args: Any
) -> str:
    """`part(*args)` (a macro) written once for `key` in `store` and reused: the phones
    rendered together (games.view.context.Shared) share the felt and the players, and the
    whole process shares the cards."""
    if store is None:
        return part(*args)
    markup = store.get(key)
    if markup is None:
        markup = store[key] = part(*args)
    return markup


def environment(**options: Any) -> Environment:
    options.pop("autoescape", None)
    options.update(undefined=StrictUndefined, extensions=["jinja2.ext.i18n", Compact])
    env = Environment(autoescape=True, **options)
    env.newstyle_gettext = True  # type: ignore[attr-defined]
    env.globals.update(
        _=gettext,
        gettext=gettext,
        ngettext=ngettext,
        pgettext=pgettext,
        url=url,
        shared_part=shared_part,
        # A card's markup, by language and token (at most 32 a language).
        cards={},
    )
    return env


def live_view(c: dict[str, Any], csrf_token: str = "") -> str:
    """The `#table-live` view of `build_context`'s context `c`. `csrf_token`: the page's (a
    view pushed over the socket has none; htmx sends the page's token in a header)."""
    speak(translation.get_language())
    template = engines["jinja2"].get_template("games/live.html")
    return template.render({**c, "csrf_token": csrf_token, "language": html._rendering.language})
