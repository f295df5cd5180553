"""Views for the shell area (placeholder until the area is built)."""

from django.urls import path  # noqa: F401

urlpatterns: list = []
