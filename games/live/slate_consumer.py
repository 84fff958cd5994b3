"""A slate table's websocket: every phone with the code follows the slate; a keeper writes.

The table's own consumer (games/live/consumers.py) with the slate's frames and view: the same hub
renders it on every change, the same limits and errors apply. An entry may carry `base`, the
number of entries of its hand the phone showed when it was tapped: a refusal comes with the
entries counted since (`#slate-since`). Frames:

- `{"act": "knock", "seat": 2, "hand": "1/3", "id": "…"}`: an entry for that table seat (also
  `stay fold exchange last_trick`, and `challenge` with `target` and `clean`);
- `{"type": "undo", "hand": "1/3", "id": "…"}`: one step back;
- `{"type": "next_hand", "hand": "1/3", "id": "…"}`: the next hand, once the slate has shown
  what hand 1/3 cost whom;
- `{"type": "away", "seat": 2, "reason": "break", "hand": "1/3", "id": "…"}` (or `"round"`), and
  `{"type": "back", "seat": 2, "hand": "1/3", "id": "…"}`: a player away from the table, and back;
- `{"type": "next_rubber"}` once a rubber is over; `{"type": "sync"}`: the view again.
"""

from __future__ import annotations

import json
from typing import Any

from channels.db import database_sync_to_async
from django.utils import translation
from django.utils.translation import gettext_lazy as _

from games import throttle
from games.live.consumers import (
    CLOSE_NOT_FOUND,
    TableConsumer,
)
from games.models import Table
from games.services import slate, tables
from games.services.snapshots import view_state
from games.services.state import TableState
from games.services.tables import TableError
from games.view.parts import Shared
from games.view.slate_html import render_refusal, render_slate


class SlateConsumer(TableConsumer):
    by_code = True

    async def connect(self) -> None:
        code = str(self.scope["url_route"]["kwargs"]["code"]).upper()
        self.user = user = self.begin()
        if await self.guessing_codes():
            return
        found = await database_sync_to_async(_slate_access)(code, user)
        if found is None:
            await self.close(code=CLOSE_NOT_FOUND)
            return
        await throttle.give_back_for_socket(self.scope, "code")
        self.table_id, self.can_keep = found
        # The code is what lets a phone follow a slate: it holds no seat, watches by the code.
        self.seats, self.may_watch, self.can_start, self.can_close = (), True, False, False
        await self.come_in()

    async def handle_frame(self, frame: dict[str, Any]) -> None:
        kind = frame.get("type", "action")
        action_id = frame.get("id")
        if kind == "sync":
            await self.send_view(force=True)
            return
        if kind == "next_rubber":
            await tables.achange(self.table_id, slate.starting_next_rubber(self.user))
            return
        entry = {k: v for k, v in frame.items() if k not in ("type", "id")}
        if kind == "action":
            decision = slate.writing(self.user, entry)
        elif kind == "undo":
            decision = slate.undoing(self.user, frame.get("hand"))
        elif kind == "next_hand":
            decision = slate.dealing_next_hand(self.user, frame.get("hand"))
        elif kind == "away":
            decision = slate.going_away(self.user, entry)
        elif kind == "back":
            decision = slate.coming_back(self.user, entry)
        elif kind == "buy_back":
            decision = slate.buying_back(self.user, entry)
        else:
            raise TableError("bad_frame", _("Unknown frame type."))
        try:
            tables.check_action_id(action_id)
            outcome = await tables.achange(self.table_id, decision, action_id)
        except TableError as error:
            await self.send_refusal(error, frame)
            return
        await self.send(text_data=json.dumps({"ack": action_id}))
        if outcome.duplicate:
            await self.send_view(force=True)

    async def send_refusal(self, error: TableError, frame: dict[str, Any]) -> None:
        """The refusal of an entry, with what was counted on its hand since the slate the
        keeper tapped it on (`base`: how many entries it showed): an entry queued offline may
        be refused for what another phone wrote meanwhile, and the phone shows both."""
        counted = await database_sync_to_async(slate.counted_since)(
            self.table_id, frame.get("hand"), frame.get("base")
        )
        action_id = frame.get("id")
        with translation.override(self.language):
            html = render_refusal(
                str(error.message),
                error.code,
                action_id if isinstance(action_id, str) else "",
                counted,
            )
        await self.send(text_data=html)

    def _render_now(self) -> tuple[int, str | None]:
        state = view_state(self.table_id)
        return state.table.version, self.render(state)

    def render(
        self, state: TableState, shared: Shared | None = None, seats: tuple[int, ...] | None = None
    ) -> str:
        with translation.override(self.language):
            return render_slate(state, self.can_keep)


def _slate_access(code: str, user: Any) -> tuple[int, bool] | None:
    table = Table.objects.select_related("club").filter(code=code, slate=True).first()
    if table is None:
        return None
    return table.pk, slate.may_keep(table, user)
