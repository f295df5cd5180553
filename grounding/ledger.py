"""The rules' ledger: how the proposer's rules and the validator's reasons fare with people.

Pure records built from counts the review app aggregates:
- `RuleRecord`: for one proposer rule (and proposer version), what reviewers did with its
  entries, its acceptance share with a Wilson interval, and whether it is validated;
- `ReasonRecord`: for one validator reason (or for unflagged rationales), the moderators'
  verdicts and the share of them that agreed with the validator;
- `confusion`: "validator flagged" against "moderator did not uphold", case by case, with κ
  and the cases where the two disagree.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from grounding.agreement import Agreement, Proportion, cohen_kappa, wilson_interval
from grounding.evidence import VALIDATION_REASONS

DEFAULT_MIN_DOCUMENTS = 5
DEFAULT_MIN_LOWER_BOUND = 0.8
# The verdicts on rationales the validator passed, counted like a reason of their own.
UNFLAGGED = "unflagged"
REASONS = (*VALIDATION_REASONS, UNFLAGGED)
MAX_CASES = 100_000
# What a rule's record shows beside it and leaves out of it: decisions no person judged.
NOT_COUNTED = ("bulk_accepted", "carried", "review_copies")


class LedgerError(ValueError):
    """Counts that cannot describe a rule's or a reason's decisions."""


@dataclass(frozen=True)
class ValidationSettings:
    """When a rule counts as validated: decided on `min_documents` documents or more, and the
    lower bound of its acceptance interval at `min_lower_bound` or above."""

    min_documents: int = DEFAULT_MIN_DOCUMENTS
    min_lower_bound: float = DEFAULT_MIN_LOWER_BOUND

    def __post_init__(self) -> None:
        if (
            isinstance(self.min_documents, bool)
            or not isinstance(self.min_documents, int)
            or self.min_documents < 1
        ):
            raise LedgerError(
                f"min_documents is a whole number of 1 or more, not {self.min_documents!r}"
            )
        if not isinstance(self.min_lower_bound, int | float) or not 0 <= self.min_lower_bound <= 1:
            raise LedgerError(
                f"min_lower_bound is a share from 0 to 1 (e.g. 0.8), not {self.min_lower_bound!r}"
            )


@dataclass(frozen=True)
class RuleRecord:
    """What reviewers did with one rule's entries.

    Only entries accepted as proposed count as accepted. An edited entry needed a person to
    fix its title, path or span, and a merged one should not have been proposed alone, so
    accepting that rule's entries unseen ("accept by rule") would have got both wrong; they
    count as decided but not accepted.

    `documents` counts the distinct documents the decided entries come from (the revisions of
    one document are one document): a rule that is right on one long document has shown
    nothing about the next one.

    Only judgements count: an entry decided by a person looking at it. What no person judged
    is counted beside the record and left out of it, or the record would vouch for itself:
    `bulk_accepted` entries were accepted with all of their rule, unseen (the very action a
    validated record lets through); `carried` ones kept a decision from an earlier revision
    (already counted there); `review_copies` are the decisions in double-review copies, each
    entry counted once through the agreement or curation that settled it on the plan.
    """

    rule: str
    proposer_version: str
    proposed: int
    decided: int
    accepted: int
    edited: int
    merged: int
    rejected: int
    documents: int
    settings: ValidationSettings = field(default_factory=ValidationSettings)
    bulk_accepted: int = 0
    carried: int = 0
    review_copies: int = 0

    def __post_init__(self) -> None:
        for name in ("rule", "proposer_version"):
            value = getattr(self, name)
            if not isinstance(value, str) or not value.strip():
                raise LedgerError(f"a rule record names its {name}; got {value!r}")
        where = f"rule {self.rule!r} ({self.proposer_version})"
        for name in (
            "proposed",
            "decided",
            "accepted",
            "edited",
            "merged",
            "rejected",
            "documents",
            *NOT_COUNTED,
        ):
            _check_count(f"{where}: {name}", getattr(self, name))
        outcomes = self.accepted + self.edited + self.merged + self.rejected
        if outcomes != self.decided:
            raise LedgerError(
                f"{where}: accepted, edited, merged and rejected add up to {outcomes}, "
                f"not to the {self.decided} decided"
            )
        unjudged = self.bulk_accepted + self.carried
        if self.decided + unjudged > self.proposed:
            besides = f" and {unjudged} bulk-accepted or carried" if unjudged else ""
            raise LedgerError(
                f"{where}: {self.decided} decided{besides} of only {self.proposed} proposed"
            )
        if self.documents > self.decided or (self.decided and not self.documents):
            raise LedgerError(
                f"{where}: {self.decided} decided entries cannot come from {self.documents} "
                "documents"
            )
        if not isinstance(self.settings, ValidationSettings):
            raise LedgerError(f"{where}: settings are ValidationSettings, not {self.settings!r}")

    @property
    def acceptance(self) -> Proportion:
        return wilson_interval(self.accepted, self.decided)

    @property
    def validated(self) -> bool:
        return not self._shortfalls()

    @property
    def why_not(self) -> str:
        """Empty when validated; else e.g. "accepted 12 of 14, on 1 document; needs 5"."""
        shortfalls = self._shortfalls()
        if not shortfalls:
            return ""
        if not self.decided:
            by = " by a person" if self.bulk_accepted or self.carried else ""
            return f"none of its {self.proposed} proposed entries decided{by} yet"
        documents = f"{self.documents} document{'' if self.documents == 1 else 's'}"
        return f"accepted {self.accepted} of {self.decided}, on {documents}; " + "; ".join(
            shortfalls
        )

    @property
    def not_counted(self) -> str:
        """What was decided without a person judging it, e.g. "22 bulk-accepted, not
        counted"; empty when everything decided was judged."""
        kinds = [
            f"{count} {words}"
            for count, words in (
                (self.bulk_accepted, "bulk-accepted"),
                (self.carried, "carried from an earlier revision"),
                (self.review_copies, "decided in double-review copies"),
            )
            if count
        ]
        return ", ".join(kinds) + ", not counted" if kinds else ""

    def _shortfalls(self) -> list[str]:
        settings = self.settings
        shortfalls = []
        if self.documents < settings.min_documents:
            shortfalls.append(f"needs decisions on {settings.min_documents} documents")
        low = self.acceptance.low
        if low is not None and low < settings.min_lower_bound:
            shortfalls.append(
                f"the interval's lower bound {low:.2f} is under {settings.min_lower_bound:.2f}"
            )
        return shortfalls

    def to_dict(self) -> dict[str, Any]:
        return {
            "rule": self.rule,
            "proposer_version": self.proposer_version,
            "proposed": self.proposed,
            "decided": self.decided,
            "accepted": self.accepted,
            "edited": self.edited,
            "merged": self.merged,
            "rejected": self.rejected,
            "documents": self.documents,
            "not_counted": {name: getattr(self, name) for name in NOT_COUNTED},
            "acceptance": self.acceptance.to_dict(),
            "validated": self.validated,
            "why_not": self.why_not,
            "min_documents": self.settings.min_documents,
            "min_lower_bound": self.settings.min_lower_bound,
        }


@dataclass(frozen=True)
class ReasonRecord:
    """The moderators' verdicts on the cases one validator reason flagged (or on the unflagged).

    A moderator agrees with a flag by not upholding: overturning the decision or asking for the
    rationale to be rewritten. On an unflagged rationale, agreeing is upholding it.
    """

    reason: str
    upheld: int
    overturned: int
    needs_rewrite: int

    def __post_init__(self) -> None:
        if self.reason not in REASONS:
            raise LedgerError(f"reason {self.reason!r} is not one of {', '.join(REASONS)}")
        for name in ("upheld", "overturned", "needs_rewrite"):
            _check_count(f"reason {self.reason!r}: {name}", getattr(self, name))

    @property
    def flagged(self) -> bool:
        return self.reason != UNFLAGGED

    @property
    def decided(self) -> int:
        return self.upheld + self.overturned + self.needs_rewrite

    @property
    def agreed(self) -> Proportion:
        """The share of verdicts that agreed with the validator, with its Wilson interval."""
        agreeing = self.overturned + self.needs_rewrite if self.flagged else self.upheld
        return wilson_interval(agreeing, self.decided)

    def to_dict(self) -> dict[str, Any]:
        return {
            "reason": self.reason,
            "flagged": self.flagged,
            "upheld": self.upheld,
            "overturned": self.overturned,
            "needs_rewrite": self.needs_rewrite,
            "decided": self.decided,
            "agreed": self.agreed.to_dict(),
        }


@dataclass(frozen=True)
class Confusion:
    """Validator flagged (rows) against moderator did not uphold (columns), over decided cases."""

    flagged_not_upheld: int
    flagged_upheld: int
    unflagged_not_upheld: int
    unflagged_upheld: int
    kappa: Agreement
    # The disagreements, by case id when the caller gave ids, else by position.
    flagged_but_upheld: tuple[str, ...]
    unflagged_but_not_upheld: tuple[str, ...]

    @property
    def cases(self) -> int:
        return (
            self.flagged_not_upheld
            + self.flagged_upheld
            + self.unflagged_not_upheld
            + self.unflagged_upheld
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "matrix": {
                "flagged": {"not_upheld": self.flagged_not_upheld, "upheld": self.flagged_upheld},
                "unflagged": {
                    "not_upheld": self.unflagged_not_upheld,
                    "upheld": self.unflagged_upheld,
                },
            },
            "cases": self.cases,
            "kappa": self.kappa.to_dict(),
            "flagged_but_upheld": list(self.flagged_but_upheld),
            "unflagged_but_not_upheld": list(self.unflagged_but_not_upheld),
        }


def confusion(
    flagged: Sequence[bool],
    not_upheld: Sequence[bool],
    case_ids: Sequence[str] | None = None,
) -> Confusion:
    """The 2x2 matrix over decided cases, one position per case (undecided ones left out)."""
    ids = _case_ids(flagged, not_upheld, case_ids)
    cells = {(True, True): 0, (True, False): 0, (False, True): 0, (False, False): 0}
    for was_flagged, was_not_upheld in zip(flagged, not_upheld, strict=True):
        cells[was_flagged, was_not_upheld] += 1
    return Confusion(
        flagged_not_upheld=cells[True, True],
        flagged_upheld=cells[True, False],
        unflagged_not_upheld=cells[False, True],
        unflagged_upheld=cells[False, False],
        kappa=cohen_kappa(list(flagged), list(not_upheld)),
        flagged_but_upheld=tuple(
            case for case, f, n in zip(ids, flagged, not_upheld, strict=True) if f and not n
        ),
        unflagged_but_not_upheld=tuple(
            case for case, f, n in zip(ids, flagged, not_upheld, strict=True) if n and not f
        ),
    )


def _case_ids(
    flagged: Sequence[bool], not_upheld: Sequence[bool], case_ids: Sequence[str] | None
) -> list[str]:
    for name, values in (("flagged", flagged), ("not_upheld", not_upheld)):
        if not isinstance(values, Sequence) or isinstance(values, str | bytes):
            raise LedgerError(f"{name} is a list of booleans, one per case, not {values!r:.40}")
        if len(values) > MAX_CASES:
            raise LedgerError(f"{len(values)} cases; at most {MAX_CASES} are compared at once")
        for index, value in enumerate(values):
            if not isinstance(value, bool):
                raise LedgerError(f"case {index}: {name} is True or False, not {value!r}")
    if len(flagged) != len(not_upheld):
        raise LedgerError(
            f"{len(flagged)} flags for {len(not_upheld)} verdicts: give both for the same cases"
        )
    if case_ids is None:
        return [str(index) for index in range(len(flagged))]
    if isinstance(case_ids, str) or len(case_ids) != len(flagged):
        raise LedgerError(f"give one case id per case ({len(flagged)}), or none")
    if len(set(case_ids)) != len(case_ids):
        raise LedgerError("case ids repeat: each case is counted once")
    return [str(case) for case in case_ids]


def _check_count(name: str, value: Any) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise LedgerError(f"{name} is a count (an int of 0 or more), not {value!r}")
