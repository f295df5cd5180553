"""Server-rendered pages, one module per area. Each module ends with its `urlpatterns`."""
