"""Old and new code in turn on one large cache: `python -m benchmarks.million_pairs DATA_DIR --against DIR`.

DATA_DIR is a data directory made by `benchmarks.million --work W` (W/data; copied with `cp -a`:
index.columns is trusted only while index.json keeps its modification time). DIR is another
checkout (the code before a change, e.g. `git worktree add DIR main`). Each round runs, from
this checkout then from DIR: the app's start in tmux (newest card, CPU quiet, tree RSS once
quiet: benchmarks.million's `app_run`), `reader list --query` with a field query and with words
matching nothing, and `reader star` then `reader unstar` of one paper (the cache is left as it
was); with --rank, `reader rank --limit 50 --json` too (five or more stars: it saves the
derived counts it finds missing beside the shards, and says whether both top lists agree). Prints each measure's median and range for both, with the machine's load: on the shared
machine only figures taken in turn compare.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

from benchmarks import as_installed
from benchmarks.million import TODAY, UNREACHABLE, app_run, field_papers

ROOT = Path(__file__).resolve().parent.parent
QUERIES = {"field": 'abs:"reward model" AND cat:cs.LG', "of the": 'abs:"of the" AND cat:cs.SE', "nothing": "zebra xylophone"}


def command(root: Path, data: Path, env: dict[str, str], *words: str) -> tuple[float, float, str]:
    """(wall seconds, CPU seconds, stdout) of `python -m reader --data-dir DATA WORDS...` run from `root`."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "reader", "--data-dir", str(data), *words], cwd=root, env=env, capture_output=True, text=True, check=False
    )
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(words)} from {root} failed ({done.returncode}): {done.stderr[-2000:]}")
    return wall, after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime, done.stdout


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("data", type=Path, help="a data directory of benchmarks.million (it is left as it was)")
    parser.add_argument("--against", type=Path, required=True, help="the other checkout, measured in turn with this one")
    parser.add_argument(
        "--against-data",
        type=Path,
        help="the other checkout's own copy of DATA_DIR (when a derived file's format changed, each reads its own: "
        "one would otherwise read the other's as stale)",
    )
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--no-app", action="store_true", help="the commands only")
    parser.add_argument("--rank", action="store_true", help="the first `reader rank` too")
    args = parser.parse_args()
    as_installed()
    import compileall

    compileall.compile_dir(args.against / "reader", quiet=1)
    work = args.data.resolve().parent
    env = {
        **os.environ,
        "READER_TODAY": TODAY.isoformat(),
        "READER_CONFIG_DIR": str(work / "config"),
        "READER_LOG_DIR": str(work / "logs"),
        "READER_ARXIV_API_URL": UNREACHABLE,
        "READER_ARXIV_RSS_URL": UNREACHABLE,
    }
    roots = {"new": ROOT, "old": args.against.resolve()}
    datas = {"new": args.data, "old": args.against_data or args.data}
    answers: dict[tuple[str, str], str] = {}
    newest_title = field_papers(1)[0].title[:40]
    listed = json.loads(command(ROOT, args.data, env, "list", "--limit", "500", "--json")[2])
    paper = listed[-1]["id"]
    samples: dict[tuple[str, str], list[float]] = {}
    ranked: dict[str, list[str]] = {}

    def keep(which: str, measure: str, value: float | None) -> None:
        samples.setdefault((measure, which), []).append(float("nan") if value is None else value)

    for _ in range(args.rounds):
        for which, root in roots.items():
            data = datas[which]
            if not args.no_app:
                run = app_run(env, data, newest_title, watch_s=0.0, settle_s=2.0, longest_s=60.0, root=root)
                keep(which, "app: newest card s", run["card_s"])
                keep(which, "app: CPU quiet s", run["quiet_s"])
                keep(which, "app: tree CPU until quiet s", run["quiet_cpu_s"])
                keep(which, "app: tree RSS once quiet MB", run["quiet_mb"])
            for name, query in QUERIES.items():
                wall, cpu, answers[(name, which)] = command(root, data, env, "list", "--query", query, "--limit", "10", "--json")
                keep(which, f"list --query ({name}) wall s", wall)
                keep(which, f"list --query ({name}) CPU s", cpu)
            for verb in ("star", "unstar"):
                wall, cpu, _ = command(root, data, env, verb, paper)
                keep(which, f"{verb} wall s", wall)
                keep(which, f"{verb} CPU s", cpu)
            if args.rank:
                wall, cpu, out = command(root, data, env, "rank", "--limit", "50", "--json")
                keep(which, "rank wall s", wall)
                keep(which, "rank CPU s", cpu)
                ranked[which] = [row["id"] for row in json.loads(out)]
    for (measure, which), values in sorted(samples.items()):
        print(f"{measure:34} {which}: median {statistics.median(values):.3f}  range {min(values):.3f}-{max(values):.3f}")
    for name in QUERIES:
        same = answers[(name, "new")] == answers[(name, "old")]
        print(f"list --query ({name}): {'the same answer' if same else 'answers differ'} (the last round's)")
    if ranked:
        same = ranked["new"] == ranked["old"]
        print(f"rank: top {len(ranked['new'])} {'the same, in the same order' if same else 'differ'} (the last round's)")
    print(f"load average at the end: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
