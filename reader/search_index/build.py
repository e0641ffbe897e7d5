"""A child process that brings partitions up to date, one after the other.

    python -m reader.search_index.build JSON     JSON = {partition file: {shard: shard file}}
    python -m reader.search_index.build --serve  such JSON a line at a time on its stdin,
                                                 a line answered on its stdout after each

The first is run by SearchIndex.refresh, one per core (a process's start is paid once per core,
not per partition); the second by a sync (processes.Builders), kept for the whole sync and fed
the shards as they are saved: it ends when its stdin closes, so it never outlives the sync."""

from __future__ import annotations

import gc
import json
import os
import signal
import sys
from pathlib import Path

from reader.search_index import partition

SERVE = "--serve"
DONE, FAILED = "done", "failed"  # a served job's answer: with FAILED, the caller does the work


def main(argv: list[str]) -> int:
    (work,) = argv
    # Nothing this process makes is cyclic garbage worth collecting (it reads, inserts, exits:
    # reference counts free the rest), and the collector's passes over the rows it holds took
    # ~10% of a partition's build.
    gc.disable()
    if work == SERVE:
        return serve()
    run(work)
    return 0


def run(work: str) -> None:
    for path, shards in json.loads(work).items():
        build(Path(path), {name: Path(file) for name, file in shards.items()})


def serve() -> int:
    # Ctrl+C is the sync's to answer; this process ends with its stdin (a job under way is
    # finished first: each is one transaction).
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    for line in sys.stdin:
        try:
            run(line)
            answer = DONE
        except Exception:  # told to the caller, which does the job itself (and reports what fails)
            answer = FAILED
        gc.collect()  # once a job: kept for a whole sync, a cycle left by a failed job would pile up
        try:
            print(answer, flush=True)
        except BrokenPipeError:  # the sync died before reading it: nobody to answer
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            return 0
    return 0


def build(path: Path, shards: dict[str, Path]) -> None:
    if not path.exists():
        partition.build_new(path, shards)
        return
    db = partition.connect(path)
    try:
        partition.prepare(db)
        partition.update(db, shards)
    finally:
        db.close()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
