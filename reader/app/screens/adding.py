"""The main screen's "Add a paper": an id or link pasted in a dialog, the paper fetched from arXiv
in a child process (as `reader add` fetches it: reader/sync/adding.py), kept (not New), taken into
the list and shown in the detail view, where `s` stars it at once. Offline, the dialog says so
and nothing is kept."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from textual.worker import WorkerCancelled, WorkerFailed

from reader.app.screens.dialogs import AddPaperDialog
from reader.app.screens.part import PaperAdded, ScreenHost, ScreenPart
from reader.service import LibraryService

if TYPE_CHECKING:
    from textual.worker import Worker

    from reader.app.widgets.paper_list import PaperList
    from reader.arxiv.options import ClientOptions


class AddingHost(ScreenHost, Protocol):
    """What adding a paper uses of its screen: the service, the arXiv it syncs from, and the
    reading of the cache after a change (its worker, waited on before the paper is shown)."""

    service: LibraryService
    client_options: ClientOptions | None  # tests' loopback arXiv; None: the settings'

    @property
    def paper_list(self) -> PaperList: ...
    def open_cache(self) -> Worker[None]: ...
    def reload_cache(self, changed_ids: list[str]) -> Worker[Any]: ...
    def call_later(self, callback: Callable[..., object], *args: Any, **kwargs: Any) -> bool: ...


class PaperAdding(ScreenPart[AddingHost]):
    def open(self) -> None:
        self.screen.app.push_screen(AddPaperDialog(self.fetch), self._added)

    def fetch(self, paper_id: str, version: int | None) -> tuple[str, bool]:
        """In the dialog's worker: (the id, whether it was fetched now) once the paper is in the
        cache; else ReaderError, the sentence the dialog shows."""
        return paper_id, self.screen.service.adding.add_paper(paper_id, version, self.screen.client_options)

    def _added(self, result: tuple[str, bool] | None) -> None:
        if result is not None:
            self.in_loop(self._show, *result, group="add-paper", exclusive=True)

    async def _show(self, paper_id: str, fetched: bool) -> None:
        """The cache read again with the paper in it (the demo set left for it, if shown), then
        the paper in the detail view."""
        screen, service = self.screen, self.screen.service
        reading = None
        if service.is_demo:  # the cache has a paper now: it takes the demo's place, as after a first sync
            service.leave_demo()
            reading = screen.open_cache()
        elif fetched:
            reading = screen.reload_cache([paper_id])
        if reading is not None:
            try:
                await reading.wait()
            except (WorkerCancelled, WorkerFailed):
                pass  # a newer reading of the cache took its place: it has the paper too
        # The reading's messages (the list with the paper in it) are in the screen's queue: the
        # paper is shown after them.
        screen.call_later(self._open, paper_id, fetched)

    def _open(self, paper_id: str, fetched: bool) -> None:
        screen = self.screen
        screen.app.notify(f"Added arXiv:{paper_id} to the cache." if fetched else f"arXiv:{paper_id} is in the cache already.")
        ids = screen.paper_list.ids
        screen.post_message(PaperAdded(paper_id, ids if paper_id in ids else [paper_id]))
