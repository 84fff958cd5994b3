"""Reading a player from the hands she showed: on what cards she knocks, and with what she stays.

A hand played to its last trick shows every card of the players still in: each played one to
every trick. From the public history the table can then tell, for each knock and each stay of
theirs, which cards they held at that moment and what they had seen, and so judge the choice
as they could have judged it. Two habits of club players are read this way:

- knocking **on the line** (the rule sources' "lijntoeper"): she knocks only when the last
  trick is surely hers (`judge.sure_of_last_trick` from her own view). Her knock is never a
  bluff: answer it by folding.
- staying **only on a high card**: she answers a knock by folding unless she holds a card that
  nothing left can beat in its suit (or the last trick is surely hers). Knock at her when you
  can: she folds anything else.

Each read is a belief, a probability that the player has the habit: a prior, raised by every
shown choice that fits the habit by how much likelier it is under the habit than without it,
and all but dropped by one that does not fit. Only public actions and the cards shown in
tricks are read, the same for every seat, so reading is no leak.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Final

from games.engine import Observation

from .judge import ALL, TRICKS, View, mask_of, sure_of_last_trick, sure_top

# Prior belief in each habit, before a choice of hers was shown.
PRIOR: Final = 0.25
# How often a player without the habit makes a choice that fits it anyway: a judging player's
# knock is sure about one time in three, her stay holds a high card about two times in five
# (measured over 20 rubbers of each level: Normal 26% and 37%, Easy 9% and 39%).
SURE_KNOCK_ANYWAY: Final = 0.3
HIGH_STAY_ANYWAY: Final = 0.4
# How often a player with the habit is seen breaking it (a misread, a changed mind).
SLIP: Final = 0.02


def knock_is_sure(view: View) -> bool:
    """A knock on the line: the last trick is surely hers, counted from what she has seen."""
    return sure_of_last_trick(view)


def stay_is_high(view: View) -> bool:
    """A stay on a high card: one nothing left can beat in its suit, or a sure last trick."""
    return sure_of_last_trick(view) or any(sure_top(view, card) for card in view.cards)


def belief(fits: int, breaks: int, fits_anyway: float) -> float:
    """The probability of a habit after `fits` shown choices that fit it and `breaks` that do
    not; `fits_anyway` is how often a choice fits without the habit."""
    odds = PRIOR / (1.0 - PRIOR)
    odds *= (1.0 / fits_anyway) ** fits
    odds *= (SLIP / (1.0 - fits_anyway)) ** breaks
    return odds / (1.0 + odds)


def shown_choices(obs: Observation) -> Iterator[tuple[int, str, View]]:
    """For a hand played to its last trick: (seat, "knock" or "stay", the view she had then)
    for every knock and every answered stay of a player whose cards were all shown."""
    for seat, act, view, _ in shown_moments(obs):
        if act != "pass":
            yield seat, act, view


def shown_moments(obs: Observation) -> Iterator[tuple[int, str, View, int]]:
    """For a hand played to its last trick: (seat, act, the view she had then, the stake) for
    every choice of a player whose cards were all shown: "knock", "stay" (answering a knock,
    at the stake she answered) and "pass" (she played a card to a trick without knocking in
    it before her card: a knock chance let go, unless she made the last knock)."""
    if not obs.complete or obs.slate or len(obs.tricks) != TRICKS or obs.tricks[-1][2] is None:
        return
    n = len(obs.players)
    cards_of: list[list[int]] = [[] for _ in range(n)]
    for _, plays, _ in obs.tricks:
        for seat, card in plays:
            cards_of[seat].append(card)
    shown = {seat for seat in range(n) if len(cards_of[seat]) == TRICKS}
    if not shown:
        return
    # Cards out of play that every seat has seen: those challenges showed.
    seen = 0
    for _, _, laid, _ in obs.reveals:
        seen |= mask_of(laid)
    history = obs.history
    last_exchange = {action.seat: i for i, action in enumerate(history) if action.act == "exchange"}
    folded: set[int] = set()
    played = [0] * n
    trick_no = 0
    trick: list[tuple[int, int]] = []
    knocked = obs.poverty
    stake = 2 if obs.poverty else 1
    knocked_in_trick: set[int] = set()
    last_knocker = -1
    for i, action in enumerate(history):
        seat, act = action.seat, action.act
        telling = act == "knock" or (act == "stay" and knocked)
        # No chance let go by the last to knock: she may not knock again until another has.
        passing = act == "play" and seat not in knocked_in_trick and seat != last_knocker
        if (
            (telling or passing)
            and seat in shown
            and last_exchange.get(seat, -1) < i
            and trick_no < TRICKS
        ):
            cards = cards_of[seat][played[seat] :]
            others = [s for s in range(n) if s != seat and s not in folded]
            in_trick = {s for s, _ in trick}
            view = View(
                cards,
                ALL & ~(seen | mask_of(cards)),
                sum(TRICKS - played[s] for s in others),
                trick,
                sum(1 for s in others if s not in in_trick) if trick else 0,
                TRICKS - trick_no,
                not trick and _turn_at_start(obs, trick_no, folded) == seat,
                len(others),
                0,
                seat,
            )
            yield seat, "pass" if passing else act, view, stake
        if act == "play" and action.card is not None:
            trick.append((seat, action.card))
            played[seat] += 1
            seen |= 1 << action.card
            knocked = False
        elif act == "knock":
            knocked = True
            stake += 1
            knocked_in_trick.add(seat)
            last_knocker = seat
        elif act == "fold":
            folded.add(seat)
        if trick and trick_done(trick, n, folded):
            trick_no, trick = trick_no + 1, []
            knocked_in_trick = set()


def knocks_made(obs: Observation) -> Iterator[tuple[int, int]]:
    """(seat, tricks not yet decided) for every knock in the hand, shown or not."""
    n = len(obs.players)
    folded: set[int] = set()
    trick: list[tuple[int, int]] = []
    trick_no = 0
    for action in obs.history:
        seat, act = action.seat, action.act
        if act == "knock":
            yield seat, TRICKS - trick_no
        elif act == "play" and action.card is not None:
            trick.append((seat, action.card))
        elif act == "fold":
            folded.add(seat)
        if trick and trick_done(trick, n, folded):
            trick_no, trick = trick_no + 1, []


def shown_seats(obs: Observation) -> set[int]:
    """The seats whose every card a hand played to its last trick showed."""
    if not obs.complete or obs.slate or len(obs.tricks) != TRICKS or obs.tricks[-1][2] is None:
        return set()
    count = [0] * len(obs.players)
    for _, plays, _ in obs.tricks:
        for seat, _ in plays:
            count[seat] += 1
    return {seat for seat, cards in enumerate(count) if cards == TRICKS}


def trick_done(trick: list[tuple[int, int]], n: int, folded: set[int]) -> bool:
    """Every player still in has played to the trick (a fold may be what completes it)."""
    in_trick = {s for s, _ in trick}
    return all(s in in_trick for s in range(n) if s not in folded)


def _turn_at_start(obs: Observation, trick_no: int, folded: set[int]) -> int:
    """Whose turn it is before the first card of a trick, while the knocks are answered: the
    last trick's winner, or the dealer's left at the first (the poor player under poverty),
    passed on to the left past any player who has folded."""
    n = len(obs.players)
    winner = obs.tricks[trick_no - 1][2] if trick_no > 0 else None
    if winner is not None:
        turn = winner
    elif obs.poverty:
        turn = obs.tricks[0][0]
    else:
        turn = (obs.dealer + 1) % n
    for _ in range(n):
        if turn not in folded:
            break
        turn = (turn + 1) % n
    return turn
