from django.urls import path

from clubs import views

app_name = "clubs"

urlpatterns = [
    path("clubs/", views.club_list, name="list"),
    path("clubs/new/", views.club_create, name="create"),
    path("clubs/<slug:slug>/leave/", views.club_leave, name="leave"),
    path("clubs/<slug:slug>/members/<int:pk>/accept/", views.member_accept, name="member_accept"),
    path("clubs/<slug:slug>/members/<int:pk>/remove/", views.member_remove, name="member_remove"),
    path("clubs/<slug:slug>/members/<int:pk>/role/", views.member_role, name="member_role"),
    path("clubs/<slug:slug>/invitations/", views.invitations, name="invitations"),
    path(
        "clubs/<slug:slug>/invitations/<int:pk>/revoke/",
        views.invitation_revoke,
        name="invitation_revoke",
    ),
    path("clubs/<slug:slug>/profiles/new/", views.profile_new, name="profile_new"),
    path("clubs/<slug:slug>/profiles/import/", views.profile_import, name="profile_import"),
    path("clubs/<slug:slug>/profiles/<int:pk>/", views.profile_detail, name="profile"),
    path(
        "clubs/<slug:slug>/profiles/<int:pk>/default/",
        views.profile_default,
        name="profile_default",
    ),
    path(
        "clubs/<slug:slug>/profiles/<int:pk>/delete/", views.profile_delete, name="profile_delete"
    ),
    path(
        "clubs/<slug:slug>/profiles/<int:pk>/export/", views.profile_export, name="profile_export"
    ),
    path("join/<str:token>/", views.join, name="join"),
]
