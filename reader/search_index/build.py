"""A child process that brings partitions up to date, one after the other: `python -m
reader.search_index.build JSON`, JSON = {partition file: {shard: shard file}} (run by
SearchIndex.refresh, one per core: a process's start is paid once per core, not per partition)."""

from __future__ import annotations

import gc
import json
import sys
from pathlib import Path

from reader.search_index import partition


def main(argv: list[str]) -> int:
    (work,) = argv
    # Nothing this process makes is cyclic garbage worth collecting (it reads, inserts, exits:
    # reference counts free the rest), and the collector's passes over the rows it holds took
    # ~10% of a partition's build.
    gc.disable()
    for path, shards in json.loads(work).items():
        build(Path(path), {name: Path(file) for name, file in shards.items()})
    return 0


def build(path: Path, shards: dict[str, Path]) -> None:
    if not path.exists():
        partition.build_new(path, shards)
        return
    db = partition.connect(path)
    partition.prepare(db)
    partition.update(db, shards)
    db.close()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
