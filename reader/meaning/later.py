"""The meaning index brought up to date after `reader sync`, in a process of its own that the
command leaves running: the vectors are derived (the search by meaning answers with words until
they are current), and building them for a large first sync took minutes the command waited for
(417 s at 100,000 papers) after every paper, feature and search row was written.

`python -m reader.meaning.later DATA_DIR`: at low priority; one build at a time per data directory
(build.py's lock: a second waits for the first, then folds in what the first did not see)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

started: list[subprocess.Popen] = []  # this process's updaters (tests wait for them)


def start(data_dir: Path) -> subprocess.Popen | None:
    """Start the update in a detached process; None when it cannot be started (the next sync,
    or `reader index --rebuild`, brings the vectors up to date)."""
    argv = [sys.executable, "-m", "reader.meaning.later", str(data_dir)]
    try:
        child = subprocess.Popen(
            argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
        )  # its own session: a Ctrl+C in the terminal after the command ended does not stop it
    except OSError:
        return None
    started.append(child)
    return child


def main(data_dir: Path) -> int:
    from reader import logs
    from reader.meaning.build import keep_current
    from reader.store.store import Store

    os.nice(10)  # behind whatever the user does next
    with logs.logging_to(logs.log_file()):
        return 0 if keep_current(Store(data_dir, check_user_files=False)) is not None else 1


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1])))
