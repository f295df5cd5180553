"""Charts drawn on the server as SVG: readable without JavaScript, each with an accessible
title, its numbers in a table beside it (the template's), no inline style (the CSP forbids it;
static/review/insights.css colours them by class), and every label escaped."""

from __future__ import annotations

from collections.abc import Sequence

from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString

from grounding.agreement import Proportion

BAR_HEIGHT = 18
BAR_GAP = 8
LABEL_WIDTH = 300
PLOT_WIDTH = 360
TICKS = (0.0, 0.25, 0.5, 0.75, 1.0)


def share_bars(
    chart_id: str, title: str, rows: Sequence[tuple[str, Proportion]], mark: float | None = None
) -> SafeString:
    """One bar per row, its share with the Wilson interval as a whisker; `mark` draws a
    threshold line (the lower bound a rule must clear)."""
    height = len(rows) * (BAR_HEIGHT + BAR_GAP) + 30
    width = LABEL_WIDTH + PLOT_WIDTH + 50
    bars = []
    for index, (label, proportion) in enumerate(rows):
        y = index * (BAR_HEIGHT + BAR_GAP) + 4
        bars.append(_label(y, label))
        if proportion.share is None:
            bars.append(
                format_html(
                    '<text class="chart-none" x="{}" y="{}">no decisions</text>',
                    LABEL_WIDTH + 4,
                    y + BAR_HEIGHT - 5,
                )
            )
            continue
        bars.append(
            format_html(
                '<rect class="chart-bar" x="{}" y="{}" width="{}" height="{}"></rect>',
                LABEL_WIDTH,
                y,
                _x(proportion.share) - LABEL_WIDTH,
                BAR_HEIGHT,
            )
        )
        middle = y + BAR_HEIGHT / 2
        bars.append(
            format_html(
                '<line class="chart-whisker" x1="{}" x2="{}" y1="{}" y2="{}"></line>',
                _x(proportion.low),
                _x(proportion.high),
                middle,
                middle,
            )
        )
        bars.append(
            format_html(
                '<text class="chart-value" x="{}" y="{}">{}</text>',
                _x(proportion.high) + 4,
                y + BAR_HEIGHT - 5,
                _percent(proportion.share),
            )
        )
    axis_y = len(rows) * (BAR_HEIGHT + BAR_GAP) + 4
    return _svg(chart_id, title, width, height, [*bars, *_axis(axis_y, mark, 0, axis_y)])


# The weekly chart's frame: its size, and where the plot sits in it.
LINES_WIDTH, LINES_HEIGHT, LINES_LEFT, LINES_TOP, LINES_PLOT_HEIGHT = 640, 220, 40, 10, 160


def weekly_lines(
    chart_id: str, title: str, weeks: Sequence[str], series: Sequence[tuple[str, list]]
) -> SafeString:
    """One line per series of weekly shares (None where nothing was counted that week)."""
    step = (LINES_WIDTH - LINES_LEFT - 20) / max(1, len(weeks) - 1)
    parts = _share_grid()
    for number, (name, shares) in enumerate(series):
        parts.extend(_series_line(number, name, shares, step))
    for index, week in enumerate(weeks):
        if index % max(1, len(weeks) // 6) == 0:
            parts.append(
                format_html(
                    '<text class="chart-tick" x="{}" y="{}">{}</text>',
                    LINES_LEFT + index * step - 16,
                    LINES_TOP + LINES_PLOT_HEIGHT + 16,
                    week[5:],
                )
            )
    return _svg(chart_id, title, LINES_WIDTH, LINES_HEIGHT, parts)


def _share_y(share: float) -> float:
    return LINES_TOP + LINES_PLOT_HEIGHT * (1 - share)


def _share_grid() -> list:
    """The weekly chart's lines across at each tick, with their shares."""
    return [
        format_html(
            '<line class="chart-grid" x1="{}" x2="{}" y1="{}" y2="{}"></line>'
            '<text class="chart-tick" x="4" y="{}">{}</text>',
            LINES_LEFT,
            LINES_WIDTH - 10,
            _share_y(share),
            _share_y(share),
            _share_y(share) + 4,
            _percent(share),
        )
        for share in TICKS
    ]


def _series_line(number: int, name: str, shares: list, step: float) -> list:
    """One series: its line and points (where a week counted anything), and its legend."""
    parts = []
    points = [
        (LINES_LEFT + index * step, _share_y(share))
        for index, share in enumerate(shares)
        if share is not None
    ]
    if points:
        path = " ".join(f"{x:.1f},{y:.1f}" for x, y in points)
        parts.append(
            format_html(
                '<polyline class="chart-line chart-series-{}" points="{}"></polyline>',
                number,
                path,
            )
        )
        parts.append(
            format_html_join(
                "",
                '<circle class="chart-point chart-series-{}" cx="{}" cy="{}" r="3"></circle>',
                ((number, f"{x:.1f}", f"{y:.1f}") for x, y in points),
            )
        )
    parts.append(
        format_html(
            '<text class="chart-legend chart-series-{}" x="{}" y="{}">■ {}</text>',
            number,
            LINES_LEFT + number * 200,
            LINES_HEIGHT - 6,
            name,
        )
    )
    return parts


def _svg(chart_id: str, title: str, width: int, height: int, parts: list) -> SafeString:
    return format_html(
        '<svg class="chart" id="{}" role="img" aria-labelledby="{}-title" viewBox="0 0 {} {}" '
        'width="{}" height="{}" xmlns="http://www.w3.org/2000/svg"><title id="{}-title">{}</title>'
        "{}</svg>",
        chart_id,
        chart_id,
        width,
        height,
        width,
        height,
        chart_id,
        title,
        format_html_join("", "{}", ((part,) for part in parts)),
    )


def _label(y: float, label: str):
    shown = label if len(label) <= 40 else label[:39] + "…"
    return format_html(
        '<text class="chart-label" x="{}" y="{}" text-anchor="end">{}</text>',
        LABEL_WIDTH - 6,
        y + BAR_HEIGHT - 5,
        shown,
    )


def _axis(y: float, mark: float | None, top: float, bottom: float) -> list:
    parts = [
        format_html(
            '<text class="chart-tick" x="{}" y="{}" text-anchor="middle">{}</text>',
            _x(share),
            y + 16,
            _percent(share),
        )
        for share in TICKS
    ]
    if mark is not None:
        parts.append(
            format_html(
                '<line class="chart-mark" x1="{}" x2="{}" y1="{}" y2="{}"></line>',
                _x(mark),
                _x(mark),
                top,
                bottom,
            )
        )
    return parts


def _x(share: float | None) -> float:
    return round(LABEL_WIDTH + PLOT_WIDTH * (share or 0.0), 1)


def _percent(share: float) -> str:
    return f"{round(100 * share)} %"
