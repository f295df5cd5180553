"""Loaded by schemathesis (SCHEMATHESIS_HOOKS): the JSON-lines imports' bodies are text, sent
as the schema's string values are."""

import schemathesis

schemathesis.serializer.alias("application/x-ndjson", "text/plain")
