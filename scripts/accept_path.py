"""Follow one htmx Accept through the code and print every project function it passes.

    .venv/bin/python scripts/accept_path.py

It makes a throwaway test database, proposes a plan for a demo document, signs an editor in
and posts one Accept as htmx does; a profiler hook notes each function of `review` and
`grounding` that runs during that request. The figure to keep small: how many functions and
modules one decision needs.
"""

from __future__ import annotations

import os
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "review.settings")


def main() -> None:
    import django

    django.setup()
    from django.conf import settings
    from django.contrib.auth.models import User
    from django.db import connection
    from django.test import Client
    from django.test.utils import setup_test_environment
    from django.urls import reverse

    from review.adapters.plans import propose_document
    from review.models import Membership

    setup_test_environment()
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    connection.creation.create_test_db(verbosity=0)
    data = (ROOT / "review/demo_data/byggteknisk-brann.md").read_bytes()
    plan = propose_document("byggteknisk-brann.md", data)
    first, entry = plan.entries.order_by("position")[:2]
    editor = User.objects.create_user("editor")
    Membership.objects.create(project=plan.project, user=editor, editor=True)
    client = Client()
    client.force_login(editor)
    # One Accept first, so that what runs once per process (imports) is not counted.
    slug = plan.project.slug
    warm = reverse("entry-decide", args=[slug, plan.pk, first.pk, "accept"])
    client.post(warm, {"version": first.version}, headers={"HX-Request": "true"})
    url = reverse("entry-decide", args=[slug, plan.pk, entry.pk, "accept"])

    called: dict[str, set[str]] = defaultdict(set)
    roots = tuple(str(ROOT / name) + os.sep for name in ("review", "grounding"))

    def note(frame, event, arg):
        if event == "call":
            filename = frame.f_code.co_filename
            name = frame.f_code.co_qualname
            # Comprehensions and lambdas are parts of the function they stand in.
            if filename.startswith(roots) and "<" not in name:
                module = os.path.relpath(filename, ROOT)
                called[module].add(name)

    sys.setprofile(note)
    response = client.post(url, {"version": entry.version}, headers={"HX-Request": "true"})
    sys.setprofile(None)
    assert response.status_code == 200, response.status_code
    for module in sorted(called):
        print(f"{module}: {', '.join(sorted(called[module]))}")
    total = sum(len(names) for names in called.values())
    print(f"{total} project functions in {len(called)} modules for one htmx Accept")


if __name__ == "__main__":
    main()
