"""The process that counts a large sync's For you features (store/shard_features.py's
FeatureKeeper): `python -m reader.store.features_child` reads jobs from its stdin and answers
each on its stdout, pickled, until its stdin closes (the sync ended, or died: it never outlives
it). A process started by command, not by multiprocessing: no module of the parent's is run
again in it."""

from __future__ import annotations

import os
import pickle
import signal
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from reader.core import features_format, ranking, shard_counts
from reader.core.features import FeatureBlock, extended, row_of_texts
from reader.safe_files import FileWriteError, write_atomic

Stamp = tuple[int, int]  # a shard file's modification time (ns) and size


@dataclass(frozen=True, slots=True)
class Counted:
    """What the counts total (core/counts_total.py) needs of one shard's count: its document
    counts and papers before (None, []: none were counted) and now, the stamp, the papers' sample keys."""

    old: shard_counts.ShardCounts | None
    old_ids: list[str]
    stamp: Stamp
    new: shard_counts.ShardCounts
    ids: list[str]
    keys: Any

    @classmethod
    def of(cls, old: FeatureBlock | None, stamp: Stamp, block: FeatureBlock) -> Counted:
        was = None if old is None else shard_counts.ShardCounts.of_block(old)
        new = shard_counts.ShardCounts.of_block(block)
        return cls(was, old.ids if old is not None else [], stamp, new, block.ids, block.sample_keys)


class Counter:
    """The counting process, seen from the sync: `count(job)` is `count_apart(*job)` run there."""

    def __init__(self) -> None:
        self._process = subprocess.Popen(
            [sys.executable, "-m", "reader.store.features_child"], stdin=subprocess.PIPE, stdout=subprocess.PIPE
        )

    def count(self, job: tuple) -> Counted | None:
        """The job's outcome; OSError or EOFError when the process is gone."""
        assert self._process.stdin is not None and self._process.stdout is not None
        pickle.dump(job, self._process.stdin, protocol=pickle.HIGHEST_PROTOCOL)
        self._process.stdin.flush()
        done: Any = pickle.load(self._process.stdout)
        if isinstance(done, str):  # what went wrong there, as this process would have said it
            raise RuntimeError(done)
        return done if isinstance(done, Counted) else None

    def close(self) -> None:
        """Its stdin closed: it ends once its job (if any) is done."""
        try:
            if self._process.stdin is not None:
                self._process.stdin.close()
        except OSError:
            pass
        self._process.wait()


def write_counts(path: Path, block: FeatureBlock, stamp: Stamp) -> None:
    try:
        write_atomic(path, shard_counts.encode(shard_counts.ShardCounts.of_block(block), stamp), durable=False)
    except FileWriteError:
        pass  # counted again from the features by the first ranking that needs them


def write_features(path: Path, block: FeatureBlock, stamp: Stamp) -> None:
    payload = features_format.encode(block, stamp)
    if payload is not None:
        try:
            write_atomic(path, payload)
        except FileWriteError:
            pass  # a cache: counted again next time


def count_apart(path: Path, counts: Path, kept: list[str], texts: list[tuple], before: Stamp | None, after: Stamp) -> Counted | None:
    """In the counting process: a shard's features after a save, from the features saved
    before it (`before`) and the texts of the papers written (id, title, abstract, author
    names, categories), as FeatureKeeper._count makes them; None, with nothing written, when
    some papers `kept` in the shard are in no features file (their records are needed)."""
    old = features_format.saved(path, before)
    if kept and (old is None or not set(kept) <= set(old.ids)):
        return None
    rows = [row_of_texts(*text) for text in texts]
    block = extended(old, set(kept), rows) if old is not None else ranking.featurize(rows)
    write_features(path, block, after)
    write_counts(counts, block, after)
    return Counted.of(old, after, block)


def main() -> int:
    # Its work by the module's own name, not this `__main__`'s: what it answers unpickles there.
    from reader.store.features_child import count_apart as count

    # Ctrl+C is the sync's to answer (it says what was kept); this process ends with its stdin.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    jobs, answers = sys.stdin.buffer, sys.stdout.buffer
    while True:
        try:
            job = pickle.load(jobs)
        except (EOFError, pickle.UnpicklingError):  # its stdin closed: the sync ended, or died writing a job
            return 0
        try:
            done: Counted | None | str = count(*job)
        except Exception as error:  # told to the sync, which logs it: the first ranking counts that shard
            done = f"{type(error).__name__}: {error}"
        try:
            pickle.dump(done, answers)
            answers.flush()
        except BrokenPipeError:  # the sync died before reading it: nobody to answer, nothing to say on its terminal
            os.dup2(os.open(os.devnull, os.O_WRONLY), answers.fileno())  # (what is left to flush at exit goes nowhere)
            return 0


if __name__ == "__main__":
    sys.exit(main())
