"""The JSON API (placeholder until it is built)."""

from ninja import NinjaAPI

api = NinjaAPI(title="Grounding Review API", urls_namespace="api", openapi_url="/openapi.json")
