"""Valid JSON of the wrong shape is damage: moved aside, reported, repaired, and nothing the user
did is lost. One case per file kind, each the shape a hand edit or another program could leave."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from reader.cli import main
from reader.service.search_texts import shard_texts
from reader.store import Store
from reader.store.firstrun import ensure_example_topics
from tests.sample_papers import sample_papers


def seeded(data_dir: Path) -> tuple[Store, list[str]]:
    store = Store(data_dir)
    store.add_topic("Kept", "ti:kept")
    ensure_example_topics(store)
    papers = sample_papers(30)
    store.save_papers(papers, "Kept")
    ids = [p.id for p in papers]
    store.set_marks(ids[:3], starred=True)
    store.set_marks(ids[3:6], read=True)
    store.sync_file.record_sync("Kept", "ti:kept")
    for shard in store.shards():
        shard_texts(store, shard)  # saves the search texts
    return store, ids


def edit(path: Path, change) -> None:
    data = json.loads(path.read_text())
    change(data)
    path.write_text(json.dumps(data))


def first_doc(data: dict, table: str) -> dict:
    return next(iter(data[table].values()))


def mark_doc(data: dict, kind: str) -> dict:
    return next(doc for doc in data["marks"].values() if doc["kind"] == kind)


CASES = {
    "a dict among read-mark ids": ("user.json", lambda d: mark_doc(d, "read")["ids"].append({"id": "x"})),
    "star ids that are not a list": ("user.json", lambda d: mark_doc(d, "starred").__setitem__("ids", "2612.00001")),
    "a topic without a name": ("user.json", lambda d: first_doc(d, "topics").pop("name")),
    "a setting without a value": ("user.json", lambda d: first_doc(d, "settings").pop("value")),
    "last_sync a number": ("sync.json", lambda d: first_doc(d, "topics").__setitem__("last_sync", 12345)),
    "a count that is text": ("sync.json", lambda d: d.setdefault("totals", {}).__setitem__("1", {"window": "w", "count": "9"})),
    "an index day that is text": ("index.json", lambda d: first_doc(d, "index")["days"].__setitem__(0, "x")),
    "index columns of different lengths": ("index.json", lambda d: first_doc(d, "index")["versions"].pop()),
    "a topic mask beyond the topics": ("index.json", lambda d: first_doc(d, "index")["masks"].__setitem__(0, 1 << 40)),
}


@pytest.mark.parametrize("case", CASES)
def test_wrong_shape_is_repaired_and_loses_nothing(data_dir, capsys, case):
    _store, ids = seeded(data_dir)
    name, change = CASES[case]
    edit(data_dir / name, change)

    assert main(["--data-dir", str(data_dir), "topics", "list"]) == 0
    err = capsys.readouterr().err
    code = main(["--data-dir", str(data_dir), "list", "--json"])
    out, more = capsys.readouterr()
    err += more
    assert code == 0 and "Traceback" not in err
    assert f"{name} is damaged" in err and list(data_dir.glob(f"{name}.damaged-*"))
    rows = json.loads(out)
    assert {r["id"] for r in rows} == set(ids)
    assert {r["id"] for r in rows if r["starred"]} == set(ids[:3])
    assert {r["id"] for r in rows if r["read"]} == set(ids[3:6])
    after = Store(data_dir)
    assert not after.warnings  # repaired once, for good
    assert [t.name for t in after.topics()] == ["Kept"]
    assert after.setting("examples_added") is True


def without_meta(path: Path) -> dict:
    data = json.loads(path.read_bytes())
    data.pop("meta")  # holds a token that changes with every write
    return data


def test_a_damaged_user_file_never_reaches_its_copy(data_dir):
    seeded(data_dir)
    good = without_meta(data_dir / "user.json.bak")
    edit(data_dir / "user.json", lambda d: mark_doc(d, "read")["ids"].append(7))
    Store(data_dir)
    assert without_meta(data_dir / "user.json.bak") == good
    assert without_meta(data_dir / "user.json") == good


def test_a_wrong_shaped_copy_is_replaced_from_the_good_file(data_dir):
    store, ids = seeded(data_dir)
    edit(data_dir / "user.json.bak", lambda d: first_doc(d, "topics").__setitem__("query", ["x"]))
    store = Store(data_dir)
    assert any("user.json.bak is damaged" in w for w in store.warnings)
    assert (data_dir / "user.json.bak").read_bytes() == (data_dir / "user.json").read_bytes()
    assert store.marks().starred == set(ids[:3])


def test_a_shard_record_without_id_costs_only_that_record(data_dir, capsys):
    store, ids = seeded(data_dir)
    shard = data_dir / "papers" / f"{store.shards()[0]}.json"
    kept = len(json.loads(shard.read_text())["papers"]) - 1
    edit(shard, lambda d: first_doc(d, "papers").pop("id"))
    assert main(["--data-dir", str(data_dir), "list", "--json"]) == 0
    out, err = capsys.readouterr()
    assert "1 damaged record" in err and f"kept its {kept} good papers" in err
    assert len(json.loads(out)) == len(ids) - 1
    assert len(json.loads(shard.read_text())["papers"]) == kept  # written back without it
    assert list(shard.parent.glob(f"{shard.name}.damaged-*"))


@pytest.mark.parametrize("bad", [5, None, ["x"], "text without its fields"])
def test_a_wrong_shaped_search_text_is_rebuilt(data_dir, capsys, bad):
    store, ids = seeded(data_dir)
    path = next((data_dir / "papers").glob("*.search.json"))
    edit(path, lambda d: first_doc(d, "texts").__setitem__(ids[0], bad))
    # The app's loader reads saved search texts (reader list --query asks the search index).
    reopened = Store(data_dir)
    texts = shard_texts(reopened, path.name.removesuffix(".search.json"))
    assert any(f"{path.name} is damaged" in warning for warning in reopened.warnings)
    assert texts and bad not in texts.values()  # rebuilt from the records
    assert all(isinstance(text, str) for text in texts.values())
    assert Store(data_dir).search_texts(store.shards()[0]) is not None  # and saved


def compact(data: dict) -> str:
    """JSON in the form the store writes index.json (which `reader list --query` reads in part)."""
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


INDEX_DAMAGE = {
    **{case: change for case, (name, change) in CASES.items() if name == "index.json"},
    "numbers that are not JSON": "[,",
    "a version with a fraction": ".5",
}


@pytest.mark.parametrize("case", INDEX_DAMAGE)
def test_a_query_listing_repairs_damage_in_the_index_columns_it_does_not_use(data_dir, capsys, case):
    """`reader list --query` decodes only the index's ids and topic masks; damage anywhere else in
    index.json still sends it to the whole read, which repairs it, and the listing stays the same."""
    seeded(data_dir)
    argv = ["--data-dir", str(data_dir), "list", "--query", "cat:cs"]
    assert main(argv) == 0
    before = capsys.readouterr().out
    path = data_dir / "index.json"
    change = INDEX_DAMAGE[case]
    if isinstance(change, str):  # a text edit: what json.dumps cannot write
        text = path.read_text()
        column = '"days":[' if change == "[," else '"versions":[1'
        assert column in text
        path.write_text(text.replace(column, column + change.removeprefix("["), 1))
    else:
        data = json.loads(path.read_text())
        change(data)
        path.write_text(compact(data))
    assert main(argv) == 0
    out, err = capsys.readouterr()
    assert "index.json is damaged" in err and list(data_dir.glob("index.json.damaged-*"))
    assert out == before and out.count("\n") >= 2
