"""The app's sync, run in a child process: `python -m reader.sync.process` reads one job (a JSON
line) on stdin, syncs, and writes JSON lines on stdout: `{"event": ...}` and `{"notice": ...}` as
it goes, then `{"report": ...}`, `{"error": "..."}`, or `{"locked": "..."}` (another sync holds the data directory). Parsing feeds and saving shards in a process
of their own never holds the GIL the app's event loop needs, so a star pressed meanwhile is saved
and drawn at once (and the app never loads the network stack). The store's file locks keep the two processes safe, as they do for the CLI.

The report comes as soon as the papers are saved: the meaning vectors of the new papers (minutes
for a first build at 100,000 papers) are made after it, by the same child in the background of
the app, which finds them once written (meaning/kept.py) and says meanwhile that they are being
built (the build's lock is held: meaning/vectors.py's `building`).

The child stops when its stdin closes (the app quit, or died): the sync is cancelled and a write
in flight finishes first (files are replaced atomically, so nothing is left half-written); a
meaning build is dropped where it is (its files are never named until whole)."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import logging
import os
import subprocess
import sys
import threading
from collections.abc import Callable
from contextlib import nullcontext
from datetime import date
from pathlib import Path
from typing import Any

from reader.arxiv.options import ClientOptions
from reader.errors import ReaderError, StoreLockedError
from reader.store import Store, Topic
from reader.sync.types import SyncEvent, SyncReport, TopicResult


def sync_job(store: Store, topics: list[Topic], *, today: date, horizon_weeks: int, options: ClientOptions) -> dict[str, Any]:
    """What the child needs, as plain data."""
    return {
        "data_dir": str(store.data_dir),
        "topics": [[topic.name, topic.query] for topic in topics],
        "today": today.isoformat(),
        "horizon_weeks": horizon_weeks,
        "client": dataclasses.asdict(options),
        "log": bool(logging.getLogger("reader").handlers),  # log where this process logs, if it does
    }


async def sync_in_child(job: dict[str, Any], on_event: Callable[[SyncEvent], None], on_notice: Callable[[str], None]) -> SyncReport:
    """Run `job` in a child process, passing on its events and notices; its report, or ReaderError,
    as soon as the child says it (it may go on to build the meaning vectors: its stdin is kept open
    until it exits). Cancelled, it closes the child's stdin and returns at once: the child stops by
    itself."""
    loop = asyncio.get_running_loop()
    stopped = False
    # The child's stderr joins its stdout: a line that is not a message is what it said on the way out.
    process = subprocess.Popen(
        [sys.executable, "-m", "reader.sync.process"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    assert process.stdin is not None and process.stdout is not None
    child_stdin = process.stdin
    said: asyncio.Future[dict[str, Any]] = loop.create_future()

    def tell(function: Callable[..., None], *args: Any) -> None:
        if not stopped:
            try:
                loop.call_soon_threadsafe(function, *args)
            except RuntimeError:  # the loop is closed: the app is gone
                pass

    def said_line(message: dict[str, Any]) -> None:
        if "event" in message:
            tell(on_event, SyncEvent(**message["event"]))
        elif "notice" in message:
            tell(on_notice, message["notice"])
        else:
            tell(_settle, said, message)

    ended: asyncio.Future[tuple[dict[str, Any], str, int]] = loop.create_future()

    def follow() -> None:
        # A thread of its own, never the loop's executor: it lives as long as the child (a meaning
        # build after the report), and an app quitting must not wait for it.
        try:
            ending = _follow(process, said_line)
        except (OSError, ValueError) as error:  # its output could not be read: it is waited for
            ending = ({}, str(error), process.wait())
        finally:
            child_stdin.close()  # (the child has exited, or the app is cancelling it)
        tell(_settle, ended, ending)

    threading.Thread(target=follow, daemon=True).start()
    try:
        try:
            child_stdin.write(json.dumps(job).encode() + b"\n")
            child_stdin.flush()
        except (BrokenPipeError, ValueError):  # the child died at once (its stdin closed): its last words say why
            pass
        either: list[asyncio.Future[Any]] = [said, ended]
        await asyncio.wait(either, return_when=asyncio.FIRST_COMPLETED)
    except BaseException:
        child_stdin.close()
        raise
    finally:
        stopped = True
    if said.done():
        return report_of(said.result(), "", 0)
    return report_of(*ended.result())


def _settle(future: asyncio.Future[Any], outcome: Any) -> None:
    if not future.done():
        future.set_result(outcome)


def _follow(process: subprocess.Popen, said: Callable[[dict[str, Any]], None]) -> tuple[dict[str, Any], str, int]:
    """In a thread: the child's lines until it exits (each message to `said`), then its outcome,
    last words and status."""
    assert process.stdout is not None
    outcome: dict[str, Any] = {}
    last_words = ""
    with process.stdout as output:
        for line in output:
            try:
                message = json.loads(line)
            except ValueError:
                message = None
            if not isinstance(message, dict):
                last_words = line.decode(errors="replace").strip() or last_words
                continue
            if "event" not in message and "notice" not in message:
                outcome = message
            said(message)
    return outcome, last_words, process.wait()


def report_of(outcome: dict[str, Any], last_words: str, status: int) -> SyncReport:
    """The child's report, or the error it ended with (its last words when it said nothing)."""
    if "report" in outcome:
        return report_from_json(outcome["report"])
    if "locked" in outcome:  # another process's sync holds the data directory
        raise StoreLockedError(outcome["locked"])
    if "error" in outcome:
        raise ReaderError(outcome["error"])
    raise ReaderError(f"the sync process stopped (exit status {status}){': ' + last_words if last_words else ''}")


def report_from_json(data: dict[str, Any]) -> SyncReport:
    versions = data["versions"]
    return SyncReport(
        topics=[TopicResult(**result) for result in data["topics"]],
        versions=TopicResult(**versions) if versions else None,
        total_new_last4=data["total_new_last4"],
        total_error=data["total_error"],
    )


# --- the child ---------------------------------------------------------------------------------


def _send(kind: str, value: Any) -> None:
    sys.stdout.write(json.dumps({kind: value}) + "\n")
    sys.stdout.flush()


class _Stdin:
    """The child's stdin, watched in a thread: it closes when the app quits or dies, and then
    `on_close` (the running sync's cancel, then the meaning build's end) is called."""

    def __init__(self) -> None:
        self.closed = threading.Event()
        self.on_close: Callable[[], None] | None = None

    def watch(self) -> None:
        threading.Thread(target=self._wait, daemon=True).start()

    def _wait(self) -> None:
        sys.stdin.read()
        self.closed.set()
        if self.on_close is not None:
            self.on_close()


async def _sync(job: dict[str, Any], stdin: _Stdin) -> tuple[SyncReport, Store]:
    from reader.arxiv.client import ArxivClient
    from reader.sync.syncer import Syncer

    main = asyncio.current_task()
    assert main is not None
    loop = asyncio.get_running_loop()

    def cancel() -> None:
        try:
            loop.call_soon_threadsafe(main.cancel)
        except RuntimeError:  # the loop is closed: the sync is over
            pass

    stdin.on_close = cancel
    store = Store(Path(job["data_dir"]), check_user_files=False)
    topics = [Topic(name, query) for name, query in job["topics"]]
    try:
        async with ArxivClient(ClientOptions(**job["client"]), on_notice=lambda message: _send("notice", message)) as client:
            syncer = Syncer(
                store,
                client,
                today=date.fromisoformat(job["today"]),
                horizon_weeks=job["horizon_weeks"],
                on_event=lambda event: _send("event", dataclasses.asdict(event)),
            )
            return await syncer.run(topics), store
    finally:
        stdin.on_close = None


def _keep_meaning_current(store: Store, stdin: _Stdin) -> int:
    """After the report: the meaning vectors brought up to date (meaning/vectors.py), until done
    or until the app goes (then the process ends at once: a build's files are never named until
    whole)."""
    from reader.meaning.build import keep_current

    finished = threading.Event()
    stdin.on_close = finished.set

    def build() -> None:
        try:
            keep_current(store)
        finally:
            finished.set()

    threading.Thread(target=build, daemon=True).start()
    if stdin.closed.is_set():
        finished.set()
    finished.wait()
    if stdin.closed.is_set():
        sys.stdout.flush()
        os._exit(1)  # the build's thread is dropped where it is
    return 0


def main() -> int:
    job = json.loads(sys.stdin.readline())
    from reader import logs

    stdin = _Stdin()
    stdin.watch()
    with logs.logging_to(logs.log_file()) if job["log"] else nullcontext():
        try:
            report, store = asyncio.run(_sync(job, stdin))
        except StoreLockedError as error:
            _send("locked", str(error))
            return 0
        except ReaderError as error:
            _send("error", str(error))
            return 0
        except (asyncio.CancelledError, BrokenPipeError):  # the app is gone: nobody to tell
            return 1
        _send("report", dataclasses.asdict(report))
        if report.new or report.updated:  # (a sync that brought nothing, offline say, reads no more)
            return _keep_meaning_current(store, stdin)
    return 0


if __name__ == "__main__":
    sys.exit(main())
