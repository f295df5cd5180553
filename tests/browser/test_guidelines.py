"""An editor opens the guidelines beside a plan with the key g, the segmentation section
first, and closes it again; the entry's own keys keep working."""

from __future__ import annotations

from playwright.sync_api import expect

from review.actions.guidelines import edit_guidelines
from review.models import Project
from review.models.projects import default_project_id
from tests.browser.conftest import log_in
from tests.builders.plan_views import make_plan


def test_g_opens_and_closes_the_guidelines_beside_a_plan(page, reviewers, django_user_model):
    lead = django_user_model.objects.create_user("boss", is_staff=True)
    project = Project.objects.get(pk=default_project_id())
    text = "Be brief.\n\n## Answers\n\nCite.\n\n## Segmentation\n\nOne entry per section."
    edit_guidelines(project, actor=lead, based_on=0, text=text)
    plan = make_plan(2)
    log_in(page, "editor")
    page.goto(f"/p/default/plans/{plan.pk}/")
    panel = page.get_by_role("complementary", name="Guidelines")
    expect(panel).to_be_hidden()

    page.keyboard.press("g")

    expect(panel).to_be_visible()
    sections = panel.locator(".guideline-section")
    expect(sections.first).to_contain_text("One entry per section.")
    expect(sections.first).to_have_class("guideline-section about-this-kind")
    expect(panel.get_by_role("link", name="the guidelines page")).to_be_visible()

    page.keyboard.press("g")
    expect(panel).to_be_hidden()
