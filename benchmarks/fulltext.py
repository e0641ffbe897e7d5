"""Full texts (issue 30): `python -m benchmarks.fulltext [--papers 100000] [--texts 300] [--runs 5] [--against DIR]`.

Builds a cache of `--papers` papers with `--texts` stored full texts (each the LaTeXML fixture's
paper, made about 60 KB long with words of the recorded abstracts), then measures in fresh
processes: `reader list --query 'text:"two words"'` and a stored `reader text` (whole processes,
medians), `v` to the text drawn in the app, and the peak RSS of `reader text` on the loopback
arXiv's gzip bomb and 100,000-deep page. Targets: 0.6 s, 0.5 s, 100 ms, 300 MB. With `--against DIR`
(a checkout of the code before), its two whole-process figures are measured too, in turn."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import date
from pathlib import Path

from benchmarks import ROOT, Timing, add_against, alternated_wall, as_installed

TODAY = date(2026, 12, 2)
QUERY = 'text:"reward shaping"'


def build(data_dir: Path, papers: int, texts: int) -> tuple[list[str], str]:
    """The cache and its stored texts: the ids with a text, and one without."""
    from benchmarks.cache import build_cache, model_papers
    from reader.fulltext.document import PARAGRAPH, Block, Document
    from reader.fulltext.html import LatexmlText
    from reader.fulltext.store import TextStore
    from tests.fulltext_pages import PAPER_HTML

    cached = build_cache(data_dir, papers, TODAY)
    reader = LatexmlText()
    reader.feed_bytes(PAPER_HTML)
    blocks = reader.finish()
    abstracts = [paper.abstract for paper in model_papers()]
    rng = random.Random(30)
    store = TextStore(data_dir)
    chosen = [paper for paper in cached[:: max(1, len(cached) // texts)]][:texts]
    for paper in chosen:
        body = [Block(PARAGRAPH, rng.choice(abstracts)) for _ in range(60)]  # ~60 KB of words
        store.save(Document(paper.id, paper.version, "html", tuple(blocks[:-4] + body + blocks[-4:])))
    return [paper.id for paper in chosen], next(p.id for p in cached if p not in chosen)


def wall(argv: list[str], env: dict[str, str], runs: int) -> float:
    samples = []
    for _ in range(runs):
        started = time.perf_counter()
        subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, check=True, timeout=600)
        samples.append(time.perf_counter() - started)
    return statistics.median(samples)


def before(timing: Timing | None, against: Path | None) -> str:
    return f"; {timing} from {against}, in turn" if timing is not None else ""


def peak_rss(paper_id: str, env: dict[str, str]) -> tuple[int, int]:
    """(exit status, peak RSS in MB) of `reader text ID` in a process of its own."""
    # VmHWM is this program's own peak: ru_maxrss keeps the forking parent's from before exec.
    script = (
        "import re, sys\nfrom reader.cli import main\n"
        f"code = main(['text', {paper_id!r}])\n"
        "peak = re.search(r'VmHWM:\\s+(\\d+) kB', open('/proc/self/status').read()).group(1)\n"
        "print('RSS', int(peak) // 1024, file=sys.stderr)\nsys.exit(code)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    return done.returncode, int(done.stderr.splitlines()[-1].split()[1])


async def v_to_text_ms(data_dir: Path, paper_id: str, runs: int) -> float:
    """In the app: Enter on the paper (its detail view), then `v`: until the text is drawn."""
    from reader.app import ReaderApp
    from reader.app.screens.full_text import FullTextScreen
    from reader.app.widgets.record_view import RecordView
    from reader.config import Settings
    from reader.store import Store

    app = ReaderApp(Store(data_dir), Settings.from_env(), sync_on_start=False)
    samples = []
    async with app.run_test(size=(120, 40)) as pilot:
        while not app.main.loaded:
            await asyncio.sleep(0.05)
        await pilot.press("slash")
        await pilot.press(*f"id:{paper_id}", "enter")
        await app.workers.wait_for_complete()
        await pilot.pause()
        await pilot.press("enter")
        await app.workers.wait_for_complete()
        await pilot.pause()
        drawn: list[float] = []
        plain_render_line = RecordView.render_line

        def render_line(view, y):  # the first line of the text drawn: the time it was
            if view.id == "full-text" and view.lines.texts[1:2] and view.lines.texts[1].startswith("Full text"):
                drawn.append(time.perf_counter())
            return plain_render_line(view, y)

        RecordView.render_line = render_line  # type: ignore[method-assign]
        detail = app.screen
        for _ in range(runs):
            drawn.clear()
            started = time.perf_counter()
            detail.action_full_text()  # what `v` runs (Pilot's own key round trip is ~85 ms here)
            while not drawn:
                await asyncio.sleep(0.001)
            samples.append((drawn[0] - started) * 1000)
            assert isinstance(app.screen, FullTextScreen)
            await pilot.press("escape")
            await app.workers.wait_for_complete()
            await pilot.pause()
    return statistics.median(samples)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--papers", type=int, default=100_000)
    parser.add_argument("--texts", type=int, default=300)
    parser.add_argument("--runs", type=int, default=5)
    add_against(parser)
    parser.add_argument("--probe-v", nargs=2, metavar=("DATA_DIR", "ID"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.probe_v:
        print(json.dumps({"v_ms": asyncio.run(v_to_text_ms(Path(args.probe_v[0]), args.probe_v[1], args.runs))}))
        return
    as_installed()
    from tests.arxiv_server import FakeArxiv
    from tests.fulltext_pages import HTML, deep_page, gzip_bomb

    with tempfile.TemporaryDirectory() as tmp:
        data_dir = Path(tmp) / "data"
        started = time.perf_counter()
        ids, unstored = build(data_dir, args.papers, args.texts)
        print(
            f"cache of {args.papers:,} papers with {len(ids)} stored texts built in {time.perf_counter() - started:.1f} s", file=sys.stderr
        )
        env = {
            **os.environ,
            "READER_DATA_DIR": str(data_dir),
            "READER_TODAY": TODAY.isoformat(),
            "READER_CONFIG_DIR": str(Path(tmp) / "config"),
            "READER_LOG_DIR": str(Path(tmp) / "log"),
            "READER_ARXIV_API_URL": "http://127.0.0.1:9/api/query",
        }
        reader = [sys.executable, "-m", "reader"]
        first = wall([*reader, "list", "--query", QUERY], env, 1)  # builds both search indexes
        listed, listed_before = alternated_wall([*reader, "list", "--query", QUERY], env, args.runs, args.against)
        text, text_before = alternated_wall([*reader, "text", ids[len(ids) // 2]], env, args.runs, args.against)
        probe = subprocess.run(
            [sys.executable, "-m", "benchmarks.fulltext", "--probe-v", str(data_dir), ids[0], "--runs", str(args.runs)],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=600,
        )
        v_ms = json.loads(probe.stdout.splitlines()[-1])["v_ms"] if probe.returncode == 0 else float("nan")
        if probe.returncode != 0:
            print(probe.stderr[-3000:], file=sys.stderr)
        server = FakeArxiv().start()
        try:
            env.update(READER_ARXIV_HTML_URL=server.html_url, READER_ARXIV_PDF_URL=server.pdf_url, READER_ARXIV_DELAY="0")
            target = unstored
            server.documents[f"/html/{target}v1"] = ({**HTML, "Content-Encoding": "gzip"}, gzip_bomb())
            bomb = peak_rss(target, {**env})
            server.documents[f"/html/{target}v1"] = (HTML, deep_page())
            deep = peak_rss(target, {**env, "READER_DATA_DIR": str(data_dir)})
        finally:
            server.stop()
    rows = [
        (
            f"reader list --query '{QUERY}'",
            "≤ 0.6 s",
            str(listed),
            f"whole process, median of {args.runs}; the first {first:.2f} s (builds the indexes)" + before(listed_before, args.against),
        ),
        (
            "reader text (stored)",
            "≤ 0.5 s",
            str(text),
            f"whole process, median of {args.runs}, output piped" + before(text_before, args.against),
        ),
        ("v to the text drawn", "≤ 100 ms", f"{v_ms:.0f} ms", "in the app, a stored text, median"),
        ("reader text, gzip bomb (1 GiB)", "≤ 300 MB", f"{bomb[1]} MB", f"peak RSS; exit {bomb[0]} (refused at 64 MB)"),
        ("reader text, 100,000-deep page", "≤ 300 MB", f"{deep[1]} MB", f"peak RSS; exit {deep[0]} (read whole)"),
    ]
    print(f"\n#### Full texts: {args.papers:,} papers, {len(ids)} stored texts\n")
    print("| measure | target | result | notes |\n|---|---|---|---|")
    for row in rows:
        print("| " + " | ".join(row) + " |")


if __name__ == "__main__":
    main()
