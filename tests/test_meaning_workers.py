"""The meaning build's worker processes (reader/meaning/place.py) seen from the command line: a
worker that dies is one line of error, not a traceback; Ctrl+C is answered by reader alone (no
worker prints its KeyboardInterrupt over the terminal) and drops the tasks not started."""

from __future__ import annotations

import multiprocessing
import os
import signal
import subprocess
import sys
import textwrap

import pytest

from reader.errors import StoreError
from reader.meaning import build, place
from reader.meaning.vectors import MeaningVectors
from tests.helpers.meaning import meaning_store
from tests.helpers.timing import scaled


def test_a_worker_killed_mid_build_is_a_store_error_and_nothing_is_written(tmp_path, monkeypatch):
    store = meaning_store(tmp_path / "data", build=False)
    monkeypatch.setattr(place, "PARALLEL_FROM", 0)  # the workers read, and place, even 400 papers
    monkeypatch.setattr(place, "BATCH", 1)  # a task per shard: most are still to do when one is placed
    started = list(multiprocessing.active_children())
    killed: list[int] = []

    def progress(what: str, done: int, total: int) -> None:
        if what.startswith("placing") and done and not killed:
            for worker in multiprocessing.active_children():
                if worker not in started:
                    os.kill(worker.pid, signal.SIGKILL)  # as the out-of-memory killer would
                    killed.append(worker.pid)

    with pytest.raises(StoreError, match="worker process of the meaning build stopped"):
        build.update(store, progress=progress)
    assert killed
    assert MeaningVectors.open(store.data_dir) is None  # no half-built index named
    assert list(multiprocessing.active_children()) == started


@pytest.mark.slow
def test_ctrl_c_during_a_build_is_answered_by_reader_alone(tmp_path):
    data = tmp_path / "data"
    meaning_store(data, build=False)
    script = tmp_path / "interrupted.py"
    # Patched at the top: the spawned workers import this script as their parent's main module.
    script.write_text(
        textwrap.dedent(
            """
            import os, signal, sys
            from reader.meaning import place
            place.PARALLEL_FROM, place.BATCH = 0, 1

            if __name__ == "__main__":
                from reader.cli import main
                from reader.commands import meaning

                shown = meaning._progress

                def progress(what, done, total):
                    if what.startswith("placing") and done == 1:
                        os.killpg(os.getpgrp(), signal.SIGINT)  # the terminal's Ctrl+C: to every process of the group
                    shown(what, done, total)

                meaning._progress = progress
                sys.exit(main(["--data-dir", sys.argv[1], "index", "--rebuild"]))
            """
        )
    )
    done = subprocess.run(
        [sys.executable, str(script), str(data)],
        capture_output=True,
        text=True,
        timeout=scaled(300),
        start_new_session=True,
        cwd=os.getcwd(),
    )
    assert done.returncode == 130, done.stderr
    assert "reader: interrupted" in done.stderr
    assert "Traceback" not in done.stderr and "KeyboardInterrupt" not in done.stderr, done.stderr
    assert MeaningVectors.open(data) is None
