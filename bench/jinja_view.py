"""The live view as a Jinja2 template, for `bench/actions.py --jinja` only: what html.py's
`live_html` would cost as a template. It is not the app's view: html.py is, because as a
template the view cost more than a tenth of the live server's capacity.

The template is `bench/jinja2/games/live.html` (with its pieces in `games/live/parts.html`),
rendered through Django's own Jinja2 backend with autoescape and the i18n extension's newstyle
gettext. It writes what `live_html` writes, byte for byte but for the spelling of escaped
quotes (`&#34;` `&#39;`, markupsafe's, where html.escape writes `&quot;` `&#x27;`): the bench
checks that for every view it renders, and a hypothesis test did for every kind of phone, step
and language while the template stood beside html.py (commit d9ec228).

It reads the typed parts html.py writes from (games.view.parts), spelled out as the names the
template reads (`_context`). Shared as html.py shares: the felt and the players once per
language for the phones rendered together (one store per `Shared`), and each card once per
language for the process. The translations are
html.py's cached ones, behind newstyle callables of our own: the extension's own wrappers look
the callables up in the template's context at every call (three calls deep for `_`).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from django.template.backends.jinja2 import Jinja2
from django.urls import reverse
from jinja2 import Environment, StrictUndefined
from jinja2.ext import Extension
from jinja2.lexer import Token, TokenStream
from markupsafe import Markup

from games.view import html
from games.view.parts import PublicView, SeatView, Shared

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


# As the i18n extension's newstyle callables: a translation is markup, always formatted with
# its variables escaped (`%%` is a percent sign); ngettext's `num` and pgettext's `context` are
# variables too.


@functools.lru_cache(maxsize=4096)
def _markup(language: str, context: str, singular: str, plural: str, n: int) -> Markup:
    # The catalogues are ours: a translation is trusted as markup, as the extension trusts it.
    return Markup(html._translated(language, context, singular, plural, n))


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
    rendered together (games.view.parts.Shared) share the felt and the players, and the
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


@functools.cache
def engine() -> Jinja2:
    """Django's Jinja2 backend, as a second entry in settings.TEMPLATES would make it."""
    return Jinja2(
        {
            "NAME": "jinja2",
            "DIRS": [Path(__file__).resolve().parent / "jinja2"],
            "APP_DIRS": False,
            "OPTIONS": {"environment": f"{__name__}.environment"},
        }
    )


# The store of the render pass under way: the template's `shared_part` keeps the felt and the
# players' places there, once per language for the phones of one `Shared`.
_pass: tuple[Shared | None, dict[Any, Any]] = (None, {})


def _card(token: str, legal: bool = False) -> dict[str, Any]:
    """A card as the template reads it."""
    suit = token[-1]
    return {
        "token": token,
        "rank": token[:-1],
        "suit": suit,
        "suit_name": html.SUIT_NAMES[suit],
        "legal": legal,
    }


def _context(public: PublicView, seat: SeatView, shared: Shared | None) -> dict[str, Any]:
    """The parts under the names the template reads."""
    global _pass
    store = None
    if shared is not None:
        if _pass[0] is not shared:
            _pass = (shared, {})
        store = _pass[1]
    players = [
        {**p._asdict(), "open_hand": [_card(c.token) for c in p.open_hand]} for p in public.players
    ]
    plays = [{"seat": p.seat, "name": p.name, "card": _card(p.card.token)} for p in public.trick]
    last = [
        {"seat": p.seat, "name": p.name, "card": _card(p.card.token)} for p in public.last_trick
    ]
    reveals = [{**r._asdict(), "cards": [_card(c.token) for c in r.cards]} for r in public.reveals]
    result = public.hand_result
    knock = seat.knock
    own = seat._asdict()
    del own["cards"]  # the template's `cards` is its store of card markup: `my_cards` below
    return {
        **public._asdict(),
        **own,
        "table": {"code": public.code},
        "players": players,
        "trick": plays,
        "last_trick": last,
        "reveals": reveals,
        "hand_result": (
            None
            if result is None
            else {**result._asdict(), "lost": [lost._asdict() for lost in result.lost]}
        ),
        "rubber_result": public.rubber_result._asdict() if public.rubber_result else None,
        "shared": store,
        "viewer_seats": seat.seats,
        "my_seats": " ".join(str(s) for s in seat.seats),
        "my_cards": [_card(card.token, card.playable) for card in seat.cards],
        "knock": None if knock is None else {"act": "knock", **knock._asdict()},
        "answer_actions": [b._asdict() for b in seat.answer_buttons],
        "laundry_actions": [b._asdict() for b in seat.laundry_buttons],
        "other_actions": [b._asdict() for b in seat.other_buttons],
        "away_buttons": [b._asdict() for b in seat.away_buttons],
    }


def live_view(
    public: PublicView, seat: SeatView, csrf_token: str = "", shared: Shared | None = None
) -> str:
    """`html.live_html(public, seat, csrf_token, shared)`, written by the template."""
    language = html.set_view_language(seat.language)
    template = engine().get_template("games/live.html")
    context = _context(public, seat, shared)
    return template.render({**context, "csrf_token": csrf_token, "language": language})


def same_view(python: str, template: str) -> bool:
    """Whether html.py's view and the template's are the same HTML: byte for byte once the
    escaped quotes are spelled alike (in escaped text `&quot;` and `&#x27;` come only from a
    quote, so the comparison stays exact) and the template's other characters as html.py
    writes them, as references (its views are ASCII)."""
    python = python.replace("&quot;", "&#34;").replace("&#x27;", "&#39;")
    return python == template.encode("ascii", "xmlcharrefreplace").decode("ascii")
