"""Shared test helpers, first written for tests/test_reliability.py."""

from __future__ import annotations

import random
import signal
import subprocess
import sys
import time
from pathlib import Path

from reader.store import Store
from reader.store.firstrun import ensure_example_topics
from tests.helpers.timing import scaled
from tests.sample_papers import sample_papers

ROOT = Path(__file__).resolve().parents[2]


def seeded(data_dir: Path, count: int = 60) -> tuple[Store, list[str]]:
    store = Store(data_dir)
    store.add_topic("Kept", "ti:kept")
    ensure_example_topics(store)  # a used data directory: no example topics added later
    papers = sample_papers(count)
    store.save_papers(papers, "Kept")
    return store, [p.id for p in papers]


def kill_after(script: str, args: list[str], seconds: float) -> list[str]:
    """The lines `script` acknowledged before a SIGKILL `seconds` after its first one (counted
    from there: on a loaded machine its imports alone can take longer than `seconds`)."""
    child = subprocess.Popen([sys.executable, "-c", script, *args], cwd=ROOT, stdout=subprocess.PIPE, text=True)
    assert child.stdout is not None
    first = child.stdout.readline()  # "" if it died first: then nothing was acknowledged
    time.sleep(seconds)
    child.send_signal(signal.SIGKILL)
    out, _ = child.communicate(timeout=scaled(30))
    return (first + out).split()


DAMAGE = {
    "truncated": lambda raw: raw[: len(raw) // 2],
    "garbage": lambda raw: bytes(random.Random(1).randrange(256) for _ in range(200)),
    "wrong shape": lambda raw: b'{"marks": 3, "papers": [1, 2]}',
}
