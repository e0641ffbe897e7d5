"""The app's sync, run in a child process: `python -m reader.sync.process` reads one job (a JSON
line) on stdin, syncs, and writes JSON lines on stdout: `{"event": ...}` and `{"notice": ...}` as
it goes, then `{"report": ...}`, `{"error": "..."}`, or `{"locked": "..."}` (another sync holds the data directory). Parsing feeds and saving shards in a process
of their own never holds the GIL the app's event loop needs, so a star pressed meanwhile is saved
and drawn at once (and the app never loads the network stack). The store's file locks keep the two processes safe, as they do for the CLI.

The child stops when its stdin closes (the app quit, or died): the sync is cancelled and a write
in flight finishes first (files are replaced atomically, so nothing is left half-written)."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import logging
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
    """Run `job` in a child process, passing on its events and notices; its report, or ReaderError.
    Cancelled, it closes the child's stdin and returns at once: the child stops by itself."""
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
    output = process.stdout

    def tell(function: Callable[..., None], *args: Any) -> None:
        if not stopped:
            try:
                loop.call_soon_threadsafe(function, *args)
            except RuntimeError:  # the loop is closed: the app is gone
                pass

    def follow() -> tuple[dict[str, Any], str, int]:
        """In a thread: the child's lines until it exits, then its outcome, last words and status."""
        outcome: dict[str, Any] = {}
        last_words = ""
        with output:
            for line in output:
                try:
                    message = json.loads(line)
                except ValueError:
                    message = None
                if not isinstance(message, dict):
                    last_words = line.decode(errors="replace").strip() or last_words
                elif "event" in message:
                    tell(on_event, SyncEvent(**message["event"]))
                elif "notice" in message:
                    tell(on_notice, message["notice"])
                else:
                    outcome = message
        return outcome, last_words, process.wait()

    try:
        try:
            process.stdin.write(json.dumps(job).encode() + b"\n")
            process.stdin.flush()
        except BrokenPipeError:  # the child died at once: its last words say why
            pass
        outcome, last_words, status = await asyncio.to_thread(follow)
    finally:
        stopped = True
        process.stdin.close()
    return report_of(outcome, last_words, status)


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


async def _sync(job: dict[str, Any]) -> SyncReport:
    from reader.arxiv.client import ArxivClient
    from reader.sync.syncer import Syncer

    main = asyncio.current_task()
    assert main is not None
    loop = asyncio.get_running_loop()

    def stop_when_stdin_closes() -> None:
        sys.stdin.read()
        loop.call_soon_threadsafe(main.cancel)

    threading.Thread(target=stop_when_stdin_closes, daemon=True).start()
    store = Store(Path(job["data_dir"]), check_user_files=False)
    topics = [Topic(name, query) for name, query in job["topics"]]
    async with ArxivClient(ClientOptions(**job["client"]), on_notice=lambda message: _send("notice", message)) as client:
        syncer = Syncer(
            store,
            client,
            today=date.fromisoformat(job["today"]),
            horizon_weeks=job["horizon_weeks"],
            on_event=lambda event: _send("event", dataclasses.asdict(event)),
        )
        report = await syncer.run(topics)
    if report.new or report.updated:  # (a sync that brought nothing, offline say, reads no more)
        from reader.meaning.vectors import keep_current

        await asyncio.to_thread(keep_current, store)  # the app's sync ends when the vectors are current
    return report


def main() -> int:
    job = json.loads(sys.stdin.readline())
    from reader import logs

    with logs.logging_to(logs.log_file()) if job["log"] else nullcontext():
        try:
            report = asyncio.run(_sync(job))
        except StoreLockedError as error:
            _send("locked", str(error))
            return 0
        except ReaderError as error:
            _send("error", str(error))
            return 0
        except (asyncio.CancelledError, BrokenPipeError):  # the app is gone: nobody to tell
            return 1
    _send("report", dataclasses.asdict(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
