from django.urls import path

from nights import views

app_name = "nights"

club = "clubs/<slug:slug>/"

urlpatterns = [
    path(f"{club}nights/", views.index, name="index"),
    path(f"{club}nights/open/", views.night_open, name="open"),
    path(f"{club}nights/settings/", views.night_settings, name="settings"),
    path(f"{club}nights/<int:pk>/", views.night_detail, name="night"),
    path(f"{club}nights/<int:pk>/live/", views.night_live, name="live"),
    path(f"{club}nights/<int:pk>/screen/", views.night_screen, name="screen"),
    path(f"{club}nights/<int:pk>/close/", views.night_close, name="close"),
    path(f"{club}nights/<int:pk>/rounds/paid/", views.round_paid, name="round_paid"),
    path(f"{club}nights/<int:pk>/payments/paid/", views.payment_paid, name="payment_paid"),
    path(f"{club}nights/<int:pk>/standings.csv", views.night_csv, name="night_csv"),
    path(f"{club}seasons/", views.seasons, name="seasons"),
    path(f"{club}seasons/<int:pk>/", views.season_detail, name="season"),
    path(f"{club}seasons/<int:pk>/standings.csv", views.season_csv, name="season_csv"),
    path(f"{club}guests/", views.guests, name="guests"),
    path(f"{club}guests/merge/", views.guest_merge, name="guest_merge"),
    path(f"{club}players/<int:user_id>/", views.player, name="player"),
    path(f"{club}hands/", views.hands, name="hands"),
    path(f"{club}hands.jsonl", views.hands_export, name="hands_export"),
    path(f"{club}hands/<int:pk>/", views.hand_detail, name="hand"),
    path(f"{club}hands/<int:pk>/record.json", views.hand_record, name="hand_record"),
]
