"""An SVG figure drawn as pixels, safely: resvg (resvg-py) draws it in a child process of its own
(`python -m reader.fulltext.svgdraw` reads the drawing on stdin, writes a PNG on stdout) with the
kernel's limits on its CPU time and address space, like a PDF page (pdfpages.py): a drawing is
untrusted, and its size, filters and paths cost whatever it says.

resvg draws the images a drawing names, reading them from disk by their path, and resvg-py has
no switch to stop it (its `resources_dir` only places relative paths: the child gives it an empty
folder). So the drawing is first read by an XML parser (expat, the one xml.etree uses) exactly as
resvg will get it, and refused unless every reference in it is a part of itself (`#id`) or an
embedded PNG, JPEG, GIF or WebP (`data:image/png;...`): every attribute named `href` in any
namespace, every `url(...)` in an attribute or a <style>, no `@import`, no CSS escapes (which
could spell either), no declared entities. The parent and the child check it with the same
function. It is drawn DRAWN_WIDTH pixels across (whatever size it claims), its height as its
shape says; past the limits the child dies and the drawing is refused in one line.

A refusal says whether it is the drawing's fault (kept: it is refused again next time) or a
passing one (no time, a child that could not start or crashed: ImageNotDrawnNow, tried again)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tempfile
from typing import Any
from xml.parsers import expat

from reader.fulltext.limits import limit_child, stopped_for_cpu
from reader.fulltext.picture import ImageNotDrawnNow, ImageRefused

DRAWN_WIDTH = 1600  # pixels across: more than a view's cells show, in half blocks or Kitty's pixels
MAX_SVG_BYTES = 8 * 1024 * 1024
MAX_CPU_SECONDS = 5
MAX_MEMORY = 512 * 1024 * 1024  # the child's address space (resvg maps the system's fonts into it: 26 MB with 109 fonts)
MAX_WAIT_SECONDS = 30
NAMES_A_FILE = "an SVG drawing naming another file; not drawn"
_SAFE_TARGET = re.compile(r"\s*(#|data:image/(png|jpeg|jpg|gif|webp)[;,])", re.IGNORECASE)
_URL = re.compile(r"url\s*\(\s*(['\"]?)", re.IGNORECASE)
_OUT_OF_MEMORY = 3  # the child's exit status when Python's own allocations fail
_RUST_OUT_OF_MEMORY = b"memory allocation of"  # what Rust writes before aborting when an allocation fails


class _Unsafe(Exception):
    """Why a drawing is refused, raised from inside the parser's handlers."""


def _check_css(text: str) -> None:
    lowered = text.lower()
    if "@import" in lowered:
        raise _Unsafe("an SVG drawing importing a style sheet; not drawn")
    if "\\" in text:  # a CSS escape can spell `url(` or a path past any pattern
        raise _Unsafe("an SVG drawing with escapes in its style; not drawn")
    _check_urls(text)


def _check_urls(text: str) -> None:
    for match in _URL.finditer(text):
        if not _SAFE_TARGET.match(text, match.end()):
            raise _Unsafe(NAMES_A_FILE)


class _Scan:
    """The parser's handlers: each refuses what resvg could read from outside the drawing."""

    def __init__(self) -> None:
        self.styles: list[str] = []  # the text of the <style> elements open now

    def doctype(self, name: str, system_id: str | None, public_id: str | None, has_internal_subset: bool) -> None:
        if has_internal_subset:  # the only place entities are declared (an external DTD is never read)
            raise _Unsafe("an SVG drawing declaring XML entities; not drawn")

    def entity(self, *_: Any) -> Any:
        raise _Unsafe("an SVG drawing declaring XML entities; not drawn")

    def start(self, name: str, attributes: dict[str, str]) -> None:
        for attribute, value in attributes.items():
            local = attribute.rsplit(":", 1)[-1].lower()  # href, xlink:href, any prefix at all
            if local == "href" and not _SAFE_TARGET.match(value):
                raise _Unsafe(NAMES_A_FILE)
            if local == "style":
                _check_css(value)
            else:
                _check_urls(value)
        if name.rsplit(":", 1)[-1].lower() == "style":
            self.styles.append("")

    def characters(self, piece: str) -> None:
        if self.styles:
            self.styles[-1] += piece

    def end(self, name: str) -> None:
        if name.rsplit(":", 1)[-1].lower() == "style" and self.styles:
            _check_css(self.styles.pop())

    def instruction(self, target: str, _: str) -> None:
        if target.lower() == "xml-stylesheet":
            raise _Unsafe("an SVG drawing naming a style sheet; not drawn")


def checked_svg(data: bytes) -> str:
    """The drawing as the text resvg is given, once it is known to name nothing but itself and
    embedded images; ImageRefused in one line otherwise."""
    text = data.decode("utf-8", "replace")
    parser, scan = expat.ParserCreate(), _Scan()
    parser.StartDoctypeDeclHandler = scan.doctype
    parser.EntityDeclHandler = parser.UnparsedEntityDeclHandler = parser.ExternalEntityRefHandler = scan.entity
    parser.StartElementHandler = scan.start
    parser.CharacterDataHandler = scan.characters
    parser.EndElementHandler = scan.end
    parser.ProcessingInstructionHandler = scan.instruction
    try:
        parser.Parse(text, True)  # a str is parsed as the UTF-8 it was decoded to, whatever it declares
    except _Unsafe as unsafe:
        raise ImageRefused(str(unsafe)) from None
    except expat.ExpatError as error:
        raise ImageRefused(f"an SVG drawing that is not well-formed XML (line {error.lineno}); not drawn") from None
    return text


def draw_svg(data: bytes) -> bytes:
    """The drawing as a PNG DRAWN_WIDTH pixels across, or ImageRefused in one line
    (ImageNotDrawnNow: not the drawing's fault, worth trying again)."""
    if len(data) > MAX_SVG_BYTES:
        raise ImageRefused(f"an SVG drawing of more than {MAX_SVG_BYTES // 2**20} MB")
    checked_svg(data)
    try:
        child = subprocess.Popen(
            [sys.executable, "-m", "reader.fulltext.svgdraw"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE
        )
    except OSError as error:
        raise ImageNotDrawnNow(f"the SVG drawing could not be drawn now: {error.strerror or error}") from None
    try:
        out, err = child.communicate(data, timeout=MAX_WAIT_SECONDS)
    except subprocess.TimeoutExpired:
        child.kill()
        child.communicate()
        raise ImageNotDrawnNow(f"the SVG drawing was not drawn within {MAX_WAIT_SECONDS} s; given up for now") from None
    header, _, png = out.partition(b"\n")
    try:
        said: Any = json.loads(header) if header else {}
    except ValueError:
        said = {}
    if isinstance(said, dict) and "error" in said:
        raise ImageRefused(str(said["error"])[:200])
    if child.returncode == 0 and isinstance(said, dict) and said.get("png") == len(png):
        return png
    if stopped_for_cpu(child.returncode):
        raise ImageRefused(f"an SVG drawing that takes more than {MAX_CPU_SECONDS} s to draw; refused")
    if child.returncode == _OUT_OF_MEMORY or _RUST_OUT_OF_MEMORY in err[-4096:]:
        raise ImageRefused(f"an SVG drawing that needs more than {MAX_MEMORY // 2**20} MB to draw; refused")
    how = f"signal {-child.returncode}" if child.returncode < 0 else f"exit status {child.returncode}"
    raise ImageNotDrawnNow(f"the SVG drawer crashed ({how}); not drawn this time")


# --- the child ----------------------------------------------------------------------------------


def main() -> int:
    data = sys.stdin.buffer.read(MAX_SVG_BYTES + 1)
    limit_child(MAX_CPU_SECONDS, MAX_MEMORY)
    try:
        import resvg_py

        if len(data) > MAX_SVG_BYTES:
            raise ImageRefused(f"an SVG drawing of more than {MAX_SVG_BYTES // 2**20} MB")
        text = checked_svg(data)  # checked again: the child trusts no caller
        with tempfile.TemporaryDirectory() as nothing:  # relative paths resolve to an empty folder
            png = bytes(resvg_py.svg_to_bytes(svg_string=text, width=DRAWN_WIDTH, background="white", resources_dir=nothing))
    except MemoryError:
        return _OUT_OF_MEMORY
    except ImageRefused as refused:
        sys.stdout.buffer.write(json.dumps({"error": str(refused)}).encode() + b"\n")
        return 0
    except Exception as error:  # resvg's parse errors and the like: one line, never a traceback
        header = {"error": f"an SVG drawing resvg cannot draw ({type(error).__name__})"}
        sys.stdout.buffer.write(json.dumps(header).encode() + b"\n")
        return 0
    sys.stdout.buffer.write(json.dumps({"png": len(png)}).encode() + b"\n" + png)
    sys.stdout.buffer.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
