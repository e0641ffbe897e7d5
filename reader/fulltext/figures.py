"""A paper's figures: fetched on demand through the arXiv client, kept under the data directory.

    figures/IDvN/<n>.<ext>    image n of that version (n counts the text's images from 1, in
                              order: Document.images), as arXiv sent it; a version's images
                              never change, so one is fetched once
    figures/IDvN/<n>.refused  why image n is not shown (not an image, too large, an unsafe
                              drawing, a damaged one, a 404): never asked again, told in one
                              line. Its first line is REFUSAL_FORMAT: a refusal written under
                              other rules (an older reader's) is ignored and the image fetched
                              again. A passing failure (ImageNotDrawnNow) is said, never kept.

An image is fetched by the same client as the page (the configured hosts only, one connection,
the pause between requests, the User-Agent, retries on 429 and 5xx; a 404 is final), read whole
up to picture.MAX_BYTES, and kept only once Pillow has read it (picture.open_image). The whole
folder has a cap (`fulltext.figure_cache_mb`): past it the images shown least recently go first
(a file's modification time is when it was last shown: access times are often not kept)."""

from __future__ import annotations

import asyncio
import logging
import os
from dataclasses import dataclass
from pathlib import Path

from PIL import Image

from reader.arxiv.client import ArxivClient
from reader.errors import ArxivNotFoundError, FeedFormatError
from reader.fulltext.clean import printable
from reader.fulltext.picture import MAX_BYTES, ImageNotDrawnNow, ImageRefused, is_svg, open_image
from reader.fulltext.store import atomic_file, file_key
from reader.fulltext.svgdraw import draw_svg
from reader.safe_files import UnsafeFileError, read_regular
from reader.store.listing import remove_leftovers

log = logging.getLogger("reader.fulltext")
REFUSED = "refused"
EXTENSIONS = ("png", "jpg", "gif", "webp")
ACCEPTED_TYPES = ("image/", "application/octet-stream")  # and none at all: what an image may be sent as
MAX_REASON = 200  # characters of a remembered refusal
# The first line of a kept refusal: bumped when what is refused for good changes (SVG drawings
# were refused as such before resvg drew them), so that older refusals are asked again.
REFUSAL_FORMAT = "reader refusal 2"


def image_extension(data: bytes) -> str:
    """The file extension of an image Pillow has read, from its first bytes."""
    if data.startswith(b"\x89PNG"):
        return "png"
    if data.startswith(b"\xff\xd8"):
        return "jpg"
    if data.startswith(b"GIF8"):
        return "gif"
    return "webp"  # the one other format open_image reads


@dataclass(frozen=True, slots=True)
class Stored:
    """What the cache holds of an image: its file, or why it is refused (one of the two)."""

    path: Path | None = None
    refused: str | None = None


class FigureCache:
    def __init__(self, data_dir: Path, cap_mb: int = 200):
        self.directory = Path(data_dir) / "figures"
        self.cap = cap_mb * 1024 * 1024

    def folder(self, paper_id: str, version: int) -> Path:
        return self.directory / f"{file_key(paper_id)}v{version}"

    def stored(self, paper_id: str, version: int, number: int) -> Stored | None:
        """Image `number` as kept (its file marked as shown now), or its refusal; None: not fetched."""
        folder = self.folder(paper_id, version)
        for extension in EXTENSIONS:
            path = folder / f"{number}.{extension}"
            if path.is_file():
                try:
                    os.utime(path)  # shown now: the last to go when the cache is trimmed
                except OSError:
                    pass
                return Stored(path=path)
        try:
            kept = read_regular(folder / f"{number}.{REFUSED}", 4 * MAX_REASON + 64).decode("utf-8", "replace")
        except (OSError, UnsafeFileError):
            return None
        form, _, reason = kept.partition("\n")
        if form != REFUSAL_FORMAT:  # refused under an older reader's rules: fetched again
            return None
        return Stored(refused=printable(reason)[:MAX_REASON] or "not an image reader shows")

    def read_with_bytes(self, path: Path) -> tuple[Image.Image, bytes]:
        """A kept image, read again as untrusted bytes (the file may have been replaced), and its
        file's bytes, which Pillow has read whole."""
        try:
            data = read_regular(path, MAX_BYTES)
        except (OSError, UnsafeFileError) as error:
            raise ImageRefused(f"cannot read {path.name}: {error}") from None
        return open_image(data), data

    def keep(self, paper_id: str, version: int, number: int, data: bytes) -> Path:
        path = self.folder(paper_id, version) / f"{number}.{image_extension(data)}"
        self._write(path, data)
        (path.parent / f"{number}.{REFUSED}").unlink(missing_ok=True)  # an older reader's refusal, now drawn
        self.trim()
        return path

    def refuse(self, paper_id: str, version: int, number: int, reason: str) -> None:
        kept = f"{REFUSAL_FORMAT}\n{printable(reason)[:MAX_REASON]}"
        self._write(self.folder(paper_id, version) / f"{number}.{REFUSED}", kept.encode())

    def _write(self, path: Path, data: bytes) -> None:
        with atomic_file(path) as handle:
            handle.write(data)
        remove_leftovers(path.parent)

    def trim(self) -> None:
        """Remove the least recently shown images until the cache is within its cap."""
        files = []
        try:
            for folder in os.scandir(self.directory):
                if folder.is_dir(follow_symlinks=False):
                    for entry in os.scandir(folder.path):
                        if entry.is_file(follow_symlinks=False):
                            stat = entry.stat(follow_symlinks=False)
                            files.append((stat.st_mtime, stat.st_size, entry.path))
        except OSError as error:
            log.warning("cannot list %s: %s", self.directory, error)
            return
        total = sum(size for _, size, _ in files)
        for _, size, path in sorted(files):
            if total <= self.cap:
                break
            try:
                os.unlink(path)
                total -= size
            except OSError:
                pass


class _ImageBody:
    """Receives an image whole (it is small: at most picture.MAX_BYTES), refusing a body that is
    no image by its Content-Type or passes the limit, as soon as that is known."""

    def __init__(self) -> None:
        self.pieces: list[bytes] = []
        self.received = 0
        self.delimited = False

    def located(self, url: str, content_type: str) -> None:
        kind = content_type.split(";")[0].strip().lower()
        if kind and not kind.startswith(ACCEPTED_TYPES):
            raise ImageRefused(f"arXiv sent {printable(kind)[:60]}, not an image")

    def declare_charset(self, label: str | None) -> None:
        pass

    def feed(self, piece: bytes) -> None:
        self.received += len(piece)
        if self.received > MAX_BYTES:
            raise ImageRefused(f"an image of more than {MAX_BYTES // (1024 * 1024)} MB (reader shows images up to that)")
        self.pieces.append(piece)

    def ended(self, delimited: bool) -> None:
        self.delimited = delimited

    def discard(self) -> None:
        self.pieces, self.received = [], 0

    def finish(self) -> bytes | ImageRefused:
        """The image's bytes once Pillow has read them whole, or why not (returned: the client
        would take a raised error for a failed try)."""
        data = b"".join(self.pieces)
        if is_svg(data):  # drawn (and so checked) by fetch_image, in a bounded process
            if not self.delimited and b"</svg>" not in data[-4096:].lower():
                raise FeedFormatError("the drawing arrived cut short") from None
            return data
        try:
            open_image(data)
        except ImageRefused as refused:
            if not self.delimited:  # ended only by the connection's close: maybe cut short, tried again
                raise FeedFormatError("the image arrived cut short") from None
            return refused
        return data


async def fetch_image(client: ArxivClient, cache: FigureCache, paper_id: str, version: int, number: int, url: str) -> Path:
    """Image `number` of that version, from the cache or fetched and kept; ImageRefused (said in
    one line, remembered unless it is the address's fault or a passing one: ImageNotDrawnNow)
    or an ArxivError otherwise."""
    stored = await asyncio.to_thread(cache.stored, paper_id, version, number)
    if stored is not None:
        if stored.refused is not None:
            raise ImageRefused(stored.refused)
        assert stored.path is not None
        return stored.path
    if not client.allows(url):
        raise ImageRefused("the image is not on arXiv's configured hosts; not fetched")
    try:
        data = await client.download(url, _ImageBody, lambda body: body.finish())
    except ArxivNotFoundError:
        reason = "arXiv has no such image (HTTP 404)"
    except ImageRefused as error:
        reason = str(error)
    else:
        try:
            if not isinstance(data, ImageRefused):
                if is_svg(data):  # kept as its drawing: a PNG, shown and written as any other
                    data = await asyncio.to_thread(draw_svg, data)  # ImageNotDrawnNow passes through
                    await asyncio.to_thread(open_image, data)
                return await asyncio.to_thread(cache.keep, paper_id, version, number, data)
            reason = str(data)
        except ImageNotDrawnNow:
            raise
        except ImageRefused as error:
            reason = str(error)
    await asyncio.to_thread(cache.refuse, paper_id, version, number, reason)
    raise ImageRefused(reason)
