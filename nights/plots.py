"""Small plots drawn on the server as SVG: no chart library, no script, readable on a phone.

Each plot scales to its box (viewBox, width 100%), names itself for screen readers, and
carries its figures as <title> tooltips.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from html import escape
from typing import Any

from django.utils import formats
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext as _

WIDTH = 320
HEIGHT = 140
PAD_LEFT = 26
PAD_BOTTOM = 20
PAD_TOP = 8


def _svg(label: str, body: str) -> SafeString:
    return mark_safe(  # noqa: S308 - every text in `body` and `label` is escaped
        f'<svg class="plot" viewBox="0 0 {WIDTH} {HEIGHT}" role="img" '
        f'aria-label="{escape(label)}" xmlns="http://www.w3.org/2000/svg">{body}</svg>'
    )


def _axis(top: float) -> str:
    bottom = HEIGHT - PAD_BOTTOM
    return (
        f'<line class="axis" x1="{PAD_LEFT}" y1="{bottom}" x2="{WIDTH}" y2="{bottom}"/>'
        f'<text class="tick" x="{PAD_LEFT - 4}" y="{PAD_TOP + 8}" text-anchor="end">'
        f"{escape(_number(top))}</text>"
        f'<text class="tick" x="{PAD_LEFT - 4}" y="{bottom}" text-anchor="end">0</text>'
    )


def _number(value: float) -> str:
    return formats.number_format(round(value, 1), decimal_pos=0 if value == int(value) else 1)


def month_bars(months: Sequence[dict[str, Any]]) -> SafeString:
    """Rubbers played (pale) and won (dark) per month; the latest 24 months with play."""
    months = list(months)[-24:]
    label = _("Rubbers played and won per month")
    if not months:
        return _svg(label, "")
    top = max(m["rubbers"] for m in months) or 1
    inner = HEIGHT - PAD_BOTTOM - PAD_TOP
    slot = (WIDTH - PAD_LEFT) / len(months)
    bar = max(slot * 0.7, 1)
    parts = [_axis(top)]
    every = max(1, len(months) // 6)
    for i, month in enumerate(months):
        x = PAD_LEFT + i * slot + (slot - bar) / 2
        played = month["rubbers"] / top * inner
        won = month["won"] / top * inner
        when = formats.date_format(month["month"], "M Y")
        tip = escape(
            _("%(month)s: %(rubbers)d rubbers, %(won)d won, %(hands)d hands")
            % {
                "month": when,
                "rubbers": month["rubbers"],
                "won": month["won"],
                "hands": month["hands"] or 0,
            }
        )
        bottom = HEIGHT - PAD_BOTTOM
        parts.append(
            f"<g><title>{tip}</title>"
            f'<rect class="played" x="{x:.1f}" y="{bottom - played:.1f}" width="{bar:.1f}" '
            f'height="{played:.1f}"/>'
            f'<rect class="won" x="{x:.1f}" y="{bottom - won:.1f}" width="{bar:.1f}" '
            f'height="{won:.1f}"/></g>'
        )
        if i % every == 0:
            # A month and its year in full: "Dec 26" would read as a day.
            short = escape(formats.date_format(month["month"], "M Y"))
            parts.append(
                f'<text class="tick" x="{x + bar / 2:.1f}" y="{HEIGHT - 6}" '
                f'text-anchor="middle">{short}</text>'
            )
    return _svg(label, "".join(parts))


def rating_line(points: Sequence[tuple[datetime, float, float]]) -> SafeString:
    """The rating after each rubber, with its uncertainty (one sigma) as a band."""
    label = _("Rating after each rubber, with its uncertainty")
    if len(points) < 2:
        return _svg(label, "")
    low = min(mu - sigma for _, mu, sigma in points)
    high = max(mu + sigma for _, mu, sigma in points)
    span = (high - low) or 1
    inner = HEIGHT - PAD_BOTTOM - PAD_TOP
    step = (WIDTH - PAD_LEFT) / (len(points) - 1)

    def y(value: float) -> float:
        return PAD_TOP + (high - value) / span * inner

    line = " ".join(
        f"{PAD_LEFT + i * step:.1f},{y(mu):.1f}" for i, (_, mu, _s) in enumerate(points)
    )
    upper = [f"{PAD_LEFT + i * step:.1f},{y(mu + s):.1f}" for i, (_, mu, s) in enumerate(points)]
    lower = [f"{PAD_LEFT + i * step:.1f},{y(mu - s):.1f}" for i, (_, mu, s) in enumerate(points)]
    band = " ".join(upper + lower[::-1])
    _when, mu, sigma = points[-1]
    tip = escape(_("Now %(mu)s ± %(sigma)s") % {"mu": _number(mu), "sigma": _number(sigma)})
    body = (
        f'<text class="tick" x="{PAD_LEFT - 4}" y="{PAD_TOP + 8}" text-anchor="end">'
        f"{escape(_number(high))}</text>"
        f'<text class="tick" x="{PAD_LEFT - 4}" y="{HEIGHT - PAD_BOTTOM}" text-anchor="end">'
        f"{escape(_number(low))}</text>"
        f'<polygon class="band" points="{band}"/>'
        f'<polyline class="line" points="{line}"><title>{tip}</title></polyline>'
    )
    return _svg(label, body)
