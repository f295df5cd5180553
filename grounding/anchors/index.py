"""An index of one text that answers what repeated `str.find` does, for many needles."""

from __future__ import annotations

import numpy as np

_INDEXED_CHARS = 24  # every window this long is indexed (`_PIECE`, the shortest asked for)
_WINDOWS_TRIED = 8  # windows of a needle looked up, for the rarest
_NAIVE_LOOKUPS = 16  # look-ups answered by scanning before the index is built
_MAX_CANDIDATES = 16_384  # index candidates checked per look-up; past this a scan is quicker
_HASH_BASE = 0x100000001B3  # odd, so the rolling hash mixes every character in
_HASH_MASK = (1 << 64) - 1  # numpy's uint64 arithmetic wraps at 2**64; so does this


class _Occurrences:
    """Where strings stand in one text, for many look-ups: what repeated `str.find` answers.

    A plan asks for thousands of needles in one text, and each `str.find` that proves a quote
    stands only once reads the whole text: quadratic in the plan. After the first few look-ups
    every window of `_INDEXED_CHARS` characters is hashed once (a rolling hash, in numpy) and
    the offsets sorted by hash. A needle at least that long can only start where each of its
    windows stands, so the offsets of its rarest window are every candidate, in order, and each
    is checked in the text: the same answers as the scan, without reading the text again.
    """

    def __init__(self, text: str, naive_lookups: int | None = None) -> None:
        self.text = text
        self._scans_left = _NAIVE_LOOKUPS if naive_lookups is None else naive_lookups
        self._hashes: np.ndarray | None = None
        self._offsets: np.ndarray | None = None

    def starts(self, needle: str, limit: int) -> list[int]:
        """The first `limit` starts of `needle` in the text, in order, overlapping ones too."""
        candidates = self._candidates(needle)
        if candidates is None:
            return self.scanned(needle, limit)
        text, found = self.text, []
        for at in candidates:
            if text.startswith(needle, at):
                found.append(at)
                if len(found) == limit:
                    break
        return found

    def count(self, needle: str, most: int) -> int:
        """How many times `needle` stands in the text, counted up to `most`."""
        return len(self.starts(needle, most))

    def scanned(self, needle: str, limit: int) -> list[int]:
        """`starts` by `str.find` alone."""
        starts, at = [], self.text.find(needle)
        while at >= 0 and len(starts) < limit:
            starts.append(at)
            at = self.text.find(needle, at + 1)
        return starts

    def _candidates(self, needle: str) -> list[int] | None:
        """Every place `needle` may start, in order (a superset of where it does), or None when
        the index does not answer: the needle is too short, too few look-ups were made yet to
        pay for the index, or even its rarest window is too common to be worth checking."""
        if len(needle) < _INDEXED_CHARS or len(self.text) < _INDEXED_CHARS:
            return None
        if self._hashes is None:
            if self._scans_left > 0:
                self._scans_left -= 1
                return None
            self._build()
        last = len(needle) - _INDEXED_CHARS
        best = None
        for j in sorted({last * k // (_WINDOWS_TRIED - 1) for k in range(_WINDOWS_TRIED)}):
            key = np.uint64(_window_hash(needle[j : j + _INDEXED_CHARS]))
            low = int(self._hashes.searchsorted(key, "left"))
            high = int(self._hashes.searchsorted(key, "right"))
            if best is None or high - low < best[1] - best[0]:
                best = (low, high, j)
                if high - low <= 1:
                    break
        low, high, j = best
        if high - low > _MAX_CANDIDATES:
            return None
        starts = self._offsets[low:high]
        starts = starts[starts >= j] - j
        starts.sort()
        return starts.tolist()

    def _build(self) -> None:
        # One code point per character; added into uint64 as it goes, not copied to it first.
        codes = np.frombuffer(self.text.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
        windows = len(codes) - _INDEXED_CHARS + 1
        hashes = np.zeros(windows, dtype=np.uint64)
        base = np.uint64(_HASH_BASE)
        for offset in range(_INDEXED_CHARS):
            hashes *= base
            hashes += codes[offset : offset + windows]
        del codes
        order = np.argsort(hashes)
        self._hashes = hashes[order]
        del hashes
        self._offsets = order.astype(np.int32 if windows < 2**31 else np.int64)


def _window_hash(window: str) -> int:
    """The rolling hash `_Occurrences` keeps for a window of the text."""
    value = 0
    for char in window:
        value = (value * _HASH_BASE + ord(char)) & _HASH_MASK
    return value
