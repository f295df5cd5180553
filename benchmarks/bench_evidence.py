"""How checking a rationale's evidence citations grows with the rationale.

Validates and assesses a generated rationale of 5,000 sentences and one of 500,
and prints the median time of several runs for each. Linear cost shows as a
ratio near 10 between the two sizes; quadratic cost would show near 100.

    .venv/bin/python benchmarks/bench_evidence.py
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable

from grounding.evidence import (
    EvidenceAccumulator,
    ToolResult,
    assess_rationale,
    parse_ev_references,
    split_sentences,
    validate_citations,
)

SIZES = (500, 5_000)
RUNS = 7
EVIDENCE_COUNT = 60

# Sentence shapes a moderation model writes, every claim cited, so that the
# rationale passes and validation runs every one of its checks.
SHAPES = (
    "The account posted the same link in thread {n} within minutes [{a}].",
    "Reports on post {n} came from several unrelated users [{a}][{b}].",
    "The wording of post {n} matches rule two almost word for word.[{a}]",
    "In summary, post {n} fits the pattern.",
    "History for item {n} lists earlier removals for spam. [{b}]",
    "High risk.",
    "Recommend: remove post {n}.",
)


def evidence() -> EvidenceAccumulator:
    # Every fifth result failed; the rationale never cites those.
    statuses = ("success", "success", "success", "success", "failure")
    return EvidenceAccumulator(
        ToolResult(f"tool_{n}", statuses[n % len(statuses)], f"finding {n}", latency_ms=n)
        for n in range(EVIDENCE_COUNT)
    )


def rationale(sentences: int, accumulator: EvidenceAccumulator) -> str:
    good = [evidence_id for evidence_id, result in accumulator.items() if result.succeeded]
    lines, line = [], []
    for n in range(sentences):
        shape = SHAPES[n % len(SHAPES)]
        line.append(shape.format(n=n, a=good[n % len(good)], b=good[(n * 7 + 3) % len(good)]))
        # Lines of a dozen sentences, every third one a list item.
        if len(line) == 12 or n == sentences - 1:
            lines.append(("- " if len(lines) % 3 == 2 else "") + " ".join(line))
            line = []
    text = "\n".join(lines)
    assert len(split_sentences(text)) == sentences, "the generator miscounted its sentences"
    return text


def median_ms(operation: Callable[[], object]) -> float:
    times = []
    for _ in range(RUNS):
        started = time.perf_counter()
        operation()
        times.append(time.perf_counter() - started)
    return statistics.median(times) * 1000


def main() -> None:
    accumulator = evidence()
    texts = {size: rationale(size, accumulator) for size in SIZES}
    # The ids a well-behaved model declares: exactly those it cites.
    declared = {size: sorted(parse_ev_references(texts[size])) for size in SIZES}
    for size in SIZES:
        assert validate_citations(texts[size], accumulator, declared[size]).passed

    operations = {
        "validate_citations": lambda text, ids: validate_citations(text, accumulator, ids),
        "assess_rationale": lambda text, ids: assess_rationale(text, accumulator, ids),
    }
    print(f"median of {RUNS} runs; {EVIDENCE_COUNT} pieces of evidence")
    print(f"{'operation':<20} {'sentences':>9} {'characters':>10} {'median ms':>10} {'ratio':>7}")
    for name, operation in operations.items():
        smaller = None
        for size in SIZES:
            text, ids = texts[size], declared[size]
            elapsed = median_ms(lambda text=text, ids=ids, op=operation: op(text, ids))
            ratio = "" if smaller is None else f"{elapsed / smaller:.1f}x"
            print(f"{name:<20} {size:>9,} {len(text):>10,} {elapsed:>10.2f} {ratio:>7}")
            smaller = elapsed
    print("ratio: time at 5,000 sentences over time at 500; linear ~10x, quadratic ~100x")


if __name__ == "__main__":
    main()
