"""One phone flooding its table's socket as fast as a client can send, under each real server:
the server closes it with the flood code within seconds, and another phone at the same table
keeps its answers and its pages meanwhile.

The flooder is a process of its own (tests/scaleout/flooder.py), as a client on another
machine would be: in the test's own loop it would slow down the phone it is measured against.
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
from typing import Any

import pytest

from games.live.consumers import CLOSE_FLOOD
from tests.scaleout.conftest import Embedded, close_all, seat_phones
from tests.scaleout.http import Browser
from tests.scaleout.phones import Signal
from tests.scaleout.servers import REPO, base_env, seed

pytestmark = pytest.mark.server

# How long the flooding socket may stay open: the table closes it at its 31st frame within 3 s,
# and the server reads little after that (daphne drops it a second after the close).
CLOSED_WITHIN = 5.0
# How long the other phone may wait for an answer, or its page, while the flood runs: tens of
# milliseconds on an idle machine; generous for one at load 10.
ANSWERED_WITHIN = 3.0
# How long the other phone is watched: the flood and a while after it.
WATCHED = 3.0
# How long the flooder keeps on if it is never closed.
GIVE_UP = 20.0


async def flooded(url: str, session: str) -> dict[str, Any]:
    """What the flooder says when the server closed it (or it gave up)."""
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        *("-m", "tests.scaleout.flooder", url, session, "--for", str(GIVE_UP)),
        cwd=REPO,
        env=base_env(),
        stdout=asyncio.subprocess.PIPE,
    )
    try:
        out, _ = await asyncio.wait_for(proc.communicate(), GIVE_UP + 20)
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()
    return dict(json.loads(out.decode().strip().splitlines()[-1]))


async def test_a_flooding_socket_is_closed_and_the_others_are_served(embedded: Embedded) -> None:
    server = embedded.server
    (info,) = await asyncio.to_thread(seed, embedded.env)
    flooder, other = info["phones"][0], info["phones"][1]
    signal = Signal()
    table = await seat_phones({**info, "phones": [other]}, [server.port] * 4, signal)
    (phone,) = table.phones
    browser = Browser(server.port, cookies={"sessionid": other["session"]})
    page = f"/t/{info['code']}/"
    # The process's first page renders its templates for the first time: not measured.
    assert (await asyncio.to_thread(browser.get, page)).status == 200
    answers: list[float] = []
    pages: list[float] = []
    flooding = asyncio.create_task(
        flooded(f"ws://127.0.0.1:{server.port}/ws/tables/{info['code']}/", flooder["session"])
    )
    start = time.monotonic()

    async def served() -> None:
        """A sync and its view, then the table's page, a few times a second."""
        while not flooding.done() or time.monotonic() - start < WATCHED:
            seen = len(phone.views)
            asked = time.monotonic()
            await phone.send({"type": "sync"})
            await signal.until(lambda seen=seen: len(phone.views) > seen, 30, "the view")
            answers.append(time.monotonic() - asked)
            asked = time.monotonic()
            shown = await asyncio.to_thread(browser.get, page)
            assert shown.status == 200, shown.status
            pages.append(time.monotonic() - asked)
            await asyncio.sleep(0.2)

    watching = asyncio.create_task(served())
    try:
        result = await asyncio.wait_for(asyncio.shield(flooding), GIVE_UP + 30)
        await asyncio.wait_for(watching, 60)
    finally:
        for task in (flooding, watching):
            task.cancel()
        await close_all(table)
    assert result["code"] == CLOSE_FLOOD, result
    assert result["seconds"] < CLOSED_WITHIN, result
    assert max(answers) < ANSWERED_WITHIN, (result, answers)
    assert max(pages) < ANSWERED_WITHIN, (result, pages)
