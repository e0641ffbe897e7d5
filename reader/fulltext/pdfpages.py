"""A paper's PDF one page at a time, as pixels (or, with images off, as the page's text), for the
page view. PDFium (pypdfium2) renders it, in a child process of its own
(`python -m reader.fulltext.pdfpages` reads one job, a JSON line, on stdin) with the kernel's limits
on its CPU time and address space: a PDF is untrusted, and a page can ask for any size or hold a
content stream that takes minutes and gigabytes to draw. Past a limit the child dies and the page
is refused in one line; the app's memory never holds more than the bitmap asked for.

The scale is chosen for the view: the page fits `width` x `height` pixels (the view's half-block
cells, two pixels a cell down, drawn from twice as many for smooth letters), and never more than
MAX_BITMAP_PIXELS whatever the page claims (a 100,000 x 100,000 point media box included)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from reader.errors import ReaderError
from reader.fulltext.limits import limit_child, stopped_for_cpu

if TYPE_CHECKING:
    from PIL import Image

MAX_BITMAP_PIXELS = 4_000_000  # 12 MB as RGB, in the child and once more in the app
MAX_MEMORY = 256 * 1024 * 1024  # the child's address space (Python and PDFium take about 50 MB of it)
MAX_CPU_SECONDS = 10  # of the child's CPU; a pdflatex page takes a few tens of milliseconds
MAX_WAIT_SECONDS = 60  # a child that neither works nor ends (a stopped machine) is given up
MAX_TEXT_CHARACTERS = 200_000  # of a page's text, with images off
MAX_PAGES = 10_000


class PageRefused(ReaderError):
    """A page that is not shown (the PDF damaged, the page too costly): its one-line why, and the
    page's number and the PDF's page count when the PDF opened."""

    def __init__(self, message: str, number: int | None = None, pages: int | None = None):
        super().__init__(message)
        self.number = number
        self.pages = pages


@dataclass(frozen=True, slots=True)
class RenderedPage:
    number: int  # 1-based
    pages: int  # in the PDF
    image: Image.Image | None  # RGB; None when the text was asked for
    text: str = ""


@dataclass(frozen=True, slots=True)
class Limits:
    cpu_seconds: int = MAX_CPU_SECONDS
    memory: int = MAX_MEMORY


def bitmap_scale(page_width: float, page_height: float, width: int, height: int) -> float:
    """Pixels per PDF point so that the page fits `width` x `height` pixels and the bitmap holds
    at most MAX_BITMAP_PIXELS."""
    page_width, page_height = max(page_width, 1.0), max(page_height, 1.0)
    scale = min(max(width, 1) / page_width, max(height, 1) / page_height)
    if page_width * page_height * scale * scale > MAX_BITMAP_PIXELS:
        scale = (MAX_BITMAP_PIXELS / (page_width * page_height)) ** 0.5
    return scale


def render_page(
    path: Path,
    number: int,
    width: int,
    height: int,
    *,
    text: bool = False,
    limits: Limits = Limits(),
    cancelled: Callable[[], bool] | None = None,
) -> RenderedPage:
    """Page `number` (1-based; past the end: the last) of the PDF at `path`, fitted in `width` x
    `height` pixels; `text`: its text instead. PageRefused in one line when it cannot be. The
    child is stopped as soon as `cancelled()` holds (the view turned the page again, or closed):
    pages asked for in a row never draw side by side."""
    job = {"path": str(path), "page": number, "width": width, "height": height, "text": text}
    job.update(cpu=limits.cpu_seconds, memory=limits.memory)
    try:
        child = subprocess.Popen(
            [sys.executable, "-m", "reader.fulltext.pdfpages"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
        )
    except OSError as error:
        raise PageRefused(f"the page could not be drawn: {error.strerror or error}") from None
    given_up = time.monotonic() + MAX_WAIT_SECONDS
    job_line: bytes | None = (json.dumps(job) + "\n").encode()
    while True:
        try:
            out, _ = child.communicate(job_line, timeout=0.1)
            break
        except subprocess.TimeoutExpired:
            job_line = None  # sent: the next calls only go on reading
            stop = cancelled is not None and cancelled()
            if stop or time.monotonic() > given_up:
                child.kill()
                child.communicate()
                raise PageRefused("stopped" if stop else f"the page was not drawn within {MAX_WAIT_SECONDS} s; given up") from None
    done = subprocess.CompletedProcess(child.args, child.returncode, out)
    # The child says first which page of how many it draws, then the drawing (or why not).
    first, _, rest = done.stdout.partition(b"\n")
    where = _json(first)
    if "error" in where:
        raise PageRefused(str(where["error"]))
    if "pages" not in where:
        raise PageRefused(_died(done.returncode, limits))
    number, pages = int(where["number"]), int(where["pages"])
    header, _, body = rest.partition(b"\n")
    said = _json(header)
    if "error" in said:
        raise PageRefused(str(said["error"]), number, pages)
    if done.returncode != 0 or not said:
        raise PageRefused(_died(done.returncode, limits), number, pages)
    if text:
        return RenderedPage(number, pages, None, body.decode("utf-8", "replace"))
    size = tuple(said.get("size", ()))
    if len(size) != 2 or size[0] * size[1] > MAX_BITMAP_PIXELS or len(body) != 3 * size[0] * size[1]:
        raise PageRefused("the page could not be drawn (its bitmap came back damaged)", number, pages)
    from PIL import Image  # imported for a page only: the app starts without it

    return RenderedPage(number, pages, Image.frombytes("RGB", size, body))


def _json(line: bytes) -> dict[str, Any]:
    try:
        said = json.loads(line) if line else {}
    except ValueError:
        return {}
    return said if isinstance(said, dict) else {}


def _died(returncode: int, limits: Limits) -> str:
    if stopped_for_cpu(returncode):
        return f"the page takes more than {limits.cpu_seconds} s to draw; refused"
    return f"the page needs more than {limits.memory // 2**20} MB to draw; refused"


# --- the child ----------------------------------------------------------------------------------


def _say(header: dict[str, Any], body: bytes = b"") -> None:
    sys.stdout.buffer.write(json.dumps(header).encode() + b"\n" + body)
    sys.stdout.buffer.flush()


def _draw(job: dict[str, Any]) -> None:
    import pypdfium2

    try:
        document = pypdfium2.PdfDocument(job["path"])
    except (pypdfium2.PdfiumError, OSError):
        _say({"error": "the PDF cannot be read (damaged, or not a PDF)"})
        return
    pages = len(document)
    if not 0 < pages <= MAX_PAGES:
        _say({"error": "the PDF has no pages" if pages == 0 else f"the PDF has {pages:,} pages; more than {MAX_PAGES:,} are not shown"})
        return
    number = min(max(1, int(job["page"])), pages)
    _say({"number": number, "pages": pages})
    try:
        page = document[number - 1]
    except pypdfium2.PdfiumError:
        _say({"error": f"page {number} of the PDF cannot be read (damaged)"})
        return
    if job["text"]:
        words = page.get_textpage().get_text_bounded()[:MAX_TEXT_CHARACTERS]
        _say({"text": True}, words.encode("utf-8", "replace"))
        return
    page_width, page_height = page.get_size()
    scale = bitmap_scale(page_width, page_height, int(job["width"]), int(job["height"]))
    image = page.render(scale=scale, may_draw_forms=False).to_pil().convert("RGB")
    _say({"size": list(image.size)}, image.tobytes())


def main() -> int:
    job = json.loads(sys.stdin.readline())
    limit_child(int(job["cpu"]), int(job["memory"]))
    try:
        _draw(job)
    except MemoryError:
        os._exit(3)  # told as "needs more than N MB"; nothing more can be allocated to say it
    except Exception as error:  # never a traceback in the app: one line
        _say({"error": f"the page could not be drawn ({type(error).__name__})"})
    return 0


if __name__ == "__main__":
    sys.exit(main())
