from django.contrib import admin
from django.urls import include, path

from review.api import api

urlpatterns = [
    path("admin/", admin.site.urls),
    path("accounts/", include("django.contrib.auth.urls")),
    path("api/", api.urls),
    path("plans/", include("review.views.plans")),
    path("cases/", include("review.views.cases")),
    path("answers/", include("review.views.answers")),
    path("", include("review.views.shell")),
]
