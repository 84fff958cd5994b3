"""Websocket routes."""

from django.urls import path

from games.consumers import TableConsumer

websocket_urlpatterns = [
    path("ws/tables/<str:code>/", TableConsumer.as_asgi()),
]
