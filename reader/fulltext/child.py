"""The app's full-text fetch, run in a child process: `python -m reader.fulltext.child` reads one
job (a JSON line) on stdin, fetches and stores the text, and writes JSON lines on stdout:
`{"progress": [what, bytes]}` and `{"notice": ...}` as it goes, then `{"done": source}` or
`{"error": "..."}`. A job for the PDF alone (`what`: "pdf", the page view's) fetches and keeps the
PDF, then says `{"done": "pdf"}`; one to read a PDF's old text again from the kept PDF (`what`:
"reread", reread_in_child) makes no request and says `{"done": "pdf"}`. Parsing a page (and a hostile page's worst) costs the child's memory and
GIL, never the app's; the app reads the stored text once it is there. Closing stdin (the app
quit, or the view closed) stops it: a text is stored whole or not at all."""

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
from pathlib import Path
from typing import TYPE_CHECKING, Any

from reader.arxiv.options import ClientOptions
from reader.errors import ReaderError, StoreError
from reader.fulltext.document import PDF, PDF_FIGURES_FORMAT, Document
from reader.fulltext.limits import limit_child, stopped_for_cpu

if TYPE_CHECKING:
    from reader.fulltext.store import TextStore


def fetch_job(data_dir: Path, paper_id: str, version: int, options: ClientOptions, what: str = "text") -> dict[str, Any]:
    return {
        "what": what,
        "data_dir": str(data_dir),
        "id": paper_id,
        "version": version,
        "client": dataclasses.asdict(options),
        "log": bool(logging.getLogger("reader").handlers),  # log where the app logs, if it does
    }


def reread_in_child(texts: TextStore, document: Document) -> Document:
    """A PDF's text of an older format read again from the PDF kept for it (fetch.reread_pdf_text)
    in a child process, as a fetch is; the text as it is when there is nothing to do or it fails."""
    if document.source != PDF or document.format >= PDF_FIGURES_FORMAT or not texts.pdf_path(document.id, document.version).is_file():
        return document
    job = {"what": "reread", "data_dir": str(texts.data_dir), "id": document.id, "version": document.version}
    outcome = FetchChild({**job, "log": bool(logging.getLogger("reader").handlers)}).run(lambda message: None)
    fresh = texts.load(document.id) if "done" in outcome else None
    return fresh if fresh is not None else document


class FetchChild:
    """The app's side of one fetch: the child started with `job`, what it says as it goes passed
    on, its outcome returned. `stop` (from any thread: the view closed) ends it early."""

    def __init__(self, job: dict[str, Any]):
        self.job = job
        self._process: subprocess.Popen | None = None

    def run(self, said: Callable[[dict[str, Any]], None]) -> dict[str, Any]:
        """Run the fetch, calling `said` with each `progress` and `notice` line; then `{"done":
        ...}`, `{"error": "..."}` (the child's, or why it could not start or was stopped), or {}
        when it ended without saying (it was stopped)."""
        try:
            child = self._process = subprocess.Popen(
                [sys.executable, "-m", "reader.fulltext.child"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
            )
        except OSError as error:
            return {"error": f"the fetch could not start ({error.strerror or error})"}
        assert child.stdin is not None and child.stdout is not None
        outcome: dict[str, Any] = {}
        try:
            child.stdin.write((json.dumps(self.job) + "\n").encode())
            child.stdin.flush()
            for raw in child.stdout:
                try:
                    message = json.loads(raw)
                except ValueError:
                    continue
                if isinstance(message, dict) and ("progress" in message or "notice" in message):
                    said(message)
                elif isinstance(message, dict) and ("done" in message or "error" in message):
                    outcome = message
        except (OSError, ValueError):  # the child went away, or its output was cut
            pass
        finally:
            self.stop()
            child.wait()
        if not outcome and stopped_for_cpu(child.returncode):
            outcome = {"error": STOPPED_FOR_CPU}
        return outcome

    def stop(self) -> None:
        """Close the child's input: it stops by itself (a text or PDF is kept whole or not)."""
        child = self._process
        if child is not None and child.stdin is not None:
            try:
                child.stdin.close()
            except OSError:
                pass


def _say(message: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


async def _fetch(job: dict[str, Any]) -> str:
    from reader.arxiv.client import ArxivClient
    from reader.fulltext.fetch import TextFetcher, reread_pdf_text
    from reader.fulltext.store import TextStore

    last = [0]

    def progress(what: str, received: int) -> None:
        if received - last[0] >= 256 * 1024 or received < last[0]:  # a line per quarter megabyte
            last[0] = received
            _say({"progress": [what, received]})

    if job.get("what") == "reread":  # no client: nothing is fetched
        texts = TextStore(Path(job["data_dir"]))
        stored = texts.load(job["id"])
        if stored is None or stored.version != int(job["version"]):
            raise StoreError(f"no stored text of {job['id']}v{job['version']} to read again")
        return (await asyncio.to_thread(reread_pdf_text, texts, stored)).source
    options = ClientOptions(**job["client"])
    async with ArxivClient(options, on_notice=lambda message: _say({"notice": message})) as client:
        fetcher = TextFetcher(client, TextStore(Path(job["data_dir"])))
        if job.get("what") == "pdf":
            await fetcher.pdf(job["id"], int(job["version"]), progress)
            return "pdf"
        document = await fetcher.text(job["id"], int(job["version"]), progress)
    return document.source


# Reading is bounded (bounded.py: 10 s for a page; pdfbounds.py: 25 s for a PDF); the kernel
# stops a child past this much CPU all the same, whatever went wrong.
MAX_CPU_SECONDS = 60
STOPPED_FOR_CPU = f"reading it took more than {MAX_CPU_SECONDS} s of CPU; stopped"


def main() -> int:
    from reader import logs

    limit_child(MAX_CPU_SECONDS)  # no memory limit: a big page's parse may take what it needs
    job = json.loads(sys.stdin.readline())
    with logs.logging_to(logs.log_file()) if job.get("log") else nullcontext():
        return _run(job)


def _run(job: dict[str, Any]) -> int:
    loop = asyncio.new_event_loop()
    task = loop.create_task(_fetch(job))

    def watch_stdin() -> None:  # the app closed our stdin: stop
        sys.stdin.read()
        loop.call_soon_threadsafe(task.cancel)

    threading.Thread(target=watch_stdin, daemon=True).start()
    try:
        _say({"done": loop.run_until_complete(task)})
    except asyncio.CancelledError:
        return 1
    except ReaderError as error:
        _say({"error": str(error)})
    except Exception as error:  # never a traceback in the app: one line, the details here
        _say({"error": f"the full text could not be fetched ({type(error).__name__})"})
    finally:
        loop.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
