"""The JSON API, for pipelines that push proposals and pull decisions.

Every operation needs `Authorization: Bearer <key>` (a key from `manage.py
create_api_token`); only the key's SHA-256 is stored. There is no session and so no CSRF.
The schema is at /api/openapi.json, open to all; /api/docs draws it (`review.views.api_docs`).

Every operation but the list of projects works in the project its address names,
`/api/projects/{project}/...`; a key acts for the projects its grants name, with the roles
they name there, never more than its owner holds (`auth.BearerKey`, and
`review.permissions.token_holder`). A project it does not act for answers 404. The addresses
from before projects redirect (`review.views.legacy`).

Roles are the web's own (`review.permissions`): pushing documents and plans and importing
answers needs an Editor, importing cases a Moderator; any key may read.

Validation and error messages are the commands' own: both call `review.actions`. Every
refusal answers {"detail": "...", "problems": ["...", ...]}: 400 for a request that cannot be
read (a NUL in the query), 401 without a valid token, 403 for a role that may not, 404 for
nothing there (or a project the key does not act for), 409 for a plan that cannot be exported
yet, 413 for a body over the upload limit (a JSON-lines import: over the job's limit, or a line
over the upload limit), 422 for input that cannot be imported.

Lists are read a page at a time: `?after=<the last id seen>&limit=`, with `next` the URL of
the following page (null on the last).

Each subject is a `Router` in its own module, with the schemas its routes use: `documents`,
`plans`, `imports` (cases and answers), `items` (cases and answers read), `jobs`,
`decisions`, `insights` (and agreement), `projects` (what a key acts for); `auth` says who a
request is and in which project, `errors` how every refusal is answered.
"""

from __future__ import annotations

from django.views.decorators.http import require_GET
from ninja import NinjaAPI

from review.api import decisions, documents, imports, insights, items, jobs, plans, projects
from review.api.auth import ANY_KEY
from review.api.errors import add_refusal_handlers


class ReviewAPI(NinjaAPI):
    """The API, through ninja's public hooks only (the login exemption is `auth.without_login`,
    applied where urls.py mounts it)."""

    def get_openapi_operation_id(self, operation) -> str:
        # The ids the API had as one module; clients generated from the schema name
        # their methods after them.
        return f"review_api_{operation.view_func.__name__}"


api = ReviewAPI(
    title="Grounding Review API",
    description="Push documents, plans, cases and answers; pull plans and decisions.",
    urls_namespace="api",
    openapi_url="/openapi.json",
    # The reference is a page of the app, signed in, under its CSP: review.views.api_docs.
    docs_url=None,
    # django-ninja serves the schema to any method; a POST is a mistake.
    docs_decorator=require_GET,
    auth=ANY_KEY,
)
add_refusal_handlers(api)
api.add_router("", projects.router)
# Every other operation works in the project its address names (`auth.BearerKey`), in this
# order, the order the schema's paths always had.
for subject in (documents, plans, imports, jobs, decisions, insights):
    api.add_router("/projects/{project}", subject.router)
# The reads of cases and answers are on the imports' router, which holds their lists' address.
assert items.router is imports.router
