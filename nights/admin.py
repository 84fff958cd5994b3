from django.contrib import admin

from nights.models import ClubNights, Night, PlayerDay, PlayerRubber, Rating, Round, Season


@admin.register(ClubNights)
class ClubNightsAdmin(admin.ModelAdmin):
    list_display = ("club", "king_wins", "members_open_nights", "round_amount")
    raw_id_fields = ("club",)


@admin.register(Night)
class NightAdmin(admin.ModelAdmin):
    list_display = ("club", "opened_at", "closed_at", "king_name")
    list_filter = ("club",)
    raw_id_fields = ("club", "opened_by", "king_user")


@admin.register(Season)
class SeasonAdmin(admin.ModelAdmin):
    list_display = ("club", "name", "starts_on", "ends_on")
    raw_id_fields = ("club",)


@admin.register(Round)
class RoundAdmin(admin.ModelAdmin):
    list_display = ("night", "name", "amount", "owed_at", "paid_at")
    raw_id_fields = ("night", "participant", "rubber", "paid_by")


@admin.register(PlayerRubber)
class PlayerRubberAdmin(admin.ModelAdmin):
    list_display = ("rubber", "name", "key", "place", "lives_lost", "hands", "knocks")
    raw_id_fields = ("participant", "rubber", "club", "night", "user", "guest")


@admin.register(PlayerDay)
class PlayerDayAdmin(admin.ModelAdmin):
    list_display = ("club", "user", "day", "rubbers", "won", "lost")
    raw_id_fields = ("club", "user")


@admin.register(Rating)
class RatingAdmin(admin.ModelAdmin):
    list_display = ("club", "name", "key", "mu", "sigma", "rubbers")
    raw_id_fields = ("club", "user")
