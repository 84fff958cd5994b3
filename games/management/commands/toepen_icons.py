"""`manage.py toepen_icons`: draw the app's icons (a card with a heart on the felt) as PNGs.

Plain Python (zlib), so no imaging library is needed; the PNGs are committed in static/icons/.
A maskable icon fills its square; its card stays inside the central safe circle (40% radius).
"""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand

FELT = (0x1F, 0x5E, 0x3B)
CARD = (0xF6, 0xF3, 0xEA)
RED = (0xA3, 0x26, 0x1D)
SAMPLES = ((0.25, 0.25), (0.75, 0.25), (0.25, 0.75), (0.75, 0.75))


def _rounded(x: float, y: float, half_w: float, half_h: float, radius: float) -> bool:
    dx = max(abs(x) - (half_w - radius), 0.0)
    dy = max(abs(y) - (half_h - radius), 0.0)
    return dx * dx + dy * dy <= radius * radius


def _heart(x: float, y: float) -> bool:
    # (x² + y² - 1)³ - x² y³ <= 0, with y pointing up.
    a = x * x + y * y - 1
    return a * a * a - x * x * y * y * y <= 0


def _color(x: float, y: float, maskable: bool) -> tuple[int, int, int, int]:
    """The colour at (x, y) in [-1, 1]²."""
    if not maskable and not _rounded(x, y, 1.0, 1.0, 0.36):
        return (0, 0, 0, 0)
    scale = 0.78 if maskable else 1.0
    cx, cy = x / scale, y / scale
    if _rounded(cx + 0.06, cy - 0.06, 0.44, 0.6, 0.1):
        if _heart(cx * 2.9, -(cy - 0.06) * 2.9 + 0.15):
            return (*RED, 255)
        return (*CARD, 255)
    if _rounded(cx - 0.08, cy + 0.08, 0.44, 0.6, 0.1):
        return (0xD6, 0xD0, 0xC0, 255)
    return (*FELT, 255)


def draw(size: int, maskable: bool) -> bytes:
    rows = []
    for py in range(size):
        row = bytearray([0])
        for px in range(size):
            acc = [0, 0, 0, 0]
            for sx, sy in SAMPLES:
                r, g, b, a = _color((px + sx) / size * 2 - 1, (py + sy) / size * 2 - 1, maskable)
                acc[0] += r * a
                acc[1] += g * a
                acc[2] += b * a
                acc[3] += a
            alpha = acc[3] // 4
            if acc[3]:
                row += bytes((acc[0] // acc[3], acc[1] // acc[3], acc[2] // acc[3], alpha))
            else:
                row += b"\0\0\0\0"
        rows.append(bytes(row))
    return png(size, size, b"".join(rows))


def png(width: int, height: int, raw: bytes) -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(raw, 9))
        + chunk(b"IEND", b"")
    )


class Command(BaseCommand):
    help = "Draw the app icons into static/icons/."

    def handle(self, *args: object, **options: object) -> None:
        folder = Path(settings.BASE_DIR) / "static" / "icons"
        folder.mkdir(parents=True, exist_ok=True)
        for name, maskable in (("icon", False), ("maskable", True)):
            for size in (192, 512):
                path = folder / f"{name}-{size}.png"
                path.write_bytes(draw(size, maskable))
                self.stdout.write(f"{path.relative_to(settings.BASE_DIR)}")
