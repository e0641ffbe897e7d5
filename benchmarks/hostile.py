"""Hostile pages at full size: `python -m benchmarks.hostile`. For each page of the bounds' tests
(six small gzip HTML pages, a PDF of 1,999 pages sharing one 10 MB content stream, a PDF with one
page of 70 MB of text operators), `reader text` in a process of its own against the loopback
arXiv: its exit status, CPU time, wall time and peak RSS, and what it said. Targets: 10 s of CPU
for a page, 30 s for a PDF, 300 MB."""

from __future__ import annotations

import gzip
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks import ROOT, as_installed

PEAK = (  # VmHWM is the program's own peak: ru_maxrss keeps the forking parent's from before exec
    "import re, sys\nfrom reader.cli import main\ncode = main(['text', sys.argv[1]])\n"
    "peak = re.search(r'VmHWM:\\s+(\\d+) kB', open('/proc/self/status').read()).group(1)\n"
    "print('RSS', int(peak) // 1024, file=sys.stderr)\nsys.exit(code)\n"
)


def measure(paper_id: str, env: dict[str, str]) -> tuple[int, float, float, int, str]:
    """(exit status, CPU s, wall s, peak RSS MB, the last line it said) of `reader text ID`."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", PEAK, paper_id], cwd=ROOT, env=env, capture_output=True, text=True, timeout=900)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    lines = done.stderr.splitlines()
    said = [line for line in lines if not line.startswith("RSS ")]
    peak = int(lines[-1].split()[1]) if lines and lines[-1].startswith("RSS ") else -1
    return done.returncode, cpu, wall, peak, (said[-1] if said else "")


def main() -> None:
    as_installed()
    from reader.store import Store
    from tests.arxiv_server import FakeArxiv
    from tests.corpus import TODAY, recent_papers
    from tests.fulltext_pages import HOSTILE_WORK, HTML, PDF, pdf_of_text_operators

    pages = {f"HTML: {name}": ({**HTML, "Content-Encoding": "gzip"}, gzip.compress(make(), 9)) for name, make in HOSTILE_WORK.items()}
    pages["PDF: 1,999 pages sharing a 10 MB stream"] = (PDF, pdf_of_text_operators(1999, 530_000))
    pages["PDF: one page of 70 MB"] = (PDF, pdf_of_text_operators(1, 3_700_000))
    server = FakeArxiv().start()
    rows = []
    try:
        with tempfile.TemporaryDirectory() as tmp:
            data_dir = Path(tmp) / "data"
            env = {
                **os.environ,
                "READER_DATA_DIR": str(data_dir),
                "READER_TODAY": TODAY.isoformat(),
                "READER_CONFIG_DIR": str(Path(tmp) / "config"),
                "READER_LOG_DIR": str(Path(tmp) / "log"),
                "READER_ARXIV_API_URL": "http://127.0.0.1:9/api/query",
                "READER_ARXIV_DELAY": "0",
                "READER_ARXIV_HTML_URL": server.html_url,
                "READER_ARXIV_PDF_URL": server.pdf_url,
            }
            papers = recent_papers(len(pages))
            store = Store(data_dir)
            store.add_topic("Hostile", "ti:hostile")
            store.save_papers(papers, "Hostile")
            for paper, (name, (headers, body)) in zip(papers, pages.items()):
                kind = "pdf" if name.startswith("PDF") else "html"
                server.documents[f"/{kind}/{paper.id}v{paper.version}"] = (headers, body)
                before = len(server.document_requests())
                code, cpu, wall, peak, said = measure(paper.id, env)
                requests = len(server.document_requests()) - before
                rows.append(
                    (name, f"{len(body) // 1024:,} KB", str(code), f"{cpu:.1f} s", f"{wall:.1f} s", f"{peak} MB", str(requests), said)
                )
                print(" | ".join(rows[-1]), file=sys.stderr)
    finally:
        server.stop()
    print("\n#### Hostile pages: `reader text`, each in a process of its own\n")
    print("| page | on the wire | exit | CPU | wall | peak RSS | requests | said |\n|---|---|---|---|---|---|---|---|")
    for row in rows:
        print("| " + " | ".join(row) + " |")


if __name__ == "__main__":
    main()
