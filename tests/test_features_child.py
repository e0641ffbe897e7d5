"""The process that counts a large sync's features (reader/store/features_child.py) when the
sync dies under it: it ends, quietly (its stderr is the terminal the sync ran in)."""

from __future__ import annotations

import pickle
import subprocess
import sys
from pathlib import Path

from tests.helpers.timing import scaled


def _counting_process() -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "reader.store.features_child"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )


def test_the_counting_process_ends_quietly_when_the_sync_dies_writing_a_job():
    job = pickle.dumps((Path("features"), Path("counts"), [], [("2601.00001", "A title", "x" * 100_000, (), ())], None, (1, 1)))
    child = _counting_process()
    _, said = child.communicate(job[: len(job) // 2], timeout=scaled(60))  # killed mid-write: its stdin closes on half a job
    assert (child.returncode, said) == (0, b"")  # not a traceback over the terminal the sync ran in


def test_the_counting_process_ends_quietly_when_the_sync_dies_before_its_answer():
    child = _counting_process()
    assert child.stdout is not None and child.stdin is not None and child.stderr is not None
    child.stdout.close()  # the sync gone: nobody reads the answer
    child.stdin.write(pickle.dumps(("not", "a job")))  # answered with its error, to a closed pipe
    child.stdin.close()
    said = child.stderr.read()
    assert (child.wait(timeout=scaled(60)), said) == (0, b"")
