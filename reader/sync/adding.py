"""Papers added by id (`reader add`, the app's "Add a paper"): each one the cache lacks (or holds
at an older version than the one asked) fetched from arXiv as `reader import` fetches, politely
and a batch at a time (fetching.py), and kept outside any topic, not New. A paper is saved whole
or not at all: when arXiv cannot be reached, nothing is kept of the papers not fetched.

The app runs it in a child process, as its sync (process.py): `python -m reader.sync.adding`
reads one job (a JSON line) on stdin and writes `{"added": ...}` or `{"error": ...}` on stdout,
so the app never loads the network stack. Kept import-light for the app: the client is imported
by the run."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import logging
import subprocess
import sys
from collections.abc import Callable, Sequence
from contextlib import nullcontext
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

from reader.arxiv.options import ClientOptions
from reader.errors import ReaderError
from reader.store import Store


@dataclass(slots=True)
class Added:
    """What became of each id asked (unversioned ids, each once, in the order asked)."""

    saved: dict[str, int] = field(default_factory=dict)  # fetched and kept: id -> version now cached
    cached: dict[str, int] = field(default_factory=dict)  # in the cache already at the version asked: no request
    missing: list[str] = field(default_factory=list)  # arXiv has no paper under it
    refused: list[str] = field(default_factory=list)  # arXiv refuses it as malformed
    not_fetched: list[str] = field(default_factory=list)  # arXiv stopped answering before it
    older: dict[str, int] = field(default_factory=dict)  # a version asked beyond arXiv's newest: id -> the version asked
    error: str | None = None  # why arXiv stopped answering

    @property
    def present(self) -> list[str]:
        """The papers asked that the cache holds now."""
        return [*self.cached, *self.saved]


async def add_papers(
    store: Store,
    options: ClientOptions,
    refs: Sequence[tuple[str, int | None]],
    today: date,
    on_notice: Callable[[str], None] | None = None,
) -> Added:
    """Fetch and keep the papers of `refs` ((id, version or None), as ids.parse_paper_id reads
    them) that the cache lacks, or holds older than the version asked."""
    from reader.arxiv.client import ArxivClient
    from reader.sync.fetching import fetch_ids

    asked: dict[str, int | None] = {}
    for pid, version in refs:
        asked[pid] = max(version or 0, asked.get(pid) or 0) or None
    before = await asyncio.to_thread(store.cached_versions, asked)
    wanted = [pid for pid, version in asked.items() if pid not in before or (version or 0) > before[pid]]
    added = Added(cached={pid: before[pid] for pid in asked if pid not in wanted})
    if not wanted:
        return added
    async with ArxivClient(options, on_notice=on_notice) as client:
        fetched = await fetch_ids(store, client, wanted)
    now = await asyncio.to_thread(store.cached_versions, fetched.saved)
    added.saved = {pid: now[pid] for pid in fetched.saved if pid in now}
    added.missing, added.refused, added.not_fetched, added.error = fetched.missing, fetched.refused, fetched.not_tried, fetched.error
    added.older = {
        pid: version for pid, version in asked.items() if pid in added.saved and version is not None and version > added.saved[pid]
    }
    if fetched.missing or fetched.saved:  # as `reader import` remembers them (and forgets one found now)
        await asyncio.to_thread(store.sync_file.record_not_on_arxiv, dict.fromkeys(fetched.missing, today.isoformat()), fetched.saved)
    return added


# --- for the app: in a child process -------------------------------------------------------------


def add_job(data_dir: Path, refs: Sequence[tuple[str, int | None]], today: date, options: ClientOptions) -> dict[str, Any]:
    """What the child needs, as plain data."""
    return {
        "data_dir": str(data_dir),
        "refs": [list(ref) for ref in refs],
        "today": today.isoformat(),
        "client": dataclasses.asdict(options),
        "log": bool(logging.getLogger("reader").handlers),  # log where this process logs, if it does
    }


def add_in_child(job: dict[str, Any]) -> Added:
    """Run `job` in a child process and wait for it (call it in a worker thread): what it added,
    or ReaderError."""
    try:
        child = subprocess.run(
            [sys.executable, "-m", "reader.sync.adding"], input=json.dumps(job).encode() + b"\n", capture_output=True, check=False
        )
    except OSError as error:
        raise ReaderError(f"the fetch could not start ({error.strerror or error})") from None
    outcome: dict[str, Any] = {}
    for line in child.stdout.splitlines():
        try:
            message = json.loads(line)
        except ValueError:
            continue
        if isinstance(message, dict):
            outcome = message
    if "added" in outcome:
        return Added(**outcome["added"])
    if "error" in outcome:
        raise ReaderError(outcome["error"])
    last_words = child.stderr.decode(errors="replace").strip().splitlines()
    raise ReaderError(f"the fetch stopped (exit status {child.returncode}){': ' + last_words[-1] if last_words else ''}")


def main() -> int:
    job = json.loads(sys.stdin.readline())
    from reader import logs

    with logs.logging_to(logs.log_file()) if job["log"] else nullcontext():
        try:
            store = Store(Path(job["data_dir"]), check_user_files=False)
            refs = [(pid, version) for pid, version in job["refs"]]
            added = asyncio.run(add_papers(store, ClientOptions(**job["client"]), refs, date.fromisoformat(job["today"])))
        except ReaderError as error:
            print(json.dumps({"error": str(error)}), flush=True)
            return 0
    print(json.dumps({"added": dataclasses.asdict(added)}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
