"""Search by meaning (reader/meaning, `reader find`, `reader index`): a model learned from the
cache finds papers worded otherwise, fused with words so an exact phrase still wins; the vectors
are folded in as papers arrive; a cache too small to learn from says words answer.

The corpus: the recorded fixture's hundred papers, and three fields written for these tests (self-
correcting agents, magnetar bursts, protein folding), forty papers each, drawn from each field's
words so that the words of a field keep company."""

from __future__ import annotations

import json
import random
import socket
from pathlib import Path

import numpy as np
import pytest

from reader.meaning import build, find, vectors
from reader.models import Author, Paper
from reader.store import Store
from tests.conftest import run
from tests.corpus import TODAY, recent_papers, stamp
from tests.helpers.timing import scaled

FIELDS = {
    "agents": [
        "agents",
        "mistakes",
        "failed",
        "trajectories",
        "verbal",
        "feedback",
        "reflection",
        "retry",
        "critique",
        "errors",
        "lessons",
        "episodes",
        "self-correction",
        "language",
        "models",
        "tasks",
        "environment",
        "trial",
        "memory",
    ],
    "magnetar": [
        "magnetar",
        "radio",
        "bursts",
        "pulses",
        "dispersion",
        "flares",
        "neutron",
        "star",
        "emission",
        "polarisation",
        "galaxy",
        "spectra",
        "telescope",
    ],
    "protein": [
        "protein",
        "folding",
        "structure",
        "residues",
        "amino",
        "acids",
        "chains",
        "contact",
        "maps",
        "molecular",
        "dynamics",
        "binding",
        "sites",
        "energy",
    ],
}
# Shares no word with QUERY (not "agents", "learn" nor "mistakes"): only meaning can find it.
UNWORDED = Paper(
    id="2612.50000",
    version=1,
    title="Reflexion: verbal reinforcement from failed trajectories",
    abstract="Language models critique their failed trajectories and retry each episode with verbal feedback kept in memory.",
    authors=(Author("Ada Reflex"),),
    categories=("cs.CL",),
    primary_category="cs.CL",
    published=stamp(TODAY, -90_000),
    updated=stamp(TODAY, -90_000),
)
QUERY = "agents that learn from their mistakes"


def field_papers(field: str, count: int, first: int, seed: int = 1) -> list[Paper]:
    rng = random.Random(f"{field}{seed}")
    words = FIELDS[field]
    papers = []
    for i in range(count):
        title = " ".join(rng.sample(words, 5)).capitalize()
        abstract = ". ".join(" ".join(rng.sample(words, 9)) for _ in range(3)) + "."
        papers.append(
            Paper(
                id=f"2612.{first + i:05d}",
                version=1,
                title=title,
                abstract=abstract,
                authors=(Author(f"Author {field} {i}"),),
                categories=("cs.LG",),
                primary_category="cs.LG",
                published=stamp(TODAY, -i * 600),
                updated=stamp(TODAY, -i * 600),
            )
        )
    return papers


def corpus() -> list[Paper]:
    papers = recent_papers(100, id_base=10000)
    for n, field in enumerate(FIELDS):
        papers += field_papers(field, 40, 20000 + 1000 * n)
    return [*papers, UNWORDED]


@pytest.fixture
def cache(data_dir, monkeypatch):
    monkeypatch.setenv("READER_DATA_DIR", str(data_dir))
    store = Store(data_dir)
    store.add_topic("Agents", "abs:agents")
    store.save_papers(corpus(), None)
    store.save_papers(field_papers("agents", 40, 20000), "Agents")
    return store


def stored_file(store, kind: str):
    """The stored build's model, vectors or ids file (their names carry the build's stamp)."""
    meta = json.loads((store.data_dir / "meaning" / "meta.json").read_text())
    model, vector_file, ids = vectors.files(store.data_dir / "meaning", meta["stamp"])
    return {"model": model, "vectors": vector_file, "ids": ids}[kind]


def found(capsys, *args) -> tuple[list[dict], str]:
    code, out, err = run(capsys, "find", *args, "--json")
    assert code == 0, err
    return json.loads(out), err


def test_find_reaches_a_paper_that_shares_no_word_with_the_query(capsys, cache):
    rows, err = found(capsys, QUERY, "--limit", "45")
    assert "too few" not in err
    ids = [row["id"] for row in rows]
    agents = {p.id for p in field_papers("agents", 40, 20000)}
    assert UNWORDED.id in ids and len(set(ids[: ids.index(UNWORDED.id)]) - agents) <= 2  # among its field's papers
    row = rows[ids.index(UNWORDED.id)]
    assert row["meaning"] > 0 and row["words"] == [] and not row["exact"]
    # the why: the query's words nearest the paper in meaning
    assert set(row["because"]) <= {"agents", "learn", "mistakes"} and row["because"]
    assert set(rows[0]) == {"id", "title", "score", "meaning", "because", "words", "exact", "starred", "read"}
    assert all(0 < r["score"] <= 1 for r in rows) and [r["score"] for r in rows] == sorted((r["score"] for r in rows), reverse=True)


def test_an_exact_phrase_still_wins_over_meaning(capsys, cache):
    phrase = "kept in memory"  # in UNWORDED's abstract alone; its words are common in the agents' field
    rows, _ = found(capsys, phrase, "--limit", "5")
    assert rows[0]["id"] == UNWORDED.id and rows[0]["exact"]
    assert not any(row["exact"] for row in rows[1:])


def test_topic_and_limit_narrow_the_answer(capsys, cache):
    topic = {p.id for p in field_papers("agents", 40, 20000)}
    rows, _ = found(capsys, QUERY, "--topic", "agents", "--limit", "7")
    assert len(rows) == 7 and {row["id"] for row in rows} <= topic


def test_a_text_on_standard_input(capsys, cache, monkeypatch):
    import io

    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(QUERY.encode())))
    rows, _ = found(capsys, "-", "--limit", "45")
    assert UNWORDED.id in [row["id"] for row in rows]


def test_plain_text_says_why(capsys, cache):
    code, out, err = run(capsys, "find", QUERY, "--limit", "3")
    assert code == 0 and "by meaning and words" in err
    assert "in meaning:" in out


def test_a_small_cache_says_words_answer(capsys, data_dir, monkeypatch):
    monkeypatch.setenv("READER_DATA_DIR", str(data_dir))
    Store(data_dir).save_papers(recent_papers(60, id_base=10000), None)
    code, out, err = run(capsys, "find", "software testing", "--json")
    assert code == 0
    assert "too few to learn meaning from (200 needed): words alone answer" in err
    rows = json.loads(out)
    assert rows and all(row["meaning"] is None for row in rows)
    assert not (data_dir / "meaning").exists()
    code, out, _ = run(capsys, "index")
    assert "too few to learn meaning from" in out


def test_index_and_config_name_the_model(capsys, cache):
    code, out, _ = run(capsys, "index", "--rebuild")
    assert code == 0 and "LSA learned from this cache" in out and "fitted on 221 papers" in out
    code, out, _ = run(capsys, "config", "--json")
    meaning = json.loads(out)["meaning"]
    assert meaning["model"] == "lsa" and meaning["papers"] == 221 and meaning["bytes"] > 0


def test_papers_that_arrive_are_folded_in_as_a_full_build_places_them(cache):
    build.update(cache)
    first = vectors.MeaningVectors.open(cache.data_dir)
    assert first is not None and len(first.ids) == 221
    arrived = field_papers("agents", 30, 29000, seed=2)
    cache.save_papers(arrived, None)
    build.update(cache)
    index = vectors.MeaningVectors.open(cache.data_dir)
    assert index is not None and len(index.ids) == 251 and index.model.fitted_on == 221  # folded in, not fitted again
    texts = [f"{p.title} {p.title} {p.abstract}" for p in arrived]
    again, _ = index.model.embed(texts)
    stored = np.stack([index.vector(p.id) for p in arrived])
    assert np.allclose(stored, again, atol=2e-3)  # float16 storage
    # A full build over the same papers finds the same field for the new papers' text.
    incremental = {pid for pid, _ in index.nearest(again[0], 20)}
    build.update(cache, rebuild=True)
    rebuilt = vectors.MeaningVectors.open(cache.data_dir)
    assert rebuilt is not None and rebuilt.model.fitted_on == 251
    whole = {pid for pid, _ in rebuilt.nearest(rebuilt.vector(arrived[0].id), 20)}
    agents = {p.id for p in field_papers("agents", 40, 20000)} | {p.id for p in arrived} | {UNWORDED.id}
    assert len(incremental & agents) >= 18 and len(whole & agents) >= 18


def test_a_damaged_index_reads_as_absent_and_is_built_again(capsys, cache):
    build.update(cache)
    path = stored_file(cache, "vectors")
    path.write_bytes(path.read_bytes()[:1000])
    assert vectors.MeaningVectors.open(cache.data_dir) is None
    rows, _ = found(capsys, QUERY, "--limit", "45")
    assert UNWORDED.id in [row["id"] for row in rows]
    assert vectors.MeaningVectors.open(cache.data_dir) is not None


def test_the_model_loads_and_answers_with_sockets_blocked(cache, monkeypatch):
    build.update(cache)

    class Blocked(socket.socket):
        def __init__(self, *args, **kwargs):
            raise OSError("the network is blocked in this test")

    monkeypatch.setattr(socket, "socket", Blocked)
    monkeypatch.setattr(socket, "create_connection", Blocked)
    index = vectors.MeaningVectors.open(cache.data_dir)
    assert index is not None
    hits = [pid for pid, _ in index.nearest(index.embed(QUERY), 45)]
    assert UNWORDED.id in hits


def test_fusion_puts_a_paper_first_in_both_lists_first_and_weighs_weak_matches_less():
    fused = find.fuse([[("a", 0.9), ("b", 0.8), ("c", 0.7)], [("a", 1.0), ("c", 0.9), ("d", 0.8)]])
    assert [pid for pid, _ in fused] == ["a", "c", "b", "d"] and fused[0][1] == pytest.approx(1.0)
    # "w" matches one common word (a low share): a strong match of the other list outranks it
    weak = find.fuse([[("m", 0.8), ("x", 0.79)], [("x", 1.0), ("w", 0.1)]])
    assert [pid for pid, _ in weak] == ["x", "m", "w"]
    assert [pid for pid, _ in find.fuse([[("a", 1.0), ("b", 0.5)]], first={"b"})] == ["b", "a"]


def test_neighbours_of_a_paper_are_its_field(cache):
    build.update(cache)
    index = vectors.MeaningVectors.open(cache.data_dir)
    assert index is not None
    paper = field_papers("magnetar", 40, 21000)[0]
    near = [pid for pid, _ in index.nearest(index.vector(paper.id), 10, leave_out={paper.id})]
    magnetar = {p.id for p in field_papers("magnetar", 40, 21000)}
    assert paper.id not in near and len(set(near) & magnetar) == 10


def test_a_folder_of_the_users_in_the_meaning_directory_neither_stops_a_build_nor_its_status(cache):
    (cache.data_dir / "meaning" / "notes").mkdir(parents=True)  # not reader's: left alone, never swept
    state, _ = build.update(cache)
    assert state.ready and state.size > 0
    assert (cache.data_dir / "meaning" / "notes").is_dir()
    assert vectors.stored(cache.data_dir).size == state.size


def test_a_build_killed_half_way_leaves_the_last_whole_index_in_use(cache, monkeypatch):
    build.update(cache)
    before = vectors.MeaningVectors.open(cache.data_dir)
    assert before is not None
    cache.save_papers(field_papers("agents", 30, 29000, seed=2), None)
    write = build.write_atomic

    def killed(path, payload):
        if path.name.startswith("ids-"):  # the process dies here: the new model and vectors written, not the rest
            raise KeyboardInterrupt
        write(path, payload)

    monkeypatch.setattr(build, "write_atomic", killed)
    with pytest.raises(KeyboardInterrupt):
        build.update(cache)
    monkeypatch.setattr(build, "write_atomic", write)
    directory = cache.data_dir / "meaning"
    assert len(list(directory.glob("vectors-*.npy"))) == 2  # the killed build's file is there, never named
    kept = vectors.MeaningVectors.open(cache.data_dir)
    assert kept is not None and list(kept.ids) == list(before.ids) and np.array_equal(kept.vectors, before.vectors)
    build.update(cache)
    after = vectors.MeaningVectors.open(cache.data_dir)
    assert after is not None and len(after.ids) == 251
    meta = json.loads((directory / "meta.json").read_text())
    assert sorted(path.name for path in directory.iterdir()) == sorted(
        [".build.lock", "meta.json", *(path.name for path in vectors.files(directory, meta["stamp"]))]
    )  # the killed build's files swept away


def test_files_of_two_builds_are_never_read_as_one(cache):
    build.update(cache)
    directory = cache.data_dir / "meaning"
    first = json.loads((directory / "meta.json").read_text())
    first_files = [path.read_bytes() for path in vectors.files(directory, first["stamp"])]
    cache.save_papers(field_papers("agents", 30, 29000, seed=2), None)
    build.update(cache)
    second = json.loads((directory / "meta.json").read_text())
    # The new build's vectors replaced by the old build's (a copy by hand, a restore from a backup):
    vectors.files(directory, second["stamp"])[1].write_bytes(first_files[1])
    assert vectors.MeaningVectors.open(cache.data_dir) is None
    build.update(cache)  # built again, whole
    index = vectors.MeaningVectors.open(cache.data_dir)
    assert index is not None and len(index.ids) == 251


@pytest.mark.slow  # a sync of 240 papers, then their vectors
def test_a_sync_that_brings_papers_leaves_the_vectors_current(capsys, arxiv_env, data_dir):
    from reader.meaning import later
    from tests.helpers.cli import synced

    code, _, err = synced(capsys, arxiv_env, n=240)
    assert code == 0, err
    # The command ends once the papers, features and search index are written; the vectors
    # follow in a process of its own (a first sync of 100,000 papers waited 417 s for them).
    assert "brought up to date in the background" in err
    assert later.started.pop().wait(timeout=scaled(120)) == 0
    index = vectors.MeaningVectors.open(data_dir)
    assert index is not None and len(index.ids) == 240


@pytest.mark.slow  # a sync of 240 papers
def test_reader_sync_never_waits_for_a_build_another_process_is_at(capsys, arxiv_env, data_dir):
    from reader.meaning import later
    from reader.store.files import file_lock
    from tests.helpers.cli import synced

    assert run(capsys, "topics")[0] == 0  # the data directory made as a first command makes it
    (data_dir / vectors.DIRECTORY).mkdir()
    with file_lock(data_dir / vectors.DIRECTORY / vectors.LOCK, wait=0, what="the app's sync"):
        code, _, err = synced(capsys, arxiv_env, n=240)
        assert code == 0, err
        assert "brought up to date in the background" in err and "placing papers in meaning" not in err
        updater = later.started.pop()
        assert updater.poll() is None  # waiting for the other build, in a process of its own
        assert vectors.MeaningVectors.open(data_dir) is None
    assert updater.wait(timeout=scaled(120)) == 0  # then it folds the papers in
    index = vectors.MeaningVectors.open(data_dir)
    assert index is not None and len(index.ids) == 240


@pytest.mark.parametrize(
    "damage",
    [
        ("meta.json", b"[1, 2]"),  # a list where the meta is an object
        ("ids", b"\xff\xfe not UTF-8"),
        ("ids", b"2601.00001\n2601.00002"),  # fewer ids than rows
        ("vectors", "0-d"),  # one number where a matrix stands
        ("vectors", "strings"),  # the right shape in another type
        ("model", b"PK\x03\x04 cut short"),
    ],
)
def test_an_index_damaged_in_any_file_reads_as_absent_never_a_crash(cache, damage):
    import io

    import numpy as np

    build.update(cache)
    directory = cache.data_dir / "meaning"
    name, content = damage
    if content == "0-d":
        stream = io.BytesIO()
        np.save(stream, np.float16(1.0))
        content = stream.getvalue()
    elif content == "strings":
        rows = np.load(stored_file(cache, "vectors")).shape
        stream = io.BytesIO()
        np.save(stream, np.full(rows, "x"))
        content = stream.getvalue()
    (directory / name if name == "meta.json" else stored_file(cache, name)).write_bytes(content)
    assert vectors.MeaningVectors.open(cache.data_dir) is None


def test_papers_folded_in_between_stored_ones_keep_the_ids_in_order_each_with_its_own_vector(cache):
    build.update(cache)
    before = vectors.MeaningVectors.open(cache.data_dir)
    assert before is not None and before.meta["sorted"] is True and list(before.ids) == sorted(before.ids)
    kept = {pid: np.array(before.vectors[row]) for row, pid in enumerate(before.ids)}
    arrived = field_papers("agents", 30, 10000, seed=2)  # their ids sort among the stored ones
    cache.save_papers(arrived, None)
    build.update(cache)
    index = vectors.MeaningVectors.open(cache.data_dir)
    assert index is not None and index.model.fitted_on == 221 and len(index.ids) == 251  # folded in
    assert list(index.ids) == sorted(index.ids)
    assert all(np.array_equal(index.vectors[index.row(pid)], vector) for pid, vector in kept.items())
    again, _ = index.model.embed([f"{p.title} {p.title} {p.abstract}" for p in arrived])
    assert np.allclose(np.stack([index.vector(p.id) for p in arrived]), again, atol=2e-3)
    assert index._rows is None  # each row found by a binary search: no table of every id made
    assert [index.row(pid) for pid in index.ids] == list(range(251)) and index.row("2612.10000x") is None


def test_a_papers_row_is_found_by_search_then_by_table_alike(cache):
    build.update(cache)
    meta_file = cache.data_dir / "meaning" / "meta.json"
    meta = json.loads(meta_file.read_text())
    del meta["sorted"]  # an index written before its ids were kept in order
    meta_file.write_text(json.dumps(meta))
    ids = list(vectors.MeaningVectors.open(cache.data_dir).ids)
    searched = vectors.MeaningVectors.open(cache.data_dir)
    asked = [ids[0], ids[-1], ids[len(ids) // 2], "2601.99999", ids[1][:-1], *ids[2 : vectors.SEARCHED - 3]]
    by_search = [searched.row(pid) for pid in asked]
    assert searched._rows is None  # no table yet: each was searched for
    assert by_search == [0, len(ids) - 1, len(ids) // 2, None, None, *range(2, vectors.SEARCHED - 3)]
    assert [searched.row(pid) for pid in asked] == by_search and searched._rows is not None


def _resident_kb(path) -> int:
    """This process's resident memory of its maps of `path` (Linux's /proc/self/smaps)."""
    total, inside = 0, False
    for line in Path("/proc/self/smaps").read_text().splitlines():
        if "-" in line.split(" ", 1)[0] and not line.split(" ", 1)[0].endswith(":"):  # a mapping's first line
            inside = line.endswith(str(path))
        elif inside and line.startswith("Rss:"):
            total += int(line.split()[1])
    return total


@pytest.mark.skipif(not Path("/proc/self/smaps").exists(), reason="reads Linux's /proc/self/smaps")
def test_a_scan_of_every_vector_leaves_none_of_them_resident(cache):
    build.update(cache)
    index = vectors.MeaningVectors.open(cache.data_dir)
    assert index is not None
    query = index.vector(index.ids[0])
    path = stored_file(cache, "vectors").resolve()
    scores = index.scores(query)
    assert scores.shape == (221,) and float(scores.max()) > 0.99  # the paper itself, read through the map
    assert _resident_kb(path) == 0  # its pages left to the page cache (at 1,000,000 papers, 512 MB)
