"""Carrying a plan onto a revised document: a 250,000-character generated Markdown document,
its proposed plan, and a revision with paragraphs rewritten, a section moved, one removed and
one added.

Beside one `relocate` call for the whole plan (what importing and carrying do), the same anchors
located one by one (`locate`, what importing did before), in the same run; then `carry_plan` as
a whole and the paragraph diff alone. Figures only; nothing here passes or fails.
"""

from __future__ import annotations

import random
import re
import time

from bench_propose import generated_markdown

from grounding.anchors import locate, relocate
from grounding.propose import propose_plan
from grounding.revisions import carry_plan, paragraph_diff
from grounding.segmentation import parse_segmentation_plan

SIZE = 250_000
REWRITTEN_SHARE = 0.05
REPEATS = 3


def revised(text: str, seed: int = 11) -> str:
    """Rewrite a share of the paragraphs, move one section, remove one, add one."""
    chance = random.Random(seed)
    sections = re.split(r"(?m)^(?=## )", text)
    head, sections = sections[0], sections[1:]
    moved = sections.pop(len(sections) // 3)
    sections.insert(2 * len(sections) // 3, moved)
    del sections[len(sections) // 2]
    sections.insert(len(sections) // 4, "## 99.1 Et nytt avsnitt\n\nHelt ny tekst om brann.\n\n")
    paragraphs = "".join([head, *sections]).split("\n\n")
    for index in chance.sample(range(len(paragraphs)), int(len(paragraphs) * REWRITTEN_SHARE)):
        words = paragraphs[index].split(" ")
        if len(words) > 4:
            words[chance.randrange(len(words))] = "endret"
            paragraphs[index] = " ".join(words)
    return "\n\n".join(paragraphs)


def best(function, repeats: int = REPEATS) -> tuple[float, object]:
    function()  # warm: the first call pays for imports and caches
    timings, result = [], None
    for _ in range(repeats):
        started = time.perf_counter()
        result = function()
        timings.append(time.perf_counter() - started)
    return min(timings), result


def main() -> None:
    old = generated_markdown(SIZE)
    new = revised(old)
    plan = parse_segmentation_plan(propose_plan("bench.md", old.encode()), old)
    anchors = [entry.anchor for entry in plan.entries]
    hints = [entry.span[0] for entry in plan.entries]
    spans = [entry.span for entry in plan.entries]
    count = len(anchors)
    print(f"{len(old):,} characters, {count} entries; revision of {len(new):,} characters")
    print(f"best of {REPEATS} runs")

    whole, locations = best(lambda: relocate(new, anchors, hints))
    alone, singles = best(
        lambda: [locate(new, a, hint=h) for a, h in zip(anchors, hints, strict=True)]
    )
    print(f"{'locating':<34} {'seconds':>8} {'ms/anchor':>10} {'ratio':>6}")
    print(f"{'one relocate for the plan':<34} {whole:>8.3f} {whole / count * 1e3:>10.2f} {1:>6.1f}")
    print(
        f"{'each anchor alone (locate)':<34} {alone:>8.3f} {alone / count * 1e3:>10.2f} "
        f"{alone / whole:>6.1f}"
    )
    placed = sum(location.status in ("exact", "moved") for location in locations)
    placed_alone = sum(location.status in ("exact", "moved") for location in singles)
    print(f"placed beyond doubt: {placed} with the plan, {placed_alone} one by one")

    diff_time, changes = best(lambda: paragraph_diff(old, new))
    carry_time, carrying = best(lambda: carry_plan(old, new, anchors, spans))
    kinds: dict[str, int] = {}
    for change in changes:
        kinds[change.kind] = kinds.get(change.kind, 0) + 1
    print(f"paragraph diff: {diff_time:.3f} s ({', '.join(f'{k} {v}' for k, v in kinds.items())})")
    fates: dict[str, int] = {}
    for entry in carrying.entries:
        fates[entry.fate] = fates.get(entry.fate, 0) + 1
    print(
        f"carry_plan: {carry_time:.3f} s, {carry_time / whole:.1f}x one relocate "
        f"({', '.join(f'{k} {v}' for k, v in fates.items())}, gone {len(carrying.gone)})"
    )


if __name__ == "__main__":
    main()
