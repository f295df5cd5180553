"""Everything is in the admin, for looking things up and for revoking API tokens.

Decisions are made in the review pages, which bump versions and write the log; an
admin form would do neither. So rows that carry a `version`, and what the doors
imported, are read-only here; the decision log cannot be added to, changed or deleted.
"""

from __future__ import annotations

from django.contrib import admin
from django_otp.plugins.otp_static.models import StaticDevice
from django_otp.plugins.otp_totp.models import TOTPDevice

from review.models import (
    Answer,
    AnswerReference,
    ApiToken,
    Case,
    Decision,
    Document,
    Entry,
    Evidence,
    Plan,
    SecurityEvent,
    TokenGrant,
)


class ReadOnlyAdmin(admin.ModelAdmin):
    """Viewable, never added or edited here: data arrives through the commands, the API and
    the upload forms, and changes through logged decisions."""

    def get_readonly_fields(self, request, obj=None):
        return [field.name for field in self.model._meta.fields] + list(self.readonly_fields)

    def has_add_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        # A deletion would change what decisions stand on with no row in the log.
        return False


class ReadOnlyInline(admin.TabularInline):
    extra = 0
    can_delete = False
    show_change_link = True

    def get_readonly_fields(self, request, obj=None):
        return [field.name for field in self.model._meta.fields]

    def has_add_permission(self, request, obj=None) -> bool:
        return False


@admin.register(Document)
class DocumentAdmin(ReadOnlyAdmin):
    list_display = [
        "name",
        "media_type",
        "sha256",
        "extractor_id",
        "extractor_version",
        "created_at",
    ]
    list_filter = ["media_type"]
    search_fields = ["name", "sha256"]
    # The bytes are what every plan's source_sha256 vouches for; show their size, not them.
    exclude = ["data"]
    readonly_fields = ["size"]

    def get_readonly_fields(self, request, obj=None):
        return [name for name in super().get_readonly_fields(request, obj) if name != "data"]

    @admin.display(description="size (bytes)")
    def size(self, obj: Document) -> int:
        return len(obj.data or b"")


class EntryInline(ReadOnlyInline):
    model = Entry
    fields = ["position", "path", "title", "span_start", "span_end", "anchor_status", "state"]


@admin.register(Plan)
class PlanAdmin(ReadOnlyAdmin):
    list_display = ["pk", "document", "status", "proposed_by", "created_at", "adjudicated_at"]
    list_filter = ["status"]
    search_fields = ["document__name", "source_sha256"]
    list_select_related = ["document"]
    inlines = [EntryInline]


@admin.register(Entry)
class EntryAdmin(ReadOnlyAdmin):
    list_display = ["path", "plan", "position", "state", "anchor_status", "decided_by"]
    list_filter = ["state", "anchor_status"]
    search_fields = ["path", "title"]
    list_select_related = ["plan__document", "decided_by"]


class EvidenceInline(ReadOnlyInline):
    model = Evidence
    fields = ["ev_id", "tool", "status", "summary", "latency_ms"]


@admin.register(Case)
class CaseAdmin(ReadOnlyAdmin):
    list_display = [
        "case_id",
        "community",
        "report_reason",
        "flagged",
        "validator_reason",
        "verdict",
    ]
    list_filter = ["flagged", "validator_reason", "verdict"]
    search_fields = ["case_id", "author", "community", "content_text"]
    inlines = [EvidenceInline]


@admin.register(Evidence)
class EvidenceAdmin(ReadOnlyAdmin):
    list_display = ["case", "ev_id", "tool", "status", "latency_ms"]
    list_filter = ["status", "tool"]
    search_fields = ["case__case_id", "summary"]
    list_select_related = ["case"]


class AnswerReferenceInline(ReadOnlyInline):
    model = AnswerReference
    fields = ["number", "original_number", "title", "year", "url"]


@admin.register(Answer)
class AnswerAdmin(ReadOnlyAdmin):
    list_display = ["answer_id", "model", "changed", "state", "created_at"]
    list_filter = ["changed", "state"]
    search_fields = ["answer_id", "question"]
    inlines = [AnswerReferenceInline]


@admin.register(AnswerReference)
class AnswerReferenceAdmin(ReadOnlyAdmin):
    list_display = ["answer", "number", "original_number", "title", "year"]
    search_fields = ["answer__answer_id", "title"]
    list_select_related = ["answer"]


@admin.register(Decision)
class DecisionAdmin(ReadOnlyAdmin):
    """The log is append-only: nobody adds, changes or deletes a row through the admin."""

    list_display = ["at", "actor_name", "action", "object_type", "object_id", "note"]
    list_filter = ["action", "object_type"]
    search_fields = ["actor_name", "object_id", "note"]
    date_hierarchy = "at"

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


class TokenGrantInline(ReadOnlyInline):
    model = TokenGrant
    fields = ["project", "lead", "editor", "moderator", "curator"]
    show_change_link = False


@admin.register(ApiToken)
class ApiTokenAdmin(ReadOnlyAdmin):
    """Tokens are made by `manage.py create_api_token`, which shows the key once; here they
    can be looked at, with the projects and roles each acts for, and revoked (deleted)."""

    inlines = [TokenGrantInline]

    list_display = ["name", "user", "created_at"]
    search_fields = ["name", "user__username"]
    list_select_related = ["user"]

    def has_delete_permission(self, request, obj=None) -> bool:
        return request.user.has_perm("review.delete_apitoken")


@admin.register(SecurityEvent)
class SecurityEventAdmin(ReadOnlyAdmin):
    """The security log, read only (staff also read it, filtered, on /security/)."""

    list_display = ["at", "kind", "username", "actor", "address", "detail"]
    list_filter = ["kind"]
    search_fields = ["username", "detail"]
    list_select_related = ["actor"]


# Second factors are enrolled and removed on /account/, which records each in the security log;
# django-otp's admin would add, change or remove them without a trace (and its QR code page
# needs a package we do not install).
admin.site.unregister(TOTPDevice)
admin.site.unregister(StaticDevice)
