"""The momentum chart: papers per week as vertical bars, drawn by us to fit any width."""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from dataclasses import dataclass

from rich.style import Style
from rich.text import Text
from textual import work
from textual.message import Message
from textual.reactive import reactive, var
from textual.widget import Widget

from reader.core.momentum import Momentum

BLOCKS = " ▁▂▃▄▅▆▇█"
UNCOVERED = "╱"  # a week the cache does not hold whole: hatched to full height, never a low bar
LEGEND = f"{UNCOVERED} not synced yet"
COUNTING = "Counting the papers' weeks…"


@dataclass(frozen=True)
class ChartData:
    """What the chart is asked to show: its bars (None: the title and headline alone), or, with
    `count`, "Counting…" under `title` while its worker makes them (bars, title, headline; the title
    then followed by `suffix`)."""

    momentum: Momentum | None
    title: str
    headline: str
    count: Callable[[], tuple[Momentum, str, str]] | None = None
    suffix: str = ""


class MomentumChart(Widget):
    """Headline on top, one bar per week, week labels below; the current (partial) week stands out,
    and a week not synced whole is hatched, with a legend beside the title."""

    COMPONENT_CLASSES = {
        "chart--headline",
        "chart--title",
        "chart--bar",
        "chart--bar-partial",
        "chart--uncovered",
        "chart--axis",
        "chart--count",
    }

    momentum: reactive[Momentum | None] = reactive(None)
    title: reactive[str] = reactive("")
    headline: reactive[str] = reactive("")
    data: var[ChartData] = var(ChartData(None, "", ""), init=False)  # bound to the main screen's chart_data

    class Counted(Message):
        """The chart's worker counted a view's weeks: `shown` the chart's showing it was asked for."""

        def __init__(self, chart: tuple[Momentum, str, str], suffix: str, shown: int):
            super().__init__()
            self.chart = chart
            self.suffix = suffix
            self.shown = shown

    def watch_data(self, data: ChartData) -> None:
        if data.count is None:
            self.show(data.momentum, data.title, data.headline)
        else:
            self.count(data.title, data.count, data.suffix)

    _shown = 0  # how many times the chart was given something to show: a count for an older one is dropped

    def count(self, title: str, make: Callable[[], tuple[Momentum, str, str]], suffix: str = "") -> None:
        """Show "Counting…" under `title` while a worker makes the chart (bars, title, headline; the
        title then followed by `suffix`): a count over every paper is not the UI thread's work."""
        self.show(None, title, COUNTING)
        self._count(make, suffix, self._shown)

    @work(thread=True, exclusive=True, group="chart")
    def _count(self, make: Callable[[], tuple[Momentum, str, str]], suffix: str, shown: int) -> None:
        self.post_message(self.Counted(make(), suffix, shown))

    def on_momentum_chart_counted(self, message: Counted) -> None:
        message.stop()
        if message.shown == self._shown:
            momentum, title, headline = message.chart
            self.show(momentum, title + message.suffix, headline)

    def show(self, momentum: Momentum | None, title: str, headline: str) -> None:
        """One repaint for all three (assigning each would repaint for each that changed)."""
        self._shown += 1
        self.set_reactive(MomentumChart.momentum, momentum)
        self.set_reactive(MomentumChart.title, title)
        self.set_reactive(MomentumChart.headline, headline)
        self.refresh()

    def render(self) -> Text:  # noqa: C901 (the chart drawn row by row; app code others are editing: split with them)
        width, height = self.size.width, self.size.height

        def style(name: str) -> Style:  # colour only: the chart's background shows through
            return Style(color=self.get_component_rich_style(name).color, bold=self.get_component_rich_style(name).bold)

        out = Text(no_wrap=True, overflow="ellipsis", end="")
        headline = self._wrap_headline(width)
        if height < 8 and len(headline) > 1:
            out.append("\n".join(headline), style("chart--headline"))  # no room for the title
        else:
            out.append(self.title, style("chart--title"))
            if self.momentum is not None and any(w.count is None for w in self.momentum.weeks):
                room = width - len(self.title) - len(LEGEND)
                if room >= 2:
                    out.append(" " * room + LEGEND, style("chart--uncovered"))
            out.append("\n" + "\n".join(headline), style("chart--headline"))
        m = self.momentum
        show_counts = height >= 8
        bar_rows = height - 2 - len(headline) - show_counts  # title, headline, (counts,) bars, axis
        if height < 8 and len(headline) > 1:
            bar_rows += 1
        if m is None or bar_rows < 1 or width < 24:
            return out
        weeks = m.weeks
        slot = max(2, width // len(weeks))
        bar_width = max(1, slot - 1 if slot < 6 else slot - 2)
        peak = max((w.count for w in weeks if w.count is not None), default=0)
        if show_counts:
            out.append("\n")
            for week in weeks:  # counts above the bars
                label = "" if week.count is None else str(week.count)
                label = label if slot > len(label) else ""
                out.append(label.center(bar_width)[:bar_width] + " " * (slot - bar_width), style("chart--count"))
        for row in range(bar_rows, 0, -1):
            out.append("\n")
            for i, week in enumerate(weeks):
                if week.count is None:
                    out.append(UNCOVERED * bar_width, style("chart--uncovered"))
                    out.append(" " * (slot - bar_width))
                    continue
                eighths = round(week.count / peak * bar_rows * 8) if peak else 0
                if week.count and eighths == 0:
                    eighths = 1  # a week with papers never looks empty
                fill = max(0, min(8, eighths - (row - 1) * 8))
                partial = i == len(weeks) - 1
                cell = BLOCKS[fill] * bar_width
                out.append(cell, style("chart--bar-partial" if partial else "chart--bar"))
                out.append(" " * (slot - bar_width))
        out.append("\n")
        out.append_text(self._axis(m, slot, width))
        return out

    def _wrap_headline(self, width: int) -> list[str]:
        """The headline on one line, or on two when the width is too small."""
        if len(self.headline) <= width or width < 20:
            return [self.headline]
        trend, _, share = self.headline.partition(" · ")
        if share and len(trend) <= width:
            return [trend, share]
        lines = textwrap.wrap(self.headline, width)
        kept = lines[:2]
        if len(lines) > 2 and " · " in kept[-1]:  # what is dropped goes from a separator, not mid-part
            kept[-1] = kept[-1].rpartition(" · ")[0]
        return [line.removeprefix("· ").removesuffix(" ·") for line in kept]  # never a dangling "·"

    def _axis(self, m: Momentum, slot: int, width: int) -> Text:
        style = Style(color=self.get_component_rich_style("chart--axis").color)
        first = f"{m.weeks[0].start:%b %d}".replace(" 0", " ")
        last = f"Week of {m.weeks[-1].start:%b %d}".replace(" 0", " ")
        used = slot * len(m.weeks)
        middle = ""
        mid_week = m.weeks[len(m.weeks) // 2]
        mid_label = f"{mid_week.start:%b %d}".replace(" 0", " ")
        mid_at = slot * (len(m.weeks) // 2)
        if mid_at > len(first) + 2 and mid_at + len(mid_label) + 2 < used - len(last):
            middle = " " * (mid_at - len(first)) + mid_label
        line = first + middle
        line += " " * max(1, used - len(line) - len(last)) + last
        return Text(line[: max(width, 0)], style=style)
