"""A part of a screen: the state and logic of one concern (triage, sync, topics and tags, the
detail view's opening) in a class of its own, which reaches its screen only through the public
members its host Protocol names (the service, and the screen's state: reactive vars the widgets
are bound to). The screen holds its parts and hands them the keys and messages that are theirs;
what a part changed goes up as a message (`Redraw`: the panes to draw again), never as a call to
the screen's drawing. Their workers and timers run on the screen (they end with it, and a worker
group is the screen's, as with `@work`). A part's worker hands its result back as a message (one
of the part's own, `Triage.SetsRead`) posted to the screen, whose handler gives it to the part on
the UI's thread. A part never names a sibling part: what it did that another follows goes up as
a message (`TopicRemoved`, `SyncWanted`, `TriageStale`...), which the screen, owning its parts,
hands on."""

from __future__ import annotations

from collections.abc import Callable, Coroutine, Sequence
from functools import partial
from typing import TYPE_CHECKING, Any, Generic, Protocol, TypeVar

from textual.app import App
from textual.message import Message
from textual.timer import Timer
from textual.worker import Worker

if TYPE_CHECKING:
    from reader.store import Topic


class ScreenHost(Protocol):
    """What every part uses of its screen."""

    @property
    def app(self) -> App[Any]: ...

    def run_worker(
        self,
        work: Any,
        name: str | None = "",
        group: str = "default",
        description: str = "",
        exit_on_error: bool = True,
        start: bool = True,
        exclusive: bool = False,
        thread: bool = False,
    ) -> Worker[Any]: ...

    def post_message(self, message: Message) -> bool: ...

    def set_timer(
        self, delay: float, callback: Callable[[], Any] | None = None, *, name: str | None = None, pause: bool = False
    ) -> Timer: ...


class Redraw(Message):
    """A part changed what these panes show: the screen draws them again (`cards`: what the
    cards say on their last line; `marks`: marks were set, so the cards, the sidebar's counts and
    For you's ranking follow; `papers`: which papers the list shows, the cursor kept on `keep`,
    else on the paper under it when drawn)."""

    def __init__(
        self,
        *,
        sidebar: bool = False,
        chart: bool = False,
        papers: bool = False,
        cards: bool = False,
        marks: bool = False,
        keep: str | None = None,
    ):
        super().__init__()
        self.sidebar, self.chart, self.papers, self.cards, self.marks, self.keep = sidebar, chart, papers, cards, marks, keep


class KeepCurrent:
    """Keep the cursor on the paper it is on when the papers are shown, not when they were asked
    for: between the two, the cursor may be put on another (the detail view closed on it)."""


KEEP_CURRENT = KeepCurrent()
Keep = str | KeepCurrent | None  # a paper to keep the cursor on, the one it is on when shown, or none (the top)


class PapersArranged(Message):
    """A part arranged the papers the list is to show, in their order (the view's sorted, a
    filter's answer, a meaning query's best first): the screen shows them, the cursor on `keep`."""

    def __init__(self, ids: Sequence[str], keep: Keep):
        super().__init__()
        self.ids, self.keep = ids, keep


class TopicRemoved(Message):
    """A topic is gone (deleted from the sidebar, or by another process): the parts that keep its
    name forget it (For you no longer narrows to it)."""

    def __init__(self, name: str):
        super().__init__()
        self.name = name


class SyncWanted(Message):
    """A sync is due: of `topics` (None: every topic), at the opening or for a topic just added."""

    def __init__(self, topics: list[Topic] | None = None):
        super().__init__()
        self.topics = topics


class TriageStale(Message):
    """What New, Updated and the watches hold may have changed (the cache opened, or read again
    after a sync; a watch added or removed): read again, `visit` recorded (once, at the opening)."""

    def __init__(self, *, visit: bool = False):
        super().__init__()
        self.visit = visit


class PaperAdded(Message):
    """A paper added (or in the cache already), the cache read with it: shown in the detail view,
    `[` and `]` moving through `ids`."""

    def __init__(self, paper_id: str, ids: Sequence[str]):
        super().__init__()
        self.paper_id, self.ids = paper_id, ids


class OutsideTaken(Message):
    """What another process changed was taken in: the parts showing what it may have changed
    follow (Rising ranked again if shown, the detail view's marks, and its note and tags when
    `papers_or_library` changed)."""

    def __init__(self, *, papers_or_library: bool):
        super().__init__()
        self.papers_or_library = papers_or_library


H = TypeVar("H", bound=ScreenHost)


class ScreenPart(Generic[H]):
    def __init__(self, screen: H):
        self.screen = screen

    def redraw(self, **panes: Any) -> None:
        """Tell the screen (a message, handled after what runs now) which panes to draw again:
        the `Redraw` named."""
        self.screen.post_message(Redraw(**panes))

    def show_papers(self, ids: Sequence[str], keep: Keep) -> None:
        """Have the screen show these papers in this order (`PapersArranged`, handled after what runs now)."""
        self.screen.post_message(PapersArranged(ids, keep))

    def redraw_all(self, *, keep: str | None = None) -> None:
        self.redraw(sidebar=True, chart=True, papers=True, keep=keep)

    def in_thread(self, function: Callable[..., object], *args: Any, group: str, exclusive: bool = False) -> Worker[Any]:
        """`function(*args)` in a thread worker of the screen (what `@work(thread=True)` does for
        a screen's own method)."""
        return self.screen.run_worker(partial(function, *args), name=function.__name__, group=group, exclusive=exclusive, thread=True)

    def in_loop(self, function: Callable[..., Coroutine[Any, Any, object]], *args: Any, group: str, exclusive: bool = False) -> Worker[Any]:
        """The coroutine `function(*args)` in a worker of the screen, on its event loop."""
        return self.screen.run_worker(partial(function, *args), name=function.__name__, group=group, exclusive=exclusive)
