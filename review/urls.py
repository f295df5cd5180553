"""Every route of the app, in one place (templates and code use `{% url %}` and `reverse()`)."""

from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path, re_path

from review.api import api
from review.api.auth import without_login
from review.second_factor import before_second_factor
from review.views import (
    account,
    answers,
    api_docs,
    cases,
    comments,
    dashboard,
    entries,
    guidelines,
    insights,
    invitations,
    jobs,
    legacy,
    lockouts,
    passwords,
    plan,
    plan_reviews,
    plans,
    policies,
    progress,
    project_admin,
    queues,
    revisions,
    second_factor,
    second_factor_reset,
    security_log,
    sign_on,
    tokens,
    webhooks,
)

# One project's work, each route under `p/<slug>/` (ProjectFromUrl, in review/middleware.py,
# resolves the project once, for its members only; the views take no project argument).
project_urlpatterns = [
    path("progress/", progress.progress, name="progress"),
    # Segmentation plans
    path("plans/", plans.plan_list, name="plans"),
    path("plans/next/", queues.queue_next, {"queue": "plans"}, name="plans-next"),
    path("plans/upload-document/", plans.upload_document, name="plan-upload-document"),
    path("plans/upload-plan/", plans.upload_plan, name="plan-upload-plan"),
    path("plans/propose-again/", plans.propose_again, name="plan-propose-again"),
    path("plans/<int:pk>/", plan.plan_detail, name="plan"),
    path("plans/<int:pk>/history/", plan.plan_history, name="plan-history"),
    path("plans/<int:pk>/accept-rule/", plan.plan_accept_rule, name="plan-accept-rule"),
    path(
        "plans/<int:pk>/accept-rule/undo/",
        plan.plan_undo_accept_rule,
        name="plan-undo-accept-rule",
    ),
    path("plans/<int:pk>/adjudicate/", plan.plan_adjudicate, name="plan-adjudicate"),
    path("plans/<int:pk>/export.json", plan.plan_export, name="plan-export"),
    path("plans/<int:pk>/annotations.jsonld", plan.plan_annotations, name="plan-annotations"),
    path("plans/<int:pk>/label-studio.json", plan.plan_label_studio, name="plan-label-studio"),
    path("plans/<int:pk>/review-copy/", plan_reviews.plan_review_copy, name="plan-review-copy"),
    path("plans/<int:pk>/curation/", plan_reviews.plan_curation, name="plan-curation"),
    path(
        "plans/<int:pk>/curation/<int:entry_pk>/",
        plan_reviews.plan_curate_entry,
        name="plan-curate-entry",
    ),
    path(
        "plans/<int:pk>/curation/<int:entry_pk>/edit/",
        plan_reviews.plan_curate_edit,
        name="plan-curate-edit",
    ),
    path(
        "plans/<int:pk>/curation/<int:entry_pk>/undo/",
        plan_reviews.plan_curate_undo,
        name="plan-curate-undo",
    ),
    path("plans/<int:pk>/entries/list/<int:number>/", plan.plan_entry_list, name="plan-entry-list"),
    path("plans/<int:pk>/entries/<int:entry_pk>/", entries.entry_row, name="entry"),
    path("plans/<int:pk>/entries/<int:entry_pk>/edit/", entries.entry_edit, name="entry-edit"),
    path(
        "plans/<int:pk>/entries/<int:entry_pk>/<slug:action>/",
        entries.entry_decide,
        name="entry-decide",
    ),
    # Documents and their revisions
    path("documents/<int:pk>/", revisions.revision_detail, name="revision"),
    path("documents/<int:pk>/revisions/", revisions.revision_upload, name="revision-upload"),
    # Moderation cases
    path("cases/", cases.case_list, name="cases"),
    path("cases/next/", queues.queue_next, {"queue": "cases"}, name="cases-next"),
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
    path("answers/next/", queues.queue_next, {"queue": "answers"}, name="answers-next"),
    path("answers/<int:pk>/", answers.answer_detail, name="answer"),
    path("answers/<int:pk>/undo/", answers.answer_undo, name="answer-undo"),
    path("answers/<int:pk>/<slug:action>/", answers.answer_decide, name="answer-decide"),
    # Work queues: an open item's poll, taking it again, leaving it, a lead's release
    path("open/<slug:queue>/<int:pk>/here/", queues.item_here, name="item-here"),
    path("open/<slug:queue>/<int:pk>/take/", queues.item_take, name="item-take"),
    path("open/<slug:queue>/<int:pk>/leave/", queues.item_leave, name="item-leave"),
    path("leases/<int:pk>/release/", queues.lease_release, name="lease-release"),
    # Long work in the background
    path("jobs/export-decisions/", jobs.export_decisions, name="job-export-decisions"),
    path("jobs/<int:pk>/", jobs.job_detail, name="job"),
    path("jobs/<int:pk>/retry/", jobs.job_retry, name="job-retry"),
    path("jobs/<int:pk>/download/", jobs.job_download, name="job-download"),
    # Guidelines and discussion
    path("guidelines/", guidelines.guidelines_page, name="guidelines"),
    path("guidelines/edit/", guidelines.guidelines_edit, name="guidelines-edit"),
    path("guidelines/v<int:version>/", guidelines.guidelines_version, name="guidelines-version"),
    path("discussion/<slug:kind>/<int:pk>/", comments.item_comments, name="comments"),
    path(
        "discussion/<slug:kind>/<int:pk>/comments.json",
        comments.item_comments_export,
        name="comments-export",
    ),
    path("comments/<int:pk>/edit/", comments.comment_edit, name="comment-edit"),
]

urlpatterns = [
    path("admin/", admin.site.urls),
    # Signing in and out, and passwords: Django's own views (review/views/passwords.py adds
    # the security log; review/views/sign_on.py the single sign-on button), under the names
    # Django's views send each other to.
    path("accounts/login/", sign_on.SignInView.as_view(), name="login"),
    path("accounts/logout/", before_second_factor(sign_on.SignOutView.as_view()), name="logout"),
    # The second factor's code, after the password (review/second_factor.py).
    path("accounts/second-factor/", second_factor.second_factor, name="second-factor"),
    path("accounts/password/change/", passwords.PasswordChange.as_view(), name="password_change"),
    path(
        "accounts/password/change/done/",
        auth_views.PasswordChangeDoneView.as_view(),
        name="password_change_done",
    ),
    path("accounts/password/reset/", passwords.PasswordReset.as_view(), name="password_reset"),
    path(
        "accounts/password/reset/sent/",
        auth_views.PasswordResetDoneView.as_view(),
        name="password_reset_done",
    ),
    path(
        "accounts/password/reset/<uidb64>/<token>/",
        passwords.PasswordResetConfirm.as_view(),
        name="password_reset_confirm",
    ),
    path(
        "accounts/password/reset/done/",
        auth_views.PasswordResetCompleteView.as_view(),
        name="password_reset_complete",
    ),
    # The API's reference, a page of the app (signed in); the schema it reads is the API's.
    path("api/docs", api_docs.api_docs, name="openapi-reference"),
    path("api/", without_login(api.urls)),
    # The API's addresses from before projects lead to the same operation in the item's
    # project, or in the key's own (review/views/legacy.py).
    re_path(
        rf"^api/(?P<prefix>{'|'.join(legacy.MOVED_IN_API)})(?:/(?P<rest>.*))?$",
        legacy.moved_api_address,
        name="api-moved",
    ),
    path("", dashboard.dashboard, name="dashboard"),
    # Projects and members
    path("projects/", project_admin.project_list, name="projects"),
    path("projects/new/", project_admin.project_new, name="project-new"),
    path("projects/insights/", insights.projects_insights, name="projects-insights"),
    path("projects/<slug:slug>/members/", project_admin.project_members, name="project-members"),
    path(
        "projects/<slug:slug>/second-factor/",
        project_admin.project_second_factor,
        name="project-second-factor",
    ),
    path("projects/<slug:slug>/members/add/", project_admin.member_add, name="project-member-add"),
    path(
        "projects/<slug:slug>/members/invite/",
        project_admin.member_invite,
        name="project-member-invite",
    ),
    path(
        "projects/<slug:slug>/members/<int:pk>/",
        project_admin.member_roles,
        name="project-member-roles",
    ),
    path(
        "projects/<slug:slug>/members/<int:pk>/remove/",
        project_admin.member_remove,
        name="project-member-remove",
    ),
    path(
        "projects/<slug:slug>/invitations/<int:pk>/withdraw/",
        project_admin.invitation_withdraw,
        name="project-invitation-withdraw",
    ),
    path(
        "projects/<slug:slug>/invitations/<int:pk>/resend/",
        project_admin.invitation_resend,
        name="project-invitation-resend",
    ),
    # A project's webhooks (its leads and staff)
    path("projects/<slug:slug>/webhooks/", webhooks.webhook_list, name="project-webhooks"),
    path("projects/<slug:slug>/webhooks/new/", webhooks.webhook_new, name="project-webhook-new"),
    path(
        "projects/<slug:slug>/webhooks/<int:pk>/", webhooks.webhook_detail, name="project-webhook"
    ),
    path(
        "projects/<slug:slug>/webhooks/<int:pk>/enabled/",
        webhooks.webhook_enabled,
        name="project-webhook-enabled",
    ),
    path(
        "projects/<slug:slug>/webhooks/<int:pk>/delete/",
        webhooks.webhook_delete,
        name="project-webhook-delete",
    ),
    path(
        "projects/<slug:slug>/webhooks/<int:pk>/deliveries/<int:delivery>/redeliver/",
        webhooks.webhook_redeliver,
        name="project-webhook-redeliver",
    ),
    # Where a mailed invitation leads: open to anyone holding the link.
    path("invitations/<str:token>/", invitations.invitation, name="invitation"),
    path("settings/stay/", queues.stay_setting, name="stay-setting"),
    # A person's own API tokens (staff: everyone's)
    path("tokens/", tokens.token_list, name="tokens"),
    path("tokens/new/", tokens.token_new, name="token-new"),
    path("tokens/<int:pk>/revoke/", tokens.token_revoke, name="token-revoke"),
    path("security/", security_log.security_log, name="security-log"),
    path("security/lockouts/", lockouts.lockout_list, name="lockouts"),
    path("security/lockouts/lift/", lockouts.lockout_lift, name="lockout-lift"),
    # Staff reset the second factor of someone who lost their app and their recovery codes.
    path(
        "security/second-factors/reset/",
        second_factor_reset.second_factor_reset,
        name="second-factor-reset",
    ),
    # A person's own account: signing out everywhere else
    path("account/", account.account, name="account"),
    path("account/sign-out-everywhere/", account.sign_out_everywhere, name="sign-out-everywhere"),
    # and one's second factor: an authenticator app, enrolled in two steps, and removed.
    path("account/second-factor/start/", account.second_factor_start, name="second-factor-start"),
    path(
        "account/second-factor/confirm/",
        account.second_factor_confirm,
        name="second-factor-confirm",
    ),
    path(
        "account/second-factor/remove/", account.second_factor_remove, name="second-factor-remove"
    ),
    # Single sign-on (OpenID Connect; 404 while it is off), and the claim values staff map to
    # roles in projects.
    path("sign-on/start/", sign_on.sign_on_start, name="sign-on-start"),
    path("sign-on/callback/", sign_on.sign_on_callback, name="sign-on-callback"),
    path("sign-on/roles/", sign_on.claim_roles, name="claim-roles"),
    path("sign-on/roles/<int:pk>/remove/", sign_on.claim_role_remove, name="claim-role-remove"),
    # A mention is marked read from the dashboard, outside any project.
    path("mentions/<int:pk>/read/", comments.mention_read, name="mention-read"),
    path("p/<slug:project>/", include(project_urlpatterns)),
    # The addresses from before projects (bookmarks, links in tickets) lead to the same page
    # in the item's project, or in the person's own (review/views/legacy.py).
    re_path(
        rf"^(?P<prefix>{'|'.join(legacy.MOVED)})/(?P<rest>.*)$",
        legacy.moved_address,
        name="moved-address",
    ),
]

# A refused page parameter (a keyset cursor of a list) names itself in the 400.
handler400 = "review.views.lists.bad_request"
