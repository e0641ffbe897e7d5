"""Sync progress: papers fetched of the expected total, rate and time left per topic, counted from
the sync's events and the client's notices. The estimate counts the polite waits: pages come one
at a time, each at least `delay` seconds after the last. `status_line` is the one-line form for
the app's status line; `TerminalBars` (Rich) and `PlainLines` are the two displays of `reader sync`."""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import IO, TYPE_CHECKING

from rich.console import Console
from rich.progress import BarColumn, Progress, ProgressColumn, Task, TaskID, TextColumn
from rich.text import Text

from reader.core.sanitize import clean_text

if TYPE_CHECKING:
    from reader.sync.syncer import SyncEvent
    from reader.sync.types import TopicResult


@dataclass(slots=True)
class TopicProgress:
    topic: str
    started: float  # clock time of the topic's first event
    fetched: int = 0
    expected: int | None = None  # arXiv's total for the query, as sync caps it
    pages: int = 0
    first_page_at: float | None = None
    last_page_at: float | None = None
    retries: int = 0
    notice: str = ""  # the latest wait or retry, shown until the next page arrives
    finished: bool = False
    failed: bool = False
    interrupted: bool = False  # Ctrl+C stopped it midway


class SyncProgress:
    """Follows one sync run. Feed it `event(SyncEvent)` and `notice(message)`; ask it for any
    topic's rate, time left and status line. `clock` is injectable for tests."""

    def __init__(self, *, delay: float, clock: Callable[[], float] = time.monotonic):
        self.delay = delay
        self.clock = clock
        self.topics: dict[str, TopicProgress] = {}
        self.current: TopicProgress | None = None

    def event(self, event: SyncEvent) -> TopicProgress | None:
        if event.topic is None:
            return None
        now = self.clock()
        progress = self.topics.get(event.topic)
        if progress is None:
            self.finish()
            progress = self.topics[event.topic] = TopicProgress(event.topic, started=now)
            self.current = progress
        elif not event.fetched and event.expected is None:
            # After a topic's first event, one with neither a count nor a total is its error.
            progress.failed = True
        if event.expected is not None:
            progress.expected = event.expected
        if event.fetched > progress.fetched:
            progress.fetched = event.fetched
            progress.pages += 1
            progress.first_page_at = progress.first_page_at or now
            progress.last_page_at = now
            progress.notice = ""
        return progress

    def notice(self, message: str) -> TopicProgress | None:
        """A client notice (a wait or a retry) about the request in flight."""
        if self.current is None:
            return None
        if "retrying" in message:
            self.current.retries += 1
        self.current.notice = clean_text(message)
        return self.current

    def finish(self) -> None:
        """The current topic is over (the next began, or the run ended)."""
        if self.current is not None:
            self.current.finished = True
            self.current.notice = ""

    def end(self, exception: BaseException | None) -> None:
        """The run is over: the current topic finished, or Ctrl+C stopped it midway."""
        if isinstance(exception, KeyboardInterrupt) and self.current is not None and not self.current.finished:
            self.current.interrupted = True
            self.current.notice = ""
        else:
            self.finish()

    def rate(self, progress: TopicProgress) -> float | None:
        """Papers per second since the topic started, waits included; None before the first page."""
        if progress.last_page_at is None or progress.last_page_at <= progress.started:
            return None
        return progress.fetched / (progress.last_page_at - progress.started)

    def seconds_left(self, progress: TopicProgress) -> float | None:
        """Time to fetch the rest at the pace so far, never faster than one page per `delay`."""
        if progress.finished or progress.failed or progress.interrupted:
            return 0.0
        if progress.expected is None or not progress.pages or progress.first_page_at is None:
            return None
        remaining = max(progress.expected - progress.fetched, 0)
        per_page_papers = progress.fetched / progress.pages
        pages_left = math.ceil(remaining / per_page_papers) if per_page_papers else 0
        if progress.pages > 1 and progress.last_page_at is not None:
            per_page_seconds = (progress.last_page_at - progress.first_page_at) / (progress.pages - 1)
        else:  # one page so far: its request time, plus the wait before the next
            per_page_seconds = (progress.first_page_at - progress.started) + self.delay
        return pages_left * max(per_page_seconds, self.delay)

    def status_line(self, topic: str | None = None) -> str:
        """ "RL for LLM Agents 1,200 / 3,050 · 40 s left" for `topic` (default: the current one)."""
        progress = self.topics.get(topic) if topic else self.current
        if progress is None:
            return ""
        parts = [f"{clean_text(progress.topic)} {counts(progress)}"]
        left = self.seconds_left(progress)
        if progress.failed:
            parts.append("failed")
        elif progress.interrupted:
            parts.append("interrupted")
        elif left is not None and not progress.finished:
            parts.append(f"{duration(left)} left")
        if progress.notice:
            parts.append(progress.notice)
        return " · ".join(parts)


def counts(progress: TopicProgress) -> str:
    if progress.expected is None:
        return f"{progress.fetched:,} fetched"
    return f"{progress.fetched:,} / {progress.expected:,}"


def duration(seconds: float) -> str:
    """40 s, 3 min, 1 h 05 min: as precise as a person needs for a wait."""
    seconds = max(0, round(seconds))
    if seconds < 60:
        return f"{seconds} s"
    minutes = round(seconds / 60)
    if minutes < 60:
        return f"{minutes} min"
    return f"{minutes // 60} h {minutes % 60:02d} min"


# --- the displays of `reader sync` ---------------------------------------------------------------


class PlainLines:
    """One line per update, for a stderr that is not a terminal (a log, a pipe, CI)."""

    def __init__(self, tracker: SyncProgress, stream: IO[str]):
        self.tracker = tracker
        self.stream = stream

    def __enter__(self) -> PlainLines:
        return self

    def __exit__(self, kind: object, exception: BaseException | None, traceback: object) -> None:
        self.tracker.end(exception)
        if self.tracker.current is not None and self.tracker.current.interrupted:
            print(self.tracker.status_line(), file=self.stream, flush=True)

    def event(self, event: SyncEvent) -> None:
        progress = self.tracker.event(event)
        line = self.tracker.status_line(progress.topic) if progress and event.fetched else clean_text(event.message)
        print(line, file=self.stream, flush=True)

    def notice(self, message: str) -> None:
        self.tracker.notice(message)
        print(clean_text(message), file=self.stream, flush=True)


class _Column(ProgressColumn):
    """A column whose text comes from the topic's progress (never read as markup)."""

    def __init__(self, text: Callable[[TopicProgress], str], style: str = ""):
        super().__init__()
        self.text = text
        self.style = style

    def render(self, task: Task) -> Text:
        progress = task.fields.get("state")
        return Text(self.text(progress) if progress else "", style=self.style)


class TerminalBars:
    """A Rich progress bar per topic on a terminal: fetched of total, rate, time left, retries."""

    def __init__(self, tracker: SyncProgress, stream: IO[str]):
        self.tracker = tracker
        self.tasks: dict[str, TaskID] = {}
        self.bars = Progress(
            TextColumn("{task.description}", markup=False),
            BarColumn(bar_width=24),
            _Column(lambda p: counts(p)),
            _Column(self._rate),
            _Column(self._left),
            _Column(lambda p: f"retry {p.retries}: {p.notice}" if p.notice and p.retries else p.notice, style="yellow"),
            console=Console(file=stream),
            transient=False,
        )

    def _rate(self, progress: TopicProgress) -> str:
        rate = self.tracker.rate(progress)
        return "" if rate is None else f"{rate:,.0f} papers/s" if rate >= 10 else f"{rate:.1f} papers/s"

    def _left(self, progress: TopicProgress) -> str:
        left = self.tracker.seconds_left(progress)
        if progress.failed:
            return "failed"
        if progress.interrupted:
            return "interrupted"
        if progress.finished:
            return "done"
        return "" if left is None else f"{duration(left)} left"

    def __enter__(self) -> TerminalBars:
        self.bars.start()
        return self

    def __exit__(self, kind: object, exception: BaseException | None, traceback: object) -> None:
        self.tracker.end(exception)
        for name, task in self.tasks.items():
            progress = self.tracker.topics[name]
            if not progress.interrupted:  # a bar stopped midway stays where it stopped
                self.bars.update(task, total=progress.fetched or 1, completed=progress.fetched or 1)
        self.bars.stop()

    def event(self, event: SyncEvent) -> None:
        previous = self.tracker.current
        progress = self.tracker.event(event)
        if progress is None:
            self.bars.console.print(clean_text(event.message), markup=False, highlight=False)
            return
        if previous is not None and previous is not progress and previous.topic in self.tasks:
            self.bars.update(self.tasks[previous.topic], total=previous.fetched or 1, completed=previous.fetched or 1)
        if progress.topic not in self.tasks:
            self.tasks[progress.topic] = self.bars.add_task(clean_text(progress.topic), total=None, state=progress)
        self.bars.update(self.tasks[progress.topic], total=progress.expected, completed=progress.fetched)
        if not event.fetched and event.message != f"syncing {event.topic}":
            self.bars.console.print(clean_text(event.message), markup=False, highlight=False)

    def notice(self, message: str) -> None:
        self.tracker.notice(message)
        self.bars.console.print(clean_text(message), markup=False, highlight=False, style="yellow")


def interrupted_lines(done: list[TopicResult], stopped: TopicResult | None, topics: int) -> list[str]:
    """What `reader sync` says when Ctrl+C stopped it: what each topic kept (what arrived before
    the stop is saved), and that the next sync goes on from there."""
    lines = [
        f"{r.topic}: {r.new:,} new, {r.updated:,} updated ({r.fetched:,} fetched)" + (f" - FAILED: {r.error}" if r.error else "")
        for r in done
    ]
    if stopped is not None:
        lines.append(
            f"{stopped.topic}: interrupted after {stopped.fetched:,} fetched: {stopped.new:,} new, "
            f"{stopped.updated:,} updated kept (the next sync goes on from there)"
        )
    kept = done + ([stopped] if stopped is not None else [])
    synced = sum(1 for r in done if not r.error)
    lines.append(
        f"interrupted: synced {synced} of {topics} topics; kept {sum(r.new for r in kept):,} new, {sum(r.updated for r in kept):,} updated"
    )
    return lines
