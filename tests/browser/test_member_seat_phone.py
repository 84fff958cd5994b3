"""A member on another player's phone, in a real chromium on 360x740 touch phones: picked on
the phone, confirmed on her own, then played behind the shared phone's privacy screen."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import Phones

pytestmark = pytest.mark.browser


def test_a_member_confirms_from_her_own_phone_and_plays_on_the_shared_one(
    phones: Phones,
) -> None:
    server = phones.server
    table = server.seed(
        people=["anna", "bram"], seats=3, bots={"2": "easy"}, rules={"exchange": False}
    )
    anna = phones.open(session=table["people"]["anna"])
    anna.goto(f"{server.url}/t/{table['code']}/")
    member_form = anna.locator("form.member-form")
    expect(member_form).to_be_visible()
    member_form.locator("select[name=member]").select_option(label="bram")
    phones.shot(anna, "pick-a-member")
    member_form.locator("button[type=submit]").tap()
    expect(anna.locator(".messages")).to_contain_text("she accepts on her own phone")
    expect(anna.locator(".seat-asked")).to_contain_text("bram is asked to accept")
    # Not seated before she says so: the seat strip names anna and the computer player only.
    expect(anna.locator("#table-players")).not_to_contain_text("bram")

    bram = phones.open(session=table["people"]["bram"])
    bram.goto(f"{server.url}/clubs/de-gouden-klaver/")
    request = bram.locator("#seat-requests")
    expect(request).to_contain_text(f"anna asks to seat you at table {table['code']}")
    phones.shot(bram, "asked")
    request.get_by_role("button", name="Yes, seat me").tap()
    expect(bram.locator(".messages")).to_contain_text(f"You are seated at table {table['code']}")

    # Anna's phone hears of it over its socket: bram sits at the table, held by her phone.
    expect(anna.locator("#table-players")).to_contain_text("bram")
    phones.shot(anna, "seated")
    start = anna.locator(".action-start")
    expect(start).to_be_visible()
    start.tap()
    # Two players on one phone: the cards wait behind the privacy screen for whoever's turn
    # it is, named, and only one hand is ever shown.
    privacy = anna.locator(".privacy-show")
    expect(privacy).to_be_visible(timeout=30_000)
    expect(privacy).to_contain_text(re.compile(r"Pass to (anna|bram)"))
    expect(anna.locator("#table-hand .card")).to_have_count(0)
    phones.shot(anna, "privacy")
    privacy.tap()
    expect(anna.locator("#table-hand .card")).to_have_count(4)
    phones.shot(anna, "one-hand")


def test_a_member_is_seated_at_once_with_the_code_her_own_phone_shows(phones: Phones) -> None:
    server = phones.server
    table = server.seed(people=["anna", "cas"], seats=3, bots={"2": "easy"})
    cas = phones.open(session=table["people"]["cas"])
    cas.goto(f"{server.url}/clubs/de-gouden-klaver/")
    cas.locator("#seat-code").get_by_role("button", name="Show my seat code").tap()
    shown = cas.locator("#seat-code .seat-code strong")
    expect(shown).to_have_text(re.compile(r"^[0-9]{6}$"))
    code = shown.inner_text()
    phones.shot(cas, "seat-code")

    anna = phones.open(session=table["people"]["anna"])
    anna.goto(f"{server.url}/t/{table['code']}/")
    member_form = anna.locator("form.member-form")
    member_form.locator("select[name=member]").select_option(label="cas")
    # A wrong code first: nobody is seated, and the phone says why.
    member_form.locator("input[name=code]").fill(f"{(int(code) + 1) % 10**6:06d}")
    member_form.locator("button[type=submit]").tap()
    expect(anna.locator(".messages")).to_contain_text("That is not her seat code")
    expect(anna.locator("#table-players")).not_to_contain_text("cas")
    member_form = anna.locator("form.member-form")
    member_form.locator("select[name=member]").select_option(label="cas")
    member_form.locator("input[name=code]").fill(code)
    member_form.locator("button[type=submit]").tap()
    expect(anna.locator("#table-players")).to_contain_text("cas")
    phones.shot(anna, "seated-with-code")
