"""The log: records of the `reader.*` loggers (each arXiv request, waits, retries, every sync error
and its cause) go to a rotating file in the platform's log directory, to attach to a bug report;
`reader -v` also prints them to stderr. Lines are cleaned like any text from outside: a server's
text in a record never reaches a terminal as control characters."""

from __future__ import annotations

import logging
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from reader.config import log_dir
from reader.core.sanitize import clean_text

LOG_FILE_NAME = "reader.log"
MAX_BYTES = 1_000_000  # then reader.log.1 ... reader.log.3: at most 4 MB in all
BACKUPS = 3
ROOT_LOGGER = "reader"

log = logging.getLogger("reader.sync")


def log_file() -> Path:
    return log_dir() / LOG_FILE_NAME


class _CleanFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        return "\n".join(clean_text(line) for line in super().format(record).splitlines())


class _LogFile(logging.Handler):
    """The rotating log, opened (its directory made) on the first record; a log that cannot be
    written is dropped quietly: it must never break a sync or print a traceback. The rotating
    handler is made then too: importing logging.handlers (socket, pickle) cost every command's
    start ~15 ms, most of which never log anything."""

    def __init__(self, path: Path):
        super().__init__()
        self.path = path
        self.broken = False
        self._file: logging.Handler | None = None

    def emit(self, record: logging.LogRecord) -> None:
        if self.broken:
            return
        if self._file is None:
            from logging.handlers import RotatingFileHandler

            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
            except OSError:
                self.broken = True
                return
            self._file = RotatingFileHandler(self.path, maxBytes=MAX_BYTES, backupCount=BACKUPS, encoding="utf-8", delay=True)
            self._file.setFormatter(self.formatter)
            self._file.handleError = self.handleError  # type: ignore[method-assign]
        self._file.emit(record)

    def handleError(self, record: logging.LogRecord) -> None:
        self.broken = True

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
        super().close()


class _Stderr(logging.StreamHandler):
    """Writes to whatever sys.stderr is at the time, so a progress display that takes stderr over
    can print records above its bars."""

    @property
    def stream(self):
        return sys.stderr

    @stream.setter
    def stream(self, value) -> None:
        pass


@contextmanager
def logging_to(path: Path, *, verbose: int = 0) -> Iterator[None]:
    """While the block runs, `reader.*` records go to the rotating log at `path`, and with
    `verbose` also to stderr (1: info, 2: debug). Handlers are removed afterwards."""
    logger = logging.getLogger(ROOT_LOGGER)
    handlers: list[logging.Handler] = []
    file_handler = _LogFile(path)
    file_handler.setFormatter(_CleanFormatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    handlers.append(file_handler)
    if verbose:
        stderr = _Stderr()
        stderr.setLevel(logging.DEBUG if verbose > 1 else logging.INFO)
        stderr.setFormatter(_CleanFormatter("%(name)s: %(message)s"))
        handlers.append(stderr)
    previous_level = logger.level
    logger.setLevel(logging.DEBUG)
    for handler in handlers:
        logger.addHandler(handler)
    try:
        yield
    finally:
        for handler in handlers:
            logger.removeHandler(handler)
            handler.close()
        logger.setLevel(previous_level)


def where(path: Path) -> str:
    """The suffix every sync error line ends with, so a bug report can attach the log."""
    return f" (log: {path})"
