from typing import Any

from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class NightsConfig(AppConfig):
    name = "nights"
    verbose_name = _("Club nights")

    def ready(self) -> None:
        from django.db import transaction
        from django.db.models.signals import post_save

        from accounts.models import Guest
        from games.services.events import catch_up, rubber_finished
        from nights import services

        rubber_finished.connect(services.on_rubber_finished, dispatch_uid="nights.rubber")
        catch_up.connect(services.on_catch_up, dispatch_uid="nights.catch_up")

        def guest_signed_up(sender: Any, instance: Guest, update_fields: Any, **_: Any) -> None:
            # accounts.guests.link_guest_to_user sets `user` once, when the guest signs up.
            if update_fields and "user" in update_fields and instance.user_id is not None:
                transaction.on_commit(lambda: services.reattribute_guest(instance))

        post_save.connect(guest_signed_up, sender=Guest, dispatch_uid="nights.guest", weak=False)
