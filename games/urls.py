from django.urls import path

from games import pwa, views

app_name = "games"

urlpatterns = [
    path("play/", views.play_code, name="play"),
    path("clubs/<slug:slug>/", views.club_page, name="club"),
    path("clubs/<slug:slug>/tables/new/", views.table_new, name="new"),
    path("t/<str:code>/", views.table_page, name="table"),
    path("clubs/<slug:slug>/slates/new/", views.slate_new, name="slate_new"),
    path("s/<str:code>/", views.slate_page, name="slate"),
    path("t/<str:code>/join/", views.table_join, name="join"),
    path("t/<str:code>/member/", views.table_member, name="member"),
    path("seat-requests/<int:pk>/", views.seat_request, name="seat_request"),
    path("clubs/<slug:slug>/seat-code/", views.seat_code, name="seat_code"),
    path("t/<str:code>/start/", views.table_start, name="start"),
    path("t/<str:code>/seats/<int:index>/leave/", views.table_leave, name="leave"),
    path("t/<str:code>/close/", views.table_close, name="close"),
    path("manifest.webmanifest", pwa.manifest, name="manifest"),
    path("sw.js", pwa.service_worker, name="service_worker"),
    path("offline/", pwa.offline, name="offline"),
]
