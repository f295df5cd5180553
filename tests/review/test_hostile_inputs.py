"""The hostile corpus (tests/data/hostile, see its MANIFEST) through every door: the API, the
upload forms and the commands, a new revision's three doors among them. What cannot be
stored is refused with a 4xx (or exit 2) naming the problem, and nothing is written; what can
be stored (scripts in Markdown, titles and answers) is stored as text and never reaches a page
as markup."""

from __future__ import annotations

import shutil
from html.parser import HTMLParser
from io import StringIO
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command
from django.test import Client

from review.actions.entries import accept_entry
from review.actions.revisions import CARRY
from review.adapters.documents import store_document
from review.adapters.plans import propose_document
from review.models import Answer, Case, Decision, Document, Entry, Plan
from tests.builders.api import API, api_client, pipeline_user
from tests.builders.pages import html_of
from tests.builders.plans import row_counts
from tests.builders.urls import url_of

pytestmark = pytest.mark.django_db

CORPUS = Path(__file__).resolve().parent.parent / "data" / "hostile"
RIGHT_TO_LEFT_OVERRIDE = "\u202e"

# file -> what the refusal names
REFUSED_DOCUMENTS = {
    "truncated.pdf": "not a readable PDF",
    "html-named.pdf": "not a readable PDF",
    "flate-bomb.pdf": "Limit reached while decompressing",
}
REFUSED_PLANS = {
    "plan-nested.json": "nested too deeply",
    "plan-title-nul.json": "NUL character",
    "plan-title-bidi.json": "bidirectional control RIGHT-TO-LEFT OVERRIDE (U+202E)",
    "plan-not-an-object.json": "must be a JSON object, not a list",
}
# file -> what each of its lines is refused for, in order
REFUSED_LINES = {
    "cases-refused.jsonl": [
        "NUL character",
        "bidirectional control RIGHT-TO-LEFT OVERRIDE",
        "nested too deeply",
        "nested too deeply",
        "unpaired surrogate",
        "the most allowed is 100",
    ],
    "answers-refused.jsonl": [
        "NUL character",
        "bidirectional control LEFT-TO-RIGHT ISOLATE",
        "nested too deeply",
        "too large a number",
        "NaN is not a JSON number",
    ],
}
# Elements stored text must never become on a page (the page's own scripts have a src).
FORBIDDEN_ELEMENTS = {"iframe", "svg", "style", "object", "embed"}


class MarkupFinder(HTMLParser):
    """What a page holds as markup (not as text): inline scripts, forbidden elements, event
    handler attributes, and links or sources to javascript: or data: URLs."""

    def __init__(self) -> None:
        super().__init__()
        self.found: list[str] = []
        self._in_script = False

    def handle_starttag(self, tag, attrs):
        values = dict(attrs)
        if tag in FORBIDDEN_ELEMENTS or (tag == "img" and values.get("src") == "x"):
            self.found.append(f"<{tag}>")
        if tag == "script" and not values.get("src"):
            self._in_script = True
        for name, value in attrs:
            if name.startswith("on"):
                self.found.append(f"{tag} {name}=")
            if name in ("href", "src") and (value or "").strip().lower().startswith(
                ("javascript:", "data:")
            ):
                self.found.append(f"{tag} {name}={value}")

    def handle_data(self, data):
        if self._in_script and "alert" in data:
            self.found.append(f"<script>{data[:40]}")

    def handle_endtag(self, tag):
        if tag == "script":
            self._in_script = False


@pytest.fixture
def api() -> Client:
    pipeline_user()
    return api_client()


@pytest.fixture
def code():
    """The corpus's small real document, stored: what the plan files are proposed on."""
    return store_document("code.md", (CORPUS / "code.md").read_bytes())


def command_refusal(*args: str) -> str:
    with pytest.raises(CommandError) as error:
        call_command(*args, stdout=StringIO(), stderr=StringIO())
    assert error.value.returncode == 2
    return str(error.value)


def assert_no_markup(body: str) -> None:
    finder = MarkupFinder()
    finder.feed(body)
    assert finder.found == []


# --- refused, at every door ------------------------------------------------------------------


@pytest.mark.parametrize("name", list(REFUSED_DOCUMENTS))
def test_a_broken_or_inflating_pdf_is_refused_at_every_door(
    name, api, client, editor, tmp_path
) -> None:
    data = (CORPUS / name).read_bytes()
    reason = REFUSED_DOCUMENTS[name]
    before = row_counts()

    by_api = api.post(f"{API}/documents", {"file": SimpleUploadedFile(name, data)})
    by_form = client.post(url_of("plan-upload-document"), {"file": SimpleUploadedFile(name, data)})
    shutil.copy(CORPUS / name, tmp_path / name)
    by_command = command_refusal("propose", str(tmp_path / name))

    assert by_api.status_code == 422
    assert reason in by_api.json()["detail"]
    assert by_form.status_code == 422
    assert reason in html_of(by_form)
    assert reason in by_command
    assert row_counts() == before


def test_a_file_name_with_a_bidi_override_never_names_a_stored_document(api, tmp_path) -> None:
    name = f"rapport{RIGHT_TO_LEFT_OVERRIDE}dm.txt.md"
    data = (CORPUS / "code.md").read_bytes()
    (tmp_path / name).write_bytes(data)
    before = row_counts()

    by_command = command_refusal("propose", str(tmp_path / name))
    # Over HTTP, Django drops non-printable characters from an upload's name first.
    by_api = api.post(f"{API}/documents", {"file": SimpleUploadedFile(name, data)})

    reason = "the file name holds the bidirectional control RIGHT-TO-LEFT OVERRIDE (U+202E)"
    assert reason in by_command
    assert by_api.status_code == 201
    assert by_api.json()["name"] == "rapportdm.txt.md"
    assert row_counts()["Document"] == before["Document"] + 1


@pytest.mark.parametrize("name", list(REFUSED_PLANS))
def test_a_hostile_plan_is_refused_at_every_door(name, api, client, editor, code) -> None:
    text = (CORPUS / name).read_text(encoding="utf-8")
    reason = REFUSED_PLANS[name]
    before = row_counts()

    by_api = api.post(f"{API}/documents/{code.pk}/plans", text, content_type="application/json")
    by_form = client.post(
        url_of("plan-upload-plan"),
        {"document": code.pk, "file": SimpleUploadedFile(name, text.encode())},
    )
    by_command = command_refusal("import_plan", str(code.pk), str(CORPUS / name))

    assert by_api.status_code == 422
    assert reason in " ".join(by_api.json()["problems"])
    assert by_form.status_code == 422
    assert reason in html_of(by_form)
    assert reason in by_command
    assert row_counts() == before


@pytest.mark.parametrize("name", list(REFUSED_LINES))
def test_every_hostile_line_is_refused_by_number_at_every_door(name, api) -> None:
    body = (CORPUS / name).read_bytes()
    url, command = (
        (f"{API}/cases", "import_cases")
        if "cases" in name
        else (f"{API}/answers", "import_answers")
    )
    before = row_counts()

    whole = api.post(url, body, content_type="application/x-ndjson")
    skipping = api.post(f"{url}?skip_invalid=true", body, content_type="application/x-ndjson")
    by_command = command_refusal(command, str(CORPUS / name))

    assert whole.status_code == 422
    problems = whole.json()["problems"]
    assert len(problems) == len(REFUSED_LINES[name])
    for number, (problem, reason) in enumerate(zip(problems, REFUSED_LINES[name], strict=True), 1):
        assert problem.startswith(f"line {number}: ")
        assert reason in problem
        assert problem.strip() in by_command
    assert skipping.status_code == 200
    assert skipping.json()["created"] == 0
    assert [row["line"] for row in skipping.json()["rejected"]] == list(
        range(1, len(REFUSED_LINES[name]) + 1)
    )
    assert row_counts() == before


def test_an_oversized_file_or_line_is_refused_at_every_door_before_it_is_read(
    api, client, editor, settings, tmp_path
) -> None:
    settings.REVIEW_MAX_UPLOAD_BYTES = 2048
    one_long_line = b'{"case_id": "c-1", "content": {"text": "' + b"x" * 4096 + b'"}}\n'
    (tmp_path / "long.jsonl").write_bytes(one_long_line)
    before = row_counts()

    doors = [
        api.post(f"{API}/cases", one_long_line, content_type="application/x-ndjson"),
        api.post(
            f"{API}/documents",
            {"file": SimpleUploadedFile("long.md", one_long_line)},
        ),
        client.post(
            url_of("plan-upload-document"),
            {"file": SimpleUploadedFile("long.md", one_long_line)},
        ),
    ]
    by_command = command_refusal("import_cases", str(tmp_path / "long.jsonl"))

    assert [door.status_code for door in doors] == [413, 413, 413]
    assert all("at most 2,048 bytes" in html_of(door) for door in doors)
    assert "larger than 2,048 bytes" in by_command
    assert row_counts() == before


def test_a_nul_in_a_query_or_a_form_field_is_refused_naming_the_field(api, client, editor) -> None:
    by_api = api.get(f"{API}/plans", {"status": "open\x00"})
    by_page = client.get(url_of("cases"), {"reason": "a\x00b"})

    assert by_api.status_code == 400
    assert by_api.json()["detail"].startswith("the field 'status' holds the NUL character")
    assert by_page.status_code == 400
    assert "the field 'reason'" in html_of(by_page)


# --- stored as text, never as markup -------------------------------------------------------------


def test_script_in_a_markdown_document_is_shown_as_text_on_its_plan(api, client, editor) -> None:
    data = (CORPUS / "markdown-attacks.md").read_bytes()
    document = api.post(f"{API}/documents", {"file": SimpleUploadedFile("attacks.md", data)})
    proposed = api.post(
        f"{API}/documents/{document.json()['id']}/propose",
        "{}",
        content_type="application/json",
    )

    page = html_of(client.get(url_of("plan", proposed.json()["id"])))

    assert proposed.status_code == 201
    assert_no_markup(page)
    assert "&lt;script&gt;alert(&#x27;h1&#x27;)&lt;/script&gt;" in page


def test_a_pdf_with_javascript_keeps_only_its_text(api, client, editor) -> None:
    data = (CORPUS / "scripted.pdf").read_bytes()

    document = api.post(f"{API}/documents", {"file": SimpleUploadedFile("scripted.pdf", data)})

    assert document.status_code == 201
    stored = store_document("scripted.pdf", data)
    assert "Brannceller skal skilles." in stored.text
    assert "app.alert" not in stored.text


def test_script_in_plan_titles_is_shown_as_text(api, client, editor, code) -> None:
    text = (CORPUS / "plan-title-script.json").read_text(encoding="utf-8")

    imported = api.post(f"{API}/documents/{code.pk}/plans", text, content_type="application/json")
    page = html_of(client.get(url_of("plan", imported.json()["id"])))

    assert imported.status_code == 201
    assert_no_markup(page)
    assert "&lt;script&gt;alert(&#x27;title&#x27;)&lt;/script&gt;" in page
    assert Plan.objects.count() == 1


def test_script_in_a_case_is_shown_as_text(api, client, moderator) -> None:
    body = (CORPUS / "cases-script.jsonl").read_bytes()

    assert api.post(f"{API}/cases", body, content_type="application/x-ndjson").status_code == 200
    page = html_of(client.get(url_of("case", Case.objects.get().pk)))

    assert_no_markup(page)
    assert "&lt;script&gt;alert(&#x27;case&#x27;)&lt;/script&gt;" in page


def test_attacks_in_answer_markdown_never_reach_the_answer_page(api, client, editor) -> None:
    body = (CORPUS / "answers-markdown-attacks.jsonl").read_bytes()

    imported = api.post(f"{API}/answers", body, content_type="application/x-ndjson")

    assert imported.json()["created"] == 7
    for answer in Answer.objects.all():
        page = html_of(client.get(url_of("answer", answer.pk)))
        assert_no_markup(page)


# --- a new revision, at its three doors ----------------------------------------------------------

# Every file of the corpus, offered as the next revision of code.md (which has a decided plan,
# so a stored revision carries it): file -> what the refusal names, or None where it is stored.
REVISIONS = {path.name: None for path in sorted(CORPUS.iterdir()) if path.name != "MANIFEST.md"} | {
    **REFUSED_DOCUMENTS,
    "code.md": "already stored as document",
    **{
        path.name: "cannot extract text from a file with type"
        for path in CORPUS.iterdir()
        if path.suffix in (".json", ".jsonl")
    },
}
REVISION_DOORS = ("form", "api", "command")
# The stored revisions that keep code.md's text, so that its decisions are carried.
CARRYING = {"code-revised-attacks.md"}


@pytest.fixture
def decided_code(editor):
    """code.md's plan with every entry accepted: what a revision carries."""
    plan = propose_document("code.md", (CORPUS / "code.md").read_bytes())
    for entry in plan.entries.order_by("position"):
        accept_entry(entry, actor=editor, expected_version=entry.version)
    return plan


def revise_through(door: str, document_id: int, name: str, client, tmp_path) -> tuple[bool, str]:
    """Offer the corpus file `name` as a revision at `door`: whether it was stored, and what
    the door said. A server error fails here, whatever the door."""
    data = (CORPUS / name).read_bytes()
    if door == "command":
        shutil.copy(CORPUS / name, tmp_path / name)
        args = ("add_revision", str(document_id), str(tmp_path / name), "--by", "editor")
        try:
            call_command(*args, stdout=StringIO(), stderr=StringIO())
        except CommandError as error:
            assert error.returncode == 2
            return False, str(error)
        return True, ""
    if door == "api":
        response = api_client().post(
            f"{API}/documents/{document_id}/revisions",
            {"file": SimpleUploadedFile(name, data)},
        )
        assert response.status_code in (201, 422), response.content[:300]
        said = response.json().get("detail", "") if response.status_code == 422 else ""
        return response.status_code == 201, said
    response = client.post(
        url_of("revision-upload", document_id), {"file": SimpleUploadedFile(name, data)}
    )
    assert response.status_code in (302, 422), response.content[:300]
    return response.status_code == 302, html_of(response) if response.status_code == 422 else ""


@pytest.mark.parametrize("door", REVISION_DOORS)
@pytest.mark.parametrize("name", sorted(REVISIONS))
def test_a_hostile_revision_is_refused_or_stored_whole_at_every_door(
    name, door, client, editor, decided_code, tmp_path
) -> None:
    reason = REVISIONS[name]
    pipeline_user()
    before = row_counts()

    stored, said = revise_through(door, decided_code.document_id, name, client, tmp_path)

    after = row_counts()
    if reason is not None:
        assert not stored
        assert reason in said
        assert after == before
        return
    assert stored, said
    revision = Document.objects.get(revision_of=decided_code.document)
    carried = Plan.objects.filter(document=revision).first()
    # All of it or none: the revision, and its plan with every entry and every carried row.
    assert after["Document"] == before["Document"] + 1
    assert after["Plan"] == before["Plan"] + (carried is not None)
    if carried is not None:
        assert carried.carried_from == decided_code
        assert carried.counts == carried.entries.counts()
        kept = Decision.objects.filter(action=CARRY).count()
        assert kept == sum(entry.state != Entry.State.PROPOSED for entry in carried.entries.all())
        assert (kept > 0) == (name in CARRYING)
        assert_no_markup(html_of(client.get(url_of("plan", carried.pk))))
    assert_no_markup(html_of(client.get(url_of("revision", revision.pk))))
