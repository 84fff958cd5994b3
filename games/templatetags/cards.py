"""`{% card c %}`: one playing card. A tag rather than an include: a view shows dozens of cards,
and an include per card was most of the time it took to render one."""

from __future__ import annotations

from django import template
from django.utils.html import format_html
from django.utils.safestring import SafeString

from games.render import CardView

register = template.Library()


@register.simple_tag
def card(card: CardView) -> SafeString:
    return format_html(
        '<span role="img" class="card suit-{}{}" data-card="{}" aria-label="{}">{}'
        '<span class="suit" aria-hidden="true">{}</span></span>',
        card.suit_name,
        " is-red" if card.red else "",
        card.token,
        card.label,
        card.rank,
        card.symbol,
    )
