"""Marks the app could not save before it quit, kept for the next start.

The app quits within two seconds whatever its writer waits on (another process holding
user.json's lock, a read-only or full disk). Marks still not saved then are written here, to a
small file of their own (`marks-pending-PID-TIME.json`, atomically: no lock to wait for, and a
name of its own, so two apps quitting at once keep both), and the next store opened on the data
directory (the app, or any command) applies them to user.json and removes the file: nothing the
user marked is lost to a quit. A file that cannot be applied yet stays for the next start, and
the warning says why; one that is damaged is moved aside.

    {"marks": {"2609.12345": {"starred": true, "read": false}, ...}}
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from reader.core.text import plural
from reader.errors import StoreError
from reader.store.files import CorruptFileError, move_aside, parse_json, read_file, write_json_atomic
from reader.store.listing import own_files

if TYPE_CHECKING:
    from reader.store.store import Store

JOURNAL = re.compile(r"marks-pending-\d+-\d+\.json")
MARK_KINDS = ("read", "starred", "hidden")
MarkChanges = Mapping[str, Mapping[str, bool]]  # paper id -> kind of mark -> wanted


def write_journal(data_dir: Path, changes: MarkChanges) -> Path:
    """Keep `changes` for the next start; StoreError when they cannot be written either."""
    path = Path(data_dir) / f"marks-pending-{os.getpid()}-{time.time_ns()}.json"
    write_json_atomic(path, {"marks": {"1": {pid: dict(wanted) for pid, wanted in changes.items()}}})
    return path


def apply_journals(store: Store) -> None:
    """Apply every kept journal to user.json, oldest first (a later change of a mark wins), and
    remove it; what cannot be done is said in `store.warnings`."""
    paths = sorted((Path(entry.path) for entry in own_files(store.data_dir, JOURNAL, quiet=re.compile(r".*"))), key=_age)
    changes: dict[str, dict[str, bool]] = {}
    applied: list[Path] = []
    for path in paths:
        try:
            found = _read(path)
        except StoreError as error:
            _put_aside(store, path, error)
            continue
        for pid, wanted in found.items():
            changes.setdefault(pid, {}).update(wanted)
        applied.append(path)
    if not changes:
        return
    count = plural(sum(len(wanted) for wanted in changes.values()), "mark")
    try:
        store.apply_marks(changes)
    except StoreError as error:
        store.warnings.append(f"{count} kept when reader last quit could not be saved yet: {error}; kept for the next start")
        return
    for path in applied:
        try:
            path.unlink()
        except OSError as error:
            store.warnings.append(f"{count} kept when reader last quit are saved, but {path} could not be removed: {error.strerror}")
    store.warnings.append(f"saved now: {count} kept when reader last quit (the data directory could not be written then)")


def _age(path: Path) -> int:
    return int(path.stem.rsplit("-", 1)[1])  # the time it was written, in ns


def _read(path: Path) -> dict[str, dict[str, bool]]:
    raw = read_file(path)
    marks = parse_json(raw or b"", path).get("marks", {}).get("1")
    if not isinstance(marks, dict) or not all(
        isinstance(pid, str)
        and isinstance(wanted, dict)
        and wanted
        and all(kind in MARK_KINDS and isinstance(value, bool) for kind, value in wanted.items())
        for pid, wanted in marks.items()
    ):
        raise CorruptFileError(path, "not a journal of marks")
    return marks


def _put_aside(store: Store, path: Path, error: StoreError) -> None:
    try:
        aside = move_aside(path)
    except StoreError as failed:
        store.warnings.append(f"{error}; {failed}")
        return
    store.warnings.append(f"{error}: moved aside to {aside.name}, its marks not applied")
