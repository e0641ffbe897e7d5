"""A child process that brings one partition up to date: `python -m reader.searchdb.build
PARTITION_FILE SHARD=SHARD_FILE ...` (run by SearchIndex.refresh, one per core)."""

from __future__ import annotations

import sys
from pathlib import Path

from reader.searchdb import partition


def main(argv: list[str]) -> int:
    path, *pairs = argv
    shards = {name: Path(file) for name, _, file in (pair.partition("=") for pair in pairs)}
    if not Path(path).exists():
        partition.build_new(Path(path), shards)
        return 0
    db = partition.connect(Path(path))
    partition.prepare(db)
    partition.update(db, shards)
    db.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
