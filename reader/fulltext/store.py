"""Full texts and PDFs kept in the data directory.

    fulltext/ID vN.json    a paper's text as blocks (document.py); one per paper, the newest
                           version fetched (the version is in the name: listing says which)
    fulltext/words.sqlite3 the search index of the texts (index.py), derived, rebuilt at will
    pdf/IDvN.pdf           PDFs as arXiv sent them, byte for byte, one per version

An id's `/` (old-style ids: hep-th/9901001) is written `_` in file names. Every file is written
to a temporary name (`.NAME.PID.tmp`, a PDF's `.NAME.PID.part`), flushed and renamed: a crash
leaves the old file or the new one, and its temporary file, removed by the next write there.
Other names (a macOS `._NAME` copy) and anything not a regular file (a FIFO) are not reader's:
skipped, never opened, and logged once."""

from __future__ import annotations

import json
import logging
import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from reader.errors import StoreError
from reader.fulltext.clean import printable
from reader.fulltext.document import FIGURE, FORMAT, KINDS, READABLE_FORMATS, REFERENCE, SOURCES, Block, Document
from reader.fulltext.formulas import checked
from reader.fulltext.sources import MAX_FIGURE_IMAGES, MAX_IMAGES, is_image_address
from reader.models import ARXIV_ID, ID_PATTERN
from reader.safe_files import UnsafeFileError, open_regular, read_regular
from reader.store.listing import LEFTOVER, own_files, remove_leftovers, skipped

log = logging.getLogger("reader.fulltext")
# A stored text's name: an arXiv id (its `/` written `_`), its version (reader/models.py's ARXIV_ID).
_NAME = re.compile(rf"(?P<key>{ID_PATTERN.replace('/', '_')})v(?P<version>\d+)\.json")
_SAFE_KEY = re.compile(r"^[A-Za-z0-9._-]+$")
MAX_FIGURE_PAGE = 10_000  # a PDF figure's page as stored: the page view shows no PDF of more pages
TEXT_BYTES = 128 * 1024 * 1024  # the most a stored text is read: 16 M characters (html.py) as JSON
PDF_BYTES = 1024 * 1024 * 1024  # far more than any PDF arXiv serves: only a device is refused by size
_OTHERS = re.compile(rf"words\.sqlite3(?:-wal|-shm|-journal)?|{LEFTOVER.pattern}")  # fulltext/'s other files


def file_key(paper_id: str) -> str:
    key = paper_id.replace("/", "_")
    if not _SAFE_KEY.match(key) or key.startswith("."):
        raise StoreError(f"{paper_id!r} is not an arXiv id")
    return key


def _paper_id(key: str) -> str:
    return key.replace("_", "/")


class TextStore:
    def __init__(self, data_dir: Path):
        self.data_dir = Path(data_dir)
        self.directory = self.data_dir / "fulltext"
        self.pdf_directory = self.data_dir / "pdf"

    # --- texts ---------------------------------------------------------------------------------

    def stored_versions(self) -> dict[str, int]:
        """Paper id -> the version of its stored text (the newest, should two be there)."""
        found: dict[str, int] = {}
        for _, key, version in self._files():
            pid = _paper_id(key)
            found[pid] = max(version, found.get(pid, 0))
        return found

    def _files(self) -> Iterator[tuple[str, str, int]]:
        try:
            entries = own_files(self.directory, _NAME, _OTHERS)
        except OSError as error:
            raise StoreError(f"cannot read {self.directory}: {error.strerror}") from None
        for entry in entries:
            match = _NAME.fullmatch(entry.name)
            assert match is not None
            yield entry.name, match.group("key"), int(match.group("version"))

    def path(self, paper_id: str, version: int) -> Path:
        return self.directory / self.file_name(paper_id, version)

    @staticmethod
    def file_name(paper_id: str, version: int) -> str:
        return f"{file_key(paper_id)}v{version}.json"

    def stored_version(self, paper_id: str) -> int | None:
        key = file_key(paper_id)
        versions = [version for _, k, version in self._files() if k == key]
        return max(versions) if versions else None

    def load(self, paper_id: str) -> Document | None:
        """The paper's stored text (its newest version), None when there is none or it cannot be
        read (then it is fetched again: it is a copy of arXiv's)."""
        version = self.stored_version(paper_id)
        if version is None:
            return None
        return self.load_file(self.path(paper_id, version))

    def load_file(self, path: Path) -> Document | None:
        """The text stored at `path`; None when it is not a regular file, cannot be read or holds
        no valid block (a text is never shown in part: it is fetched again)."""
        try:
            data = json.loads(read_regular(path, TEXT_BYTES))  # not a pipe, a device, a file without end
        except FileNotFoundError:
            return None
        except UnsafeFileError as error:
            skipped(path, error.reason)
            return None
        except (OSError, ValueError, RecursionError) as error:
            log.warning("cannot read %s: %s", path, error)
            return None
        return _document(data, path)

    def save(self, document: Document) -> Path:
        """Store the text, replacing any older version's."""
        self.directory.mkdir(parents=True, exist_ok=True)
        remove_leftovers(self.directory)
        path = self.path(document.id, document.version)
        with _atomic(path) as handle:
            head = {"format": FORMAT, "id": document.id, "version": document.version, "source": document.source}
            handle.write(json.dumps(head, ensure_ascii=False)[:-1].encode("utf-8") + b', "blocks": [\n')
            for number, block in enumerate(document.blocks):  # a block at a time: never the whole text twice
                handle.write((",\n" if number else "").encode() + json.dumps(block.to_json(), ensure_ascii=False).encode("utf-8"))
            handle.write(b"\n]}\n")
        key = file_key(document.id)
        for name, k, version in list(self._files()):
            if k == key and version != document.version:
                try:
                    (self.directory / name).unlink()
                except OSError:
                    pass  # the newest version is read whatever is left
        return path

    def summary(self, paper_id: str) -> TextSummary | None:
        """What the detail view says of a stored text (None: none is stored)."""
        document = self.load(paper_id)
        if document is None:
            return None
        cited = frozenset(block.arxiv_id for block in document.references if block.arxiv_id)
        return TextSummary(document.version, document.source, cited)

    # --- PDFs ----------------------------------------------------------------------------------

    def pdf_path(self, paper_id: str, version: int) -> Path:
        return self.pdf_directory / f"{file_key(paper_id)}v{version}.pdf"

    def stored_pdf(self, paper_id: str, version: int) -> Path | None:
        """The PDF saved for that version, if it is whole (it opens; else it is fetched again)."""
        from reader.fulltext.pdf import pdf_opens  # pypdf is imported only for a PDF

        path = self.pdf_path(paper_id, version)
        try:
            with open_regular(path, PDF_BYTES) as handle:
                if pdf_opens(handle):
                    return path
        except FileNotFoundError:
            return None
        except UnsafeFileError as error:
            skipped(path, error.reason)
            return None
        except OSError as error:
            log.warning("cannot read %s: %s", path, error)
            return None
        log.warning("%s does not open as a PDF: fetched again", path)
        return None


@dataclass(frozen=True, slots=True)
class TextSummary:
    version: int
    source: str
    cited: frozenset[str]  # the arXiv papers its references name

    def describe(self, starred: set[str]) -> str:
        """`stored (v2, from arXiv's HTML) · cites 2 of your starred papers`."""
        text = f"stored (v{self.version}, from {SOURCES.get(self.source, self.source)})"
        count = len(self.cited & starred)
        if count:
            text += f" · cites {count} of your starred papers" if count > 1 else " · cites 1 of your starred papers"
        return text


def _document(data: object, path: Path) -> Document | None:
    """A document from its JSON, every string checked again (the file may have been edited)."""
    if not isinstance(data, dict) or data.get("format") not in READABLE_FORMATS:
        return None
    pid, version, source, raw = data.get("id"), data.get("version"), data.get("source"), data.get("blocks")
    if not (isinstance(pid, str) and isinstance(version, int) and source in SOURCES and isinstance(raw, list)):
        log.warning("%s is not a stored text; ignored", path)
        return None
    blocks = []
    images_left = MAX_IMAGES  # of the whole paper, as when the page was read: an edited file stays bounded
    for item in raw:
        if not (isinstance(item, list) and 2 <= len(item) <= 4 and item[0] in KINDS and isinstance(item[1], str)):
            continue
        found = item[2] if len(item) >= 3 and item[0] == REFERENCE and isinstance(item[2], str) and ARXIV_ID.match(item[2]) else None
        extra = item[3] if len(item) == 4 and isinstance(item[3], dict) else {}
        number, key = _reference_place(extra if item[0] == REFERENCE else None)
        images = _image_addresses(extra if item[0] == FIGURE else None, images_left)
        images_left -= len(images)
        page = extra.get("page") if item[0] == FIGURE else None
        page = page if isinstance(page, int) and not isinstance(page, bool) and 0 < page <= MAX_FIGURE_PAGE else None
        text = printable(item[1])
        blocks.append(Block(item[0], text, found, number, key, checked(text, extra.get("maths")), images, page))
    if not blocks:
        log.warning("%s holds no valid block; ignored", path)
        return None
    return Document(pid, version, source, tuple(blocks), data["format"])


def _reference_place(value: object) -> tuple[int | None, str | None]:
    """A reference's number and key as stored (`{"number": 57, "key": "bib.bib57"}`), checked."""
    if not isinstance(value, dict):
        return None, None
    number, key = value.get("number"), value.get("key")
    number = number if isinstance(number, int) and not isinstance(number, bool) and 0 < number < 10**6 else None
    key = key if isinstance(key, str) and _SAFE_KEY.match(key) and len(key) < 100 else None
    return number, key


def _image_addresses(value: object, most: int) -> tuple[str, ...]:
    """A figure's images as stored (`{"images": ["https://..."]}`): http(s) addresses only, checked,
    at most `most` of them (what is left of the paper's bound)."""
    if most <= 0 or not isinstance(value, dict) or not isinstance(images := value.get("images"), list):
        return ()
    return tuple(url for url in images[: min(MAX_FIGURE_IMAGES, most)] if isinstance(url, str) and is_image_address(url))


@contextmanager
def _atomic(path: Path) -> Iterator[IO[bytes]]:
    """A file written under a temporary name, flushed to disk, then renamed into place."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with open(tmp, "wb") as handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except OSError as error:
        _remove(tmp)
        raise StoreError(f"cannot write {path}: {error.strerror or error}") from None
    except BaseException:
        _remove(tmp)
        raise


def _remove(path: Path) -> None:
    try:
        path.unlink()
    except OSError:
        pass


@contextmanager
def atomic_file(path: Path) -> Iterator[IO[bytes]]:
    """For other modules (a PDF as it downloads): `_atomic`, its folder made first."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise StoreError(f"cannot create {path.parent}: {error.strerror}") from None
    with _atomic(path) as handle:
        yield handle
