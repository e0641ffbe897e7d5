"""State files are read safely, whoever touched them: a pipe, a link to a device or a file far too
large put in the place of user.json, library.json, sync.json, the index or a shard is moved aside
and the last good copy used, said once, never waited on nor read without end; a state file that
is a link to a regular file stays a link when written."""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest

from reader.store import Store
from reader.store.files import INDEX_BYTES, STATE_BYTES
from tests.helpers.app import card_text, make_app, ready
from tests.helpers.kill import seeded
from tests.helpers.pilot import until
from tests.helpers.timing import scaled

ROOT = Path(__file__).resolve().parent.parent
MEMORY = 1 << 30  # the command's address space: a read without end fails at once, the machine spared
HANG = scaled(60.0)  # seconds: only stops a command that waits on a pipe for ever


def reader(data_dir: Path, *args: str) -> subprocess.CompletedProcess:
    """`reader ARGS` in a child process, its memory bounded."""

    def bounded() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY))

    argv = [sys.executable, "-m", "reader", "--data-dir", str(data_dir), *args]
    return subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=HANG, preexec_fn=bounded)


def a_pipe(path: Path) -> str:
    path.unlink()
    os.mkfifo(path)
    return "not a regular file (a pipe)"


def a_link_to_a_device(path: Path) -> str:
    path.unlink()
    path.symlink_to("/dev/zero")
    return "not a regular file (a device)"


def too_large(path: Path) -> str:
    limit = INDEX_BYTES if path.name.startswith("index.") else STATE_BYTES
    os.truncate(path, limit + 1)  # sparse: nothing written to the disk
    return "larger"


# store, papers: conftest's fixtures (the app's fixtures: Agents and Other, synced)
FAULTS = {"pipe": a_pipe, "link to /dev/zero": a_link_to_a_device, "too large": too_large}


@pytest.fixture
def marked(data_dir):
    """A data directory with stars, a tag and a sync, its copies current (as after a start)."""
    seeds, ids = seeded(data_dir, 20)
    seeds.set_marks(ids[:3], starred=True)
    seeds.set_tags(ids[:2], add=["kept"])
    seeds.sync_file.record_sync("Kept", "ti:kept")
    Store(data_dir)
    return ids


def said_once(err: str, name: str, reason: str) -> None:
    lines = [line for line in err.splitlines() if f"{name} is damaged" in line]
    assert len(lines) == 1 and reason in lines[0], err
    assert "Traceback" not in err


@pytest.mark.parametrize("fault", FAULTS)
def test_user_json_that_is_no_file_to_read_is_moved_aside_and_the_star_saved(data_dir, marked, fault):
    reason = FAULTS[fault](data_dir / "user.json")
    done = reader(data_dir, "star", marked[5])
    assert done.returncode == 0, done.stderr
    said_once(done.stderr, "user.json", reason)
    assert len(list(data_dir.glob("user.json.damaged-*"))) == 1
    assert (data_dir / "user.json").is_file() and not (data_dir / "user.json").is_symlink()
    assert Store(data_dir).marks().starred == {*marked[:3], marked[5]}  # restored from its copy, the star with it


@pytest.mark.parametrize("fault", FAULTS)
def test_library_json_that_is_no_file_to_read_is_moved_aside_and_the_tag_saved(data_dir, marked, fault):
    reason = FAULTS[fault](data_dir / "library.json")
    done = reader(data_dir, "tag", "--add", "kept", marked[5])
    assert done.returncode == 0, done.stderr
    said_once(done.stderr, "library.json", reason)
    assert Store(data_dir).tags() == {"kept": 3}


@pytest.mark.slow
@pytest.mark.parametrize("fault", FAULTS)
@pytest.mark.parametrize("target", ["sync.json", "index.json", "shard"])
def test_a_cache_file_that_is_no_file_to_read_is_moved_aside_and_rebuilt(data_dir, marked, fault, target):
    path = next((data_dir / "papers").glob("*.json")) if target == "shard" else data_dir / target
    reason = FAULTS[fault](path)
    listed = reader(data_dir, "list", "--json")
    topics = reader(data_dir, "topics", "list")
    assert listed.returncode == 0 and topics.returncode == 0, listed.stderr + topics.stderr
    said_once(listed.stderr + topics.stderr, path.name, reason)
    rows = json.loads(listed.stdout)
    if target != "shard":  # (a shard's papers are fetched again at the next sync)
        assert {row["id"] for row in rows} == set(marked)
    assert Store(data_dir).marks().starred == set(marked[:3])


def test_a_pipe_in_place_of_the_index_log_is_moved_aside(data_dir, marked):
    cache = Store(data_dir)
    cache.save_papers(cache.papers_by_id(marked[:1]).values(), "Other")  # a save appends to the log
    reason = a_pipe(data_dir / "index.log")
    listed = reader(data_dir, "list", "--json")
    assert listed.returncode == 0, listed.stderr
    said_once(listed.stderr, "index.log", reason)
    assert {row["id"] for row in json.loads(listed.stdout)} == set(marked)


@pytest.mark.slow
def test_state_files_that_are_links_to_regular_files_stay_links(data_dir, marked, tmp_path):
    """user.json, its copy, library.json and sync.json kept in a synced folder, linked from the
    data directory: every write replaces the file linked to, beside it, and the link stays."""
    synced = tmp_path / "synced"
    synced.mkdir()
    names = ["user.json", "user.json.bak", "library.json", "sync.json"]
    for name in names:
        (data_dir / name).rename(synced / name)
        (data_dir / name).symlink_to(synced / name)
    for args in (["star", marked[5]], ["tag", "--add", "linked", marked[5]], ["topics", "add", "More", "ti:more"]):
        done = reader(data_dir, *args)
        assert done.returncode == 0 and "damaged" not in done.stderr, done.stderr
    Store(data_dir).sync_file.record_sync("More", "ti:more")
    for name in names:
        assert (data_dir / name).is_symlink() and (data_dir / name).resolve() == synced / name
    assert sorted(path.name for path in synced.iterdir()) == sorted(names)  # no temporary file left
    moved = Store(synced.parent / "elsewhere")  # what the synced folder holds, read on its own
    for name in names:
        (moved.data_dir / name).write_bytes((synced / name).read_bytes())
    moved = Store(moved.data_dir)
    assert marked[5] in moved.marks().starred and moved.tags()["linked"] == 1
    assert [t.name for t in moved.topics()] == ["Kept", "More"] and moved.sync_file.last_sync("More") is not None


# --- in the app -----------------------------------------------------------------------------------


def release_pipes(data_dir: Path) -> None:
    """End any read waiting on a pipe of the data directory (it reads an empty file then): a
    test that fails does not hang its process."""
    for path in data_dir.rglob("*"):
        if path.is_fifo():
            try:
                os.close(os.open(path, os.O_WRONLY | os.O_NONBLOCK))
            except OSError:  # no reader waits on it
                pass


@pytest.mark.parametrize("fault", ["pipe", "link to /dev/zero"])
async def test_a_star_pressed_while_user_json_is_no_file_to_read_is_saved_and_said_and_q_quits(store, papers, data_dir, fault):
    app = make_app(store)
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        try:
            await ready(pilot)
            reason = FAULTS[fault](data_dir / "user.json")
            await pilot.press("s")
            await until(pilot, lambda: any("user.json is damaged" in m for m in app.message_log))
            app.service.flush()
            assert "★" in card_text(app, 0)  # the star stays: saved
            status = str(app.main.status.render())
            assert status.startswith("user.json is damaged") and reason in status
            await pilot.press("q")
            await pilot.pause()
            assert not app.is_running
        finally:
            release_pipes(data_dir)
    assert len([m for m in app.message_log if "user.json is damaged" in m]) == 1
    assert Store(data_dir).marks().starred == {papers[0].id}
    assert len(list(data_dir.glob("user.json.damaged-*"))) == 1


@pytest.mark.slow
def test_a_pipe_in_place_of_a_features_file_is_counted_again(data_dir, marked):
    assert reader(data_dir, "rank").returncode == 0
    features = next((data_dir / "papers").glob("*.features"))
    a_pipe(features)
    ranked = reader(data_dir, "rank")
    assert ranked.returncode == 0 and "Traceback" not in ranked.stderr, ranked.stderr
    assert features.is_file()  # written again, in the pipe's place
