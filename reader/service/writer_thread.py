"""The one thread that writes user state, in the order the user acted.

A daemon thread, unlike a ThreadPoolExecutor's worker: Python joins those at exit, so a write
waiting on another process's lock (up to the store's lock wait, for each queued write) would hold
the process after the app had quit. Here the app waits a bounded time (`shutdown`), keeps what is
still unsaved itself (see marks_writer.py), and exits; every file is written atomically, so one
cut short by the exit is left as it was."""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any, TypeVar

T = TypeVar("T")


class WriterThread:
    def __init__(self, name: str = "reader-writer"):
        self._queue: queue.SimpleQueue[tuple[Future, Callable[[], Any]] | None] = queue.SimpleQueue()
        self._closed = False
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._thread.start()

    def submit(self, function: Callable[[], T]) -> Future[T]:
        """Run `function` after everything submitted before it; its future gives what it returns."""
        if self._closed:
            raise RuntimeError("the writer thread is shut down")
        future: Future[T] = Future()
        self._queue.put((future, function))
        return future

    def idle(self) -> None:
        """Wait until everything submitted so far is done."""
        self.submit(lambda: None).result()

    def shutdown(self, timeout: float | None = None) -> bool:
        """No more work; wait up to `timeout` seconds for what is queued: whether it is all done
        (once shut down, this waits no more)."""
        if not self._closed:
            self._closed = True
            self._queue.put(None)
            self._thread.join(timeout)
        return not self._thread.is_alive()

    def _run(self) -> None:
        while (item := self._queue.get()) is not None:
            future, function = item
            if not future.set_running_or_notify_cancel():
                continue
            try:
                result = function()
            except BaseException as error:  # given to whoever waits on the future, as an executor does
                future.set_exception(error)
            else:
                future.set_result(result)
