"""The first sync of one large topic, this checkout and another in turn: `python -m
benchmarks.sync_pairs --against DIR [--papers N] [--pairs K]`.

One loopback arXiv (benchmarks.million's field: N synthetic papers of one query, arXiv's
10,000-result cap, delay 0) serves both. Each run syncs the topic into a fresh data directory
with `reader sync --topic` and prints its wall time and the CPU time (user + sys) of its whole
process tree: the command, its threads and the child processes it waits for (the search index's,
the features' counting), and the share of it spent in the command's own process, whose threads
share one GIL: on a machine with a core to spare, what bounds the wall time.
The meaning vectors' background update, which the command leaves running, is not started: it is
not part of the sync, and it would load the next run. On a shared machine the CPU is the figure
to compare; the runs alternate so that a noisy moment touches both.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks import ROOT, add_against, as_installed, loopback_arxiv
from benchmarks.million import QUERY, TOPIC, field_env

# The command as `reader` runs it, without the meaning vectors' update it would leave running.
DRIVER = """
import atexit, json, resource, sys
from reader.meaning import later
later.start = lambda data_dir: None
def own_cpu():
    usage = resource.getrusage(resource.RUSAGE_SELF)
    print(json.dumps({"own_cpu_s": usage.ru_utime + usage.ru_stime}), file=sys.stderr)
atexit.register(own_cpu)
from reader.cli import main
sys.exit(main(sys.argv[1:]))
"""


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def python_of(checkout: Path) -> str:
    venv = checkout / ".venv" / "bin" / "python"
    return str(venv) if venv.exists() else sys.executable


def sync_once(checkout: Path, api_url: str, work: Path) -> dict:
    data = work / "data"
    shutil.rmtree(work, ignore_errors=True)
    env = {**field_env(work), "READER_ARXIV_API_URL": api_url, "READER_ARXIV_RSS_URL": api_url}
    cli = [python_of(checkout), "-c", DRIVER, "--data-dir", str(data)]
    subprocess.run([*cli, "topics", "add", TOPIC, QUERY], cwd=checkout, env=env, check=True, capture_output=True)
    cpu, started = children_cpu(), time.perf_counter()
    done = subprocess.run([*cli, "sync", "--topic", TOPIC], cwd=checkout, env=env, capture_output=True, text=True, check=False)
    wall, cpu = time.perf_counter() - started, children_cpu() - cpu
    if done.returncode != 0:
        raise SystemExit(f"sync failed in {checkout} ({done.returncode}):\n{done.stderr[-3000:]}")
    own = json.loads(done.stderr.strip().splitlines()[-1])["own_cpu_s"]
    return {"wall_s": wall, "cpu_s": cpu, "own_cpu_s": own, "summary": done.stdout.strip().splitlines()[0]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--papers", type=int, default=100_000)
    parser.add_argument("--pairs", type=int, default=2)
    parser.add_argument("--work", type=Path, default=None, help="where the data directories go (default: /tmp, removed after)")
    add_against(parser)
    args = parser.parse_args()
    as_installed()
    work = args.work or Path(tempfile.mkdtemp(prefix="reader-sync-pairs-", dir="/tmp"))
    checkouts = {"new": ROOT, **({"old": args.against.resolve()} if args.against else {})}
    runs: list[dict] = []
    try:
        with loopback_arxiv("benchmarks.million", "--papers", str(args.papers)) as server:
            for pair in range(args.pairs):
                order = sorted(checkouts) if pair % 2 else sorted(checkouts, reverse=True)  # old first, then new first
                for name in order:
                    figures = sync_once(checkouts[name], server.api_url, work / name)
                    figures.update(name=name, pair=pair, papers_per_s_wall=args.papers / figures["wall_s"])
                    runs.append(figures)
                    print(
                        f"{name}: {figures['wall_s']:.1f} s wall ({figures['papers_per_s_wall']:,.0f} papers/s), "
                        f"{figures['cpu_s']:.1f} s CPU ({args.papers / figures['cpu_s'] * 2:,.0f} papers/s on two busy cores), "
                        f"{figures['own_cpu_s']:.1f} s of it in the command's own process (one GIL); "
                        f"load {os.getloadavg()[0]:.1f}; {figures['summary']}",
                        flush=True,
                    )
    finally:
        if not args.work:
            shutil.rmtree(work, ignore_errors=True)
    print(json.dumps(runs))


if __name__ == "__main__":
    main()
