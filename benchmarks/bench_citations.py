"""How finalizing an answer's numbered citations grows with the answer.

Finalizes a generated answer of 100,000 characters with 2,000 citations over 300
sources, and the same at a tenth of the size (10,000 characters, 200 citations,
30 sources), and prints the median time of several runs for each. Linear cost
shows as a time ratio near 10 between the two; quadratic cost would show near 100.

    .venv/bin/python benchmarks/bench_citations.py
"""

from __future__ import annotations

import gc
import random
import statistics
import time

from grounding.citations import finalize

# (characters, citations, sources): the answer, and one ten times smaller.
SIZES = ((10_000, 200, 30), (100_000, 2_000, 300))
RUNS = 9
SEED = 20_240_601

WORDS = ("sample", "showed", "a", "steady", "rise", "in", "treated", "plots", "while", "control")
WORDS += ("sites", "varied", "with", "rainfall", "and", "soil", "depth", "across", "seasons")
ROW = "{:>10,}  {:>9,}  {:>7,}  {:>9.2f}  {:>6}"


def citation(rng: random.Random, sources: int) -> str:
    """One citation in the shapes models write, a few of them phantoms."""
    n = rng.randint(1, sources)
    roll = rng.random()
    if roll < 0.74:
        return f"[{n}]"
    if roll < 0.84:
        return f"[{n}, {rng.randint(1, sources)}]"
    if roll < 0.90:
        return f"[{n}-{min(n + 2, sources)}]"
    if roll < 0.96:
        return f"\\[{n}\\]"
    return f"[{sources + rng.randint(1, 50)}]"  # a phantom


UNCITED = "Results held in every season that was surveyed."


def answer(characters: int, citations: int, sources: int) -> str:
    """A raw answer of about `characters` characters holding exactly `citations` citations.

    Paragraphs of eight sentences, each sentence of filler words ending in one
    citation; after every sixth paragraph an uncited one, so that backfill has work
    to do; a stale reference list closes it.
    """
    rng = random.Random(SEED)
    stale = "\n\n### References\n\n" + "\n\n".join(f"[{n}] stale" for n in range(1, 11))
    share = (characters - len(stale)) / citations
    paragraphs: list[str] = []
    sentences: list[str] = []
    written = 0  # length of the body so far, separators included
    for i in range(citations):
        separator = 1 if sentences else 2 if paragraphs else 0
        # Each sentence fills the room left to its share, so the total comes out right.
        room = round((i + 1) * share) - written - separator
        tail = f" {citation(rng, sources)}."
        sentence = rng.choice(WORDS).capitalize()
        # Add words that still fit ("a" nearly always does) until the room is full.
        while fitting := [w for w in WORDS if len(sentence) + len(w) + 1 + len(tail) <= room]:
            sentence += " " + rng.choice(fitting)
        sentences.append(sentence + tail)
        written += separator + len(sentence + tail)
        if len(sentences) == 8:
            paragraphs.append(" ".join(sentences))
            sentences = []
            if len(paragraphs) % 7 == 6:
                paragraphs.append(UNCITED)
                written += 2 + len(UNCITED)
    if sentences:
        paragraphs.append(" ".join(sentences))
    text = "\n\n".join(paragraphs) + stale
    assert len(text) == written + len(stale), "the generator lost count of its characters"
    return text


def library(count: int) -> list[dict]:
    return [
        {
            "title": f"Field survey {n}",
            "year": 1990 + n % 30,
            "authors": [f"Author {n}", "Second Author"],
            "url": f"https://example.org/survey/{n}",
            "venue": "Journal of Field Studies",
        }
        for n in range(1, count + 1)
    ]


def median_seconds(text: str, sources: list[dict]) -> float:
    """Median time of one call. Each sample times enough calls to cover about the
    largest answer, so a few milliseconds of scheduling noise cannot swing the ratio."""
    calls = max(1, SIZES[-1][0] // len(text))
    samples = []
    for _ in range(RUNS):
        gc.collect()
        started = time.perf_counter()
        for _ in range(calls):
            finalize(text, sources)
        samples.append((time.perf_counter() - started) / calls)
    return statistics.median(samples)


def main() -> None:
    print(f"finalize(): median of {RUNS} samples, time per call")
    print(f"{'characters':>10}  {'citations':>9}  {'sources':>7}  {'median ms':>9}  {'ratio':>6}")
    previous = None
    for characters, citations, source_count in SIZES:
        text = answer(characters, citations, source_count)
        sources = library(source_count)
        result = finalize(text, sources)  # also warms up the compiled patterns
        seconds = median_seconds(text, sources)
        ratio = f"{seconds / previous:.1f}x" if previous else "-"
        print(ROW.format(len(text), citations, source_count, seconds * 1000, ratio))
        print(
            f"{'':>10}  (dropped {len(result.dropped)}, rewrote {len(result.rewrites)},"
            f" backfilled {len(result.backfills)})"
        )
        previous = seconds
    print("10x the input at about 10x the time is linear growth; quadratic would be ~100x.")


if __name__ == "__main__":
    main()
