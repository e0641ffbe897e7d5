"""Listing a data folder: only reader's own files count. A file a macOS copy leaves beside each
one (`._2609.12.json`), a name reader never writes (`..json`) or anything that is not a regular
file (a FIFO would block the read that opens it) is skipped, and logged once per process, so one
odd file never disables what reads the folder.

Every file is written under a temporary name (`.NAME.PID.tmp`, a download's `.NAME.PID.part`)
and renamed: one a killed process left is removed by the next write in that folder."""

from __future__ import annotations

import logging
import os
import re
from pathlib import Path

log = logging.getLogger("reader.store")
LEFTOVER = re.compile(r"\..+\.(?P<pid>\d+)\.(?:tmp|part)")  # a temporary file of a write, by its process
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


def remove_leftovers(folder: Path) -> None:
    """Temporary files of writes that never ended (their process was killed): removed once that
    process is gone. Anything else, another process's file still being written included, stays."""
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return
    for entry in entries:
        match = LEFTOVER.fullmatch(entry.name)
        if match is None or not is_regular(entry) or _running(int(match.group("pid"))):
            continue
        try:
            os.unlink(entry.path)
            log.info("removed %s, left by a write that never ended", entry.path)
        except OSError:
            pass


def _running(pid: int) -> bool:
    if pid == os.getpid():
        return True  # a write of this process, under way in another thread
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (OSError, OverflowError):
        return True  # alive but another user's; or no pid at all: left alone
    return True
