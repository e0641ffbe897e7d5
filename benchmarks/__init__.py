"""Benchmarks: `python -m benchmarks.run` (see benchmarks/README.md). Every script measures the app as an
installed copy runs: see `as_installed`."""

from __future__ import annotations

import compileall
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import NamedTuple

ROOT = Path(__file__).resolve().parent.parent


def as_installed() -> None:
    """Run this process's children as an installed app runs: its modules compiled once (pip
    does so at install), not compiled from source again in every process, as they are when
    PYTHONDONTWRITEBYTECODE is set (it is in some shells here, and it added ~100 ms to every
    process start measured)."""
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    for package in ("reader", "benchmarks"):
        compileall.compile_dir(ROOT / package, quiet=1)


def add_against(parser) -> None:
    """`--against DIR`: another checkout of reader (e.g. `git worktree add DIR main`) whose
    whole-process figures are measured beside this one's."""
    parser.add_argument(
        "--against", metavar="DIR", type=Path, help="another checkout (the code before a change): measured too, alternating run by run"
    )


class Timing(NamedTuple):
    """Medians of a command's runs: wall time, and its CPU time (user + system), which a loaded
    machine inflates less (the shared 2-core machine often runs at load 8-12)."""

    wall: float
    cpu: float

    def __str__(self) -> str:
        return f"{self.wall:.2f} s (CPU {self.cpu:.2f} s)"


def alternated_wall(argv: list[str], env: dict[str, str], runs: int, against: Path | None) -> tuple[Timing, Timing | None]:
    """Timings of `argv` (a `python -m reader ...`) run from this checkout and, when given, from
    `against` (whose `reader` package `-m` then finds first), in turn: so that a noisy moment on the
    shared machine touches both. (this one's, against's or None)."""
    import resource
    import statistics
    import subprocess
    import time

    roots = [ROOT] if against is None else [ROOT, against.resolve()]
    if against is not None:
        compileall.compile_dir(roots[1] / "reader", quiet=1)
    samples: dict[Path, list[tuple[float, float]]] = {root: [] for root in roots}
    for _ in range(runs):
        for root in roots:
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            started = time.perf_counter()
            subprocess.run(argv, cwd=root, env=env, capture_output=True, check=True, timeout=600)
            wall = time.perf_counter() - started
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            samples[root].append((wall, after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime))
    timings = [Timing(statistics.median(w for w, _ in samples[root]), statistics.median(c for _, c in samples[root])) for root in roots]
    return timings[0], timings[1] if against is not None else None


class LoopbackArxiv(NamedTuple):
    """A loopback arXiv serving in a child process (`loopback_arxiv`)."""

    api_url: str
    process: subprocess.Popen

    def requests(self) -> int:
        """Its count of search requests so far."""
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write("requests\n")
        self.process.stdin.flush()
        return int(self.process.stdout.readline())


@contextmanager
def loopback_arxiv(module: str, *args: str) -> Iterator[LoopbackArxiv]:
    """`python -m MODULE --serve ARGS...` from this checkout: a loopback arXiv in a process of its
    own (its CPU stays out of the process measured), which `serve_until_closed` runs there; it stops
    when the block ends."""
    process = subprocess.Popen(
        [sys.executable, "-m", module, "--serve", *args], cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    assert process.stdin is not None and process.stdout is not None
    try:
        yield LoopbackArxiv(json.loads(process.stdout.readline())["api_url"], process)
    finally:
        process.stdin.close()
        process.wait(timeout=60)


def serve_until_closed(fake) -> None:
    """The child's side of `loopback_arxiv`, `fake` (a started tests.arxiv_server.FakeArxiv) its
    server: prints its address, then answers each line on stdin with its count of search requests
    so far, until stdin closes."""
    print(json.dumps({"api_url": fake.api_url}), flush=True)
    for _ in sys.stdin:
        print(len(fake.search_requests()), flush=True)
    fake.stop()
