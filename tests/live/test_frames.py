"""The websocket edge: who may connect, and what a bad frame gets (an error there, no change)."""

from __future__ import annotations

import asyncio
import json
import threading
from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.layers import get_channel_layer
from channels.testing import WebsocketCommunicator
from django.db.models import Field
from django.test import Client

from clubs.models import Membership
from games.models import Table
from games.services import slate, store, tables
from games.services.slate import SlatePlayer
from tests.personas import Cast, Persona, guest, member
from tests.tables import ORIGIN, Phone, aseat_people, connect, live_attrs
from toepen_site.asgi import application

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]

HAND = "1/1"  # the first hand of the first rubber, as a phone's buttons name it


@database_sync_to_async
def started_table(klaver: Cast, allow_spectators: bool = True) -> Table:
    # Four people and no computer player: nothing moves unless a test makes it.
    table = tables.create_table(
        club=klaver.club,
        user=klaver.anna.user,
        allow_spectators=allow_spectators,
        holder_key=klaver.anna.holder_key,
    )
    from tests.tables import seat_people

    seat_people(table.pk, [(1, klaver.bram), (2, klaver.cas), (3, klaver.dirk)])
    tables.start_rubber(table.pk, klaver.anna.user)
    return Table.objects.get(pk=table.pk)


@database_sync_to_async
def version_of(table: Table) -> int:
    return Table.objects.get(pk=table.pk).version


async def refused(phone: Phone, frame: object, text: str) -> None:
    """Send a frame; the error about it must come back (computer players' moves may come too)."""
    await phone.send(frame if isinstance(frame, str) else json.dumps(frame))
    for _ in range(20):
        reply = await phone.receive()
        if "table-live" not in reply:
            break
    assert 'id="table-error"' in reply and "table-live" not in reply
    assert text.lower() in reply.lower(), reply


async def test_bad_frames_get_an_error_on_that_socket_only_and_change_nothing(
    klaver: Cast,
) -> None:
    table = await started_table(klaver)
    anna = await connect(klaver.anna, table.code)
    bram = await connect(klaver.bram, table.code)
    await anna.drain()
    await bram.drain()
    before = await version_of(table)

    await refused(anna, "knock please", "not JSON")
    await refused(anna, "[1, 2]", "JSON object")
    await refused(anna, {"act": "shout", "seat": 0, "id": "a1", "hand": HAND}, "unknown act")
    await refused(anna, {"act": "knock", "seat": 1, "id": "a2", "hand": HAND}, "not your seat")
    await refused(anna, {"act": "knock", "seat": "0", "id": "a3", "hand": HAND}, "not your seat")
    await refused(anna, {"act": "knock", "seat": 0, "hand": HAND}, "needs an id")
    await refused(
        anna,
        {"act": "play", "seat": 0, "card": "11H", "id": "a4", "hand": HAND},
        "not one of the 32",
    )
    await refused(anna, {"type": "teleport"}, "unknown frame type")
    await refused(anna, {"act": "knock", "seat": 0, "id": "x" * 5000, "hand": HAND}, "too large")
    await anna.communicator.send_to(bytes_data=b"\x00\x01")
    replies = [await anna.receive()]
    while "table-live" in replies[-1]:
        replies.append(await anna.receive())
    assert "frames must be text" in replies[-1].lower()

    assert await version_of(table) == before
    assert await bram.communicator.receive_nothing(timeout=0.3)
    await anna.close()
    await bram.close()


async def test_an_illegal_move_is_refused_with_the_engines_reason(klaver: Cast) -> None:
    table = await started_table(klaver)
    anna = await connect(klaver.anna, table.code)

    @database_sync_to_async
    def card_she_does_not_hold() -> tuple[str, str]:
        from games.engine import TOKENS
        from games.services.snapshots import load_state

        state = load_state(Table.objects.get(pk=table.pk))
        assert state.hand is not None
        seat = state.hand_seat(0)
        card = next(c for c in range(32) if c not in state.hand.hands[seat])
        due = state.hand.to_play == seat
        return TOKENS[card], "you do not hold that card" if due else "it is not your turn"

    card, reason = await card_she_does_not_hold()
    before = await version_of(table)
    await refused(anna, {"act": "play", "seat": 0, "card": card, "id": "b1", "hand": HAND}, reason)
    assert await version_of(table) == before
    await anna.close()


async def test_too_many_frames_a_second_are_refused_and_a_flood_closes_the_socket(
    klaver: Cast,
) -> None:
    table = await started_table(klaver)
    anna = await connect(klaver.anna, table.code)
    await anna.drain()
    for _ in range(12):
        await anna.send({"type": "sync"})
    replies = await anna.drain(timeout=0.5)
    assert any("slow down" in reply.lower() for reply in replies)
    for _ in range(40):
        await anna.send({"type": "sync"})
    closed = False
    for _ in range(80):
        message = await anna.communicator.receive_output(timeout=2)
        if message["type"] == "websocket.close":
            assert message["code"] == 4429
            closed = True
            break
    assert closed


async def test_a_socket_closed_for_flooding_reads_nothing_more(klaver: Cast) -> None:
    """What a flooding phone sent before it heard of the close is not read: one close, and no
    refusal or second close for each frame that follows (under daphne they come by thousands,
    each a turn of the process's loop)."""
    table = await started_table(klaver)
    anna = await connect(klaver.anna, table.code)
    await anna.drain()
    for _ in range(200):
        await anna.send("x")
    heard = []
    while not await anna.communicator.receive_nothing(timeout=0.5):
        heard.append(await anna.communicator.receive_output(timeout=2))
    closes = [message for message in heard if message["type"] == "websocket.close"]
    assert closes == [{"type": "websocket.close", "code": 4429}], len(closes)
    assert heard[-1] == closes[0]


async def test_a_repeated_action_id_is_applied_once(klaver: Cast) -> None:
    table = await started_table(klaver)
    bram = await connect(klaver.bram, table.code)

    @database_sync_to_async
    def knock_frame() -> dict | None:
        from games.services.snapshots import load_state

        state = load_state(Table.objects.get(pk=table.pk))
        assert state.hand is not None
        seat = state.hand_seat(1)
        if any(a.act == "knock" for a in state.hand.legal_actions(seat)):
            return {"act": "knock", "seat": 1, "id": "same-id-twice", "hand": HAND}
        return None

    frame = await knock_frame()
    assert frame is not None, "Bram may knock at the start of a hand"
    before = await version_of(table)
    await bram.send(frame)
    await bram.send(frame)
    await bram.drain(timeout=0.5)
    after = await version_of(table)
    from games.models import PlayedHand

    actions = await database_sync_to_async(
        lambda: PlayedHand.objects.filter(rubber__table=table).latest("number").record["actions"]
    )()
    assert sum(1 for a in actions if a == {"seat": 1, "act": "knock"}) == 1
    assert after > before
    await bram.close()


async def test_an_action_is_answered_by_its_view_one_frame_for_each_phone(klaver: Cast) -> None:
    table = await started_table(klaver)
    anna = await connect(klaver.anna, table.code)
    bram = await connect(klaver.bram, table.code)
    frame = await knock_frame_for(table, 1, "knock1")
    await bram.send(frame)
    mine, theirs = await bram.drain(timeout=0.5), await anna.drain(timeout=0.5)
    # The player who knocked hears one frame, her view of the knock, which answers her action;
    # the others hear the view alone.
    assert len(mine) == 1 and live_attrs(mine[0])["ack"] == "knock1", mine
    assert live_attrs(mine[0])["knocks"] == "1"
    assert len(theirs) == 1 and "ack" not in live_attrs(theirs[0]), theirs
    assert "knock1" not in theirs[0]
    # Sent again (a reconnect, a lost answer): nothing changes, and the answer comes alone.
    await bram.send(frame)
    again = await bram.drain(timeout=0.5)
    assert again[0] == '{"ack": "knock1"}' and "ack" not in live_attrs(again[1])
    assert await anna.drain(timeout=0.3) == []
    await anna.close()
    await bram.close()


async def test_connecting_watching_and_acting_make_no_model_field(klaver: Cast) -> None:
    # Each model field made at run time (as `QuerySet.exists()` makes one) changes the class
    # `Field`, and CPython gives a class a thousand changes before it stops caching lookups on
    # it and its subclasses: a live server's own work makes none (games.services.access).
    table = await started_table(klaver)
    watcher = await database_sync_to_async(member)(klaver.club, "hanna")
    before = Field.creation_counter, Field.auto_creation_counter
    anna = await connect(klaver.anna, table.code)
    bram = await connect(klaver.bram, table.code)
    hanna = await connect(watcher, table.code)
    await bram.send(await knock_frame_for(table, 1, "knock1"))
    assert live_attrs((await bram.drain(timeout=0.5))[0])["ack"] == "knock1"
    for phone in (anna, hanna):
        assert live_attrs((await phone.drain(timeout=0.5))[0])["knocks"] == "1"
    assert (Field.creation_counter, Field.auto_creation_counter) == before
    # And the check notices one when it is made.
    await database_sync_to_async(Membership.objects.filter(club=klaver.club).exists)()
    assert Field.creation_counter == before[0] + 1
    for phone in (anna, bram, hanna):
        await phone.close()


async def test_an_answer_whose_view_was_overtaken_goes_on_its_own() -> None:
    """A newer view may reach a phone before the one that answers its action (two changes
    rendered on two threads): the answer must still reach the phone, by itself."""
    from games.live.consumers import TableConsumer

    phone = TableConsumer()
    sent: list[str] = []

    async def send(text_data: str) -> None:
        sent.append(text_data)

    phone.send = send  # type: ignore[method-assign]
    phone.awaiting, phone.answers, phone.last_version = set(), {"a1": 7, "a2": 9}, 8
    await phone.deliver(7, '<div id="table-live" data-version="7" data-ack="a1">')
    assert sent == ['{"ack": "a1"}']  # version 8 went first: 7 is dropped, its answer is not
    await phone.deliver(10, '<div id="table-live" data-version="10">')
    # a2's view (9) was lost on its way; the next one does not carry it: the answer comes alone.
    assert sent[1:] == ['{"ack": "a2"}', '<div id="table-live" data-version="10">']
    assert phone.answers == {}


async def test_a_view_asked_for_never_takes_a_phone_back_a_version() -> None:
    """A view a phone asks for (a sync, a seat to show, an action sent twice after a reconnect)
    is rendered in a worker thread; a newer change may reach the phone meanwhile. The rendered
    view must then not go out after it: it is rendered again, and an older one is dropped."""
    from games.live.consumers import TableConsumer

    phone = TableConsumer()
    sent: list[str] = []
    renders = [(11, "view 11"), (12, "view 12")]

    async def send(text_data: str) -> None:
        sent.append(text_data)

    def render_now() -> tuple[int, str]:
        version, html = renders.pop(0)
        phone.last_version = max(phone.last_version, 12)  # the hub sent 12 during the render
        return version, html

    phone.send = send  # type: ignore[method-assign]
    phone._render_now = render_now  # type: ignore[method-assign]
    phone.last_version = 10
    await phone.send_view(force=True)
    assert sent == ["view 12"] and phone.last_version == 12 and renders == []

    renders[:] = [(11, "view 11"), (11, "view 11 again")]
    await phone.send_view(force=True)
    assert sent == ["view 12"] and phone.last_version == 12  # still older: dropped
    renders[:] = [(12, "view 12 again")]
    await phone.send_view(force=True)  # the same version, asked for: sent again
    renders[:] = [(12, "view 12 once more")]
    await phone.send_view()  # on connect: the phone has it
    assert sent == ["view 12", "view 12 again"] and renders == []


async def test_a_foreign_origin_is_refused(klaver: Cast) -> None:
    table = await started_table(klaver)
    communicator = WebsocketCommunicator(
        application,
        f"/ws/tables/{table.code}/",
        headers=[(b"cookie", klaver.anna.cookie()), (b"origin", b"https://evil.example")],
    )
    connected, _ = await communicator.connect(timeout=5)
    assert not connected


async def test_one_session_cannot_open_unlimited_sockets(klaver: Cast, settings) -> None:
    settings.TOEPEN_SOCKETS_PER_SESSION = 2
    table = await started_table(klaver)
    first = await connect(klaver.anna, table.code)
    second = await connect(klaver.anna, table.code)
    third = WebsocketCommunicator(
        application,
        f"/ws/tables/{table.code}/",
        headers=[(b"cookie", klaver.anna.cookie()), ORIGIN, (b"host", b"localhost")],
    )
    connected, _ = await third.connect(timeout=5)
    assert connected  # accepted only to be told why, in a frame, then closed with 4429
    assert "too many table pages open" in await third.receive_from(timeout=5)
    assert (await third.receive_output(timeout=5)) == {"type": "websocket.close", "code": 4429}
    # Another person's sockets are her own; and a socket closed makes room again.
    await (await connect(klaver.bram, table.code)).close()
    await first.close()
    again = await connect(klaver.anna, table.code)
    await again.close()
    await second.close()


async def dial(person: Persona, path: str, address: str) -> WebsocketCommunicator:
    """A socket of `person`'s browser from the client address `address`, not yet connected."""
    communicator = WebsocketCommunicator(
        application,
        path,
        headers=[(b"cookie", person.cookie()), ORIGIN, (b"host", b"localhost")],
    )
    communicator.scope["client"] = (address, 40000)
    return communicator


async def refused_for(communicator: WebsocketCommunicator, words: str) -> None:
    """Accepted only to be told why, in a frame, then closed with 4429."""
    connected, _ = await communicator.connect(timeout=5)
    assert connected
    assert words in await communicator.receive_from(timeout=5)
    closed = await communicator.receive_output(timeout=5)
    assert closed == {"type": "websocket.close", "code": 4429}


async def let_in(communicator: WebsocketCommunicator) -> None:
    connected, _ = await communicator.connect(timeout=5)
    assert connected
    assert "-live" in await communicator.receive_from(timeout=5)


@database_sync_to_async
def slate_table(klaver: Cast) -> Table:
    players = [SlatePlayer(name) for name in ("Anna", "Bram", "Cas")]
    return slate.create_slate_table(club=klaver.club, user=klaver.anna.user, players=players)


@pytest.mark.parametrize("door", ["slates", "tables"])
async def test_a_socket_tries_codes_no_faster_than_a_page_may(
    klaver: Cast, settings, door: str
) -> None:
    # A wrong code counts against the client's TOEPEN_CODE_GUESS_RATE at either door, as on
    # the pages; past it even the right code is refused, from that address only.
    settings.TOEPEN_CODE_GUESS_RATE = (3, 600)
    table = await slate_table(klaver)
    for wrong in ("AAAAAA", "BBBBBB", "CCCCCC"):
        guess = await dial(klaver.eva, f"/ws/{door}/{wrong}/", "198.51.100.7")
        connected, _ = await guess.connect(timeout=5)
        assert not connected or (await guess.receive_output(timeout=5))["code"] == 4404
    guesser = await dial(klaver.eva, f"/ws/slates/{table.code}/", "198.51.100.7")
    await refused_for(guesser, "tried too often")
    follower = await dial(klaver.eva, f"/ws/slates/{table.code}/", "198.51.100.8")
    await let_in(follower)
    await follower.disconnect()


async def test_a_client_throttled_over_http_is_throttled_on_its_sockets_too(
    klaver: Cast, settings
) -> None:
    settings.TOEPEN_CODE_GUESS_RATE = (3, 600)
    table = await slate_table(klaver)
    page = Client(REMOTE_ADDR="198.51.100.9")
    for wrong in ("AAAAAA", "BBBBBB", "CCCCCC"):
        assert (await database_sync_to_async(page.get)(f"/t/{wrong}/")).status_code == 404
    assert (await database_sync_to_async(page.get)(f"/t/{table.code}/")).status_code == 429
    await refused_for(
        await dial(klaver.eva, f"/ws/slates/{table.code}/", "198.51.100.9"), "tried too often"
    )


async def test_a_code_that_finds_its_table_costs_a_socket_no_try(klaver: Cast, settings) -> None:
    settings.TOEPEN_CODE_GUESS_RATE = (2, 600)
    table = await slate_table(klaver)
    for _ in range(5):
        follower = await dial(klaver.eva, f"/ws/slates/{table.code}/", "198.51.100.10")
        await let_in(follower)
        await follower.disconnect()


async def test_the_sockets_of_one_address_are_bounded_however_many_sessions_it_makes(
    klaver: Cast, settings
) -> None:
    settings.TOEPEN_SOCKETS_PER_SESSION = 2
    settings.TOEPEN_SOCKETS_PER_CLIENT = 3
    table = await slate_table(klaver)
    path = f"/ws/slates/{table.code}/"
    held = []
    for person in (klaver.anna, klaver.anna, klaver.bram):
        held.append(await dial(person, path, "198.51.100.11"))
        await let_in(held[-1])
    # A fresh session from the same address is still one client too many.
    await refused_for(await dial(klaver.cas, path, "198.51.100.11"), "from this network")
    elsewhere = await dial(klaver.cas, path, "198.51.100.12")
    await let_in(elsewhere)
    # A socket closed makes room again, and a refused one held none.
    await held.pop().disconnect()
    held.append(await dial(klaver.cas, path, "198.51.100.11"))
    await let_in(held[-1])
    for communicator in (*held, elsewhere):
        await communicator.disconnect()


async def opens(
    klaver: Cast, code: str, host: str, origin: str, *more: tuple[bytes, bytes]
) -> bool:
    communicator = WebsocketCommunicator(
        application,
        f"/ws/tables/{code}/",
        headers=[
            (b"cookie", klaver.anna.cookie()),
            (b"host", host.encode()),
            (b"origin", origin.encode()),
            *more,
        ],
    )
    connected, _ = await communicator.connect(timeout=5)
    await communicator.disconnect()
    return bool(connected)


@pytest.mark.parametrize(
    ("host", "origin"),
    [
        ("localhost:8000", "http://localhost:9000"),  # another port of the same host
        ("localhost", "http://localhost:8000"),
        ("localhost:8000", "https://localhost:8000"),  # an https page, a plain ws socket
        ("localhost", "https://localhost"),
        ("localhost:8000", "http://evil.example:8000"),  # another host
        ("localhost:8000", "http://localhost.evil.example:8000"),
        ("localhost:8000", "null"),
    ],
)
async def test_a_socket_from_another_origin_is_refused(
    klaver: Cast, host: str, origin: str
) -> None:
    table = await started_table(klaver)
    assert await opens(klaver, table.code, host, "http://" + host)  # the page's own origin
    assert not await opens(klaver, table.code, host, origin)


async def test_behind_a_proxy_the_forwarded_scheme_counts_and_only_then(
    klaver: Cast, settings
) -> None:
    table = await started_table(klaver)
    forwarded = (b"x-forwarded-proto", b"https")
    assert not await opens(klaver, table.code, "localhost", "https://localhost", forwarded)
    settings.SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    assert await opens(klaver, table.code, "localhost", "https://localhost", forwarded)
    assert not await opens(klaver, table.code, "localhost", "http://localhost", forwarded)


async def test_a_trusted_origin_may_open_a_socket(klaver: Cast, settings) -> None:
    table = await started_table(klaver)
    settings.CSRF_TRUSTED_ORIGINS = ["https://toepen.example.nl", "https://*.klaver.example"]
    assert await opens(klaver, table.code, "localhost:8000", "https://toepen.example.nl")
    assert await opens(klaver, table.code, "localhost:8000", "https://tafel.klaver.example")
    assert not await opens(klaver, table.code, "localhost:8000", "http://toepen.example.nl")
    assert not await opens(klaver, table.code, "localhost:8000", "https://toepen.example.nl:8443")


async def test_only_seated_players_and_watching_members_may_connect(klaver: Cast) -> None:
    table = await started_table(klaver)
    # Eva is not a member and has no seat.
    eva = WebsocketCommunicator(
        application, f"/ws/tables/{table.code}/", headers=[(b"cookie", klaver.eva.cookie()), ORIGIN]
    )
    assert not (await eva.connect(timeout=5))[0]
    # Anyone without a session at all.
    stranger = WebsocketCommunicator(application, f"/ws/tables/{table.code}/", headers=[ORIGIN])
    assert not (await stranger.connect(timeout=5))[0]
    # A table code that does not exist.
    nowhere = WebsocketCommunicator(
        application, "/ws/tables/NOPE42/", headers=[(b"cookie", klaver.anna.cookie()), ORIGIN]
    )
    assert not (await nowhere.connect(timeout=5))[0]
    # Femke is a member without a seat: she may watch this table.
    hanna = await database_sync_to_async(member)(klaver.club, "hanna")
    watcher = await connect(hanna, table.code)
    assert 'data-active=""' in watcher.frames[0]
    await watcher.close()


async def test_members_may_not_watch_a_table_that_does_not_allow_it(klaver: Cast) -> None:
    table = await started_table(klaver, allow_spectators=False)
    hanna = await database_sync_to_async(member)(klaver.club, "hanna")
    watcher = WebsocketCommunicator(
        application, f"/ws/tables/{table.code}/", headers=[(b"cookie", hanna.cookie()), ORIGIN]
    )
    assert not (await watcher.connect(timeout=5))[0]


async def test_a_guest_with_a_seat_plays_from_her_session(klaver: Cast) -> None:
    table = await database_sync_to_async(tables.create_table)(
        club=klaver.club,
        user=klaver.anna.user,
        bots={2: "easy", 3: "easy"},
        holder_key=klaver.anna.holder_key,
    )
    fenna = await database_sync_to_async(guest)("Fenna")
    await aseat_people(table.pk, [(1, fenna)])
    phone = await connect(fenna, table.code)
    assert 'data-seat="1"' in phone.frames[0]
    assert "is-mine" in phone.frames[0]
    await phone.close()


async def test_a_reconnecting_phone_gets_the_full_current_view(klaver: Cast) -> None:
    table = await started_table(klaver)
    anna = await connect(klaver.anna, table.code)
    await anna.close()
    again = await connect(klaver.anna, table.code)
    attrs = live_attrs(again.frames[0])
    assert int(attrs["version"]) == await version_of(table)
    assert attrs["hand"] == "1"
    await again.send({"type": "sync"})
    assert live_attrs(await again.receive())["version"] == attrs["version"]
    await again.close()


@database_sync_to_async
def speaks_dutch(person: Persona) -> None:
    person.user.language = "nl"
    person.user.save(update_fields=["language"])


async def test_a_dutch_player_is_refused_in_dutch(klaver: Cast) -> None:
    table = await started_table(klaver)
    await speaks_dutch(klaver.anna)
    anna = await connect(klaver.anna, table.code)
    await refused(
        anna, {"act": "knock", "seat": 1, "id": "nl1", "hand": HAND}, "Dat is niet jouw plaats."
    )
    await anna.close()


async def test_phones_at_one_table_each_see_its_change_in_their_own_language(
    klaver: Cast,
) -> None:
    table = await started_table(klaver)
    await speaks_dutch(klaver.anna)
    anna = await connect(klaver.anna, table.code)
    bram = await connect(klaver.bram, table.code)
    await bram.send(await knock_frame_for(table, 1, "knock1"))
    dutch, english = await anna.drain(timeout=0.5), await bram.drain(timeout=0.5)
    # One render pass for both phones, in two languages (the stake and the knocks are shared).
    assert len(dutch) == 1 and "Inzet: 2" in dutch[0] and "Stake" not in dutch[0], dutch
    assert len(english) == 1 and "Stake: 2" in english[0] and "Inzet" not in english[0], english
    await anna.close()
    await bram.close()


async def test_a_phone_takes_no_channel_of_its_own_on_the_layer(klaver: Cast) -> None:
    # Changes reach phones through their process's hub: a channel per phone would only cost
    # every message a blocking receive more behind Redis.
    table = await started_table(klaver)
    layer = get_channel_layer()
    before = set(layer.channels)
    anna = await connect(klaver.anna, table.code)
    bram = await connect(klaver.bram, table.code)
    await anna.send({"type": "sync"})
    assert "table-live" in await anna.receive()
    assert set(layer.channels) == before
    await anna.close()
    await bram.close()


async def test_a_frame_that_needs_no_database_is_answered_while_the_database_thread_is_busy(
    klaver: Cast,
) -> None:
    """A phone's frame is not queued behind the database thread (Channels' dispatch would make
    a trip there before every message): a refusal, or an action on the quick path, comes back
    while that thread is still busy with something else (here: held by the test)."""
    table = await started_table(klaver)
    anna = await connect(klaver.anna, table.code)
    await anna.drain()
    busy, release = threading.Event(), threading.Event()

    def hold() -> None:
        busy.set()
        release.wait(10)

    held = asyncio.ensure_future(database_sync_to_async(hold)())
    try:
        while not busy.is_set():
            await asyncio.sleep(0.01)
        await anna.send("knock please")
        reply = await anna.receive(timeout=2)
        assert 'id="table-error"' in reply and "not JSON" in reply
        assert not held.done()  # still held: the answer did not wait for the thread
    finally:
        release.set()
        await held
    await anna.close()


@database_sync_to_async
def knock_frame_for(table: Table, seat: int, action_id: str) -> dict:
    """A knock by `seat` that the engine allows now (at the start of a hand, anyone may)."""
    from games.services.snapshots import load_state

    state = load_state(Table.objects.get(pk=table.pk))
    assert state.hand is not None
    assert any(a.act == "knock" for a in state.hand.legal_actions(state.hand_seat(seat)))
    return {"act": "knock", "seat": seat, "id": action_id, "hand": state.hand_name()}


@database_sync_to_async
def actions_of(table: Table) -> list[dict]:
    from games.models import PlayedHand

    return PlayedHand.objects.filter(rubber__table=table).latest("number").record["actions"]


async def test_a_phone_cannot_claim_its_action_was_automatic(klaver: Cast) -> None:
    table = await started_table(klaver)
    bram = await connect(klaver.bram, table.code)
    frame = await knock_frame_for(table, 1, "auto1")
    before = await version_of(table)
    await refused(bram, {**frame, "auto": True}, "cannot claim to be automatic")
    await refused(bram, {**frame, "auto": False}, "cannot claim to be automatic")
    assert await version_of(table) == before
    assert await actions_of(table) == []
    await bram.close()


async def test_show_takes_only_a_whole_seat_number_of_ones_own(klaver: Cast) -> None:
    table = await started_table(klaver)
    anna = await connect(klaver.anna, table.code)
    for seat in (0.0, True, "0", [0], None, 1):
        await refused(anna, {"type": "show", "seat": seat}, "not your seat")
    await anna.close()


async def test_an_action_made_on_an_earlier_hand_is_refused_with_its_code(klaver: Cast) -> None:
    table = await started_table(klaver)
    bram = await connect(klaver.bram, table.code)
    frame = await knock_frame_for(table, 1, "stale1")
    before = await version_of(table)
    # A knock tapped on a frozen screen that still showed the last rubber's first hand.
    await refused(bram, {**frame, "hand": "0/1"}, "earlier hand")
    assert 'data-code="stale_hand"' in bram.frames[-1]
    await refused(bram, {k: v for k, v in frame.items() if k != "hand"}, "name the hand")
    assert await version_of(table) == before
    # The same knock, naming the hand it was made on, is taken.
    await bram.send(frame)
    await bram.drain(timeout=0.5)
    assert await actions_of(table) == [{"seat": 1, "act": "knock"}]
    await bram.close()


async def test_a_database_error_during_an_action_asks_the_phone_to_send_it_again(
    klaver: Cast, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    from django.db import OperationalError

    table = await started_table(klaver)
    bram = await connect(klaver.bram, table.code)
    frame = await knock_frame_for(table, 1, "retry1")
    real_write, real_loop_write = store.commit, store.SqliteLoopWriter.write
    calls = 0

    def write_once_away(*args, **kwargs):
        nonlocal calls
        calls += 1
        if calls == 1:
            raise OperationalError("server closed the connection unexpectedly")
        return real_write(*args, **kwargs)

    async def loop_write_once_away(self, *args, **kwargs):
        if calls == 0:
            return False  # what the loop's write says of any error: a worker thread decides
        return await real_loop_write(self, *args, **kwargs)

    # The one write of every change fails once, as a dropped database connection does: on
    # the loop's connection, and then in the worker thread that decides it again.
    monkeypatch.setattr(store, "commit", write_once_away)
    monkeypatch.setattr(store.SqliteLoopWriter, "write", loop_write_once_away)
    await refused(bram, frame, "catching up")
    reply = bram.frames[-1]
    assert 'data-code="retry"' in reply and 'data-id="retry1"' in reply
    assert await actions_of(table) == []
    assert not [r for r in caplog.records if r.levelname in ("ERROR", "CRITICAL")]
    # The socket is still open; the phone sends the same action again, and again after that.
    await bram.send(frame)
    frames = await bram.drain(timeout=0.5)
    assert [live_attrs(f).get("ack") for f in frames] == ["retry1"]  # taken: its view says so
    await bram.send(frame)
    frames = await bram.drain(timeout=0.5)
    assert '{"ack": "retry1"}' in frames  # a repeated id: the answer alone, and the view
    assert await actions_of(table) == [{"seat": 1, "act": "knock"}]
    await bram.close()


async def words_until(phone: Phone, wanted: str, limit: int = 25) -> set[str]:
    """The words (frames other than views) the phone hears before the word `wanted`, which
    must come within `limit` frames."""
    heard: list[str] = []
    while len(heard) < limit:
        heard.append(await phone.receive(timeout=2))
        if heard[-1] == wanted:
            return {frame for frame in heard[:-1] if not frame.startswith("<")}
    raise AssertionError(f"{wanted} never came: {heard}")


async def test_a_quiet_phone_hears_the_heartbeat_and_that_the_server_waits_for_its_database(
    klaver: Cast, settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A frame every round: the phone is read frame by frame, never drained until silence."""
    from django.db import OperationalError

    beat, wait = '{"beat":1}', '{"wait":1}'
    settings.TOEPEN_HEARTBEAT_SECONDS = 0.2
    table = await started_table(klaver)
    anna = await connect(klaver.anna, table.code)
    await anna.drain(timeout=0.1)
    # A round whose database work outlasts it says the server waits (a cold process's first).
    assert await words_until(anna, beat) <= {wait}

    def away(*args, **kwargs):
        raise OperationalError("the database is away")

    # A server that cannot reach the database does not say it is fine: the phone hears that
    # it waits for its database, once a round, and says so (static/js/table.js). A beat of
    # the round under way may come first.
    monkeypatch.setattr(store, "mark_seen_all", away)
    assert await words_until(anna, wait) <= {beat}
    assert await words_until(anna, wait) == set()
    monkeypatch.undo()
    assert await words_until(anna, beat) <= {wait}
    await anna.close()
