"""Watches: a name and a query in arXiv's syntax, kept in user.json like topics, matched locally
against the cache by `reader list --watch NAME`."""

from __future__ import annotations

import json

import pytest

from reader.errors import StoreError
from reader.store import Store, Watch
from tests.conftest import run
from tests.helpers.kill import kill_after, seeded

WATCH_LOOP = """
import sys
from pathlib import Path
from reader.store import Store
store = Store(Path(sys.argv[1]))
i = 0
while True:
    store.add_watch(f"w{i}", f"au:name{i}")
    if i % 2:
        store.remove_watch(f"w{i - 1}")
    print(f"w{i}", flush=True)
    i += 1
"""


def test_watches_round_trip_unique_ignoring_case(data_dir):
    store, _ = seeded(data_dir, 5)
    assert store.add_watch("  Levine  lab ", ' au:levine OR abs:"process reward" ') == Watch(
        "Levine lab", 'au:levine OR abs:"process reward"'
    )
    store.add_watch("GRPO", "abs:GRPO")
    assert Store(data_dir).watches() == [Watch("Levine lab", 'au:levine OR abs:"process reward"'), Watch("GRPO", "abs:GRPO")]
    with pytest.raises(StoreError, match="there is already a watch named 'grpo'"):
        store.add_watch("grpo", "abs:x")
    with pytest.raises(StoreError, match="a watch name cannot contain control characters"):
        store.add_watch("bad\x1b[31m", "abs:x")
    with pytest.raises(StoreError, match="a watch needs a name"):
        store.add_watch("  ", "abs:x")
    assert store.remove_watch("LEVINE LAB") == Watch("Levine lab", 'au:levine OR abs:"process reward"')
    with pytest.raises(StoreError, match=r"no watch named 'nope' \(watches: 'GRPO'\)"):
        store.remove_watch("nope")
    assert Store(data_dir).watches() == [Watch("GRPO", "abs:GRPO")]
    assert [t.name for t in Store(data_dir).topics()] == ["Kept"]  # topics are another table


def test_a_file_written_before_watches_reads_fine(data_dir):
    store, ids = seeded(data_dir, 5)
    for name in ("user.json", "user.json.bak"):
        path = data_dir / name
        data = json.loads(path.read_text())
        for table in ("watches", "visits", "hidden"):
            del data[table]
        path.write_text(json.dumps(data))
    store = Store(data_dir)
    assert not store.warnings and store.watches() == []
    store.add_watch("A", "ti:a")
    assert Store(data_dir).watches() == [Watch("A", "ti:a")]


@pytest.mark.parametrize(
    "bad", [{"query": "ti:a"}, {"name": "", "query": "ti:a"}, {"name": "A", "query": 5}, {"name": ["A"], "query": "ti:a"}]
)
def test_a_wrong_shaped_watch_is_repaired_from_the_copy(data_dir, capsys, bad):
    store, ids = seeded(data_dir, 5)
    store.add_watch("Kept watch", "ti:testing")
    store.set_marks(ids[:1], starred=True)
    path = data_dir / "user.json"
    data = json.loads(path.read_text())
    data["watches"]["2"] = bad
    path.write_text(json.dumps(data))
    code, out, err = run(capsys, "--data-dir", str(data_dir), "watches", "list", "--json")
    assert code == 0 and "user.json is damaged (watches: " in err and "Traceback" not in err, err
    assert json.loads(out) == [{"name": "Kept watch", "query": "ti:testing"}]
    after = Store(data_dir)
    assert not after.warnings and after.marks().starred == {ids[0]} and list(data_dir.glob("user.json.damaged-*"))


def test_sigkill_while_changing_watches_loses_nothing_acknowledged(data_dir):
    seeded(data_dir, 5)
    seen = 0
    for attempt, seconds in enumerate((0.6, 0.9)):
        acknowledged = kill_after(WATCH_LOOP.replace("w{", f"a{attempt}w{{"), [str(data_dir)], seconds)
        seen += len(acknowledged)
        if attempt % 2:
            (data_dir / "user.json").write_bytes(b"\x00 damaged")
        names = {w.name for w in Store(data_dir).watches()}
        odd = {name for name in acknowledged if int(name.rpartition("w")[2]) % 2}
        assert odd <= names  # added and never removed
        assert not {name for name in acknowledged[:-1] if name not in odd} & names  # removed by the next step
    assert seen


def test_watches_from_the_command_line(capsys, data_dir):
    store, ids = seeded(data_dir, 12)
    home = ["--data-dir", str(data_dir)]
    code, out, err = run(capsys, *home, "watches", "add", "Wild", "ti:wild")
    assert code == 0 and out == "added watch 'Wild': ti:wild\n", err
    assert run(capsys, *home, "watches", "add", "Okafor", 'au:okafor OR ti:"world models"')[0] == 0
    code, out, err = run(capsys, *home, "watches", "add", "Bad", "ti:(a b")
    assert code == 1 and out == "" and err.count("\n") == 1 and "invalid query 'ti:(a b'" in err and "at column" in err
    code, out, err = run(capsys, *home, "watches", "add", "wild", "ti:x")
    assert code == 1 and "there is already a watch named 'wild'" in err
    code, out, _ = run(capsys, *home, "watches")
    assert out == 'Wild\tti:wild\nOkafor\tau:okafor OR ti:"world models"\n'
    code, out, _ = run(capsys, *home, "watches", "list", "--json")
    assert json.loads(out) == [{"name": "Wild", "query": "ti:wild"}, {"name": "Okafor", "query": 'au:okafor OR ti:"world models"'}]

    papers = store.load_papers()
    wild = [pid for pid in store.index().ids if "in the Wild" in papers[pid].title]
    watched = [
        pid for pid in store.index().ids if "Mira Okafor" in {a.name for a in papers[pid].authors} or "World Models" in papers[pid].title
    ]
    assert wild and watched and set(wild) < set(watched)
    code, out, err = run(capsys, *home, "list", "--watch", "wild", "--json")
    assert code == 0 and [row["id"] for row in json.loads(out)] == wild, err
    code, out, _ = run(capsys, *home, "list", "--watch", "OKAFOR", "--json")
    assert [row["id"] for row in json.loads(out)] == watched
    assert run(capsys, *home, "hide", watched[0])[0] == 0
    code, out, _ = run(capsys, *home, "list", "--watch", "Okafor")
    assert watched[0] not in out and f"{watched[1]}v" in out
    code, out, _ = run(capsys, *home, "list", "--watch", "Okafor", "--query", "ti:testing", "--json")
    assert [row["id"] for row in json.loads(out)] == [pid for pid in watched[1:] if "testing" in papers[pid].title.lower()]
    code, out, err = run(capsys, *home, "list", "--watch", "nope")
    assert code == 1 and "no watch named 'nope' (watches: 'Wild', 'Okafor')" in err

    code, out, _ = run(capsys, *home, "__complete", "bash", "--", "list", "--watch", "O")
    assert out.split() == ["Okafor"]
    code, out, _ = run(capsys, *home, "__complete", "bash", "--", "watches", "remove", "")
    assert sorted(out.split()) == ["Okafor", "Wild"]
    code, out, _ = run(capsys, *home, "watches", "remove", "wild")
    assert code == 0 and out == "removed watch 'Wild'\n"
    code, out, err = run(capsys, *home, "watches", "remove", "wild")
    assert code == 1 and "no watch named 'wild' (watches: 'Okafor')" in err
