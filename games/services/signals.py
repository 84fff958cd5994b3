"""What games tells the apps built on it, so that games never imports them.

`rubber_finished` is sent inside the transaction that ends a rubber (services._finish_hand), with
`rubber` (games.models.Rubber, `over` set), its `table`, its last `hand` (games.models.PlayedHand,
complete; its record is written to the database only after the signal, with the table's other
fields) and `now`. A receiver writes its own rows in that transaction, so they are committed with
the rubber's end or not at all.
"""

from django.dispatch import Signal

rubber_finished = Signal()
