"""Every route of the app, in one place (templates and code use `{% url %}` and `reverse()`)."""

from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import path

from review.api import api
from review.views import (
    answers,
    cases,
    dashboard,
    entries,
    insights,
    plan,
    plan_reviews,
    plans,
    policies,
)

urlpatterns = [
    path("admin/", admin.site.urls),
    # Only signing in and out: password reset and change need mail, which is not configured;
    # staff set passwords in the admin.
    path("accounts/login/", auth_views.LoginView.as_view(), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("api/", api.urls),
    path("", dashboard.dashboard, name="dashboard"),
    # Segmentation plans
    path("plans/", plans.plan_list, name="plans"),
    path("plans/upload-document/", plans.upload_document, name="plan-upload-document"),
    path("plans/upload-plan/", plans.upload_plan, name="plan-upload-plan"),
    path("plans/<int:pk>/", plan.plan_detail, name="plan"),
    path("plans/<int:pk>/history/", plan.plan_history, name="plan-history"),
    path("plans/<int:pk>/accept-rule/", plan.plan_accept_rule, name="plan-accept-rule"),
    path("plans/<int:pk>/adjudicate/", plan.plan_adjudicate, name="plan-adjudicate"),
    path("plans/<int:pk>/export.json", plan.plan_export, name="plan-export"),
    path("plans/<int:pk>/review-copy/", plan_reviews.plan_review_copy, name="plan-review-copy"),
    path("plans/<int:pk>/curation/", plan_reviews.plan_curation, name="plan-curation"),
    path(
        "plans/<int:pk>/curation/<int:entry_pk>/",
        plan_reviews.plan_curate_entry,
        name="plan-curate-entry",
    ),
    path("plans/<int:pk>/entries/<int:entry_pk>/", entries.entry_row, name="entry"),
    path("plans/<int:pk>/entries/<int:entry_pk>/edit/", entries.entry_edit, name="entry-edit"),
    path(
        "plans/<int:pk>/entries/<int:entry_pk>/<slug:action>/",
        entries.entry_decide,
        name="entry-decide",
    ),
    # Moderation cases
    path("cases/", cases.case_list, name="cases"),
    path("cases/<int:pk>/", cases.case_detail, name="case"),
    path("cases/<int:pk>/undo/", cases.case_undo, name="case-undo"),
    path("cases/<int:pk>/<slug:action>/", cases.case_decide, name="case-decide"),
    path("insights/", insights.insights_page, name="insights"),
    # Review policies and double review
    path("policies/", policies.policies, name="policies"),
    path("policies/<slug:queue>/", policies.policies, name="policy"),
    path("next/<slug:queue>/", policies.review_next, name="review-next"),
    # Finalized answers
    path("answers/", answers.answer_list, name="answers"),
    path("answers/<int:pk>/", answers.answer_detail, name="answer"),
    path("answers/<int:pk>/undo/", answers.answer_undo, name="answer-undo"),
    path("answers/<int:pk>/<slug:action>/", answers.answer_decide, name="answer-decide"),
]
