"""Reading and writing files safely: the app's own (the cache, saved features, a keymap it moves)
and the user's (exports, `--update`, digests).

A read takes only a regular file, of at most a given size (`open_regular`): a pipe put in a
file's place never blocks it, a link to a device never feeds it without end.

A write goes to a temporary file in the same directory, is flushed to disk, then renamed over the
old file: a crash never leaves half of one. A symbolic link to a file stays a link (the file it
points at is replaced, the temporary file beside it). A user's file stays what it was besides:
an existing one keeps its mode, owner and group; a file with other hard links is written in
place, so every name of it sees the new text.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterable
from pathlib import Path
from typing import BinaryIO

from reader.errors import ReaderError


class FileWriteError(ReaderError):
    """A file could not be written (or may not be): the message names it and says why."""


class UnsafeFileError(OSError):
    """A file is not one to read: not a regular file (a pipe, a device, a link loop), or larger
    than its kind ever is. An OSError, so that a reader that can do without the file does."""

    def __init__(self, path: Path, reason: str):
        super().__init__(reason)
        self.path, self.reason = path, reason


def open_regular(path: Path, limit: int) -> BinaryIO:
    """`path` opened for reading when it is a regular file (links followed) of at most `limit`
    bytes; UnsafeFileError when not, FileNotFoundError (and other OSErrors) as open gives them.
    Opened without blocking, so that a pipe is seen for what it is, not waited on."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as error:
        if error.errno == errno.ELOOP:
            raise UnsafeFileError(path, "a link that leads nowhere a file can be (a loop)") from None
        raise
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise UnsafeFileError(path, f"not a regular file ({_kind(info.st_mode)})")
        if info.st_size > limit:
            raise UnsafeFileError(path, f"larger ({info.st_size:,} bytes) than such a file can be ({limit:,})")
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def read_regular(path: Path, limit: int) -> bytes:
    """The bytes of `path` as `open_regular` takes it; a file that grew past `limit` while read
    is refused too."""
    parts, total = [], 0
    with open_regular(path, limit) as file:
        wanted = os.fstat(file.fileno()).st_size + 1  # the size it has, and a byte to see it grew
        while chunk := file.read(wanted):
            parts.append(chunk)
            total += len(chunk)
            if total > limit:
                raise UnsafeFileError(path, f"larger than such a file can be ({limit:,} bytes)")
            wanted = 1 << 20
    return b"".join(parts)  # (one part, the usual: that part itself, not a copy)


def _kind(mode: int) -> str:
    kinds = (
        (stat.S_ISDIR, "a folder"),
        (stat.S_ISFIFO, "a pipe"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISCHR, "a device"),
        (stat.S_ISBLK, "a device"),
    )
    return next((name for test, name in kinds if test(mode)), "not a file")


def path_problem(text: str, example: str = "starred.bib") -> str | None:
    """Why `text` cannot be the file an export writes, or None. A folder is refused (`.`, `/`, a
    trailing slash): no file name is invented (`example` is the one suggested); so is a folder
    that takes no new file, and a device, pipe or socket."""
    if not text.strip():
        return "Give a file path."
    path = Path(text.strip()).expanduser()
    if text.strip().endswith(os.sep) or path.is_dir():
        return f"{path} is a folder: give a file name, e.g. {path / example}"
    target = link_target(path)
    if target is None:
        return f"{path} is a link that leads nowhere a file can be (a loop)"
    if target.exists() and not target.is_file():
        return f"{path} is not a regular file (a device, pipe or socket)"
    if not target.parent.is_dir():
        return f"The folder {target.parent} does not exist."
    import tempfile  # (here only: every command imports this module, few check a path)

    try:  # a file with no name (Linux), gone when closed: nothing is left behind
        with tempfile.TemporaryFile(dir=target.parent):
            pass
    except OSError as error:  # said before the records are read, not seconds later
        return f"Cannot write in the folder {target.parent}: {error.strerror or error}"
    return None


def write_atomic(path: Path, payload: bytes | Iterable[bytes | memoryview], *, durable: bool = True) -> None:
    """Replace `path` with `payload` (a new file gets the umask's mode); FileWriteError names it.
    `payload` may be parts written one after the other (a large file never joined in memory).
    A link to a regular file (or to none yet) stays a link: the file it points at is replaced.
    Any other link (to a device, a pipe, a loop) is replaced itself, by the file. `durable=False`
    skips the flushes to the disk (two fsyncs, ~15 ms): for a small derived file its reader
    checks (a power cut may leave it damaged, never half written after a kill)."""
    target = link_target(path)
    if target is None or target != path and target.exists() and not target.is_file():
        target = path
    _replace(target, payload, like=None, durable=durable)


def write_user_file(path: Path, payload: bytes) -> None:
    """Replace the user's file at `path` with `payload`, keeping what the file was (see the
    module docstring); FileWriteError names the file and says why."""
    target = link_target(path)
    if target is None:
        raise FileWriteError(f"cannot write {path}: it is a link that leads nowhere a file can be (a loop)")
    try:
        status: os.stat_result | None = target.stat()
    except FileNotFoundError:
        status = None
    except OSError as error:
        raise FileWriteError(f"cannot write {path}: {error.strerror or error}") from None
    if status is not None and not stat.S_ISREG(status.st_mode):
        raise FileWriteError(f"cannot write {path}: not a regular file")
    if status is not None and status.st_nlink > 1:
        _rewrite_in_place(target, path, payload, keep=0)
    else:
        _replace(target, payload, like=status)


def append_user_file(path: Path, old: bytes, new: bytes) -> None:
    """Write `new` (which starts with `old`, the file's bytes as read) to the user's file at
    `path`: replaced whole, or, for a file with other hard links, appended in place and cut back
    to its old length should the write fail. A file changed since it was read is left alone."""
    if not new.startswith(old):
        raise ValueError("an append must keep the file's bytes")
    target = link_target(path)
    if target is None:
        raise FileWriteError(f"cannot write {path}: it is a link that leads nowhere a file can be (a loop)")
    try:
        status = target.stat()
    except FileNotFoundError:
        status = None
    except OSError as error:
        raise FileWriteError(f"cannot write {path}: {error.strerror or error}") from None
    if status is None or status.st_nlink <= 1:
        write_user_file(path, new)
    elif status.st_size != len(old):
        raise FileWriteError(f"{path} changed while it was being read: nothing was written, run the command again")
    else:
        _rewrite_in_place(target, path, new, keep=len(old))


def link_target(path: Path) -> Path | None:
    """The file `path` names once its links are followed (itself when not a link; the path a
    dangling link points at); None for a loop."""
    if not path.is_symlink():
        return path
    target = Path(os.path.realpath(path))
    return None if target.is_symlink() else target


def _replace(path: Path, payload: bytes | Iterable[bytes | memoryview], *, like: os.stat_result | None, durable: bool = True) -> None:
    """A temporary file beside `path`, given `like`'s mode, owner and group, flushed, renamed."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with open(tmp, "wb") as handle:
            for part in (payload,) if isinstance(payload, bytes) else payload:
                handle.write(part)
            handle.flush()
            if like is not None:
                _take_ownership_of(handle.fileno(), like)
            if durable:
                os.fsync(handle.fileno())
        os.replace(tmp, path)
    except OSError as error:
        try:
            tmp.unlink()
        except OSError:
            pass
        raise FileWriteError(f"cannot write {path}: {error.strerror or error}") from None
    if durable:
        _fsync_dir(path.parent)


def _take_ownership_of(fd: int, like: os.stat_result) -> None:
    """Give the open file `like`'s owner, group and mode, as far as this user may."""
    try:
        os.fchown(fd, like.st_uid, like.st_gid)
    except OSError:
        try:  # not root: the group alone, when the user belongs to it
            os.fchown(fd, -1, like.st_gid)
        except OSError:
            pass
    os.fchmod(fd, stat.S_IMODE(like.st_mode))  # after chown, which clears set-id bits


def _rewrite_in_place(target: Path, named: Path, payload: bytes, *, keep: int) -> None:
    """Write `payload[keep:]` at offset `keep` of a hard-linked file and cut it there: every link
    sees the change. On failure the old bytes are put back (the kept ones were never touched)."""
    try:
        with open(target, "r+b") as handle:
            old_tail = b"" if keep else handle.read()
            try:
                handle.seek(keep)
                handle.write(payload[keep:])
                handle.truncate()
                handle.flush()
                os.fsync(handle.fileno())
            except OSError:
                handle.seek(keep)
                handle.write(old_tail)
                handle.truncate()
                handle.flush()
                raise
    except OSError as error:
        raise FileWriteError(f"cannot write {named}: {error.strerror or error}") from None


def _fsync_dir(directory: Path) -> None:
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
