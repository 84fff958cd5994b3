"""The words around the engine's house rules: groups, labels, one sentence each, error texts.

Validation itself is the engine's (games.engine.rules); this module only says in the reader's
language what a field means and what the engine found wrong with it.
"""

from dataclasses import dataclass

from django.utils.functional import Promise
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from games.engine.jsontext import long_number_digits, shown
from games.engine.rules import BUILT_IN_PROFILES, FIELDS, RulesError


@dataclass(frozen=True)
class FieldText:
    label: Promise
    help: Promise
    options: dict[object, Promise]


YES_NO = {True: gettext_lazy("Yes"), False: gettext_lazy("No")}

FIELD_TEXT: dict[str, FieldText] = {
    "starting_lives": FieldText(
        gettext_lazy("Starting lives"),
        gettext_lazy("How many lives every player has at the start of a rubber."),
        {},
    ),
    "end_condition": FieldText(
        gettext_lazy("End of a rubber"),
        gettext_lazy("Whether the rubber ends when the first player runs out of lives."),
        {
            "first_out": gettext_lazy("When the first player is out"),
            "last_standing": gettext_lazy("Play on until one player has lives left"),
        },
    ),
    "min_players": FieldText(
        gettext_lazy("Fewest players"),
        gettext_lazy("How many players a table needs before a rubber can start."),
        {},
    ),
    "exchange": FieldText(
        gettext_lazy("Laundry"),
        gettext_lazy("Whether a player may swap her four cards for four from the stock."),
        YES_NO,
    ),
    "exchange_limit": FieldText(
        gettext_lazy("Laundry per hand"),
        gettext_lazy("How many times one player may do the laundry in one hand."),
        {},
    ),
    "clean_hand": FieldText(
        gettext_lazy("Clean laundry"),
        gettext_lazy("Which laid-aside cards count as clean when someone challenges."),
        {
            "four_face": gettext_lazy("Four face cards"),
            "face_and_one_seven": gettext_lazy("Face cards and at most one seven"),
        },
    ),
    "challenge_scoring": FieldText(
        gettext_lazy("Challenging the laundry"),
        gettext_lazy("Whether one or every other player may challenge a laundry."),
        {
            "single": gettext_lazy("One challenge per laundry"),
            "each_challenger": gettext_lazy("Every other player may challenge once"),
        },
    ),
    "dirty_penalty": FieldText(
        gettext_lazy("Dirty laundry"),
        gettext_lazy("What a player pays when her laid-aside cards turn out not clean."),
        {
            "life": gettext_lazy("One life"),
            "open_hand": gettext_lazy("Play the hand with cards face up"),
            "life_and_open_hand": gettext_lazy("One life and play with cards face up"),
        },
    ),
    "poverty": FieldText(
        gettext_lazy("Poverty"),
        gettext_lazy("Whether a hand starts at stake two when a player has one life left."),
        {
            "off": gettext_lazy("Off"),
            "stake_two": gettext_lazy("Stake two"),
            "stake_two_poor_leads": gettext_lazy("Stake two, and the poor player leads"),
        },
    ),
    "knock_cap": FieldText(
        gettext_lazy("Knocking limit"),
        gettext_lazy("Whether a player may knock the stake above her own lives."),
        {
            "lives": gettext_lazy("Not above her lives"),
            "none": gettext_lazy("No limit"),
        },
    ),
    "max_knocks_per_player": FieldText(
        gettext_lazy("Knocks per player"),
        gettext_lazy("How often one player may knock in one hand; empty means no limit."),
        {},
    ),
    "response_order": FieldText(
        gettext_lazy("Answering a knock"),
        gettext_lazy("Whether players answer a knock one by one or all at once."),
        {
            "sequential": gettext_lazy("One by one, from the knocker's left"),
            "simultaneous": gettext_lazy("All at once"),
        },
    ),
    "response_seconds": FieldText(
        gettext_lazy("Seconds to answer"),
        gettext_lazy("How long a live table waits for an answer before it counts as staying."),
        {},
    ),
    "voluntary_fold": FieldText(
        gettext_lazy("Folding at any time"),
        gettext_lazy("Whether a player may fold without a knock, paying the current stake."),
        YES_NO,
    ),
    "folded_card_wins": FieldText(
        gettext_lazy("A folded player's card"),
        gettext_lazy("Whether a card already played by someone who then folds can win the trick."),
        YES_NO,
    ),
    "suit_order": FieldText(
        gettext_lazy("Suit order"),
        gettext_lazy(
            "Which suit wins a trick when nobody still in played the suit led "
            "(only when a folded player's card cannot win)."
        ),
        {
            "HSDC": gettext_lazy("Hearts, spades, diamonds, clubs"),
            "HDSC": gettext_lazy("Hearts, diamonds, spades, clubs"),
        },
    ),
    "announcements": FieldText(
        gettext_lazy("Announcements"),
        gettext_lazy("Whether players whistle or stand for three or four tens or jacks."),
        YES_NO,
    ),
    "away_conventions": FieldText(
        gettext_lazy("A break and buying a round"),
        gettext_lazy(
            "Whether a player may step away: on a break at any moment (the table plays for "
            "her, folding on a knock), or buying a round between hands, once a rubber (the "
            "table plays the next hand for her and she loses no lives in it)."
        ),
        YES_NO,
    ),
    "pot_stake": FieldText(
        gettext_lazy("Stake for the pot (cents)"),
        gettext_lazy(
            "What every player puts into the pot when a rubber starts, in cents; the last "
            "player still in takes the pot. 0 means no pot. A pot is played until one player "
            "has lives left."
        ),
        {},
    ),
    "buy_back": FieldText(
        gettext_lazy("Buying back in"),
        gettext_lazy(
            "How often a player who goes out may buy back in, once more putting the stake "
            "into the pot, before the next deal; she comes back with the lives of the player "
            "still in who has the fewest. Only with a pot."
        ),
        {},
    ),
}

GROUPS: list[tuple[Promise, list[str]]] = [
    (
        gettext_lazy("Lives and the end of a rubber"),
        ["starting_lives", "end_condition", "min_players"],
    ),
    (
        gettext_lazy("Laundry"),
        ["exchange", "exchange_limit", "clean_hand", "challenge_scoring", "dirty_penalty"],
    ),
    (
        gettext_lazy("Knocking"),
        ["knock_cap", "max_knocks_per_player", "response_order", "response_seconds"],
    ),
    (gettext_lazy("Folding and tricks"), ["voluntary_fold", "folded_card_wins", "suit_order"]),
    (gettext_lazy("Poverty"), ["poverty"]),
    (gettext_lazy("Announcements"), ["announcements"]),
    (gettext_lazy("Away from the table"), ["away_conventions"]),
    (gettext_lazy("The pot"), ["pot_stake", "buy_back"]),
]

BUILT_IN_NAMES: dict[str, Promise] = {
    "classic": gettext_lazy("Classic"),
    "kroeg": gettext_lazy("Kroeg"),
    "siwweschroom": gettext_lazy("Siwweschrööm"),
    "tournament": gettext_lazy("Tournament"),
}
assert set(BUILT_IN_NAMES) == set(BUILT_IN_PROFILES)


def option_label(name: str, value: object) -> str:
    """A value as the reader says it; numbers and null as themselves."""
    if value is None:
        return _("no limit")
    label = FIELD_TEXT[name].options.get(value)
    return str(label) if label is not None else str(value)


def error_message(error: RulesError, as_shown: bool = False) -> str:
    """The engine's complaint in the reader's language, from its code and values; `as_shown`:
    for the editor, whose reader sees choices and yes/no by their words, not as JSON."""
    params = error.params
    value = params.get("value")
    digits = long_number_digits(value)
    quoted = (
        "null"
        if value is None
        else _("a number of %(digits)d digits") % {"digits": digits}
        if digits is not None
        else shown(value)
    )
    if error.code == "unknown":
        return _("unknown house rule")
    if error.code == "null":
        return _("may not be empty")
    if error.code == "boolean":
        return _("must be Yes or No") if as_shown else _("must be true or false")
    if error.code == "choice":
        choices = params.get("options", ())
        if as_shown and error.field in FIELD_TEXT:
            options = ", ".join(option_label(error.field, option) for option in choices)  # type: ignore[attr-defined]
        else:
            options = ", ".join(str(option) for option in choices)  # type: ignore[attr-defined]
        return _("must be one of %(options)s, not %(value)s") % {
            "options": options,
            "value": quoted,
        }
    if error.code == "integer":
        return _("must be a whole number, not %(value)s") % {"value": quoted}
    if error.code == "range":
        return _("must be from %(low)s to %(high)s, not %(value)s") % {
            "low": params["minimum"],
            "high": params["maximum"],
            "value": quoted,
        }
    if error.code == "pot_end":
        return _("a rubber with a pot is played until one player has lives left")
    if error.code == "needs_pot":
        return _("buying back in needs a pot (a stake above 0)")
    return _("a house-rule profile must be a JSON object")


def error_text(error: RulesError, as_shown: bool = False) -> str:
    """One line that names the field: by its label and its JSON key for the JSON import, by
    its label alone in the editor (`as_shown`), which shows no keys."""
    message = error_message(error, as_shown)
    if error.field is None:
        return message
    text = FIELD_TEXT.get(error.field)
    if text is None:
        return f"{error.field}: {message}"
    if as_shown:
        return f"{text.label}: {message}"
    return f"{text.label} ({error.field}): {message}"


def default_label(name: str) -> str:
    return option_label(name, FIELDS[name].default)
