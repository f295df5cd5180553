"""An editor uploads a long PDF: the page shows the job queued, and, once the worker has run
it, updates itself to the result and links the plan."""

from __future__ import annotations

from pathlib import Path

from playwright.sync_api import expect

from review.models import Job
from tests.browser.conftest import log_in
from tests.builders.worker import DATABASE_TASKS, run_worker

GUIDE_PDF = (
    Path(__file__).resolve().parents[2] / "review/demo_data/veileder-brannsikkerhet-bolig.pdf"
)


def test_a_long_pdf_is_proposed_in_the_background_and_the_page_follows_it(
    page, reviewers, settings
) -> None:
    settings.TASKS = DATABASE_TASKS
    settings.JOB_INLINE_MAX_PDF_PAGES = 1
    log_in(page, "editor")
    page.goto("/p/default/plans/")
    form = page.get_by_role("region", name="Propose a plan for a document")
    form.locator("input[type=file]").set_input_files(str(GUIDE_PDF))
    form.get_by_role("button", name="Upload and propose").click()
    expect(page.get_by_role("heading", name="Status: Queued")).to_be_visible()
    job = Job.objects.get()
    assert job.status == Job.Status.QUEUED

    run_worker()
    # No reload: the status region polls and swaps itself.
    expect(page.get_by_role("heading", name="Status: Succeeded")).to_be_visible()
    job.refresh_from_db()
    page.get_by_role("link", name=f"Open plan {job.result['plan']}").click()
    page.wait_for_url(f"**/plans/{job.result['plan']}/**")
    expect(page.get_by_role("heading", name=GUIDE_PDF.name)).to_be_visible()
