"""Which processes hear of a table's changes: the ones with phones there, by their hub's
channel, read under the table's lock with each change (games.services: listen, unlisten,
still_listening)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from games import hub, services
from games.models import Table, TableListener
from tests.live.conftest import Club4
from tests.live.test_table_services import four_people_table, play_a_card

pytestmark = pytest.mark.django_db(transaction=True)


def channels(table: Table) -> list[str]:
    return sorted(TableListener.objects.filter(table=table).values_list("channel", flat=True))


def test_a_process_listens_once_per_table_and_stops(klaver: Club4) -> None:
    table = four_people_table(klaver)
    services.listen(table.pk, "hub.a!1")
    services.listen(table.pk, "hub.a!1")
    services.listen(table.pk, "hub.b!2")
    assert channels(table) == ["hub.a!1", "hub.b!2"]
    services.unlisten(table.pk, "hub.a!1")
    assert channels(table) == ["hub.b!2"]


def test_listening_to_a_table_that_is_gone_is_refused(klaver: Club4) -> None:
    with pytest.raises(services.TableError) as refused:
        services.listen(999_999, "hub.a!1")
    assert refused.value.code == "not_found"
    assert not TableListener.objects.exists()


def test_a_change_goes_to_the_processes_heard_from_lately(klaver: Club4, monkeypatch) -> None:
    table = four_people_table(klaver)
    sent: list[list[str]] = []
    monkeypatch.setattr(services, "publish", lambda *args: sent.append(list(args[4])))
    monkeypatch.setattr(hub, "shared_layer", lambda: True)  # as behind Redis
    services.listen(table.pk, "hub.a!1")
    services.listen(table.pk, "hub.b!2")
    # A process not heard from for three heartbeat rounds (killed) is left out.
    stale = timezone.now() - timedelta(seconds=31)
    TableListener.objects.filter(channel="hub.b!2").update(seen_at=stale)
    play_a_card(klaver, table, "to-listeners")
    assert sent == [["hub.a!1"]]


def test_one_process_alone_reads_no_listeners(klaver: Club4, monkeypatch) -> None:
    """With the in-memory layer there is no other process to tell."""
    table = four_people_table(klaver)
    sent: list[list[str]] = []
    monkeypatch.setattr(services, "publish", lambda *args: sent.append(list(args[4])))
    services.listen(table.pk, "hub.a!1")
    play_a_card(klaver, table, "alone")
    assert sent == [[]]


def test_a_heartbeat_refreshes_its_tables_and_forgets_long_gone_processes(
    klaver: Club4,
) -> None:
    first, second = four_people_table(klaver), four_people_table(klaver)
    long_ago = timezone.now() - timedelta(hours=2)
    services.listen(first.pk, "hub.a!1")
    services.listen(first.pk, "hub.dead!9")
    TableListener.objects.update(seen_at=long_ago)
    # Process a still has phones at both tables (its row for the second was lost) and at a
    # table that has been deleted since.
    services.still_listening("hub.a!1", [first.pk, second.pk, 999_999])
    assert channels(first) == ["hub.a!1"]
    assert channels(second) == ["hub.a!1"]
    assert all(seen > long_ago for seen in TableListener.objects.values_list("seen_at", flat=True))
