"""The live view's HTML, written out in Python from its typed parts (games.view.parts).

A live table renders this view for every phone at every change (four renders per action at a
table of four), so it is the hot path of the server: written with f-strings it costs a tenth of
what the same markup costs as a Django template. It is the only source of the view: the table
page includes it as it is, and so does every websocket push (games.view.context.render_view).

The felt and the players' places are written from the public part alone (`PublicView`), once
per language for the phones rendered together (`Shared`); the rest from the phone's own part
(`SeatView`). Everything a player typed (names) and every translated text is escaped here; the
cards come only from `games.view.context.build_view`, which takes them from the engine's
`observe`.
"""

from __future__ import annotations

import functools
import threading
from typing import Any

from django.urls import get_script_prefix, get_urlconf, reverse
from django.utils import translation

from clubs.money import money
from games.view.parts import Button, CardView, PlayerView, PublicView, SeatView, Shared

SUIT_SYMBOLS = {"C": "♣", "D": "♦", "H": "♥", "S": "♠"}
# The view writes its own signs as character references, so that a view is ASCII: Python then
# keeps it at one byte a character and the frame's UTF-8 is a copy, where one ♣ made the whole
# view two bytes a character and its encoding a transcoding, on every phone at every change.
SUIT_REFS = {suit: f"&#{ord(symbol)};" for suit, symbol in SUIT_SYMBOLS.items()}
NO_LIVES = "&#8211;"  # an en dash: no lives to show (a free seat before the rubber)
SUIT_NAMES = {"C": "clubs", "D": "diamonds", "H": "hearts", "S": "spades"}


# The language of the view being rendered in this thread, read once per view: Django's own
# gettext looks the active language up on every call, which was half of a view's time.
_rendering = threading.local()


@functools.lru_cache(maxsize=4096)
def _translated(language: str, context: str, singular: str, plural: str, n: int) -> str:
    with translation.override(language):
        if plural:
            return str(translation.ngettext(singular, plural, n))
        if context:
            return str(translation.pgettext(context, singular))
        return str(translation.gettext(singular))


def set_view_language(language: str | None) -> str:
    """Translate this thread's next views into `language` (Django's active one:
    `get_language()`; English when None), the language `gettext` and friends here translate
    into; returns it."""
    language = _rendering.language = language or "en"
    return language


def gettext(message: str) -> str:
    """`message` in the language of the view being rendered (`set_view_language`)."""
    return _translated(_rendering.language, "", message, "", 0)


# This module's short name for it; others import `gettext` (mypyc's modules export no `_`).
_ = gettext


def ngettext(singular: str, plural: str, n: int) -> str:
    return _translated(_rendering.language, "", singular, plural, n)


def pgettext(context: str, message: str, language: str = "") -> str:
    """`message` in `context`, in `language` (when given) or the view's."""
    return _translated(language or _rendering.language, context, message, "", 0)


def _e(value: object) -> str:
    """`value` escaped as `html.escape(str(value))` does, and ASCII: any other character as its
    reference (see SUIT_REFS). Written out here rather than calling `html.escape`: compiled,
    each test is a scan in C where that call went through the interpreter, and most of what a
    view escapes (names, numbers, translated words) holds none of the five characters (60
    calls an action, a tenth of the views' instructions)."""
    text = value if type(value) is str else str(value)
    if "&" in text:
        text = text.replace("&", "&amp;")  # first: the references below hold one
    if "<" in text:
        text = text.replace("<", "&lt;")
    if ">" in text:
        text = text.replace(">", "&gt;")
    if '"' in text:
        text = text.replace('"', "&quot;")
    if "'" in text:
        text = text.replace("'", "&#x27;")
    return text if text.isascii() else text.encode("ascii", "xmlcharrefreplace").decode("ascii")


def _opt(value: object) -> str:
    """`|default_if_none:''`."""
    return "" if value is None else _e(value)


def _number(value: int | None) -> str:
    """A seat or a count, or '' for None: digits, nothing to escape (anything but a number
    fails here rather than reach the markup)."""
    return "" if value is None else str(int(value))


@functools.lru_cache(maxsize=512)
def card_html(token: str, language: str) -> str:
    """One playing card (`token`: games.engine.TOKENS) named in `language` (kept: 32 cards in
    three languages)."""
    rank, suit = token[:-1], token[-1]
    name = {
        "C": pgettext("suit", "clubs", language),
        "D": pgettext("suit", "diamonds", language),
        "H": pgettext("suit", "hearts", language),
        "S": pgettext("suit", "spades", language),
    }[suit]
    red = " is-red" if suit in "DH" else ""
    return (
        f'<span role="img" class="card suit-{SUIT_NAMES[suit]}{red}" data-card="{token}" '
        f'aria-label="{_e(rank)} {_e(name)}">{rank}'
        f'<span class="suit" aria-hidden="true">{SUIT_REFS[suit]}</span></span>'
    )


def error_html(message: str, code: str = "", action_id: str = "") -> str:
    """A refusal (`message` already translated), with its code and the action it refuses."""
    return (
        '<div id="table-error" role="alert" aria-live="assertive" hx-swap-oob="true"'
        f' data-code="{_e(code)}" data-id="{_e(action_id)}">{_e(message)}</div>'
    )


def live_html(
    public: PublicView, seat: SeatView, csrf_token: str = "", shared: Shared | None = None
) -> str:
    """The `#table-live` view of a phone: the public part (`public`, written once per language
    for the phones rendered together, `shared`) and the phone's own (`seat`). `csrf_token`:
    the page's (a view pushed over the socket has none; htmx sends the page's token in a
    header)."""
    language = set_view_language(seat.language)
    root = (
        '<div id="table-live" class="live" hx-swap-oob="true"'
        f' data-version="{public.version}" data-status="{_e(public.status)}"'
        f' data-rubber="{public.rubber_number}" data-hand="{public.hand_number}"'
        f' data-step="{public.step}" data-active="{_number(seat.active)}"'
        f' data-privacy="{_number(seat.privacy_for)}"'
        f' data-seats="{" ".join(str(s) for s in seat.seats)}"'
        f' data-knocks="{public.knocks_total}" data-knocker="{_number(public.last_knocker)}"'
        f' data-turn="{1 if seat.my_turn else 0}" data-in="{1 if seat.in_hand else 0}"'
        f' data-out="{1 if seat.out else 0}" data-paused="{1 if public.paused else 0}"'
        + (f' data-ack="{_e(seat.ack)}">' if seat.ack else ">")
    )
    felt: str | None
    if shared is None:
        felt = _felt(public, language)
    else:
        felt = shared.felt.get(language)
        if felt is None:
            felt = shared.felt[language] = _felt(public, language)
    view = "".join(
        (
            root,
            _players(public, seat, language, shared),
            felt,
            _sheet(public, seat),
            _hand(public, seat, language),
            _actions(public, seat, csrf_token, shared),
            "</div>",
        )
    )
    # Escaped names are ASCII already (`_e`); a translation's own letters (a German umlaut)
    # become references here, so that every view is ASCII (SUIT_REFS says why).
    return view if view.isascii() else view.encode("ascii", "xmlcharrefreplace").decode("ascii")


def _players(public: PublicView, seat: SeatView, language: str, shared: Shared | None) -> str:
    """The players' places: found once per language for the phones rendered together
    (`shared`), each phone only marks its own."""
    players = public.players
    places: list[tuple[int, str, str]] | None = None
    if shared is not None:
        places = shared.places.get(language)
    if places is None:
        answering = bool(public.awaiting_names)
        places = [(p.seat, *_player(p, answering, language)) for p in players]
        if shared is not None:
            shared.places[language] = places
    items = [f'<ol id="table-players" class="players" data-count="{len(players)}">']
    seats = seat.seats
    for index, classes, rest in places:
        mine = " is-mine" if index in seats else ""
        items.append(f'<li class="{classes}{mine}"{rest}')
    items.append("</ol>")
    return "".join(items)


# Kept from one version to the next: an action changes one or two of a table's players, so most
# of a pass's players are found here, and the rest are written once for all its phones. Room
# for the players of 4,096 tables of four in one language.
@functools.lru_cache(maxsize=16_384)
def _player(p: PlayerView, answering: bool, language: str) -> tuple[str, str]:
    """One player's place at the table, as every phone sees it in `language` (the one being
    rendered in; `answering`: a knock's answers are awaited): the classes of its `<li>` and
    the rest of it after them (the phone's own player gets one class more)."""
    classes = "player"
    if p.due:
        classes += " is-due"
    if p.folded:
        classes += " is-folded"
    lives = p.lives
    count = lives or 0
    lives_label = ngettext("%(lives)s life", "%(lives)s lives", count) % {"lives": count}
    strokes = _strokes_html(p.strokes)
    name = _e(_("free seat")) if p.free else _e(p.name)
    knocks = p.knocks
    knocked = ngettext("knocked once", "knocked %(knocks)s×", knocks) if knocks else ""  # noqa: RUF001
    call = p.announcement
    turn_text = (_("answers") if answering else _("to play")) if p.due else ""
    shown = (  # (its colour, its words): shown when it has words
        ("turn", turn_text),
        ("quiet", _bot_words(p.bot)),
        ("quiet", _("dealer") if p.dealer else ""),
        ("away", _away_words(p)),
        ("", _("poor") if p.poor else ""),
        ("call", _("whistles") if call == "whistle" else _("stands") if call == "stand" else ""),
        ("folded", _("folded") if p.folded else ""),
        ("out", _("out") if lives == 0 and not p.free else ""),
        ("knock", knocked % {"knocks": knocks} if knocks else ""),
    )
    badges = [
        f'<span class="badge{f" badge-{kind}" if kind else ""}">{_e(text)}</span>'
        for kind, text in shown
        if text
    ]
    open_hand = ""
    if p.open_hand:
        cards = "".join(card_html(card.token, language) for card in p.open_hand)
        open_hand = f'<span class="open-hand">{cards}</span>'
    return classes, (
        f' data-seat="{p.seat}" data-lives="{_opt(lives)}">'
        f'<span class="player-name" title="{_e(p.name)}">{name}</span>'
        f'<span class="lives slate" role="img" aria-label="{_e(lives_label)}">{strokes}'
        f"<b>{NO_LIVES if lives is None else lives}</b></span>"
        f'<span class="badges">{"".join(badges)}</span>{open_hand}</li>'
    )


@functools.cache
def _strokes_html(strokes: tuple[bool, ...]) -> str:
    """Lives as chalk strokes (`games.view.context._strokes`: twenty at most, so a few kept)."""
    return "".join('<i class="fifth"></i>' if fifth else "<i></i>" for fifth in strokes)


def _bot_words(level: str) -> str:
    """What kind of opponent a computer player is, short enough for a phone's player strip;
    "" for a person."""
    if not level:
        return ""
    names = {"easy": _("easy"), "normal": _("normal"), "strong": _("strong")}
    if level not in names:
        return _("computer")
    return _("computer · %(level)s") % {"level": names[level]}


def _away_words(p: PlayerView) -> str:
    """Why a player is away, as her badge says it; "" while she is at the table."""
    if p.away_reason == "break":
        return _("on a break")
    if p.away_reason == "round":
        return _("back next hand") if p.back_at_deal else _("buying a round")
    return _("away") if p.away else ""


def _countdown(seconds: int | None) -> str:
    if seconds is None:
        return ""
    return f' <span class="countdown" data-seconds="{seconds}">{seconds}</span>'


def _clock(seconds: int | None) -> str:
    """The turn clock: the seconds left before the table plays for whoever is due."""
    if seconds is None:
        return ""
    label = _e(_("Seconds before the table plays for them"))
    return (
        f' <span class="turn-clock" title="{label}">'
        f'<span class="countdown" data-seconds="{seconds}">{seconds}</span></span>'
    )


def _names(names: tuple[str, ...]) -> str:
    return ", ".join(_e(name) for name in names)


def _cards(cards: tuple[CardView, ...], language: str) -> str:
    return "".join(card_html(card.token, language) for card in cards)


def _felt(public: PublicView, language: str) -> str:
    """The felt: the same on every phone, so written from the public part alone."""
    status, stake, result = public.status, public.stake, public.hand_result
    lines = []
    if stake and not result:
        pill = _("Stake: %(stake)s") % {"stake": stake}
        lines.append(f'<p class="stake"><span class="stake-pill">{pill}</span></p>')
    if public.pot and status != "waiting":
        pot = _e(_("Pot: %(money)s") % {"money": money(public.pot, public.currency, language)})
        lines.append(f'<p class="pot"><span class="pot-pill">{pot}</span></p>')
    if public.paused:
        text = _("Nobody is at the table: it waits until a player is back.")
        lines.append(f'<p class="paused">{_e(text)}</p>')
    if status == "waiting":
        lines.append(f"<p>{_e(_('Waiting for players.'))}</p>")
    elif status == "closed":
        lines.append(f'<p class="closed">{_e(_("This table is closed."))}</p>')
    elif result:
        parts = []
        if result.winner:
            parts.append(_("%(name)s wins the hand.") % {"name": _e(result.winner)})
        else:
            parts.append(_e(_("Nobody wins this hand.")))
        for lost in result.lost:
            text = ngettext(
                "%(name)s loses %(lives)s life.", "%(name)s loses %(lives)s lives.", lost.lives
            )
            parts.append(text % {"name": _e(lost.name), "lives": lost.lives})
        if result.next_dealer and status == "playing":
            parts.append(_("%(name)s deals next.") % {"name": _e(result.next_dealer)})
        lines.append(f'<p class="hand-result">{" ".join(parts)}</p>')
    elif stake:
        if public.laundry_open:
            # One countdown to the laundry's close, ticking as the sheet's does; a phone with
            # the laundry's sheet up shows the sheet's alone (table.css).
            text = _e(_("Laundry: time to exchange or challenge"))
            lines.append(f'<p class="laundry-clock">{text}{_countdown(public.laundry_seconds)}</p>')
        clocks = public.clocks
        if public.awaiting_names:
            # Answers one by one run on the turn clock; all at once, on the answer window's.
            clock = public.answer_seconds
            if clock is None:
                clock = next((clocks[s] for s in public.due if s in clocks), None)
            lines.append(
                f'<p class="answers">{_e(_("Answers awaited from"))} '
                f"{_names(public.awaiting_names)}{_clock(clock)}</p>"
            )
        elif public.due_names:
            clock = next((clocks[s] for s in public.due if s in clocks), None)
            text = _("%(names)s to play.") % {"names": _names(public.due_names)}
            lines.append(f"<p>{text}{_clock(clock)}</p>")
    outcome = public.rubber_result
    if status == "rubber_over" and outcome:
        parts = [_e(_("The rubber is over."))]
        if outcome.winner is not None:
            parts.append(_("%(name)s wins the rubber.") % {"name": _e(outcome.winner)})
        elif outcome.outright:
            parts.append(_e(_("Nobody wins it outright.")))
        losers = outcome.losers
        if losers:
            text = ngettext(
                "%(names)s loses the rubber.", "%(names)s lose the rubber.", len(losers)
            )
            parts.append(text % {"names": _names(losers)})
        if public.pot_takers:
            text = ngettext(
                "%(names)s takes the pot.", "%(names)s share the pot.", len(public.pot_takers)
            )
            parts.append(text % {"names": _names(public.pot_takers)})
        lines.append(f'<p class="rubber-result">{" ".join(parts)}</p>')
    # The challenges' reveals in a box of their own, which gives up its room before the trick
    # does (it scrolls then): the trick is never pushed off the felt.
    reveals = []
    for r in public.reveals:
        names = {"c": _e(r.challenger), "t": _e(r.target)}
        if r.clean:
            text = _("%(c)s challenged %(t)s: clean.") % names
        else:
            text = _("%(c)s challenged %(t)s: not clean.") % names
        cards = f'<span class="reveal-cards">{_cards(r.cards, language)}</span>'
        reveals.append(f'<p class="reveal">{text} {cards}</p>')
    reveal_box = f'<div class="reveals">{"".join(reveals)}</div>' if reveals else ""

    plays = public.trick
    last, taker = "", ""
    if not plays and public.last_trick:
        plays, last = public.last_trick, " played-last"
        taker = (
            f'<p class="trick-taker">'
            f"{_('%(name)s takes the trick.') % {'name': _e(public.taker_name)}}</p>"
        )
    trick = "".join(
        f'<figure class="played{last}{" is-taker" if last and play.seat == public.taker else ""}"'
        f' data-seat="{play.seat}">{card_html(play.card.token, language)}'
        f"<figcaption>{_e(play.name)}</figcaption></figure>"
        for play in plays
    )
    return (
        '<div id="table-felt" class="felt">'
        f'<div id="table-status" class="status">{"".join(lines)}</div>{reveal_box}'
        f'<div id="table-trick" class="trick" role="group" aria-label="{_e(_("Trick"))}"'
        f' data-trick="{_e(public.trick_key)}" data-count="{len(plays)}">'
        f"{trick}{taker}</div></div>"
    )


def _sheet(public: PublicView, seat: SeatView) -> str:
    """What the shown player must decide now, as a sheet over the felt (the trick is not
    played meanwhile): the answer to a knock, or the laundry."""
    if seat.answer_buttons:
        title = _("Stake %(stake)s: stay or fold?") % {"stake": public.stake}
        clock = public.answer_seconds if public.answer_seconds is not None else seat.my_clock
        buttons = "".join(_button(button) for button in seat.answer_buttons)
        return (
            '<div class="sheet answer-window" role="group" aria-labelledby="answer-title">'
            f'<p id="answer-title">{title}{_countdown(clock)}</p>{buttons}</div>'
        )
    if seat.laundry_buttons:
        title = _("Laundry")
        buttons = "".join(_button(button) for button in seat.laundry_buttons)
        cost = f'<p class="why">{_e(seat.challenge_cost)}</p>' if seat.challenge_cost else ""
        return (
            '<div class="sheet laundry-sheet" role="group" aria-labelledby="laundry-title">'
            f'<p id="laundry-title">{_e(title)}{_countdown(public.laundry_seconds)}</p>'
            f"{buttons}{cost}</div>"
        )
    return ""


def _hand(public: PublicView, seat: SeatView, language: str) -> str:
    privacy_for, fold_vals = seat.privacy_for, seat.fold_vals
    if privacy_for is not None:
        text = _("Pass to %(name)s, tap to show your cards") % {"name": _e(seat.privacy_name)}
        hand = (
            '<div id="table-hand" class="privacy"><button class="privacy-show" ws-send'
            f' hx-vals=\'{{"type": "show", "seat": {privacy_for}}}\'>{text}</button></div>'
        )
    elif seat.cards:
        active = seat.active
        label = _("Cards of %(name)s") % {"name": _e(seat.active_name)}
        classes = "hand can-fold" if fold_vals else "hand"
        fold = f" data-fold='{_e(fold_vals)}'" if fold_vals else ""
        cards = []
        hand_name = public.hand_name  # "rubber/hand": digits
        for card in seat.cards:
            shown = card_html(card.token, language)
            if card.playable:
                cards.append(
                    '<button class="card-button is-playable" ws-send'
                    f' hx-vals=\'{{"act": "play", "seat": {active}, "card": "{card.token}",'
                    f' "hand": "{hand_name}"}}\'>{shown}</button>'
                )
            else:
                cards.append(f'<span class="card-button is-unplayable">{shown}</span>')
        hand = (
            f'<div id="table-hand" class="{classes}" data-seat="{active}"{fold} role="group"'
            f' aria-label="{label}">'
            f"{''.join(cards)}</div>"
        )
    elif seat.out:
        text = _("You are out of this rubber: no lives left. Watch how it ends.")
        hand = f'<div id="table-hand" class="hand is-out"><p class="out-note">{_e(text)}</p></div>'
    else:
        hand = '<div id="table-hand" class="hand"></div>'
    hint = []
    if seat.hand_owner and privacy_for is None:
        owner = _("Cards of %(name)s") % {"name": _e(seat.hand_owner)}
        hint.append(f'<span class="hand-owner">{owner}</span>')
    if fold_vals and privacy_for is None:
        hint.append(f'<span class="fold-hint">{_e(_("Swipe down to fold."))}</span>')
    return f'{hand}<p class="hand-hint">{"".join(hint)}</p>'


def _button(button: Button) -> str:
    return _button_markup(button.act, button.vals_json, button.text)


@functools.lru_cache(maxsize=4096)
def _button_markup(act: str, vals_json: str, text: str) -> str:
    """A button (the same few recur hand after hand)."""
    return (
        f'<button class="action action-{act}" ws-send'
        f" hx-vals='{_e(vals_json)}'>{_e(text)}</button>"
    )


def _csrf(csrf_token: str) -> str:
    """The page's CSRF token for a form (a view pushed over the socket has none: htmx sends
    the page's token in a header)."""
    if not csrf_token:
        return ""
    return f'<input type="hidden" name="csrfmiddlewaretoken" value="{_e(csrf_token)}">'


def _url(shared: Shared | None, name: str, *args: Any) -> str:
    """The address of one of the table's forms, escaped for an attribute. The script prefix
    and URL conf it depends on are asked once for the views rendered together (`shared`):
    each is an asgiref `Local`, slower to read than the rest of the address."""
    where = shared.urls if shared is not None else None
    if where is None:
        where = (get_script_prefix(), get_urlconf())
        if shared is not None:
            shared.urls = where
    return _reversed(name, args, where[0], where[1])


@functools.lru_cache(maxsize=16384)
def _reversed(name: str, args: tuple[Any, ...], prefix: str, urlconf: Any) -> str:
    """Kept: `reverse` took a tenth of a view's time, for the same few addresses a table."""
    return _e(reverse(name, args=args))


def _form(url: str, csrf_token: str, button: str) -> str:
    return (
        f'<form method="post" action="{url}" hx-post="{url}" hx-swap="none">'
        f"{_csrf(csrf_token)}{button}</form>"
    )


def _actions(public: PublicView, seat: SeatView, csrf_token: str, shared: Shared | None) -> str:
    parts = ['<div id="table-actions" class="actions">']
    knock = seat.knock
    why = ""
    if knock:
        if knock.vals_json:
            parts.append(_button_markup("knock", knock.vals_json, knock.text))
        else:
            parts.append(
                '<button class="action action-knock" disabled aria-describedby="knock-why">'
                f"{_e(knock.text)}</button>"
            )
            why = f'<span id="knock-why" class="why">{_e(knock.reason)}</span>'
    parts.extend(_button(button) for button in seat.other_buttons)
    # Back at the table is one tap; going away is not offered beside the buttons of play.
    parts.extend(_button(button) for button in seat.away_buttons if button.act == "back")
    parts.append(why)
    if seat.can_start:
        url = _url(shared, "games:start", public.code)
        text = _("Another rubber") if public.status == "rubber_over" else _("Start the rubber")
        parts.append(
            _form(url, csrf_token, f'<button class="action action-start">{_e(text)}</button>')
        )
    if seat.can_leave:
        url = _url(shared, "games:leave", public.code, seat.active)
        text = _("Leave my seat")
        button = f'<button class="action action-leave secondary">{_e(text)}</button>'
        parts.append(_form(url, csrf_token, button))
    parts.append("</div>")
    # At the top of the screen, far from the thumb and the knock button: going away from the
    # table behind a second tap (a menu), and closing it behind a page that says what it loses.
    going = [button for button in seat.away_buttons if button.act != "back"]
    tools = []
    if going:
        buttons = "".join(_button(button) for button in going)
        tools.append(
            '<details class="away-menu">'
            f"<summary>{_e(_('Away from the table'))}</summary>"
            f'<div class="away-choices">{buttons}</div></details>'
        )
    if seat.can_close:
        url = _url(shared, "games:close", public.code)
        text = _("Close the table…")
        tools.append(f'<p class="table-close"><a href="{url}">{_e(text)}</a></p>')
    if tools:
        parts.append(f'<div class="table-tools">{"".join(tools)}</div>')
    return "".join(parts)
