from typing import Any

from django import forms
from django.contrib import admin

from clubs.house_rules import error_text
from clubs.models import Club, HouseRuleProfile, Invitation, Membership
from games.engine.rules import HouseRules, RulesError


class HouseRuleProfileAdminForm(forms.ModelForm):
    class Meta:
        model = HouseRuleProfile
        fields = ("club", "name", "rules_json", "is_default")

    def clean_rules_json(self) -> dict[str, Any]:
        # The admin is no back door: the engine validates here as in the club's own pages.
        try:
            return HouseRules.from_json(self.cleaned_data["rules_json"]).to_json()
        except RulesError as error:
            raise forms.ValidationError(error_text(error)) from None


class MembershipInline(admin.TabularInline):
    model = Membership
    extra = 0
    raw_id_fields = ("user",)


@admin.register(Club)
class ClubAdmin(admin.ModelAdmin):
    list_display = ("name", "slug", "created_at")
    search_fields = ("name", "slug")
    inlines = (MembershipInline,)


@admin.register(Membership)
class MembershipAdmin(admin.ModelAdmin):
    list_display = ("club", "user", "role", "status", "created_at")
    list_filter = ("role", "status")
    search_fields = ("club__name", "user__username", "user__display_name")
    raw_id_fields = ("user", "club")


@admin.register(Invitation)
class InvitationAdmin(admin.ModelAdmin):
    list_display = ("club", "created_by", "created_at", "expires_at", "revoked_at")
    search_fields = ("club__name",)
    raw_id_fields = ("club", "created_by")
    readonly_fields = ("token",)


@admin.register(HouseRuleProfile)
class HouseRuleProfileAdmin(admin.ModelAdmin):
    form = HouseRuleProfileAdminForm
    list_display = ("name", "club", "is_default", "updated_at")
    list_filter = ("is_default",)
    search_fields = ("name", "club__name")
    raw_id_fields = ("club",)
