"""/api/docs: the API's reference, Swagger UI drawn from the served schema.

Our own page rather than django-ninja's `docs_url`: ninja's template stands alone (no top
bar, no `lang`, no landmarks) and would be mounted with the API, outside the sign-in. The
files are ninja's own copy of Swagger UI (`ninja/static/ninja/`), served from this origin;
`static/review/api-docs.js` starts it, so the page holds no inline script.

Signed-in people only, whatever their role: the schema itself is open (`/api/openapi.json`,
which pipelines fetch), but the page is one of the app's, with its top bar and its links.
"""

from __future__ import annotations

from csp.decorators import csp_update
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_GET

# Swagger UI's stylesheet draws its icons (the arrows, the lock, a select's caret) as data:
# images; an image cannot run anything, so this page alone takes them.
SWAGGER_IMAGES = {"img-src": ["data:"]}


@require_GET
@csp_update(SWAGGER_IMAGES)
def api_docs(request: HttpRequest) -> HttpResponse:
    return render(request, "review/api_docs.html", {"openapi_url": reverse("api:openapi-json")})
