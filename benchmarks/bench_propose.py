"""How the proposer's time grows with the document: 250,000 and 2,500,000 characters of
generated Markdown (numbered section headings over paragraphs), without and with a size cap.

Growth should be linear: ten times the text, about ten times the time.
"""

from __future__ import annotations

import random
import time

from grounding.propose import propose_plan

SIZES = (250_000, 2_500_000)
CAPS = (0, 4_000)
REPEATS = 3
VOCABULARY = (
    "bjelke dekke fundament last brann rømning seksjon krav vegg tak søyle armering betong "
    "stål tre isolasjon fukt lyd ventilasjon dimensjonering kontroll dokumentasjon areal "
    "etasje trapp heis dør vindu fasade grunn peler drenering setning"
)
WORDS = VOCABULARY.split()


def generated_markdown(size: int, seed: int = 7) -> str:
    """Chapters of sections of paragraphs, some sections long enough for the cap to split."""
    chance = random.Random(seed)
    parts: list[str] = []
    length = 0
    chapter = section = 0
    while length < size:
        if section == 0 or chance.random() < 0.1:
            chapter, section = chapter + 1, 0
            parts.append(f"# {chapter} {' '.join(chance.sample(WORDS, 2)).capitalize()}\n\n")
        section += 1
        title = " ".join(chance.sample(WORDS, 3)).capitalize()
        parts.append(f"## {chapter}.{section} {title}\n\n")
        for _ in range(chance.choice((1, 2, 3, 12))):
            sentence_count = chance.randint(2, 6)
            sentences = (
                " ".join(chance.choices(WORDS, k=chance.randint(6, 14))).capitalize() + "."
                for _ in range(sentence_count)
            )
            parts.append(" ".join(sentences) + "\n\n")
        length = sum(map(len, parts))
    return "".join(parts)[:size].rstrip() + "\n"


def best_time(data: bytes, cap: int) -> tuple[float, int]:
    timings = []
    for _ in range(REPEATS):
        started = time.perf_counter()
        payload = propose_plan("bench.md", data, max_segment_chars=cap)
        timings.append(time.perf_counter() - started)
    return min(timings), len(payload["entries"])


def main() -> None:
    documents = {size: generated_markdown(size).encode("utf-8") for size in SIZES}
    print(f"propose_plan on generated Markdown, best of {REPEATS} runs")
    print(f"{'characters':>12} {'cap':>6} {'entries':>8} {'seconds':>9} {'µs/1k chars':>12}")
    seconds: dict[tuple[int, int], float] = {}
    for cap in CAPS:
        for size, data in documents.items():
            elapsed, entries = best_time(data, cap)
            seconds[size, cap] = elapsed
            label = cap or "off"
            per_thousand = elapsed / size * 1e9
            print(f"{size:>12,} {label:>6} {entries:>8,} {elapsed:>9.3f} {per_thousand:>12.1f}")
    small, large = SIZES
    for cap in CAPS:
        ratio = seconds[large, cap] / seconds[small, cap]
        print(
            f"cap {cap or 'off'}: {large // small}x the text took {ratio:.1f}x the time "
            f"(linear is {large // small}x)"
        )


if __name__ == "__main__":
    main()
