"""A large refresh's partitions built in child processes (`python -m reader.search_index.build`), one
per core, each given about the same bytes of shards to read: parsing holds the GIL, and a
process of its own lets the app's event loop (and the other partitions) run meanwhile."""

from __future__ import annotations

import json
import os
import sys
import threading
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import subprocess  # imported where a build starts processes: most commands never do

# A refresh this large (bytes of shards to read) runs partitions in parallel processes.
PARALLEL_BYTES = 32 * 1024 * 1024
# With `offload`, a refresh reading more than this (a shard is ~2 MB) runs in child processes.
OFFLOAD_BYTES = 1024 * 1024

# A partition's work: bytes to read, its file, {shard: shard file}.
Job = tuple[int, Path, dict[str, Path]]


def worth_processes(sizes: list[int], offload: bool) -> bool:
    """Whether partitions reading `sizes` bytes are built in child processes."""
    if offload:
        return sum(sizes) > OFFLOAD_BYTES
    return (os.cpu_count() or 1) > 1 and sum(1 for s in sizes if s) > 1 and sum(sizes) > PARALLEL_BYTES


def shares(work: list[Job], processes: int) -> list[dict[str, dict[str, str]]]:
    """Partitions' work split among at most `processes` children: each partition, the largest
    first, goes to the child with the fewest bytes so far. Each share is {partition file:
    {shard: shard file}}."""
    loads = [0] * min(processes, len(work))
    split: list[dict[str, dict[str, str]]] = [{} for _ in loads]
    for size, path, stale in sorted(work, key=lambda job: -job[0]):
        child = loads.index(min(loads))
        loads[child] += size
        split[child][str(path)] = {shard: str(file) for shard, file in stale.items()}
    return split


def bytes_of(files: Iterable[Path]) -> int:
    total = 0
    for path in files:
        try:
            total += path.stat().st_size
        except OSError:
            pass  # gone meanwhile: nothing to read
    return total


def build_in_processes(work: list[Job], lock: threading.Lock, children: list[subprocess.Popen], closed: Callable[[], bool]) -> None:
    """Run partitions' updates in child processes and wait for them. Each child is in `children`
    while it runs (under `lock`), so that the index's `close` can end it; none starts once
    `closed()`. A child that fails leaves its work to the caller (done in this process)."""
    import subprocess

    running: list[subprocess.Popen] = []
    for share in shares(work, os.cpu_count() or 1):
        argv = [sys.executable, "-m", "reader.search_index.build", json.dumps(share)]
        with lock:
            if closed():
                break
            running.append(subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
            children.append(running[-1])
    for child in running:
        child.wait()
        with lock:
            children.remove(child)


class Builders:
    """Child processes kept while a sync runs (`python -m reader.search_index.build --serve`),
    started at the first refresh that needs them: a sync's batches of shards cost no process
    start each (~0.2 s of CPU a core a batch when each batch started its own). `close` ends them."""

    def __init__(self) -> None:
        self._running: list[subprocess.Popen] = []
        self._broken = False  # a child could not start or died: the caller's process does the work

    def run(self, work: list[Job]) -> None:
        """The partitions' updates done by the children, shared as `build_in_processes` shares
        them; returns once each child answered. What a child did not do is left to the caller
        (its stamps show the shards still stale)."""
        import subprocess

        if self._broken:
            return
        split = shares(work, os.cpu_count() or 1)
        try:
            while len(self._running) < len(split):
                argv = [sys.executable, "-m", "reader.search_index.build", "--serve"]
                # (stderr not the sync's: the app's sync child sends its stderr into its JSON messages)
                child = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
                self._running.append(child)
            asked = self._running[: len(split)]
            for child, share in zip(asked, split):
                assert child.stdin is not None
                child.stdin.write(json.dumps(share) + "\n")
                child.stdin.flush()
            for child in asked:
                assert child.stdout is not None
                if not child.stdout.readline():  # it died: no answer
                    self._broken = True
        except OSError:
            self._broken = True
        if self._broken:
            self.close()

    def close(self) -> None:
        """Their stdins closed: each ends once its job (if any) is done."""
        running, self._running = self._running, []
        for child in running:
            try:
                if child.stdin is not None:
                    child.stdin.close()
            except OSError:
                pass
        for child in running:
            child.wait()
