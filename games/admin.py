from django.contrib import admin

from games.models import ActionReceipt, PlayedHand, Rubber, RubberPlayer, Seat, Table


class SeatInline(admin.TabularInline):
    model = Seat
    extra = 0
    fields = ("index", "name", "user", "guest", "bot_level", "last_seen")
    raw_id_fields = ("user", "guest")


@admin.register(Table)
class TableAdmin(admin.ModelAdmin):
    list_display = ("code", "club", "status", "seat_count", "version", "created_at")
    list_filter = ("status",)
    search_fields = ("code", "club__name")
    raw_id_fields = ("club", "created_by", "profile")
    inlines = (SeatInline,)


@admin.register(Seat)
class SeatAdmin(admin.ModelAdmin):
    list_display = ("table", "index", "name", "user", "guest", "bot_level")
    raw_id_fields = ("table", "user", "guest")


class RubberPlayerInline(admin.TabularInline):
    model = RubberPlayer
    extra = 0
    raw_id_fields = ("user", "guest")


@admin.register(Rubber)
class RubberAdmin(admin.ModelAdmin):
    list_display = ("table", "number", "over", "winner", "started_at", "finished_at")
    list_filter = ("over",)
    raw_id_fields = ("table",)
    inlines = (RubberPlayerInline,)


@admin.register(RubberPlayer)
class RubberPlayerAdmin(admin.ModelAdmin):
    list_display = ("rubber", "seat", "name", "user", "lives_lost", "lost", "won")
    raw_id_fields = ("rubber", "user", "guest")


@admin.register(PlayedHand)
class PlayedHandAdmin(admin.ModelAdmin):
    list_display = ("rubber", "number", "complete", "started_at", "finished_at")
    list_filter = ("complete",)
    raw_id_fields = ("rubber",)


@admin.register(ActionReceipt)
class ActionReceiptAdmin(admin.ModelAdmin):
    list_display = ("table", "action_id", "version", "created_at")
    raw_id_fields = ("table",)
