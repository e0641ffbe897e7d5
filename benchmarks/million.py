"""A field of a million papers (issue 32): `python -m benchmarks.million [--papers N]`.

Run by hand, not in CI: at 1,000,000 papers it takes tens of minutes and several GB of disk
(under --work, /tmp by default). Steps, each figure printed beside its target:

1. A loopback arXiv in its own process serves N synthetic papers of one query over about three
   years (abstracts from the recorded fixtures, 1-8 authors), no result past position 10,000 of
   any query (arXiv's cap: the sync windows).
2. `reader sync --topic` from it (delay 0, horizon 160 weeks): whole command, papers/s, requests,
   the data directory's size.
3. The app in tmux (140x45), arXiv unreachable while a sync is due (the example topics were never
   synced): once on the fresh cache, twice after. The newest card's time from launch, the
   process tree's peak RSS, the time until the tree's CPU is quiet and its RSS then.
4. The commands: `list --query` (a common abstract phrase ANDed with a category; words matching
   nothing), `star`, the first `rank` after five stars and a second one.

Compare ratios within one run: the machine is shared and noisy.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import date
from pathlib import Path

from benchmarks import as_installed, loopback_arxiv, serve_until_closed

ROOT = Path(__file__).resolve().parent.parent
TODAY = date(2026, 12, 2)
DAYS = 1095  # about three years of submissions
HORIZON_WEEKS = 160
TOPIC, QUERY = "Field", "cat:cs.LG OR cat:cs.SE"
CAP = 10_000  # arXiv's search backend serves no result past this position
# A phrase in a third of the abstracts ANDed with a category; words no paper holds.
FIELD_QUERY = 'abs:"of the" AND cat:cs.SE'
NOTHING_QUERY = "zebra xylophone"
UNREACHABLE = "http://127.0.0.1:9/api/query"
QUIET_SHARE = 0.05  # of a core: the tree is quiet under it
SIZE = (140, 45)


def field_papers(count: int):
    from benchmarks.cache import synthetic_papers

    return synthetic_papers(count, TODAY, days=DAYS, max_authors=8)


def field_env(work: Path) -> dict[str, str]:
    """The commands' environment: the field's day and horizon, no delay or retry, config and logs under `work`."""
    return {
        **os.environ,
        "READER_TODAY": TODAY.isoformat(),
        "READER_ARXIV_DELAY": "0",
        "READER_ARXIV_RETRIES": "0",
        "READER_SYNC_WEEKS": str(HORIZON_WEEKS),
        "READER_CONFIG_DIR": str(work / "config"),
        "READER_LOG_DIR": str(work / "logs"),
    }


def serve(count: int) -> None:
    """The loopback arXiv of `count` field papers (`loopback_arxiv`'s child)."""
    from tests.arxiv_server import FakeArxiv

    fake = FakeArxiv().start()
    fake.cap = CAP
    # Newest first, as arXiv sorts by submittedDate: the made papers' times wrap within some days.
    fake.queries[QUERY] = sorted(field_papers(count), key=lambda p: p.published, reverse=True)
    fake.matching(f"({QUERY}) AND submittedDate:[202601010000 TO 202601010000]")  # minute keys made before timing
    serve_until_closed(fake)


# --- the process tree ------------------------------------------------------------------------


def _children() -> dict[int, list[int]]:
    tree: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                fields = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            tree.setdefault(int(fields[1]), []).append(int(entry))
    return tree


def tree_usage(root: int) -> tuple[float, float]:
    """(RSS in MB summed over `root` and its descendants, their CPU seconds so far)."""
    tree, pids, rss_kb, ticks = _children(), [root], 0, 0
    while pids:
        pid = pids.pop()
        pids += tree.get(pid, [])
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            ticks += int(fields[11]) + int(fields[12])
            for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    rss_kb += int(line.split()[1])
        except (OSError, IndexError, ValueError):
            continue  # ended meanwhile
    return rss_kb / 1024, ticks / os.sysconf("SC_CLK_TCK")


# --- the app in tmux -------------------------------------------------------------------------


def tmux(*args: str) -> str:
    return subprocess.run(["tmux", *args], capture_output=True, text=True, check=False).stdout


_sessions = itertools.count()


def app_run(
    env: dict[str, str], data: Path, newest_title: str, *, watch_s: float, settle_s: float, longest_s: float, root: Path = ROOT
) -> dict:
    """The app started in a tmux session as a user starts it (the code of the checkout `root`):
    seconds to the newest card, peak tree RSS over `watch_s` (and until quiet), seconds until
    the tree's CPU stays under 5% of a core for `settle_s`, the tree's RSS then (None: not quiet
    within `longest_s`)."""
    session = f"million-{os.getpid()}-{next(_sessions)}"  # its own name: the last one may not be gone yet
    command = " ".join(
        [
            "exec",
            "env",
            *(f"{k}={v}" for k, v in env.items() if k.startswith("READER_")),
            sys.executable,
            "-m",
            "reader",
            "--data-dir",
            str(data),
        ]
    )
    started = time.perf_counter()
    tmux("new-session", "-d", "-s", session, "-c", str(root), "-x", str(SIZE[0]), "-y", str(SIZE[1]), command)
    root = int(tmux("display-message", "-p", "-t", session, "#{pane_pid}").strip() or 0)
    card_s = quiet_s = None
    peak = quiet_rss = quiet_cpu = 0.0
    samples: list[tuple[float, float]] = []  # (time, cpu seconds)
    screen = ""
    try:
        while True:
            now = time.perf_counter() - started
            rss, cpu = tree_usage(root)
            peak = max(peak, rss)
            samples.append((now, cpu))
            if card_s is None:
                screen = tmux("capture-pane", "-p", "-t", session)
                if newest_title in screen:
                    card_s = now
            if quiet_s is None and card_s is not None:
                # From the last sample at least settle_s old (not the first one younger: with
                # samples ~0.27 s apart that one was often under 0.9 * settle_s old, and a
                # quiet app never read as quiet).
                older = [s for s in samples if card_s <= s[0] <= now - settle_s]
                if older and (cpu - older[-1][1]) / (now - older[-1][0]) < QUIET_SHARE:
                    quiet_s, quiet_rss, quiet_cpu = older[-1][0], rss, older[-1][1]
            if (quiet_s is not None and now >= watch_s) or now > max(watch_s, longest_s):
                break
            time.sleep(0.05 if card_s is None else 0.25)
        screen = tmux("capture-pane", "-p", "-t", session)
    finally:
        tmux("send-keys", "-t", session, "q")
        for _ in range(100):  # (has-session answers by its exit status)
            if subprocess.run(["tmux", "has-session", "-t", session], capture_output=True, check=False).returncode != 0:
                break
            time.sleep(0.1)
        tmux("kill-session", "-t", session)
    return {
        "card_s": card_s,
        "peak_mb": peak,
        "quiet_s": quiet_s,
        "quiet_mb": quiet_rss,
        "quiet_cpu_s": quiet_cpu,  # the tree's CPU seconds until quiet (a loaded machine inflates them less than quiet_s)
        "traceback": "Traceback" in screen,
    }


# --- commands --------------------------------------------------------------------------------


def timed(argv: list[str], env: dict[str, str]) -> tuple[float, subprocess.CompletedProcess]:
    started = time.perf_counter()
    done = subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, text=True, timeout=3600, check=False)
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(argv[3:])} failed ({done.returncode}):\n{done.stderr[-3000:]}")
    return elapsed, done


def du_mb(path: Path) -> float:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file()) / 1e6


def fmt_s(value: float | None) -> str:
    return "never" if value is None else f"{value:.2f} s"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--papers", type=int, default=1_000_000)
    parser.add_argument("--work", default=None, help="where the data directory goes (default: a new directory in /tmp, removed after)")
    parser.add_argument("--watch", type=float, default=60.0, help="seconds the first start is watched (peak RSS)")
    parser.add_argument("--settle", type=float, default=2.0, help="seconds under 5%% of a core that make the tree quiet")
    parser.add_argument("--longest", type=float, default=180.0, help="seconds an app start is watched at most for its CPU to be quiet")
    parser.add_argument("--runs", type=int, default=3, help="runs of each list command (median)")
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    as_installed()
    sys.path.insert(0, str(ROOT))
    if args.serve:
        serve(args.papers)
        return
    work = Path(args.work) if args.work else Path(tempfile.mkdtemp(prefix="reader-million-", dir="/tmp"))
    data = work / "data"
    env = field_env(work)
    cli = [sys.executable, "-m", "reader", "--data-dir", str(data)]
    figures: dict = {"papers": args.papers}
    try:
        started = time.perf_counter()
        with loopback_arxiv("benchmarks.million", "--papers", str(args.papers)) as server:
            figures["server_start_s"] = time.perf_counter() - started
            timed([*cli, "topics", "add", TOPIC, QUERY], env)
            sync_env = {**env, "READER_ARXIV_API_URL": server.api_url, "READER_ARXIV_RSS_URL": server.api_url}
            figures["sync_s"], _ = timed([*cli, "sync", "--topic", TOPIC], sync_env)
            figures["requests"] = server.requests()
        _, listed = timed([*cli, "topics", "list", "--json"], env)
        topic = next(t for t in json.loads(listed.stdout) if t["name"] == TOPIC)
        figures["cached"] = topic["cached"]
        figures["papers_per_s"] = figures["cached"] / figures["sync_s"]
        figures["disk_mb"] = du_mb(data)
        newest_title = field_papers(1)[0].title[:40]  # the newest paper's is the same at every size
        app_env = {**env, "READER_ARXIV_API_URL": UNREACHABLE, "READER_ARXIV_RSS_URL": UNREACHABLE}
        figures["app"] = [
            app_run(app_env, data, newest_title, watch_s=args.watch if run == 0 else 0.0, settle_s=args.settle, longest_s=args.longest)
            for run in range(3)
        ]
        figures["disk_after_start_mb"] = du_mb(data)
        list_times: dict[str, list[float]] = {FIELD_QUERY: [], NOTHING_QUERY: []}
        for _ in range(args.runs):  # alternated, so that a noisy moment touches both
            for query, samples in list_times.items():
                elapsed, done = timed([*cli, "list", "--query", query, "--limit", "10", "--json"], env)
                samples.append(elapsed)
                figures.setdefault("list_counts", {})[query] = len(json.loads(done.stdout))
        figures["list_s"] = {query: statistics.median(samples) for query, samples in list_times.items()}
        _, listed = timed([*cli, "list", "--limit", "2000", "--json"], env)
        ids = [row["id"] for row in json.loads(listed.stdout)]
        stars = [timed([*cli, "star", pid], env)[0] for pid in ids[3::400][:5]]
        figures["star_s"] = statistics.median(stars)
        figures["rank_first_s"], ranked = timed([*cli, "rank", "--limit", "20", "--json"], env)
        figures["ranked"] = len(json.loads(ranked.stdout))
        figures["rank_again_s"], _ = timed([*cli, "rank", "--limit", "20", "--json"], env)
        figures["disk_end_mb"] = du_mb(data)
    finally:
        if not args.work:
            shutil.rmtree(work, ignore_errors=True)
    print_table(figures)
    print(json.dumps(figures))


def print_table(f: dict) -> None:
    first, *later = f["app"]
    rows = [
        (
            "`reader sync --topic`, whole first sync",
            "≥ 3,000 papers/s",
            f"{f['sync_s']:.0f} s = {f['papers_per_s']:,.0f} papers/s, {f['requests']:,} requests, {f['cached']:,} cached",
        ),
        (
            "data directory after the sync / after the app's starts / at the end",
            "",
            f"{f['disk_mb']:,.0f} MB / {f['disk_after_start_mb']:,.0f} MB / {f['disk_end_mb']:,.0f} MB",
        ),
        (
            "first start: newest card / tree peak RSS / CPU quiet",
            "≤ 2 s / ≤ 1,024 MB / ≤ 120 s",
            f"{fmt_s(first['card_s'])} / {first['peak_mb']:,.0f} MB / {fmt_s(first['quiet_s'])}",
        ),
    ]
    for n, run in enumerate(later, 1):
        rows.append(
            (
                f"later start {n}: newest card / CPU quiet / tree RSS once quiet",
                "≤ 1.0 s / ≤ 3 s / ≤ 300 MB",
                f"{fmt_s(run['card_s'])} / {fmt_s(run['quiet_s'])} / {run['quiet_mb']:,.0f} MB",
            )
        )
    rows += [
        (
            f"`reader list --query '{FIELD_QUERY}' --limit 10 --json`",
            "≤ 0.5 s",
            f"{f['list_s'][FIELD_QUERY]:.2f} s ({f['list_counts'][FIELD_QUERY]} papers)",
        ),
        (
            f"`reader list --query '{NOTHING_QUERY}' --limit 10 --json`",
            "≤ 0.5 s",
            f"{f['list_s'][NOTHING_QUERY]:.2f} s ({f['list_counts'][NOTHING_QUERY]} papers)",
        ),
        ("`reader star ID`", "≤ 0.3 s", f"{f['star_s']:.2f} s"),
        ("first `reader rank --limit 20 --json` (five stars)", "≤ 10 s", f"{f['rank_first_s']:.1f} s ({f['ranked']} papers)"),
        ("second `reader rank --limit 20 --json`", "", f"{f['rank_again_s']:.1f} s"),
    ]
    tracebacks = sum(run["traceback"] for run in f["app"])
    print(f"### {f['papers']:,} papers in one topic{' (a traceback on screen!)' if tracebacks else ''}\n")
    print("| measure | target | result |\n|---|---|---|")
    for row in rows:
        print("| " + " | ".join(row) + " |")
    print(flush=True)


if __name__ == "__main__":
    main()
