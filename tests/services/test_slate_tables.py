"""Slate tables through their services (games/services/slate.py): real cards, the app keeps
the slate."""

from __future__ import annotations

import html
import io
import itertools
import json
import re
from datetime import timedelta
from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.core.management import call_command
from django.utils import timezone

from clubs.models import HouseRuleProfile
from games.engine.rules import KROEG, SIWWESCHROOM, TOURNAMENT, HouseRules
from games.models import (
    ActionReceipt,
    PlayedHand,
    Rubber,
    RubberPlayer,
    Seat,
    SlateKeepers,
    Table,
)
from games.services import slate, tables
from games.services.slate import SlatePlayer
from games.services.snapshots import load_state
from games.services.state import Holder
from games.services.tables import TableError
from games.view.slate_html import render_slate, slate_context
from tests.personas import Cast, Persona
from tests.tables import ORIGIN, Phone
from toepen_site.asgi import application

pytestmark = pytest.mark.django_db(transaction=True)

ids = (f"entry-{n}" for n in itertools.count())


def profile(klaver: Cast, rules: HouseRules) -> HouseRuleProfile:
    found, _ = HouseRuleProfile.objects.get_or_create(
        club=klaver.club, rules_json=rules.to_json(), defaults={"name": f"House {next(ids)}"}
    )
    return found


def open_slate(klaver: Cast, rules: HouseRules = KROEG, players: int = 4, **options: Any) -> Table:
    people = [klaver.anna, klaver.bram, klaver.cas, klaver.dirk]
    seated = [SlatePlayer(p.name, p.user) for p in people[:players]]
    seated += [SlatePlayer(f"Guest {n}") for n in range(players - len(seated))]
    return slate.create_slate_table(
        club=klaver.club,
        user=klaver.anna.user,
        players=seated,
        profile=profile(klaver, rules),
        **options,
    )


def write(table: Table, act: str, seat: int, user: Any = None, **fields: Any) -> int:
    state = load_state(Table.objects.get(pk=table.pk))
    frame = {"act": act, "seat": seat, "hand": state.hand_name(), **fields}
    return slate.write(table.pk, user or table.created_by, frame, next(ids)).version


def next_hand(table: Table) -> int:
    """A keeper opens the next hand, the slate having shown what the last one cost whom."""
    state = load_state(Table.objects.get(pk=table.pk))
    return slate.next_hand(table.pk, table.created_by, state.hand_name(), next(ids)).version


def undo(table: Table) -> int:
    state = load_state(Table.objects.get(pk=table.pk))
    return slate.undo(table.pk, table.created_by, state.hand_name(), next(ids)).version


def answer_everything(table: Table) -> None:
    """Every answer the hand waits for (a knock's, poverty's), given as a stay."""
    state = load_state(Table.objects.get(pk=table.pk))
    assert state.hand is not None
    for hand_seat in state.hand.due():
        write(table, "stay", state.table_seat(hand_seat))


def finish_hand_won_by(table: Table, winner: int) -> None:
    """The hand ends (its last trick taken by `winner`), and the next one opens."""
    answer_everything(table)
    write(table, "last_trick", winner)
    if Table.objects.get(pk=table.pk).status == Table.Status.PLAYING:
        next_hand(table)


def play_out(table: Table) -> None:
    """Enter hands until the rubber is over: whoever sits left of the dealer knocks (while her
    lives allow), the others stay; seat 0 takes the last trick while she is in, else the
    knocker does."""
    for _ in range(100):
        table.refresh_from_db()
        if table.status == Table.Status.RUBBER_OVER:
            return
        answer_everything(table)
        state = load_state(table)
        assert state.hand is not None
        knocker = state.table_seat((state.hand.dealer + 1) % state.hand.n)
        if state.hand.lives[state.hand_seats.index(knocker)] > state.hand.stake:
            write(table, "knock", knocker)
            answer_everything(table)
        write(table, "last_trick", 0 if 0 in state.hand_seats else knocker)
        table.refresh_from_db()
        if table.status == Table.Status.PLAYING:
            next_hand(table)
    raise AssertionError("the rubber did not end")


def slate_rows(table: Table) -> list[Any]:
    """The slate's rows as its keeper sees them."""
    return slate_context(load_state(Table.objects.get(pk=table.pk)), True)["rows"]


def refusal(table: Table, act: str, seat: int, **fields: Any) -> TableError:
    before = Table.objects.get(pk=table.pk).version
    with pytest.raises(TableError) as raised:
        write(table, act, seat, **fields)
    assert Table.objects.get(pk=table.pk).version == before  # nothing changed
    return raised.value


def test_a_whole_kroeg_rubber_on_the_slate_counts_in_the_standings(klaver: Cast) -> None:
    table = open_slate(klaver)
    assert table.status == Table.Status.PLAYING and table.slate
    play_out(table)
    rubber = Rubber.objects.get(table=table)
    assert rubber.over and rubber.losers
    hands = list(PlayedHand.objects.filter(rubber=rubber))
    assert all(hand.complete and hand.record["slate"] for hand in hands)
    lost = {p.seat: p.lives_lost for p in RubberPlayer.objects.filter(rubber=rubber)}
    assert [KROEG.starting_lives - lost[seat] for seat in range(4)] == rubber.lives
    assert set(RubberPlayer.objects.filter(lost=True).values_list("seat", flat=True)) == set(
        rubber.losers
    )


def test_toepen_replay_replays_every_stored_slate_record_to_its_stored_result(
    klaver: Cast, tmp_path: Any
) -> None:
    table = open_slate(klaver, SIWWESCHROOM, players=3)
    write(table, "knock", 1)
    answer_everything(table)
    write(table, "last_trick", 1)
    next_hand(table)
    write(table, "fold", 2)
    finish_hand_won_by(table, 0)
    hands = list(PlayedHand.objects.filter(complete=True).order_by("number"))
    assert len(hands) == 2
    records = tmp_path / "slate.jsonl"
    records.write_text("\n".join(json.dumps(hand.record) for hand in hands))
    out = io.StringIO()
    call_command("toepen_replay", str(records), stdout=out)
    replayed = [json.loads(line) for line in out.getvalue().splitlines()]
    assert replayed == [hand.result for hand in hands]


def test_a_siwweschroom_rubber_goes_on_to_the_last_one_standing(klaver: Cast) -> None:
    table = open_slate(klaver, SIWWESCHROOM, players=3)
    for _ in range(60):
        table.refresh_from_db()
        if table.status == Table.Status.RUBBER_OVER:
            break
        state = load_state(table)
        finish_hand_won_by(table, state.hand_seats[0])
    rubber = Rubber.objects.get(table=table)
    assert rubber.over and rubber.winner == 0
    # Seats 1 and 2 went out one after another: the rubber went on after the first.
    assert rubber.lives[1:] == [0, 0]
    assert PlayedHand.objects.filter(rubber=rubber).count() == 7


def test_a_repeated_id_is_applied_once(klaver: Cast) -> None:
    table = open_slate(klaver, SIWWESCHROOM, players=3)
    state = load_state(table)
    frame = {"act": "knock", "seat": 1, "hand": state.hand_name()}
    first = slate.write(table.pk, klaver.anna.user, frame, "same-id")
    again = slate.write(table.pk, klaver.anna.user, frame, "same-id")
    assert again.duplicate and again.version == first.version
    assert PlayedHand.objects.get().record["actions"] == [{"seat": 1, "act": "knock"}]
    assert ActionReceipt.objects.filter(action_id="same-id").count() == 1


def test_every_refusal_says_why_and_changes_nothing(klaver: Cast) -> None:
    rules = HouseRules(folded_card_wins=False, max_knocks_per_player=1, voluntary_fold=True)
    table = open_slate(klaver, rules, players=4)
    state = load_state(table)
    assert refusal(table, "stay", 1).code == "not_awaited"
    write(table, "knock", 1)
    knocked_last = refusal(table, "last_trick", 2)
    assert knocked_last.code == "answers_awaited"
    answer_everything(table)
    refused = refusal(table, "knock", 1)
    assert refused.code == "cannot_knock"
    assert str(refused.message).startswith("Bram: ")
    write(table, "fold", 3)
    assert refusal(table, "last_trick", 3).code == "cannot_end"
    assert refusal(table, "play", 0, card="10H").code == "bad_action"
    assert refusal(table, "knock", 9).code == "bad_action"
    assert refusal(table, "knock", True).code == "bad_action"
    with pytest.raises(TableError) as stale:
        slate.write(table.pk, klaver.anna.user, {"act": "knock", "seat": 2, "hand": "1/9"}, "x1")
    assert stale.value.code == "stale_hand"
    with pytest.raises(TableError) as forged:
        slate.write(table.pk, klaver.anna.user, {"act": "knock", "seat": 2}, "no spaces!")
    assert forged.value.code == "bad_action"
    with pytest.raises(TableError) as keeper:
        slate.write(
            table.pk, klaver.bram.user, {"act": "knock", "seat": 2, "hand": state.hand_name()}, "x2"
        )
    assert keeper.value.code == "not_keeper"
    # A phone at the table cannot write a slate hand as a dealt one either.
    holder = Holder(user_id=klaver.anna.user.pk)
    with pytest.raises(TableError) as dealt:
        tables.act(table.pk, holder, 0, {"act": "knock", "hand": state.hand_name()}, "x3")
    assert dealt.value.code == "slate_table"
    assert ActionReceipt.objects.filter(action_id__in=["x1", "x2", "x3"]).count() == 0


def test_a_challenge_must_say_what_the_cards_showed(klaver: Cast) -> None:
    table = open_slate(klaver, HouseRules(), players=3)
    write(table, "exchange", 1)
    assert refusal(table, "challenge", 2, target=1).code == "bad_action"
    write(table, "challenge", 2, target=1, clean=False)
    assert PlayedHand.objects.get().record["actions"][-1] == {
        "seat": 2,
        "act": "challenge",
        "target": 1,
        "clean": False,
    }


def test_an_entry_for_a_slate_of_another_table_is_refused(klaver: Cast) -> None:
    table = open_slate(klaver, SIWWESCHROOM, players=3)
    other = open_slate(klaver, SIWWESCHROOM, players=3)
    Rubber.objects.filter(table=other).update(number=7)  # its hands are named "7/1"
    with pytest.raises(TableError) as raised:
        slate.write(table.pk, klaver.anna.user, {"act": "knock", "seat": 1, "hand": "7/1"}, "y")
    assert raised.value.code == "stale_hand"


def test_keepers_are_whom_the_table_allows(klaver: Cast) -> None:
    creator_only = open_slate(klaver, SIWWESCHROOM, players=3)
    members = open_slate(klaver, SIWWESCHROOM, players=3, keepers=SlateKeepers.MEMBERS)
    anyone = open_slate(klaver, SIWWESCHROOM, players=3, keepers=SlateKeepers.ANYONE)
    bram, eva = klaver.bram.user, klaver.eva.user
    assert not slate.may_keep(creator_only, bram)
    assert slate.may_keep(members, bram) and not slate.may_keep(members, eva)
    assert slate.may_keep(anyone, eva)
    write(members, "knock", 1, user=bram)
    write(anyone, "knock", 1, user=eva)


def test_undoing_and_redoing_a_whole_hand_gives_the_same_slate(klaver: Cast) -> None:
    table = open_slate(klaver, KROEG, players=4)
    initial = Rubber.objects.get().lives
    entries = [("knock", 1, {}), ("stay", 2, {}), ("fold", 3, {}), ("stay", 0, {})]
    entries.append(("last_trick", 2, {}))

    def play_the_hand() -> None:
        for act, seat, fields in entries:
            write(table, act, seat, **fields)

    play_the_hand()
    first = PlayedHand.objects.get(number=1)
    result, lives = first.result, Rubber.objects.get().lives
    assert lives != initial and first.complete
    # What the hand cost whom is on the slate, with its undo, until a keeper opens the next.
    assert not PlayedHand.objects.filter(number=2).exists()
    next_hand(table)
    assert PlayedHand.objects.filter(number=2, complete=False).exists()
    undo(table)  # back into the finished hand: its last entry undone
    assert not PlayedHand.objects.filter(number=2).exists()
    for _ in entries[1:]:
        undo(table)
    first.refresh_from_db()
    assert first.record["actions"] == [] and not first.complete and first.result is None
    assert Rubber.objects.get().lives == initial
    assert set(RubberPlayer.objects.values_list("lives_lost", flat=True)) == {0}
    with pytest.raises(TableError) as nothing:
        undo(table)
    assert nothing.value.code == "nothing_to_undo"
    play_the_hand()
    first.refresh_from_db()
    assert first.result == result and Rubber.objects.get().lives == lives


def test_the_slate_shows_what_a_hand_cost_whom_with_undo_before_the_next_hand(
    klaver: Cast,
) -> None:
    table = open_slate(klaver, KROEG, players=4)
    for act, seat in (("knock", 1), ("stay", 2), ("fold", 3), ("stay", 0)):
        write(table, act, seat)
    write(table, "last_trick", 2)
    # The last trick is written: no next hand yet, and the slate says who lost what.
    state = load_state(Table.objects.get(pk=table.pk))
    assert state.hand_name() == "1/1" and state.hand.complete
    view = render_slate(state, True)
    lost = PlayedHand.objects.get(number=1).result["lives_lost"]
    assert lost == [2, 2, 0, 1]
    result = re.search(r'<div class="slate-result" role="status">(.*?)</div>', view, re.S)
    assert result is not None, view
    said = html.unescape(result.group(1))
    assert "Cas wins the hand." in said
    for name, lives in (("Anna", 2), ("Bram", 2), ("Dirk", 1)):
        assert f"{name} loses {lives} li" in said, said
    assert "Next hand" in said and "Undo" in said
    assert "Next hand" not in render_slate(state, False)  # a follower only reads it
    # An entry on the finished hand is refused; a keeper opens the next one, once.
    assert refusal(table, "knock", 1).code == "hand_over"
    with pytest.raises(TableError) as stale:
        slate.next_hand(table.pk, table.created_by, "1/2", "deal-1")
    assert stale.value.code == "stale_hand"
    with pytest.raises(TableError) as not_keeper:
        slate.next_hand(table.pk, klaver.eva.user, "1/1", "deal-2")
    assert not_keeper.value.code == "not_keeper"
    next_hand(table)
    state = load_state(Table.objects.get(pk=table.pk))
    assert state.hand_name() == "1/2" and not state.hand.complete
    assert "slate-result" not in render_slate(state, True)
    with pytest.raises(TableError) as under_way:
        slate.next_hand(table.pk, table.created_by, "1/2", "deal-3")
    assert under_way.value.code == "not_over"


def test_undo_reopens_the_hand_that_ended_the_rubber(klaver: Cast) -> None:
    table = open_slate(klaver, HouseRules(starting_lives=1, min_players=2), players=2)
    finish_hand_won_by(table, 0)
    table.refresh_from_db()
    assert table.status == Table.Status.RUBBER_OVER
    assert RubberPlayer.objects.get(seat=1).lost
    undo(table)
    table.refresh_from_db()
    rubber = Rubber.objects.get()
    assert table.status == Table.Status.PLAYING and not rubber.over and rubber.lives == [1, 1]
    assert not RubberPlayer.objects.filter(lost=True).exists()
    finish_hand_won_by(table, 1)
    assert Rubber.objects.get().losers == [0]


# -- away from the table (rules.md 3.8) ------------------------------------------------------


def away(table: Table, seat: int, reason: str | None = None, user: Any = None) -> int:
    """A keeper writes that the player in `seat` is away for `reason`, or back (None)."""
    state = load_state(Table.objects.get(pk=table.pk))
    frame: dict[str, Any] = {"seat": seat, "hand": state.hand_name()}
    if reason is None:
        return slate.come_back(table.pk, user or table.created_by, frame, next(ids)).version
    frame["reason"] = reason
    return slate.go_away(table.pk, user or table.created_by, frame, next(ids)).version


def away_refused(table: Table, seat: int, reason: str | None = None, user: Any = None) -> Any:
    before = Table.objects.get(pk=table.pk).version
    with pytest.raises(TableError) as raised:
        away(table, seat, reason, user)
    assert Table.objects.get(pk=table.pk).version == before  # nothing changed
    return raised.value


def the_table_acts(table: Table) -> bool:
    """Whatever the table does by itself next (its deadlines all passed)."""
    return tables.fire_deadline(table.pk, timezone.now() + timedelta(hours=1))


def immune(table: Table) -> list[int]:
    """The table seats immune in the hand under way."""
    state = load_state(Table.objects.get(pk=table.pk))
    assert state.hand_row is not None
    return [state.table_seat(s) for s in state.hand_row.record.get("immune", [])]


def test_on_a_break_the_table_folds_for_her_on_a_knock_and_does_nothing_else(
    klaver: Cast,
) -> None:
    table = open_slate(klaver, SIWWESCHROOM, players=3)
    away(table, 2, "break")
    assert Seat.objects.get(table=table, index=2).away == "break"
    table.refresh_from_db()
    assert table.deadline_at is None  # nothing is due from her: the table waits
    write(table, "knock", 1)
    write(table, "stay", 0)
    assert the_table_acts(table)
    record = PlayedHand.objects.get().record["actions"]
    assert record[-1] == {"seat": 2, "act": "fold", "auto": True}
    table.refresh_from_db()
    assert table.deadline_at is None and not the_table_acts(table)
    away(table, 2)  # back: at once, from a break
    assert Seat.objects.get(table=table, index=2).away == ""
    # The slate says what the table did.
    html = render_slate(load_state(table), True)
    assert "Cas folds (by the table)" in html


def test_a_fold_by_the_table_that_ends_a_slate_hand_leaves_the_next_hand_to_a_keeper(
    klaver: Cast,
) -> None:
    table = open_slate(klaver, SIWWESCHROOM, players=3)
    away(table, 2, "break")
    write(table, "knock", 1)
    write(table, "fold", 0)
    assert the_table_acts(table)  # Cas folds: Bram alone is in, the hand is over
    first = PlayedHand.objects.get()
    assert first.complete and first.result["winner"] == 1
    table.refresh_from_db()
    assert table.deadline_at is None and not the_table_acts(table)  # the end stays shown
    next_hand(table)
    assert PlayedHand.objects.filter(number=2, complete=False).exists()


def test_a_round_bought_before_the_real_cards_come_makes_her_immune_in_that_hand(
    klaver: Cast,
) -> None:
    table = open_slate(klaver, SIWWESCHROOM, players=3)
    write(table, "knock", 1)
    refused = away_refused(table, 2, "round")
    assert refused.code == "not_between_hands" and str(refused.message).startswith("Cas: ")
    answer_everything(table)
    write(table, "last_trick", 1)
    next_hand(table)
    # Hand 2 is on the slate with nothing written on it: the cards are still to be dealt.
    lives = Rubber.objects.get().lives
    away(table, 2, "round")
    assert immune(table) == [2] and PlayedHand.objects.count() == 2
    write(table, "knock", 0)
    write(table, "stay", 1)
    assert the_table_acts(table)  # folds for her: she is away
    write(table, "last_trick", 0)
    next_hand(table)
    assert Rubber.objects.get().lives[2] == lives[2]  # immune: no life lost
    # Her round covered hand 2 alone (rules.md 3.8): in hand 3 she is on a break, not immune.
    assert immune(table) == [] and Seat.objects.get(table=table, index=2).away == "break"
    assert "stay" not in [b["act"] for b in slate_rows(table)[2].buttons]
    away(table, 2)
    assert immune(table) == [] and Seat.objects.get(table=table, index=2).away == ""
    assert away_refused(table, 2, "round").code == "round_bought"


def test_a_player_buying_the_round_has_no_entry_of_her_own_on_the_slate(klaver: Cast) -> None:
    table = open_slate(klaver, SIWWESCHROOM, players=3)
    away(table, 2, "round")
    write(table, "knock", 1)
    # Her answer is the table's (it folds for her): the slate offers the keeper none for her.
    assert [b["act"] for b in slate_rows(table)[2].buttons] == []
    assert refusal(table, "stay", 2).code == "immune"


def test_back_from_a_round_in_a_hand_under_way_counts_at_the_next_deal(klaver: Cast) -> None:
    table = open_slate(klaver, SIWWESCHROOM, players=3)
    away(table, 2, "round")
    assert immune(table) == [2]
    write(table, "knock", 1)
    away(table, 2)
    seat = Seat.objects.get(table=table, index=2)
    assert seat.away == "round" and seat.back_at_deal and immune(table) == [2]
    assert away_refused(table, 2).code == "not_away"
    write(table, "stay", 0)
    assert the_table_acts(table)
    write(table, "last_trick", 1)
    next_hand(table)
    assert immune(table) == [] and Seat.objects.get(table=table, index=2).away == ""


def test_back_before_any_hand_was_dealt_to_her_buying_leaves_her_round_to_buy(
    klaver: Cast,
) -> None:
    table = open_slate(klaver, SIWWESCHROOM, players=3)
    away(table, 1, "round")
    assert immune(table) == [1]
    away(table, 1)
    assert immune(table) == []
    away(table, 1, "round")  # a slip of the thumb cost her nothing
    assert immune(table) == [1]


def test_every_away_refusal_says_why_and_changes_nothing(klaver: Cast) -> None:
    table = open_slate(klaver, SIWWESCHROOM, players=3, keepers=SlateKeepers.MEMBERS)
    assert away_refused(table, 1).code == "not_away"
    away(table, 1, "break")
    assert away_refused(table, 1, "break").code == "already_away"
    assert away_refused(table, 1, "nap").code == "bad_action"
    assert away_refused(table, 7, "break").code == "bad_action"
    assert away_refused(table, 2, "break", user=klaver.eva.user).code == "not_keeper"
    with pytest.raises(TableError) as stale:
        slate.go_away(
            table.pk, klaver.anna.user, {"seat": 2, "reason": "break", "hand": "1/9"}, "z1"
        )
    assert stale.value.code == "stale_hand"
    tournament = open_slate(klaver, TOURNAMENT, players=3)
    refused = away_refused(tournament, 1, "break")
    assert refused.code == "no_away" and str(refused.message).startswith("Bram: ")


# -- the slate's websocket -------------------------------------------------------------------


async def slate_phone(person: Persona, code: str) -> Phone:
    communicator = WebsocketCommunicator(
        application,
        f"/ws/slates/{code}/",
        headers=[(b"cookie", person.cookie()), ORIGIN, (b"host", b"localhost")],
    )
    connected, _ = await communicator.connect(timeout=5)
    assert connected
    phone = Phone(person, communicator)
    await phone.receive()
    return phone


async def acked(phone: Phone, action_id: str) -> None:
    """Frames until the server says it took `action_id` (views of the change may come first)."""
    for _ in range(10):
        frame = await phone.receive()
        if frame.startswith("{"):
            assert json.loads(frame) == {"ack": action_id}
            return
    raise AssertionError("no ack")


def last_view(phone: Phone) -> str:
    return next(f for f in reversed(phone.frames) if "slate-live" in f)


def slate_attrs(html: str) -> dict[str, str]:
    match = re.search(r'<div id="slate-live"([^>]*)>', html)
    assert match, html[:300]
    return dict(re.findall(r'data-([a-z-]+)="([^"]*)"', match.group(1)))


async def test_two_phones_keep_one_slate_and_a_follower_only_watches(klaver: Cast) -> None:
    table = await database_sync_to_async(open_slate)(
        klaver, SIWWESCHROOM, players=3, keepers=SlateKeepers.MEMBERS
    )
    anna = await slate_phone(klaver.anna, table.code)
    bram = await slate_phone(klaver.bram, table.code)
    eva = await slate_phone(klaver.eva, table.code)
    assert "data-frame" in anna.frames[-1] and "data-frame" not in eva.frames[-1]
    hand = slate_attrs(anna.frames[-1])["hand"]
    await anna.send({"act": "knock", "seat": 1, "hand": hand, "id": "a-1"})
    await acked(anna, "a-1")
    await bram.send({"act": "stay", "seat": 2, "hand": hand, "id": "b-1"})
    await bram.drain()
    await anna.drain()
    await eva.drain()
    versions = {slate_attrs(last_view(p))["version"] for p in (anna, bram, eva)}
    assert len(versions) == 1
    assert "Bram knocks" in last_view(eva) and "Cas stays" in last_view(eva)
    await eva.send({"act": "stay", "seat": 0, "hand": hand, "id": "e-1"})
    refused = await eva.receive()
    assert 'data-code="not_keeper"' in refused and 'data-id="e-1"' in refused
    await anna.send({"type": "undo", "hand": hand, "id": "a-2"})
    await acked(anna, "a-2")
    await anna.send({"act": "knock", "seat": 1, "hand": hand, "id": "a-1"})  # a repeated id
    await acked(anna, "a-1")
    record = await database_sync_to_async(lambda: PlayedHand.objects.get().record)()
    assert record["actions"] == [{"seat": 1, "act": "knock"}]
    for phone in (anna, bram, eva):
        await phone.close()


async def test_a_slate_socket_to_a_dealt_table_is_closed_as_not_found(klaver: Cast) -> None:
    table = await database_sync_to_async(tables.create_table)(
        club=klaver.club, user=klaver.anna.user
    )
    communicator = WebsocketCommunicator(
        application,
        f"/ws/slates/{table.code}/",
        headers=[(b"cookie", klaver.anna.cookie()), ORIGIN, (b"host", b"localhost")],
    )
    connected, code = await communicator.connect(timeout=5)
    assert not connected or code == 4404 or (await communicator.receive_output())["code"] == 4404


async def test_a_refused_entry_comes_with_what_another_phone_counted_since(klaver: Cast) -> None:
    table = await database_sync_to_async(open_slate)(
        klaver, SIWWESCHROOM, players=3, keepers=SlateKeepers.MEMBERS
    )
    anna = await slate_phone(klaver.anna, table.code)
    bram = await slate_phone(klaver.bram, table.code)
    attrs = slate_attrs(anna.frames[-1])
    hand, base = attrs["hand"], int(attrs["step"])
    # Anna's phone, offline, holds Bram's knock; meanwhile Bram's phone writes Cas's knock.
    await bram.send({"act": "knock", "seat": 2, "hand": hand, "base": base, "id": "b-1"})
    await acked(bram, "b-1")
    await anna.drain()
    await anna.send({"act": "knock", "seat": 1, "hand": hand, "base": base, "id": "a-1"})
    refused = await anna.receive()
    assert 'data-code="answers_awaited"' in refused and 'data-id="a-1"' in refused
    since = re.search(r'<ol id="slate-since" data-id="a-1" hidden>(.*?)</ol>', refused)
    assert since, refused
    entries = re.findall(r'<li data-entry="([^"]*)">([^<]*)</li>', since.group(1))
    assert [(json.loads(html.unescape(e)), text) for e, text in entries] == [
        ({"act": "knock", "seat": 2}, "Entered on another phone: Cas knocks")
    ]
    # Seen from after Cas's knock, nothing was counted meanwhile.
    await anna.send({"act": "knock", "seat": 1, "hand": hand, "base": base + 1, "id": "a-2"})
    assert '<ol id="slate-since" data-id="a-2" hidden></ol>' in await anna.receive()
    for phone in (anna, bram):
        await phone.close()
