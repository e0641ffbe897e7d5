"""Run a command in a real pseudo-terminal (the pty module), as a person at a terminal would:
read what it draws, type keys when given text appears."""

from __future__ import annotations

import fcntl
import os
import select
import struct
import subprocess
import sys
import termios
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from tests.helpers.timing import scaled

# Runs first in the command's new session: makes the pseudo-terminal the session's controlling
# terminal, as a terminal emulator does (fish, for one, will not start interactively without it).
TAKE_TERMINAL = "import fcntl, os, sys, termios; fcntl.ioctl(0, termios.TIOCSCTTY, 0); os.execvp(sys.argv[1], sys.argv[1:])"


@dataclass
class TerminalRun:
    status: int | None  # None: still running at the deadline (then killed)
    output: str  # everything written to the terminal, escape sequences included


def run_in_terminal(
    argv: Sequence[str],
    *,
    env: dict[str, str],
    cwd: str | None = None,
    size: tuple[int, int] = (100, 30),
    keys: Sequence[tuple[str, str | Callable[[], object]]] = (),
    deadline: float = 60.0,
) -> TerminalRun:
    """Run `argv` with a terminal of `size` (columns, lines) as stdin, stdout and stderr. For each
    (text, key) in `keys`, once `text` has appeared in the output (after the previous one), type `key`
    (or call it: another terminal's command, say). The deadline (stretched by
    READER_TEST_TIME_FACTOR) only stops a hung command; tests assert on the output, never on timing."""
    main_fd, child_fd = os.openpty()
    fcntl.ioctl(child_fd, termios.TIOCSWINSZ, struct.pack("HHHH", size[1], size[0], 0, 0))
    process = subprocess.Popen(
        [sys.executable, "-I", "-S", "-c", TAKE_TERMINAL, *argv],
        stdin=child_fd,
        stdout=child_fd,
        stderr=child_fd,
        env=env,
        cwd=cwd,
        start_new_session=True,
    )
    os.close(child_fd)
    chunks: list[bytes] = []
    pending = list(keys)
    searched = 0
    end = time.monotonic() + scaled(deadline)
    try:
        while time.monotonic() < end:
            ready, _, _ = select.select([main_fd], [], [], 0.2)
            if ready:
                try:
                    data = os.read(main_fd, 65536)
                except OSError:  # EIO: every copy of the terminal's other end is closed
                    break
                if not data:
                    break
                chunks.append(data)
            elif process.poll() is not None:
                break
            text = b"".join(chunks).decode("utf-8", "replace")
            if pending and pending[0][0] in text[searched:]:
                searched = text.index(pending[0][0], searched) + len(pending[0][0])
                key = pending.pop(0)[1]
                key() if callable(key) else os.write(main_fd, key.encode())
        try:
            status: int | None = process.wait(timeout=max(0.0, end - time.monotonic()))
        except subprocess.TimeoutExpired:
            status = None
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        os.close(main_fd)
    return TerminalRun(status, b"".join(chunks).decode("utf-8", "replace"))
