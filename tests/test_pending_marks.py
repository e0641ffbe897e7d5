"""A mark is never dropped: one whose save fails stays shown and pending, said once, saved as soon
as the data directory can be written; `q` quits within a couple of seconds whatever the writer
waits on, and marks not saved by then are kept in a journal the next start applies (issue 38).

The failure is another process holding user.json's lock (the way to fail a write that works as
root too, where a read-only directory does not), or a full disk injected into the app's store."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from contextlib import ExitStack

import pytest

from reader.errors import StoreError
from reader.service.marks_writer import MarksWriter
from reader.service.writer_thread import WriterThread
from reader.store import Store
from reader.store.files import file_lock
from reader.store.user_doc import Marks
from tests.helpers.app import card_text, make_app, ready
from tests.helpers.pilot import reader_cli, until
from tests.helpers.timing import scaled
from tests.terminal import run_in_terminal

FAILED = "Not saved yet: "
SAVED = "Marks saved: those kept since the data directory could not be written are in it now."


def on_disk(data_dir) -> set[str]:
    """The stars user.json holds, read without its lock (held by the test) or any journal applied."""
    return set(Store(data_dir, check_user_files=False).marks().starred)


def journals(data_dir) -> list:
    return sorted(data_dir.glob("marks-pending-*.json"))


async def test_a_star_whose_save_fails_stays_shown_and_is_saved_once_the_lock_is_free(store, papers, data_dir, monkeypatch):  # noqa: F811
    monkeypatch.setattr("reader.store.store.LOCK_WAIT_SECONDS", 0.05)  # the other process's lock: given up on at once
    monkeypatch.setattr("reader.service.marks_writer.RETRY_SECONDS", 0.2)
    app = make_app(store)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        with file_lock(data_dir / ".user.lock", wait=0, what="another process"):
            await pilot.press("s")
            await until(pilot, lambda: any(m.startswith(FAILED) for m in app.message_log))
            await pilot.press("j", "s")  # a second mark, failing too: no second error
            await app.workers.wait_for_complete()
            await pilot.pause(0.3)  # a retry or two fail meanwhile: still said once
            assert "★" in card_text(app, 0) and "★" in card_text(app, 1)
            assert str(app.main.sidebar.get_option_at_index(1).prompt).startswith("Starred\n2 papers")
            errors = [m for m in app.message_log if m.startswith(FAILED)]
            assert len(errors) == 1 and "another reader process is busy" in errors[0]
            assert errors[0].endswith("kept, and saved as soon as the data directory can be written.")
            assert on_disk(data_dir) == set()
        await until(pilot, lambda: SAVED in app.message_log)  # retried by the writer: no key pressed
        assert on_disk(data_dir) == {papers[0].id, papers[1].id}
        assert "★" in card_text(app, 0) and "★" in card_text(app, 1)


async def test_a_pending_star_survives_a_change_made_by_another_process(store, papers, data_dir, monkeypatch):  # noqa: F811
    monkeypatch.setattr("reader.service.marks_writer.RETRY_SECONDS", 0.2)
    saving = store.user_state.file.update

    def full(what, change):
        if what == "saving marks":
            raise StoreError("cannot write user.json: No space left on device")
        return saving(what, change)

    app = make_app(store)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        monkeypatch.setattr(store.user_state.file, "update", full)
        await pilot.press("s")
        await until(pilot, lambda: any(m.startswith(FAILED) for m in app.message_log))
        await reader_cli(data_dir, "star", papers[5].id)  # user.json changed elsewhere: read again
        await until(pilot, lambda: papers[5].id in app.service.catalog.starred)
        assert app.service.catalog.starred == {papers[0].id, papers[5].id}
        assert "★" in card_text(app, 0) and str(app.main.sidebar.get_option_at_index(1).prompt).startswith("Starred\n2 papers")
        monkeypatch.setattr(store.user_state.file, "update", saving)  # the disk has room again
        await until(pilot, lambda: SAVED in app.message_log)
        assert on_disk(data_dir) == {papers[0].id, papers[5].id}


@pytest.mark.slow
async def test_q_quits_at_once_while_another_process_holds_the_lock_and_the_star_is_kept(store, papers, data_dir):  # noqa: F811
    app = make_app(store)
    loop = asyncio.get_running_loop()
    with ExitStack() as held:
        async with app.run_test(size=(120, 40)) as pilot:
            await ready(pilot)
            held.enter_context(file_lock(data_dir / ".user.lock", wait=0, what="another process"))
            await pilot.press("s")  # its write waits for the lock (10 s before it gives up)
            asked = loop.time()
            await pilot.press("q")
        quit_in = loop.time() - asked
        assert quit_in < 5, quit_in  # (QUIT_SECONDS is 2: generous for a loaded machine)
        assert on_disk(data_dir) == set() and len(journals(data_dir)) == 1
    listed = subprocess.run(
        [sys.executable, "-m", "reader", "--data-dir", str(data_dir), "list", "--starred"],
        capture_output=True,
        text=True,
        timeout=scaled(60),
    )
    assert listed.returncode == 0 and papers[0].id in listed.stdout, listed.stderr
    assert "saved now: 1 mark kept when reader last quit (the data directory could not be written then)" in listed.stderr
    assert journals(data_dir) == [] and papers[0].id in Store(data_dir).marks().starred


@pytest.mark.slow
def test_in_a_real_terminal_quit_says_what_was_kept_for_the_next_start(store, papers, data_dir):  # noqa: F811
    with ExitStack() as held:

        def hold_lock() -> None:  # once the app has opened the store: another process holds user.json
            held.enter_context(file_lock(data_dir / ".user.lock", wait=0, what="another process"))

        run = run_in_terminal(
            [sys.executable, "-m", "reader", "--data-dir", str(data_dir)],
            env={**os.environ, "TERM": "xterm-256color"},
            size=(120, 40),
            keys=[("All papers", hold_lock), ("Agents", "s"), ("★", "q")],
            deadline=90,
        )
        assert on_disk(data_dir) == set()
    said = " ".join(run.output.split())
    assert run.status == 0, run.output[-2000:]
    assert "reader: 1 mark not saved yet (still being written when reader quit): kept in marks-pending-" in said, said[-600:]
    assert "saved by the next start of reader." in said
    assert papers[0].id in Store(data_dir).marks().starred and journals(data_dir) == []


def test_a_pending_mark_gives_way_to_a_change_of_it_made_elsewhere_since(data_dir):
    marks = MarksWriter(Store(data_dir), WriterThread())
    marks.change("2609.00001", {"starred": False}, {"starred": True})  # pending: the disk is not written
    marks.change("2609.00002", {"starred": True}, {"starred": False})
    # user.json read again: another process starred 2609.00001 too, and left 2609.00002 as it was
    assert marks.overlay(Marks(starred=frozenset({"2609.00001", "2609.00002"}))).starred == {"2609.00001"}
    assert marks.pending() == {"2609.00002": {"starred": False}}  # still to save; 2609.00001 is saved there
    # it unstars 2609.00001 later: that is the latest change of the mark, not replayed over
    assert marks.overlay(Marks(starred=frozenset({"2609.00002"}))).starred == frozenset()
    assert marks.pending() == {"2609.00002": {"starred": False}}
