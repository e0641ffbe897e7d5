"""Changes other processes make to the data directory, looked for about once a second: a topic
added with `reader topics add` in another terminal shows in the sidebar within seconds, with no
key pressed. Nothing to see: what it read goes up to the screen as a message."""

from __future__ import annotations

from collections.abc import Callable

from textual import work
from textual.message import Message
from textual.reactive import var
from textual.widget import Widget

from reader.errors import ReaderError
from reader.service import LibraryService
from reader.service.outside import PAPER_FILES, OutsideUpdate

LOOK_EVERY = 1.0  # seconds: a stat of four files each time (microseconds), so idle costs nothing


class OutsideWatch(Widget):
    """Looks at the data directory's files (see reader/service/outside.py), reads what changed in
    a worker, and posts it up as `Read` (the screen takes it in). It does not look while `busy()`
    (the screen reads the cache itself: what it reads is taken in with it), nor at the files a
    sync writes while `syncing` (bound from the screen: the app's own sync, taken in when it ends)."""

    DEFAULT_CSS = "OutsideWatch { display: none; }"

    syncing: var[bool] = var(False)

    def __init__(
        self,
        service: LibraryService,
        *,
        busy: Callable[[], bool],
    ):
        super().__init__()
        self.service = service
        self.busy = busy
        self.reads = 0  # readings started: changes found (the app's own writes start none)
        self._reading = False

    def on_mount(self) -> None:
        self.set_interval(LOOK_EVERY, self.look)

    def look(self) -> None:
        if self._reading or self.busy():
            return
        changed = self.service.outside.changed()
        if self.syncing:
            changed -= PAPER_FILES
        if changed:
            self._reading = True
            self.reads += 1
            self._read(changed)

    @work(thread=True, exclusive=True, group="outside")
    def _read(self, changed: set[str]) -> None:
        try:
            update = self.service.read_outside(changed)
        except ReaderError:
            update = None  # a file being repaired, or locked for long: looked at again in a second
        self.post_message(self.Read(update))

    class Read(Message):
        """What the reading worker found changed (None: nothing readable yet)."""

        def __init__(self, update: OutsideUpdate | None):
            super().__init__()
            self.update = update

    class Changed(Message):
        """What other processes changed, read: for the screen to take in."""

        def __init__(self, update: OutsideUpdate):
            super().__init__()
            self.update = update

    def on_outside_watch_read(self, message: Read) -> None:
        message.stop()
        self._reading = False
        if message.update is not None:
            self.post_message(self.Changed(message.update))
