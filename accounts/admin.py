from django.contrib import admin
from django.contrib.auth.admin import UserAdmin as DjangoUserAdmin
from django.utils.translation import gettext_lazy as _

from accounts.models import Guest, User


@admin.register(User)
class UserAdmin(DjangoUserAdmin):
    fieldsets = (
        *DjangoUserAdmin.fieldsets,
        (_("Toepen Club"), {"fields": ("display_name", "language")}),
    )
    list_display = ("username", "display_name", "email", "language", "is_staff")
    search_fields = ("username", "display_name", "email")


@admin.register(Guest)
class GuestAdmin(admin.ModelAdmin):
    list_display = ("display_name", "user", "created_at", "claimed_at")
    search_fields = ("display_name", "user__username")
    raw_id_fields = ("user",)
