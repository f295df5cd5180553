"""`python -m grounding_review_client`, the same as `grounding-review`."""

from grounding_review_client.cli import main

raise SystemExit(main())
