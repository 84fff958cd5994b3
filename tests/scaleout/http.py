"""Plain HTTP to a real server process, on its port or its Unix socket, as a phone or a proxy
asks: what a test needs to see a status, a body and a cookie, with every wait bounded."""

from __future__ import annotations

import http.client
import re
import socket
from dataclasses import dataclass, field
from urllib.parse import urlencode

CSRF_INPUT = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')


class _UnixConnection(http.client.HTTPConnection):
    def __init__(self, path: str, timeout: float) -> None:
        super().__init__("localhost", timeout=timeout)
        self.unix = path

    def connect(self) -> None:
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(self.timeout)
        self.sock.connect(self.unix)


@dataclass
class Answer:
    status: int
    body: str
    headers: dict[str, str]


@dataclass
class Browser:
    """One visitor: its cookies kept from answer to answer (no redirect followed)."""

    port: int = 0
    unix: str | None = None
    host: str = "127.0.0.1"
    cookies: dict[str, str] = field(default_factory=dict)
    timeout: float = 20

    def request(
        self, method: str, path: str, form: dict[str, str] | None = None, **headers: str
    ) -> Answer:
        if self.unix:
            conn: http.client.HTTPConnection = _UnixConnection(self.unix, self.timeout)
        else:
            conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=self.timeout)
        sent = {"Host": self.host, **headers}
        if self.cookies:
            sent["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        body = None
        if form is not None:
            body = urlencode(form)
            sent["Content-Type"] = "application/x-www-form-urlencoded"
            sent.setdefault("Origin", f"http://{self.host}")
            sent.setdefault("Referer", f"http://{self.host}/")
        try:
            conn.request(method, path, body=body, headers=sent)
            response = conn.getresponse()
            text = response.read().decode(errors="replace")
            for name, value in response.getheaders():
                if name.lower() == "set-cookie":
                    key, _, rest = value.partition("=")
                    self.cookies[key.strip()] = rest.split(";", 1)[0]
            return Answer(response.status, text, {k.lower(): v for k, v in response.getheaders()})
        finally:
            conn.close()

    def get(self, path: str, **headers: str) -> Answer:
        return self.request("GET", path, **headers)

    def post_form(self, page: str, path: str, form: dict[str, str] | None = None) -> Answer:
        """POST `form` to `path` with the CSRF token of the form on `page`, as a browser does."""
        shown = self.get(page)
        token = CSRF_INPUT.search(shown.body)
        assert token is not None, f"no form with a CSRF token on {page}: {shown.status}"
        return self.request("POST", path, {**(form or {}), "csrfmiddlewaretoken": token[1]})
