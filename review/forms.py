"""The app's forms: the two uploads on the plans list, a document's revision upload, the
entry edit form (and the curator's, which settles a double review with it), a review policy;
a new project, and a person's place in one with their roles.

The edit form reads what the editor typed (whole-number offsets within the text, the title
and path without surrounding space); what makes an edit valid beyond that (the path grammar,
the neighbours, the paragraph boundaries) is `review.actions.entries.edit_entry`'s to say, so
those field errors are added to the form from the action's refusal.
"""

from __future__ import annotations

import datetime as dt

from django import forms
from django.conf import settings
from django.contrib.auth.forms import AuthenticationForm, UserCreationForm
from django.forms.forms import NON_FIELD_ERRORS

from review.actions.entries import EditRequest
from review.actions.reviews import policy_reasons, policy_rules
from review.models import (
    Document,
    Entry,
    Membership,
    Project,
    ReviewPolicy,
    Roles,
    SecurityEvent,
)
from review.models.projects import default_project_id
from review.webhooks.events import EVENT_TYPES


class ProposalOptions(forms.Form):
    """What the proposer is asked to do differently, as the API's propose takes it."""

    max_segment_chars = forms.IntegerField(
        label="Max segment chars",
        min_value=0,
        required=False,
        initial=0,
        help_text="0 for no cap; longer spans are split at a paragraph boundary.",
    )
    path_prefix = forms.CharField(
        label="Path prefix",
        required=False,
        max_length=200,
        help_text="Puts every path under one directory, so plans of different documents "
        "don't claim the same paths.",
    )

    def options(self) -> dict:
        return {
            "max_segment_chars": self.cleaned_data["max_segment_chars"] or 0,
            "path_prefix": self.cleaned_data["path_prefix"].strip(),
        }


class DocumentUploadForm(ProposalOptions):
    file = forms.FileField(label="Document", help_text="Markdown, plain text or PDF.")
    field_order = ["file", "max_segment_chars", "path_prefix"]


class StoredDocumentForm(forms.Form):
    """A form naming one of a project's stored documents."""

    # The list offers the latest documents only, so the plans page stays small however many
    # are stored; any stored document is accepted (the API and `import_plan` take any id,
    # and refuse one that has a newer revision, which the list leaves out).
    DOCUMENTS_OFFERED = 50

    document = forms.ModelChoiceField(
        label="Stored document", queryset=Document.objects.only("pk", "name", "revision")
    )

    def __init__(self, *args, project=None, **kwargs):
        """The form of `project` (an id or a Project; None: "Default"): it offers and takes
        that project's documents only, as if no other were stored."""
        super().__init__(*args, **kwargs)
        project = default_project_id() if project is None else project
        documents = self.fields["document"].queryset.filter(project=project)
        self.fields["document"].queryset = documents
        latest = (
            documents.filter(revisions__isnull=True)
            .only("pk", "name", "revision")
            .order_by("-pk")[: self.DOCUMENTS_OFFERED]
        )
        self.fields["document"].widget.choices = [("", "---------")] + [
            (document.pk, str(document)) for document in latest
        ]


class ProposeAgainForm(StoredDocumentForm, ProposalOptions):
    """A stored document proposed again with other options, as the API's propose does."""


class PlanUploadForm(StoredDocumentForm):
    PLAN_JSON, ANNOTATIONS, LABEL_STUDIO = "plan", "annotations", "label-studio"

    file = forms.FileField(
        label="Plan file", help_text="A proposed plan, in the format chosen below."
    )
    # Whichever way, the import is a proposal: a decision or labelling made elsewhere is not
    # one made here.
    format = forms.ChoiceField(
        label="Format",
        choices=[
            (PLAN_JSON, "Plan JSON"),
            (ANNOTATIONS, "W3C Web Annotation collection"),
            (LABEL_STUDIO, "Label Studio JSON export"),
        ],
        initial=PLAN_JSON,
        required=False,
        widget=forms.RadioSelect,
    )


class RevisionUploadForm(forms.Form):
    file = forms.FileField(
        label="Revised document",
        help_text="The new version's file. Its latest plan is carried onto it.",
    )


OFFSET = "Enter a character offset (a whole number)."


class EntryEditForm(forms.Form):
    title = forms.CharField(required=False, strip=False)
    path = forms.CharField(
        required=False,
        strip=False,
        help_text="Lower-case slugs (a–z, 0–9, single dashes) separated by “/”.",
    )
    start = forms.IntegerField(min_value=0, error_messages={"required": OFFSET, "invalid": OFFSET})
    end = forms.IntegerField(min_value=1, error_messages={"required": OFFSET, "invalid": OFFSET})
    note = forms.CharField(label="Note (optional)", required=False)
    # The editor saw the nearest paragraph boundaries and kept their own offsets anyway.
    keep_boundaries = forms.BooleanField(required=False, widget=forms.HiddenInput)

    def __init__(self, entry: Entry, text_length: int, data=None):
        if data is not None:
            data = data.copy()
            # "Use this boundary" buttons carry the paragraph boundary the editor picked.
            for name in ("start", "end"):
                if data.get(f"snap_{name}"):
                    data[name] = data[f"snap_{name}"]
        initial = {
            "title": entry.title,
            "path": entry.path,
            "start": entry.span_start,
            "end": entry.span_end,
        }
        super().__init__(data, initial=initial, auto_id=f"edit-%s-{entry.pk}")
        self.text_length = text_length
        widgets = self.fields
        widgets["title"].widget.attrs.update(required=True, **{"data-autofocus": True})
        widgets["path"].widget.attrs.update(required=True, spellcheck="false")
        for name, low in (("start", 0), ("end", 1)):
            widgets[name].widget = forms.NumberInput(
                attrs={
                    "min": low,
                    "max": text_length,
                    "list": f"{name}s-{entry.pk}",
                    "required": True,
                }
            )

    def clean_title(self) -> str:
        return self.cleaned_data["title"].strip()

    def clean_path(self) -> str:
        return self.cleaned_data["path"].strip()

    def clean_start(self) -> int:
        return self._within_the_text(self.cleaned_data["start"])

    def clean_end(self) -> int:
        return self._within_the_text(self.cleaned_data["end"])

    def clean_note(self) -> str:
        return self.cleaned_data["note"].strip()

    def _within_the_text(self, offset: int) -> int:
        if offset > self.text_length:
            raise forms.ValidationError(
                f"The text has {self.text_length:,} characters: an offset is at most "
                f"{self.text_length}, not {offset}."
            )
        return offset

    def edit_request(self) -> EditRequest:
        """What the editor asked for, from the cleaned fields; what the form could not read
        goes with it, for the action to refuse once it has checked the version."""
        valid = self.is_valid()
        data = self.cleaned_data
        return EditRequest(
            title=data.get("title", ""),
            path=data.get("path", ""),
            start=data.get("start", 0),
            end=data.get("end", 0),
            note=data.get("note", ""),
            keep_boundaries=data.get("keep_boundaries", False),
            unreadable={} if valid else self._errors_by_field(),
        )

    def _errors_by_field(self) -> dict[str, list[str]]:
        # The action names the edit as a whole "form", as Django names it NON_FIELD_ERRORS.
        return {
            "form" if name == NON_FIELD_ERRORS else name: list(messages)
            for name, messages in self.errors.items()
        }

    def add_refusal(self, errors: dict[str, list[str]]) -> None:
        self.full_clean()
        for name, messages in errors.items():
            field = None if name == "form" else name
            for message in messages:
                # The form's own errors come back in the action's refusal: shown once.
                if message not in self.errors.get(field or NON_FIELD_ERRORS, ()):
                    self.add_error(field, message)
        for field in self.errors:
            if field in self.fields:
                # The template gives the field's errors this id (Django marks it aria-invalid).
                error_id = self.auto_id.replace("%s", f"{field}-error")
                self.fields[field].widget.attrs["aria-describedby"] = error_id


class CurationEditForm(EntryEditForm):
    """The entry edit form as a curator settles a double review with it: the same fields,
    starting from one reviewer's version, and what the entry becomes."""

    state = forms.ChoiceField(
        label="The entry is",
        required=False,
        choices=[
            ("", "Kept, with these values"),
            (Entry.State.REJECTED, "Rejected"),
            (Entry.State.MERGED, "Merged into the entry before"),
        ],
    )

    def __init__(self, entry: Entry, text_length: int, data=None, *, start_from=None):
        super().__init__(entry, text_length, data)
        if start_from is not None:
            self.initial.update(
                title=start_from.title,
                path=start_from.path,
                start=start_from.span_start,
                end=start_from.span_end,
                state="" if start_from.state in Entry.KEPT_STATES else start_from.state,
            )

    def settled_state(self) -> str | None:
        """The state asked for (None: kept, edited or accepted as the values say)."""
        self.is_valid()
        return self.cleaned_data.get("state") or None


class ReviewPolicyForm(forms.Form):
    """A queue's review policy as staff set it on /policies/."""

    mode = forms.ChoiceField(label="Review", choices=ReviewPolicy.Mode.choices)
    share_percent = forms.IntegerField(
        label="Share double-reviewed (%)",
        min_value=0,
        max_value=100,
        initial=0,
        help_text="Drawn reproducibly from each item's id and the seed.",
    )
    seed = forms.CharField(label="Seed", required=False, max_length=64)
    reasons = forms.MultipleChoiceField(
        label="Always for validator reasons (cases)",
        required=False,
        widget=forms.CheckboxSelectMultiple,
        error_messages={"invalid_choice": "%(value)s is not a validator reason."},
    )
    rules = forms.MultipleChoiceField(
        label="Always for proposer rules (plans)",
        required=False,
        widget=forms.CheckboxSelectMultiple,
        error_messages={"invalid_choice": "%(value)s is not a proposer rule."},
    )
    on_overturn = forms.BooleanField(
        label="Always when the first opinion overturns (case overturned, answer withdrawn)",
        required=False,
    )
    version = forms.IntegerField(widget=forms.HiddenInput)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # The codes that exist, each beside what it means: a typo cannot be saved.
        for name, known in (("reasons", policy_reasons()), ("rules", policy_rules())):
            self.fields[name].choices = [
                (code, f"{code}: {meaning}" if code else meaning) for code, meaning in known.items()
            ]

    @classmethod
    def for_policy(cls, policy: ReviewPolicy) -> ReviewPolicyForm:
        return cls(
            initial={
                "mode": policy.mode,
                "share_percent": policy.share_percent,
                "seed": policy.seed,
                "reasons": policy.reasons,
                "rules": policy.rules,
                "on_overturn": policy.on_overturn,
                "version": policy.version,
            },
            prefix=policy.queue,
        )

    def policy_changes(self) -> dict:
        data = self.cleaned_data
        return {
            "mode": data["mode"],
            "share_percent": data["share_percent"],
            "seed": data["seed"].strip(),
            "reasons": data["reasons"],
            "rules": data["rules"],
            "on_overturn": data["on_overturn"],
        }


class ProjectForm(forms.Form):
    """A new project as staff make it on /projects/new/; `review.actions.projects` says what
    makes a name and a slug acceptable."""

    name = forms.CharField(label="Name", max_length=200)
    slug = forms.CharField(
        label="Slug",
        max_length=50,
        help_text="Its part of the project's addresses: letters, digits, dashes, underscores.",
        widget=forms.TextInput(attrs={"spellcheck": "false", "autocapitalize": "none"}),
    )
    description = forms.CharField(label="Description", required=False, widget=forms.Textarea)
    require_second_factor = forms.BooleanField(
        label="Members need a second factor",
        required=False,
        help_text="Its pages are only for members who sign in with an authenticator app too.",
    )


class ProjectSecondFactorForm(forms.Form):
    """Staff's checkbox on a project's members page (projects have no edit page)."""

    require_second_factor = forms.BooleanField(
        label="Members need a second factor",
        required=False,
        help_text="Its pages are only for members who sign in with an authenticator app too.",
    )


def _role_fields() -> dict[str, forms.BooleanField]:
    return {name: forms.BooleanField(label=label, required=False) for name, label in Roles.NAMES}


class MemberAddForm(forms.Form):
    """A person given a place in a project, by username, with the roles they hold there (none:
    a reader)."""

    username = forms.CharField(
        label="Username",
        max_length=150,
        widget=forms.TextInput(attrs={"spellcheck": "false", "autocapitalize": "none"}),
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields.update(_role_fields())

    def roles(self) -> dict[str, bool]:
        return {name: self.cleaned_data[name] for name, _ in Roles.NAMES}


class InvitationForm(forms.Form):
    """An address asked into a project, with the roles it will hold there (none: a reader)."""

    email = forms.EmailField(label="Email address")

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields.update(_role_fields())

    def roles(self) -> dict[str, bool]:
        return {name: self.cleaned_data[name] for name, _ in Roles.NAMES}


class InvitedAccountForm(UserCreationForm):
    """The account someone makes by following an invitation: a username, and a password that
    Django's validators check against it and the invited address."""

    def __init__(self, *args, email: str, **kwargs):
        super().__init__(*args, **kwargs)
        # The similarity validator compares the password with the account's address too.
        self.instance.email = email


class MemberRolesForm(forms.Form):
    """One member's roles, as the members page shows them, with the version it showed."""

    version = forms.IntegerField(widget=forms.HiddenInput)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields.update(_role_fields())

    @classmethod
    def for_membership(cls, membership: Membership, data=None) -> MemberRolesForm:
        initial = {name: getattr(membership, name) for name, _ in Roles.NAMES}
        # Not prefixed: the one answer to a versioned form reads its "version" field. The
        # ids alone tell one member's checkboxes from another's.
        form = cls(
            data,
            initial={**initial, "version": membership.version},
            auto_id=f"member-{membership.pk}-%s",
        )
        form.membership_pk = membership.pk
        return form

    def roles(self) -> dict[str, bool]:
        return {name: self.cleaned_data[name] for name, _ in Roles.NAMES}


class ClaimRoleForm(forms.Form):
    """A claim value mapped to roles in one project (no role: a reader there)."""

    claim_value = forms.CharField(
        label="Claim value",
        max_length=200,
        help_text="A value of the provider's roles claim, such as a group's name.",
        widget=forms.TextInput(attrs={"spellcheck": "false", "autocapitalize": "none"}),
    )
    project = forms.ModelChoiceField(label="Project", queryset=Project.objects.all())

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields.update(_role_fields())

    def roles(self) -> dict[str, bool]:
        return {name: self.cleaned_data[name] for name, _ in Roles.NAMES}


class SignInForm(AuthenticationForm):
    """Django's sign-in form, saying so when password sign-in is off rather than only that
    the password was wrong."""

    def get_invalid_login_error(self):
        if settings.PASSWORD_SIGN_IN:
            return super().get_invalid_login_error()
        return forms.ValidationError(
            f"Password sign-in is off: sign in with {settings.SSO_PROVIDER_NAME}. Only the"
            " break-glass account signs in here.",
            code="password_sign_in_off",
        )


class GuidelineForm(forms.Form):
    """The guidelines' edit form: the whole text, what changed, and the version edited."""

    text = forms.CharField(
        label="Guidelines (Markdown)",
        required=False,
        widget=forms.Textarea(attrs={"rows": 24}),
        help_text="A level-two heading (## …) that names Plans, Segmentation, Cases, "
        "Moderation or Answers opens that kind of item's section.",
    )
    summary = forms.CharField(label="What changed", required=False, max_length=200)
    based_on = forms.IntegerField(min_value=0, widget=forms.HiddenInput)


class CommentForm(forms.Form):
    text = forms.CharField(
        label="Comment (Markdown; @name mentions a member)",
        widget=forms.Textarea(attrs={"rows": 3}),
    )
    reply_to = forms.IntegerField(required=False, widget=forms.HiddenInput)


class CommentEditForm(forms.Form):
    text = forms.CharField(label="Comment (Markdown)", widget=forms.Textarea(attrs={"rows": 4}))
    version = forms.IntegerField(min_value=1, widget=forms.HiddenInput)


# How long a token made on the tokens page lasts, in days (None: until revoked).
TOKEN_LIFETIMES = ((30, "30 days"), (90, "90 days"), (365, "a year"), (None, "until revoked"))


class TokenForm(forms.Form):
    """A new API token as its owner makes it on /tokens/: a name, how long it lasts, and for
    each project they work in the roles it may act with there (of those they hold; "Read"
    alone: reads and decides nothing). `review.actions.tokens` holds it to what they hold."""

    name = forms.CharField(label="Name", max_length=100, help_text="What the token is for.")
    lifetime = forms.TypedChoiceField(
        label="Expires after",
        choices=[("" if days is None else str(days), label) for days, label in TOKEN_LIFETIMES],
        coerce=lambda value: int(value) if value else None,
        empty_value=None,
        initial="90",
        required=False,
    )

    def __init__(self, data=None, *, projects=()):
        """`projects`: (project, the role names its owner holds there), in their order."""
        super().__init__(data)
        self.projects = list(projects)
        for project, held in self.projects:
            choices = [("reader", "Read")] + [
                (name, label) for name, label in Roles.NAMES if name in held
            ]
            self.fields[f"project_{project.pk}"] = forms.MultipleChoiceField(
                label=project.name,
                choices=choices,
                required=False,
                widget=forms.CheckboxSelectMultiple,
            )

    def project_fields(self):
        return [self[f"project_{project.pk}"] for project, _ in self.projects]

    def clean(self):
        cleaned = super().clean()
        grants = [
            (project.slug, frozenset(cleaned.get(f"project_{project.pk}") or ()))
            for project, _ in self.projects
        ]
        cleaned["grants"] = [(slug, roles) for slug, roles in grants if roles]
        if not cleaned["grants"]:
            raise forms.ValidationError("Tick at least one project the token may act in.")
        return cleaned


class LiftLockoutForm(forms.Form):
    """Which lockout staff lift on /security/lockouts/: an account's, or an address's."""

    of = forms.ChoiceField(choices=[("account", "account"), ("address", "address")])
    value = forms.CharField(max_length=255)


# A time to narrow the security log by, as a browser's datetime-local input sends it, or typed
# with a space, or a day alone.
LOG_TIME_FORMATS = ["%Y-%m-%dT%H:%M", "%Y-%m-%d %H:%M", "%Y-%m-%d"]


def _log_time(label: str) -> forms.DateTimeField:
    return forms.DateTimeField(
        label=label,
        required=False,
        input_formats=LOG_TIME_FORMATS,
        widget=forms.DateTimeInput(attrs={"type": "datetime-local"}, format="%Y-%m-%dT%H:%M"),
        error_messages={
            "invalid": "give a day (YYYY-MM-DD), or a day and a time (YYYY-MM-DD HH:MM)."
        },
    )


class SecurityLogFilterForm(forms.Form):
    """What /security/ is narrowed by, each optional: a kind, a person (whom an event is about,
    or who did it), an address, and the time from and to (UTC, as the log shows it; both
    included, to the minute, or the whole day when no time is given)."""

    kind = forms.ChoiceField(
        choices=[("", "every kind"), *SecurityEvent.Kind.choices], required=False
    )
    username = forms.CharField(
        label="Person",
        max_length=150,
        required=False,
        widget=forms.TextInput(attrs={"spellcheck": "false", "autocapitalize": "none"}),
    )
    # A CharField: text that is no address matches nothing, rather than being an error.
    address = forms.CharField(
        max_length=64, required=False, widget=forms.TextInput(attrs={"spellcheck": "false"})
    )
    since = _log_time("From")
    until = _log_time("To")

    def clean_until(self):
        until = self.cleaned_data["until"]
        if until is None:
            return None
        # The last moment shown is included: the whole minute, or the whole day typed alone.
        day_alone = len(self.data.get("until", "").strip()) == len("YYYY-MM-DD")
        return until + (dt.timedelta(days=1) if day_alone else dt.timedelta(minutes=1))

    def clean(self):
        cleaned = super().clean()
        since, until = cleaned.get("since"), cleaned.get("until")
        if since is not None and until is not None and since >= until:
            raise forms.ValidationError("“From” is after “To”: nothing could be shown.")
        return cleaned


class ResetSecondFactorForm(forms.Form):
    """Whose second factor staff reset on /security/second-factors/reset/, and why: the reason
    is recorded in the security log (whose detail column bounds it)."""

    username = forms.CharField(
        label="Person",
        max_length=150,
        widget=forms.TextInput(attrs={"spellcheck": "false", "autocapitalize": "none"}),
    )
    reason = forms.CharField(
        label="Reason",
        max_length=300,
        help_text="Recorded in the security log: how the person was found to be who they say.",
        widget=forms.Textarea(attrs={"rows": 3}),
    )


class SignOutEverywhereForm(forms.Form):
    """The person's password, asked again before their other sessions end: it is re-hashed
    (`review.actions.accounts.sign_out_everywhere`), and a session someone took cannot do it."""

    password = forms.CharField(
        label="Your password",
        strip=False,
        widget=forms.PasswordInput(attrs={"autocomplete": "current-password"}),
    )


class SecondFactorCodeForm(forms.Form):
    """A code from the person's authenticator app (six digits) or one of their recovery codes."""

    code = forms.CharField(
        label="Code",
        max_length=16,
        widget=forms.TextInput(
            attrs={
                "autocomplete": "one-time-code",
                "autocapitalize": "none",
                "spellcheck": "false",
                "inputmode": "text",
            }
        ),
    )


class RemoveSecondFactorForm(forms.Form):
    """A current code or the person's password, asked before their second factor is removed:
    a session someone took cannot remove it."""

    code_or_password = forms.CharField(
        label="A current code, or your password",
        strip=False,
        widget=forms.PasswordInput(attrs={"autocomplete": "current-password"}),
    )


class WebhookForm(forms.Form):
    """A webhook registered on its project's webhooks page: the address, the events it is sent
    and what it is for (`review.actions.webhooks` checks the address and the events)."""

    url = forms.URLField(
        label="Address",
        max_length=500,
        assume_scheme="https",
        help_text="Where each event is POSTed, signed; https:// unless it is your own network.",
    )
    events = forms.MultipleChoiceField(
        label="Events",
        choices=list(EVENT_TYPES.items()),
        widget=forms.CheckboxSelectMultiple,
        error_messages={"required": "Choose at least one event to send."},
    )
    description = forms.CharField(
        label="What it is for", max_length=200, required=False, help_text="Optional."
    )
