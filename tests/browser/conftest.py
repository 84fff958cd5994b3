"""A real daphne, a real chromium (Debian's, never downloaded), phones emulated with touch.

The server runs in a subprocess against a SQLite file prepared with `migrate`, with fast
clocks; people and tables are set up by `tests/browser/seed.py` in a process of its own, kept
for the server's life. Screenshots of each step go to test-artifacts/browser/.
"""

from __future__ import annotations

import atexit
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.browser.seed import Seeder
from tests.conftest import require_service
from tests.scaleout.servers import migrate

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = Path("/usr/bin/chromium")
ARTIFACTS = ROOT / "test-artifacts" / "browser"
CHROME_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
PHONE = {
    "viewport": {"width": 360, "height": 740},
    "device_scale_factor": 2,
    "is_mobile": True,
    "has_touch": True,
    "user_agent": (
        "Mozilla/5.0 (Linux; Android 14; Pixel 7) AppleWebKit/537.36 "
        "(KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36"
    ),
    "locale": "en-GB",
}
# Every navigator.vibrate call is kept on window, so a test can tell the phone was buzzed.
RECORD_VIBRATE = """
window.__vibrations = [];
Object.defineProperty(Navigator.prototype, "vibrate", {
  configurable: true,
  value: function (pattern) { window.__vibrations.push(pattern); return true; },
});
"""

pytestmark = pytest.mark.browser


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class LiveServer:
    """daphne on a loopback port; stop() and start() again to restart it mid-game."""

    def __init__(self, folder: Path, **clocks: str) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.env = {
            **os.environ,
            "DATABASE_URL": f"sqlite:///{folder / 'db.sqlite3'}",
            "DJANGO_SETTINGS_MODULE": "tests.browser.settings",
            "DJANGO_ALLOWED_HOSTS": "127.0.0.1,localhost",
            "DJANGO_DEBUG": "true",
            "TOEPEN_BOT_SECONDS": "0.3",
            "TOEPEN_LAUNDRY_SECONDS": "1",
            "TOEPEN_CHALLENGE_SECONDS": "1",
            "TOEPEN_BETWEEN_HANDS_SECONDS": "2",
            "TOEPEN_HEARTBEAT_SECONDS": "1",
            # As in production: the compressed files collectstatic wrote (collected_static),
            # not the finders.
            "DJANGO_STATIC_FROM_FINDERS": "false",
            "PYTHONUNBUFFERED": "1",
            **clocks,  # a server of its own with other clocks (TOEPEN_LAUNDRY_SECONDS="30")
        }
        self.log = folder / "daphne.log"
        self.process: subprocess.Popen[bytes] | None = None
        self.seeders: dict[str, Seeder] = {}
        migrate(self.env)
        self.env["DJANGO_STATIC_ROOT"] = collected_static(self.env)

    def start(self) -> None:
        with self.log.open("ab") as log:
            self.process = subprocess.Popen(
                [
                    str(Path(sys.executable).parent / "daphne"),
                    "-b",
                    "127.0.0.1",
                    "-p",
                    str(self.port),
                    "toepen_site.asgi:application",
                ],
                cwd=ROOT,
                env=self.env,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        # A bound for a machine busy with other work, not a wait: it listens within seconds.
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.5):
                    return
            except OSError:
                if self.process.poll() is not None:
                    break
                time.sleep(0.05)
        self.stop()  # one that did not listen in time is not left behind
        raise RuntimeError(f"daphne did not start: {self.log.read_text()[-2000:]}")

    def stop(self) -> None:
        if self.process is None:
            return
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.process = None

    def seed(self, **spec: Any) -> dict[str, Any]:
        """What `python -m tests.browser.seed '<spec>'` makes and prints (seed.py)."""
        return self.seed_with("tests.browser.seed", spec)

    def seed_with(self, module: str, spec: dict[str, Any]) -> dict[str, Any]:
        if module not in self.seeders:
            log = self.log.with_name(f"{module.rsplit('.', 1)[1]}.log")
            self.seeders[module] = Seeder(module, self.env, ROOT, log)
        return self.seeders[module].ask(spec)

    def close(self) -> None:
        """The server stopped, and its seeders."""
        self.stop()
        for seeder in self.seeders.values():
            seeder.close()
        self.seeders.clear()


# The folder collectstatic wrote into, once a process (collected_static).
_STATIC: list[str] = []


def collected_static(env: dict[str, str]) -> str:
    """A folder with the files `collectstatic` writes (compressed, with their hashed names), as
    production serves them: collected by the first server of this process, the same for all."""
    if not _STATIC:
        folder = tempfile.mkdtemp(prefix="toepen-static-")
        atexit.register(shutil.rmtree, folder, True)
        subprocess.run(
            [sys.executable, "manage.py", "collectstatic", "--noinput", "-v", "0"],
            cwd=ROOT,
            env={**env, "DJANGO_STATIC_ROOT": folder},
            check=True,
        )
        _STATIC.append(folder)
    return _STATIC[0]


# Package scope, not session: Playwright's sync API keeps an event loop running in the main
# thread while it is open, and the async tests that run after the browser tests need it closed.
@pytest.fixture(scope="package")
def daphne_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    require_service("chromium", CHROMIUM.exists())
    server = LiveServer(tmp_path_factory.mktemp("live"))
    server.start()
    try:
        yield server
    finally:
        server.close()


@pytest.fixture(scope="package")
def playwright() -> Iterator[Any]:
    require_service("chromium", CHROMIUM.exists())
    os.environ["PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD"] = "1"
    from playwright.sync_api import expect, sync_playwright

    # What a page is expected to show, it shows within a fraction of a second on an idle
    # machine; the bound is for one busy with the rest of the suite.
    expect.set_options(timeout=15_000)
    with sync_playwright() as driver:
        yield driver


@pytest.fixture(scope="package")
def browser(playwright: Any) -> Iterator[Any]:
    browser = playwright.chromium.launch(
        executable_path=str(CHROMIUM), args=CHROME_ARGS, headless=True
    )
    try:
        yield browser
    finally:
        browser.close()


class Phones:
    """Opens phone-sized browser contexts, signed in with a session cookie or as nobody."""

    def __init__(self, browser: Any, server: LiveServer, test_name: str) -> None:
        self.browser = browser
        self.server = server
        self.contexts: list[Any] = []
        self.folder = ARTIFACTS / re.sub(r"[^A-Za-z0-9_]+", "_", test_name)
        self.folder.mkdir(parents=True, exist_ok=True)
        for old in self.folder.glob("*.png"):  # this run's steps only
            old.unlink()
        self.shots = 0

    def open(self, session: str | None = None, **options: Any) -> Any:
        context = self.browser.new_context(**{**PHONE, **options})
        context.add_init_script(RECORD_VIBRATE)
        if session:
            context.add_cookies([{"name": "sessionid", "value": session, "url": self.server.url}])
        self.contexts.append(context)
        page = context.new_page()
        page.set_default_timeout(10_000)
        # A page load waits on a server that shares the machine with the rest of the suite.
        page.set_default_navigation_timeout(30_000)
        return page

    def shot(self, page: Any, step: str) -> None:
        self.shots += 1
        page.screenshot(path=str(self.folder / f"{self.shots:02d}-{step}.png"))

    def close(self) -> None:
        for context in self.contexts:
            context.close()


@pytest.fixture
def phones(
    browser: Any, daphne_server: LiveServer, request: pytest.FixtureRequest
) -> Iterator[Phones]:
    kit = Phones(browser, daphne_server, request.node.name)
    try:
        yield kit
    finally:
        kit.close()


def swipe(page: Any, selector: str, dy: float, steps: int = 8) -> None:
    """A finger on `selector` moved `dy` px down, as touch events (Chromium makes pointer
    events of them, pointerType "touch")."""
    box = page.locator(selector).bounding_box()
    for _ in range(20):  # a view swapped in just then: ask the new one
        if box is not None:
            break
        page.wait_for_timeout(50)
        box = page.locator(selector).bounding_box()
    assert box is not None, selector
    x = box["x"] + box["width"] / 2
    y = box["y"] + box["height"] / 2
    cdp = page.context.new_cdp_session(page)

    def touch(kind: str, at_y: float) -> None:
        points = [] if kind == "touchEnd" else [{"x": x, "y": at_y, "id": 1}]
        cdp.send("Input.dispatchTouchEvent", {"type": kind, "touchPoints": points})

    touch("touchStart", y)
    for step in range(1, steps + 1):
        touch("touchMove", y + dy * step / steps)
        page.wait_for_timeout(16)
    touch("touchEnd", y + dy)
    cdp.detach()


def double_tap(page: Any, selector: str) -> None:
    box = page.locator(selector).bounding_box()
    assert box is not None, selector
    x = box["x"] + box["width"] / 2
    y = box["y"] + box["height"] - 10
    page.touchscreen.tap(x, y)
    page.wait_for_timeout(80)
    page.touchscreen.tap(x, y)


def version(page: Any) -> int:
    return int(page.locator("#table-live").get_attribute("data-version") or -1)


def tap(target: Any, timeout: float = 3000) -> bool:
    """Tap what the phone showed a moment ago, as a player does: False when the view moved
    on before the tap (a computer player knocked, the hand ended), so the caller looks again
    rather than waiting for a card that will not come back."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    try:
        target.click(timeout=timeout)
    except PlaywrightTimeout:
        return False
    return True
