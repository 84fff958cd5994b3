from django.contrib import admin

from tournaments.models import Entry, Tournament


@admin.register(Tournament)
class TournamentAdmin(admin.ModelAdmin):
    list_display = ("name", "club", "rounds", "table_size", "slate", "created_at")
    list_filter = ("slate",)
    search_fields = ("name", "club__name")


@admin.register(Entry)
class EntryAdmin(admin.ModelAdmin):
    list_display = ("name", "tournament", "from_round", "left")
    search_fields = ("name",)
