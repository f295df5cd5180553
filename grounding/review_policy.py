"""Which items get a second opinion: a reproducible draw of a share of them.

The draw hashes the item's external id with the policy's seed, so the same item is drawn the
same way on every machine and after every restart, and changing the seed draws a new sample.
"""

from __future__ import annotations

import hashlib

MAX_SEED_CHARS = 64
MAX_ITEM_ID_CHARS = 500


class PolicyError(ValueError):
    """A review policy that cannot be applied as given."""


def drawn_for_second_opinion(item_id: str, *, seed: str, percent: int) -> bool:
    """Whether `item_id` falls in the `percent` share the policy double-reviews.

    Each item lands on one of 10,000 buckets, so a share is exact to a hundredth of a percent
    over many items; 0 draws none and 100 draws all."""
    check_share(percent)
    if not isinstance(item_id, str) or not item_id or len(item_id) > MAX_ITEM_ID_CHARS:
        raise PolicyError(f"an item id is 1 to {MAX_ITEM_ID_CHARS} characters, not {item_id!r:.60}")
    if not isinstance(seed, str) or len(seed) > MAX_SEED_CHARS:
        raise PolicyError(f"a policy seed is text of at most {MAX_SEED_CHARS} characters")
    digest = hashlib.sha256(f"{seed}\x00{item_id}".encode()).digest()
    bucket = int.from_bytes(digest[:8], "big") % 10_000
    return bucket < percent * 100


def check_share(percent) -> None:
    if isinstance(percent, bool) or not isinstance(percent, int) or not 0 <= percent <= 100:
        raise PolicyError(f"the share drawn for double review is 0 to 100 percent, not {percent!r}")
