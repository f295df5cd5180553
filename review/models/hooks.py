"""What a row does when `review.decisions.decide` changes it: its own module, so that every
model (a project and its memberships too) can mix it in."""

from __future__ import annotations


class DecisionHooks:
    """What a row does beyond itself when `review.decisions.decide` changes it, in the
    decision's transaction; nothing, unless its model says otherwise (an entry moves its
    plan's counters and path collisions)."""

    def on_decision(self, will_be) -> None:
        """Before this row's UPDATE, with the row as it will be; may refuse by raising."""

    def after_decision(self, was) -> None:
        """After this row's UPDATE (this object holds the new values), with the row as it
        was."""

    @property
    def decision_project_id(self) -> int:
        """The project whose log the decision joins: the row's own (an entry's is its plan's)."""
        return self.project_id
