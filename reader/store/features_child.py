"""The process that counts a large sync's For you features (store/shard_features.py's
FeatureKeeper): `python -m reader.store.features_child` reads jobs from its stdin and answers
each on its stdout, pickled, until its stdin closes (the sync ended, or died: it never outlives
it). A process started by command, not by multiprocessing: no module of the parent's is run
again in it."""

from __future__ import annotations

import pickle
import signal
import subprocess
import sys
from typing import Any


class Counter:
    """The counting process, seen from the sync: `count(job)` is `count_apart(*job)` run there."""

    def __init__(self) -> None:
        self._process = subprocess.Popen(
            [sys.executable, "-m", "reader.store.features_child"], stdin=subprocess.PIPE, stdout=subprocess.PIPE
        )

    def count(self, job: tuple) -> bool:
        """The job's outcome; OSError or EOFError when the process is gone."""
        assert self._process.stdin is not None and self._process.stdout is not None
        pickle.dump(job, self._process.stdin, protocol=pickle.HIGHEST_PROTOCOL)
        self._process.stdin.flush()
        done: Any = pickle.load(self._process.stdout)
        if isinstance(done, str):  # what went wrong there, as this process would have said it
            raise RuntimeError(done)
        return bool(done)

    def close(self) -> None:
        """Its stdin closed: it ends once its job (if any) is done."""
        try:
            if self._process.stdin is not None:
                self._process.stdin.close()
        except OSError:
            pass
        self._process.wait()


def main() -> int:
    from reader.store.shard_features import count_apart

    # Ctrl+C is the sync's to answer (it says what was kept); this process ends with its stdin.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    jobs, answers = sys.stdin.buffer, sys.stdout.buffer
    while True:
        try:
            job = pickle.load(jobs)
        except EOFError:
            return 0
        try:
            done: bool | str = count_apart(*job)
        except Exception as error:  # told to the sync, which logs it: the first ranking counts that shard
            done = f"{type(error).__name__}: {error}"
        pickle.dump(done, answers)
        answers.flush()


if __name__ == "__main__":
    sys.exit(main())
