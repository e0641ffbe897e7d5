"""An SVG figure drawn as pixels, safely: resvg (resvg-py) draws it in a child process of its own
(`python -m reader.fulltext.svgdraw` reads the drawing on stdin, writes a PNG on stdout) with the
kernel's limits on its CPU time and address space, like a PDF page (pdfpages.py): a drawing is
untrusted, and its size, filters and paths cost whatever it says.

resvg draws the images a drawing names, reading them from disk by their path: a drawing naming
anything but a part of itself (`#id`) or an embedded PNG, JPEG, GIF or WebP (`data:image/png;...`)
is refused before it is drawn, as is one declaring XML entities. It is drawn DRAWN_WIDTH pixels
across (whatever size it claims), its height as its shape says; past the limits the child dies
and the drawing is refused in one line."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from typing import Any

from reader.fulltext.pdfpages import limit_child
from reader.fulltext.picture import ImageRefused

DRAWN_WIDTH = 1600  # pixels across: more than a view's cells show, in half blocks or Kitty's pixels
MAX_SVG_BYTES = 8 * 1024 * 1024
MAX_CPU_SECONDS = 5
MAX_MEMORY = 512 * 1024 * 1024  # the child's address space (resvg maps the system's fonts into it: 26 MB with 109 fonts)
MAX_WAIT_SECONDS = 30
_REFERENCE = re.compile(rb"""href\s*=\s*(["'])(.*?)\1""", re.IGNORECASE | re.DOTALL)
_EMBEDDED = (b"#", b"data:image/png", b"data:image/jpeg", b"data:image/jpg", b"data:image/gif", b"data:image/webp")


def unsafe(data: bytes) -> str | None:
    """Why the drawing must not be drawn (it names a file or another drawing, or declares
    entities), or None."""
    if b"<!entity" in data.lower():
        return "an SVG drawing declaring XML entities; not drawn"
    for match in _REFERENCE.finditer(data):
        if not match[2].strip().lower().startswith(_EMBEDDED):
            return "an SVG drawing naming another file; not drawn"
    return None


def draw_svg(data: bytes) -> bytes:
    """The drawing as a PNG DRAWN_WIDTH pixels across, or ImageRefused in one line."""
    if len(data) > MAX_SVG_BYTES:
        raise ImageRefused(f"an SVG drawing of more than {MAX_SVG_BYTES // 2**20} MB")
    if (why := unsafe(data)) is not None:
        raise ImageRefused(why)
    try:
        child = subprocess.Popen(
            [sys.executable, "-m", "reader.fulltext.svgdraw"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
        )
    except OSError as error:
        raise ImageRefused(f"the SVG drawing could not be drawn: {error.strerror or error}") from None
    try:
        out, _ = child.communicate(data, timeout=MAX_WAIT_SECONDS)
    except subprocess.TimeoutExpired:
        child.kill()
        child.communicate()
        raise ImageRefused(f"the SVG drawing was not drawn within {MAX_WAIT_SECONDS} s; given up") from None
    header, _, png = out.partition(b"\n")
    try:
        said: Any = json.loads(header) if header else {}
    except ValueError:
        said = {}
    if isinstance(said, dict) and "error" in said:
        raise ImageRefused(str(said["error"])[:200])
    if child.returncode != 0 or not isinstance(said, dict) or said.get("png") != len(png):
        import signal

        if child.returncode == -getattr(signal, "SIGXCPU", 0):
            raise ImageRefused(f"an SVG drawing that takes more than {MAX_CPU_SECONDS} s to draw; refused")
        raise ImageRefused(f"an SVG drawing that needs more than {MAX_MEMORY // 2**20} MB to draw; refused")
    return png


# --- the child ----------------------------------------------------------------------------------


def main() -> int:
    data = sys.stdin.buffer.read(MAX_SVG_BYTES + 1)
    limit_child(MAX_CPU_SECONDS, MAX_MEMORY)
    try:
        import resvg_py

        if len(data) > MAX_SVG_BYTES or unsafe(data) is not None:  # checked again: the child trusts no caller
            raise ValueError("refused")
        png = bytes(resvg_py.svg_to_bytes(svg_string=data.decode("utf-8", "replace"), width=DRAWN_WIDTH, background="white"))
    except MemoryError:
        return 3  # told as "needs more than N MB"
    except Exception as error:  # resvg's parse errors and the like: one line, never a traceback
        header = {"error": f"an SVG drawing resvg cannot draw ({type(error).__name__})"}
        sys.stdout.buffer.write(json.dumps(header).encode() + b"\n")
        return 0
    sys.stdout.buffer.write(json.dumps({"png": len(png)}).encode() + b"\n" + png)
    sys.stdout.buffer.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
