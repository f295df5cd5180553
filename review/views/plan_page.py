"""One plan's page: the document with every entry's span drawn over it, and the entries
beside it, in order. Also the pieces the other plan views share: finding a plan for a user,
and drawing a row or a region of the text.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth import get_user_model
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.urls import reverse
from django.utils import timezone
from django.utils.html import format_html
from django.views.decorators.http import require_GET

from review import plan_actions
from review.models import Entry, Plan
from review.permissions import can_decide_plans

PLAN_TEMPLATE = "review/plans/plan.html"
# How much of a long quote the entry row shows at each end.
QUOTE_END_CHARS = 60
CONTEXT_CHARS = 24
STATE_MARKS = {
    Entry.State.PROPOSED: "○",
    Entry.State.ACCEPTED: "✓",
    Entry.State.EDITED: "✎",
    Entry.State.MERGED: "↑",
    Entry.State.REJECTED: "✕",
}


# --- finding things ------------------------------------------------------------------------


def get_plan_for_user(request: HttpRequest, pk: int, *, decide: bool = False) -> Plan:
    if decide and not can_decide_plans(request.user):
        raise PermissionDenied("Only editors decide plans.")
    plans = Plan.objects.select_related("document", "adjudicated_by").defer(
        "document__data", "original_payload", "adjudicated_payload"
    )
    return get_object_or_404(plans, pk=pk)


def plan_url(plan_id: int) -> str:
    return reverse("plan", args=[plan_id])


def entry_url(entry: Entry) -> str:
    return f"{plan_url(entry.plan_id)}?entry={entry.pk}#entry-{entry.pk}"


# --- one plan --------------------------------------------------------------------------------


@dataclass
class Region:
    """A stretch of the document: one entry's span and the uncovered text after it (or, with
    no entry, the uncovered text before the first entry)."""

    entry: Entry | None
    text: str = ""
    gap: str = ""
    found: bool = True

    @property
    def body(self) -> str:
        """The span's text up to its trailing blank lines, where its end mark is drawn."""
        return self.text.rstrip()

    @property
    def trailing(self) -> str:
        return self.text[len(self.text.rstrip()) :]


def region(entry: Entry | None, text: str, start: int, end: int, gap_end: int) -> Region:
    if entry is not None and not 0 <= entry.span_start < entry.span_end <= len(text):
        return Region(entry, found=False)
    return Region(entry, text[start:end], text[end:gap_end] if gap_end > end else "")


def document_regions(text: str, entries: list[Entry]) -> tuple[Region, list[Region]]:
    """The lead (text before the first entry) and one region per entry, in order, so that
    every character of the text appears once. Overlaps, which a valid plan never has, are
    clipped rather than drawn twice."""
    placed = [0 <= e.span_start < e.span_end <= len(text) for e in entries]
    next_starts, upcoming = [0] * len(entries), len(text)
    for index in range(len(entries) - 1, -1, -1):
        next_starts[index] = upcoming
        if placed[index]:
            upcoming = entries[index].span_start
    lead, cursor, regions = Region(None, gap=text[:upcoming]), upcoming, []
    for entry, found, next_start in zip(entries, placed, next_starts, strict=True):
        if not found:
            regions.append(Region(entry, found=False))
            continue
        start = max(entry.span_start, cursor)
        cursor = max(entry.span_end, start)
        regions.append(region(entry, text, start, cursor, next_start))
    return lead, regions


def decorate(
    entry: Entry,
    entries_url: str,
    *,
    number: int | None = None,
    decider: str = "",
    undoable: bool = False,
) -> Entry:
    """Attach what the row and the span show, as ready strings: the page draws hundreds of
    rows, and each template variable spared is time spared."""
    key = str(entry.pk)
    number_label = str(entry.position + 1 if number is None else number)
    state, label = entry.state, entry.get_state_display()
    mark = STATE_MARKS[state]
    entry.key, entry.number_label, entry.version_label = key, number_label, str(entry.version)
    entry.url = f"{entries_url}{key}/"
    entry.state_text = format_html('<span aria-hidden="true">{}</span> {}', mark, label)
    if state == Entry.State.PROPOSED:
        entry.seg_label = number_label
    elif state == Entry.State.MERGED:
        entry.seg_label = f"{number_label} ↑ merged"
    else:
        entry.seg_label = f"{number_label} {mark} {label.lower()}"
    entry.span_label = f"{entry.span_start}–{entry.span_end}"
    entry.rules_label = ", ".join(entry.rules or []) or "no rule"
    quote = entry.quote
    if len(quote) > 2 * QUOTE_END_CHARS + 10:
        entry.quote_head, entry.quote_tail = quote[:QUOTE_END_CHARS], quote[-QUOTE_END_CHARS:]
    else:
        entry.quote_head, entry.quote_tail = quote, ""
    entry.prefix_tail = entry.prefix[-CONTEXT_CHARS:]
    entry.suffix_head = entry.suffix[:CONTEXT_CHARS]
    entry.unsettled = plan_actions.entry_anchor_unsettled(entry) and (
        state not in plan_actions.ANCHOR_SETTLING_STATES
    )
    anchor = f"Anchor: {entry.get_anchor_status_display().lower()}"
    if entry.anchor_confirmed:
        anchor += ", confirmed by an editor"
    elif entry.unsettled:
        anchor += ", confirm it or edit the entry"
    entry.anchor_label = anchor
    entry.decided_label = ""
    if entry.decided_by_id and entry.decided_at:
        when = timezone.localtime(entry.decided_at).strftime("%Y-%m-%d %H:%M")
        entry.decided_label = f"{label} by {decider or 'someone'} · {when}"
        if entry.note:
            entry.decided_label += f" · “{entry.note}”"
    entry.can_accept = state not in plan_actions.KEPT_STATES
    entry.can_reject = state != Entry.State.REJECTED
    # Entries are numbered from 0 by the adapters; the first has nothing to merge into.
    entry.can_merge = state != Entry.State.MERGED and entry.position > 0
    entry.undoable = undoable
    return entry


def row_context(request: HttpRequest, plan: Plan) -> dict:
    """What every row and region needs to know about the plan and the person looking."""
    url = plan_url(plan.pk)
    return {
        "plan": plan,
        "can_decide": can_decide_plans(request.user),
        "plan_open": plan.status == Plan.Status.OPEN,
        "entries_url": f"{url}entries/",
        "plan_url": url,
    }


@require_GET
def plan_detail(request: HttpRequest, pk: int) -> HttpResponse:
    plan = get_plan_for_user(request, pk)
    entries = list(plan.entries.defer("proposed").order_by("position"))
    undoable = plan_actions.undoable_entry_ids(plan)
    deciders = _usernames({entry.decided_by_id for entry in entries})
    context = row_context(request, plan)
    rule_counts: dict[str, int] = {}
    for number, entry in enumerate(entries, start=1):
        entry.plan = plan
        decorate(
            entry,
            context["entries_url"],
            number=number,
            decider=deciders.get(entry.decided_by_id, ""),
            undoable=entry.pk in undoable,
        )
        if entry.state == Entry.State.PROPOSED:
            for rule in entry.rules or []:
                rule_counts[rule] = rule_counts.get(rule, 0) + 1
    lead, regions = document_regions(plan.document.text, entries)
    context |= {
        "document": plan.document,
        "rows": list(zip(entries, regions, strict=True)),
        "lead": lead,
        "counts": plan_actions.counts_of_entries(entries),
        "current_id": _current_entry_id(request, entries),
        "rule_counts": sorted(rule_counts.items()),
    }
    return render(request, PLAN_TEMPLATE, context)


def _usernames(user_ids: set[int | None]) -> dict[int, str]:
    ids = {user_id for user_id in user_ids if user_id}
    if not ids:
        return {}
    return dict(get_user_model().objects.filter(pk__in=ids).values_list("pk", "username"))


def _current_entry_id(request: HttpRequest, entries: list[Entry]) -> int | None:
    wanted = request.GET.get("entry", "")
    ids = {entry.pk for entry in entries}
    if wanted.isdigit() and int(wanted) in ids:
        return int(wanted)
    proposed = (entry.pk for entry in entries if entry.state == Entry.State.PROPOSED)
    return next(proposed, entries[0].pk if entries else None)
