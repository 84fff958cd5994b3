"""Websocket routes; the live-table consumers join them here."""

from django.urls import URLPattern

websocket_urlpatterns: list[URLPattern] = []
