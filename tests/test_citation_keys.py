"""Citation keys that never change (issue 31): given once, recorded in library.json, used by every
later export in every format, from the command line and the app, also after a new version
changes a paper's title and authors."""

from __future__ import annotations

import dataclasses
import json
import multiprocessing
from pathlib import Path

import pytest

from reader.models import Author
from reader.store import Store
from tests.conftest import run
from tests.corpus import TODAY, recent_papers, stamp
from tests.helpers.timing import scaled

QUERY = "ti:graph AND cat:cs.LG"
FORMATS = ("bibtex", "ris", "csl-json")


def graph_papers() -> list:
    """Two papers with one natural key (`lee2026graph`), newest first: OLDER, then NEWER came out."""
    base = recent_papers(2)
    newer = dataclasses.replace(
        base[0],
        id="2612.10002",
        title="Graph agents at scale",
        authors=(Author("Min Lee"),),
        published=stamp(TODAY),
        updated=stamp(TODAY),
        version=1,
    )
    older = dataclasses.replace(
        base[1],
        id="2612.10001",
        title="Graph networks for planning",
        authors=(Author("Min Lee"),),
        published=stamp(TODAY, -86400),
        updated=stamp(TODAY, -86400),
        version=1,
    )
    return [newer, older]


def keys_of(text: str, format: str) -> dict[str, str]:
    """arXiv id -> key, as a reader of each format finds them."""
    if format == "bibtex":
        from pybtex.database import parse_string

        return {entry.fields["eprint"]: key for key, entry in parse_string(text, "bibtex").entries.items() if "eprint" in entry.fields}
    if format == "ris":
        import rispy

        return {record["accession_number"].removeprefix("arXiv:"): record["id"] for record in rispy.loads(text)}
    items = json.loads(text)
    assert all(item["id"] == item["citation-key"] for item in items)
    return {item["number"].removeprefix("arXiv:"): item["id"] for item in items}


def exported(capsys, *ids: str) -> dict[str, dict[str, str]]:
    """Each format's keys for an export of these papers."""
    found = {}
    for format in FORMATS:
        code, out, err = run(capsys, "export", "--format", format, *ids)
        assert code == 0, err
        found[format] = keys_of(out, format)
    return found


@pytest.fixture
def graph_synced(capsys, arxiv_env):
    newer, older = graph_papers()
    arxiv_env.queries[QUERY] = [newer, older]
    run(capsys, "topics", "remove", "RL for LLM Agents")
    assert run(capsys, "topics", "add", "Graphs", QUERY)[0] == 0
    assert run(capsys, "sync", "--topic", "Graphs")[0] == 0
    return newer, older


@pytest.mark.slow
def test_a_key_once_given_is_kept_alone_together_and_after_a_new_version(capsys, arxiv_env, graph_synced, data_dir):
    from tests.atom import rss_xml

    newer, older = graph_synced
    # Alone, the newer paper is given the natural key, in every format alike.
    assert exported(capsys, newer.id) == {format: {newer.id: "lee2026graph"} for format in FORMATS}
    # Beside the older one it keeps it (worked out per export, it became lee2026grapha).
    both = {newer.id: "lee2026graph", older.id: "lee2026grapha"}
    assert exported(capsys, newer.id, older.id) == {format: both for format in FORMATS}
    assert exported(capsys, older.id) == {format: {older.id: "lee2026grapha"} for format in FORMATS}

    # A new version retitles the newer paper and adds an author (its natural key would be park2026scaling).
    revised = dataclasses.replace(newer, version=2, title="Scaling agents on graphs", authors=(Author("Ada Park"), Author("Min Lee")))
    arxiv_env.by_id[revised.id] = revised
    categories = Store(data_dir).sync_file.synced_categories()
    arxiv_env.rss["+".join(categories)] = rss_xml([(revised, "replace")])
    code, out, err = run(capsys, "sync", "--topic", "Graphs")
    assert code == 0, err
    listed = {row["id"]: row for row in json.loads(run(capsys, "list", "--json")[1])}
    assert (listed[newer.id]["version"], listed[newer.id]["title"]) == (2, "Scaling agents on graphs")
    assert exported(capsys, newer.id, older.id) == {format: both for format in FORMATS}
    assert exported(capsys, newer.id) == {format: {newer.id: "lee2026graph"} for format in FORMATS}

    # The keys live with the user's state, not in the paper cache a sync may rebuild.
    (data_dir / "index.json").unlink()
    for shard in (data_dir / "papers").glob("*.json"):
        shard.unlink()
    assert run(capsys, "sync", "--topic", "Graphs")[0] == 0
    assert exported(capsys, newer.id, older.id) == {format: both for format in FORMATS}
    assert Store(data_dir).library_doc().keys == both


def test_update_keeps_a_key_found_in_the_file(capsys, graph_synced, tmp_path):
    newer, older = graph_synced
    assert exported(capsys, older.id)["bibtex"] == {older.id: "lee2026graph"}  # the older one is cited first
    assert exported(capsys, newer.id)["bibtex"] == {newer.id: "lee2026grapha"}
    bib = tmp_path / "refs.bib"
    mine = f"@misc{{myKey, title = {{Mine}}, eprint = {{{older.id}}}}}\n@misc{{LEE2026GRAPHA, title = {{Someone else's}}}}\n"
    bib.write_text(mine)
    code, _, err = run(capsys, "export", "--update", str(bib), newer.id, older.id)
    assert code == 0, err
    # The older paper keeps the key the file has; the newer one's key, lee2026grapha, is another
    # entry's there (ignoring case), so its entry takes a suffix in this file, said on stderr.
    assert keys_of(bib.read_text(), "bibtex") == {older.id: "myKey", newer.id: "lee2026graphaa"}
    assert "lee2026grapha" in err and "lee2026graphaa" in err
    assert exported(capsys, newer.id, older.id)["bibtex"] == {older.id: "lee2026graph", newer.id: "lee2026grapha"}


def test_a_star_still_rewrites_only_user_json(capsys, graph_synced, data_dir):
    newer, older = graph_synced
    exported(capsys, newer.id, older.id)
    library = (data_dir / "library.json").read_bytes()
    assert b"lee2026grapha" in library
    assert run(capsys, "star", newer.id)[0] == 0
    assert (data_dir / "library.json").read_bytes() == library


def _export_at_once(data_dir: Path, ids: list[str], target: Path, barrier) -> None:
    from reader.cli import main

    barrier.wait(scaled(30))
    raise SystemExit(main(["--data-dir", str(data_dir), "export", *ids, "-o", str(target)]))


def test_processes_exporting_at_once_never_give_one_key_twice(data_dir, tmp_path):
    # Forty papers with one natural key, exported by four processes at once, ten each.
    papers = [dataclasses.replace(p, title=f"Graph study {i}", authors=(Author("Min Lee"),)) for i, p in enumerate(recent_papers(40))]
    store = Store(data_dir)
    store.add_topic("T", "ti:x")
    store.save_papers(papers, "T")
    context = multiprocessing.get_context("fork")
    barrier = context.Barrier(4)
    workers = [
        context.Process(target=_export_at_once, args=(data_dir, [p.id for p in papers[i::4]], tmp_path / f"{i}.bib", barrier))
        for i in range(4)
    ]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(60)
    assert [w.exitcode for w in workers] == [0, 0, 0, 0]
    written: dict[str, str] = {}
    for i in range(4):
        written |= keys_of((tmp_path / f"{i}.bib").read_text(), "bibtex")
    assert len(written) == 40 and len({key.lower() for key in written.values()}) == 40
    assert Store(data_dir).library_doc().keys == written  # each file says what was recorded
    assert "lee2026graph" in written.values()


def test_keys_given_later_continue_past_those_recorded(data_dir):
    papers = [dataclasses.replace(p, title=f"Graph study {i}", authors=(Author("Min Lee"),)) for i, p in enumerate(recent_papers(60))]
    store = Store(data_dir)
    first = store.citation_keys(papers[:30])
    again = store.citation_keys(papers)
    assert {pid: again[pid] for pid in first} == first
    assert len({key.lower() for key in again.values()}) == 60
    assert store.citation_keys(papers[45:50]) == {p.id: again[p.id] for p in papers[45:50]}
    assert store.citation_keys([dataclasses.replace(papers[0], demo=True)]) == {}  # demo papers are never cited


def test_damaged_keys_are_repaired_from_the_copy(data_dir):
    papers = recent_papers(3)
    store = Store(data_dir)
    keys = store.citation_keys(papers)
    path = data_dir / "library.json"
    data = json.loads(path.read_text())
    data["keys"]["2"]["key"] = data["keys"]["1"]["key"].upper()  # one key given to two papers, by hand
    path.write_text(json.dumps(data))
    reopened = Store(data_dir)
    assert reopened.citation_keys(papers) == keys
    assert any("one key given to two papers" in warning for warning in reopened.warnings)


@pytest.mark.slow
async def test_y_and_the_export_dialog_use_the_recorded_keys(capsys, graph_synced, data_dir, tmp_path):
    from reader.app.screens.export import ExportDialog
    from reader.core.exporting import SUFFIXES
    from tests.helpers.app import make_app, ready

    newer, older = graph_synced
    assert exported(capsys, older.id)["bibtex"] == {older.id: "lee2026graph"}  # given by the command line
    app = make_app(Store(data_dir))
    copied: list[str] = []
    app.copy_to_clipboard = copied.append
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        assert app.main.paper_list.ids[:2] == [newer.id, older.id]
        await pilot.press("y")
        await ready(pilot)
        await pilot.press("j", "y")
        await ready(pilot)
        assert [keys_of(text, "bibtex") for text in copied] == [{newer.id: "lee2026grapha"}, {older.id: "lee2026graph"}]
        for format in FORMATS:
            target = tmp_path / f"both{SUFFIXES[format]}"
            await pilot.press("e")
            assert isinstance(app.screen, ExportDialog)
            app.screen.query_one("#export-format").query("RadioButton")[FORMATS.index(format)].value = True
            await pilot.pause()  # the path's suffix follows the format
            app.screen.query_one("#path").value = str(target)
            await pilot.press("enter")
            await ready(pilot)
            assert keys_of(target.read_text(), format) == {newer.id: "lee2026grapha", older.id: "lee2026graph"}
    assert exported(capsys, newer.id, older.id)["csl-json"] == {newer.id: "lee2026grapha", older.id: "lee2026graph"}
