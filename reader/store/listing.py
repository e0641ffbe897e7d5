"""Listing a data folder: only reader's own files count. A file a macOS copy leaves beside each
one (`._2609.12.json`), a name reader never writes (`..json`) or anything that is not a regular
file (a FIFO would block the read that opens it) is skipped, and logged once per process, so one
odd file never disables what reads the folder."""

from __future__ import annotations

import logging
import os
import re
from pathlib import Path

log = logging.getLogger("reader.store")
_told: set[str] = set()  # paths whose skipping was logged


def skipped(path: str | os.PathLike[str], why: str) -> None:
    """Log, once per process, that `path` is passed over."""
    if str(path) not in _told:
        _told.add(str(path))
        log.warning("%s skipped: %s", path, why)


def own_files(folder: Path, own: re.Pattern[str], quiet: re.Pattern[str] | None = None) -> list[os.DirEntry[str]]:
    """The regular files of `folder` whose names `own` matches whole ([] when there is no folder).
    Names `quiet` matches (reader's other files there) are passed over without a word."""
    try:
        entries = list(os.scandir(folder))
    except (FileNotFoundError, NotADirectoryError):
        return []
    found = []
    for entry in entries:
        if not own.fullmatch(entry.name):
            if quiet is None or not quiet.fullmatch(entry.name):
                skipped(entry.path, "its name is not one of reader's")
        elif not is_regular(entry):
            skipped(entry.path, "not a regular file")
        else:
            found.append(entry)
    return found


def is_regular(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_file()
    except OSError:
        return False
