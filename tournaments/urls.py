from django.urls import path

from tournaments import views

app_name = "tournaments"

base = "clubs/<slug:slug>/tournaments/"

urlpatterns = [
    path(base, views.index, name="index"),
    path(f"{base}<int:pk>/", views.detail, name="detail"),
    path(f"{base}<int:pk>/live/", views.live, name="live"),
    path(f"{base}<int:pk>/screen/", views.screen, name="screen"),
    path(f"{base}<int:pk>/register/", views.register, name="register"),
    path(f"{base}<int:pk>/leave/", views.leave, name="leave"),
    path(f"{base}<int:pk>/rounds/", views.start, name="start"),
    path(f"{base}<int:pk>/rounds/<int:number>/", views.round_detail, name="round"),
    path(f"{base}<int:pk>/leaderboard.csv", views.leaderboard_csv, name="csv"),
    path(f"{base}<int:pk>/guests/<str:token>/", views.guest, name="guest"),
]
