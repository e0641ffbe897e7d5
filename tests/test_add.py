"""`reader add ID|URL ...`: a paper a colleague sent, by id or link in every pasted form, fetched
from the loopback arXiv and kept (not New, in no topic); `-` reads ids from standard input; an
id arXiv has not and an arXiv that cannot be reached keep nothing; every command that takes an
id says, in the same one line, how to bring in a paper the cache lacks."""

from __future__ import annotations

import io
import json

import pytest

from reader.store import Store
from tests.conftest import run
from tests.helpers.add import OTHER, SENT, paper

CACHED = paper("2609.00001", "Attention Is All You Need", version=1)


@pytest.fixture
def store(data_dir) -> Store:
    store = Store(data_dir)
    store.save_papers([CACHED], None, news=False)
    return store


@pytest.fixture
def arxiv(arxiv_env):
    arxiv_env.by_id.update({SENT.id: SENT, OTHER.id: OTHER})
    return arxiv_env


def id_requests(fake) -> list[str]:
    return [r.params["id_list"] for r in fake.requests if r.params.get("id_list")]


@pytest.mark.parametrize(
    "form",
    [
        "2609.10042",
        "2609.10042v2",
        "arXiv:2609.10042",
        "arXiv:2609.10042 [cs.LG]",
        "https://arxiv.org/abs/2609.10042v2",
        "arxiv.org/abs/2609.10042",
        "https://arxiv.org/pdf/2609.10042v2",
        "https://arxiv.org/pdf/2609.10042v2.pdf",
        "https://arxiv.org/html/2609.10042v2#S2",
        "10.48550/arXiv.2609.10042",
        "https://doi.org/10.48550/arXiv.2609.10042",
    ],
)
def test_each_id_form_fetches_the_paper_and_keeps_it_out_of_new(capsys, store, arxiv, form):
    code, out, err = run(capsys, "add", form)
    assert code == 0, err
    assert out == "added  2609.10042v2  Scaling Laws for Neural Language Models\n"
    assert id_requests(arxiv) == ["2609.10042"]
    fresh = Store(store.data_dir)
    assert fresh.load_paper(SENT.id).title == SENT.title
    assert fresh.index().topics_of(SENT.id) == [] and SENT.id not in fresh.new_ids()
    assert fresh.marks().starred == set() and fresh.marks().read == set()
    assert run(capsys, "star", form)[0] == 0  # a cached paper now, for every command
    assert Store(store.data_dir).marks().starred == {SENT.id}


def test_ids_from_standard_input_with_a_cached_one_not_asked_again(capsys, store, arxiv, monkeypatch):
    given = b"# from Ada's mail\nhttps://arxiv.org/abs/2609.10042v2  arXiv:2609.10043\n\n2609.00001\n"
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(given)))
    code, out, err = run(capsys, "add", "-", "--star")
    assert code == 0, err
    assert out.splitlines() == [
        "cached  2609.00001v1  Attention Is All You Need",
        "added  2609.10042v2  Scaling Laws for Neural Language Models",
        "added  2609.10043v1  Process Reward Models",
        "starred: 3 papers",
    ]
    assert id_requests(arxiv) == ["2609.10042,2609.10043"]  # one polite batch; the cached paper not asked
    assert Store(store.data_dir).marks().starred == {"2609.00001", "2609.10042", "2609.10043"}


def test_a_version_newer_than_the_cached_one_is_fetched_again(capsys, store, arxiv):
    arxiv.by_id[CACHED.id] = paper(CACHED.id, CACHED.title, version=3)
    assert run(capsys, "add", "2609.00001v1")[1] == "cached  2609.00001v1  Attention Is All You Need\n"
    assert id_requests(arxiv) == []
    code, out, err = run(capsys, "add", "2609.00001v3")
    assert code == 0 and out == "added  2609.00001v3  Attention Is All You Need\n", err
    code, out, err = run(capsys, "add", "2609.00001v5")
    assert code == 0 and err == "reader: warning: arXiv has no 2609.00001v5: its newest, v3, was kept\n"


def test_an_id_arxiv_has_not_keeps_nothing_and_says_so(capsys, store, arxiv):
    code, out, err = run(capsys, "add", "2609.99999", "2609.10042")
    assert code == 1
    assert out == "added  2609.10042v2  Scaling Laws for Neural Language Models\n"
    assert err == "reader: error: arXiv has no paper 2609.99999: check the id\n"
    assert "2609.99999" not in Store(store.data_dir).index()


def test_text_that_is_no_id_is_refused_before_any_request(capsys, store, arxiv):
    code, out, err = run(capsys, "add", "2609.10042", "https://example.org/abs/2609.10042")
    assert code == 1 and out == "" and err.count("\n") == 1
    assert "'https://example.org/abs/2609.10042' is not an arXiv id" in err
    assert id_requests(arxiv) == [] and SENT.id not in Store(store.data_dir).index()


def files(store: Store) -> dict[str, bytes]:
    return {str(path): path.read_bytes() for path in sorted(store.data_dir.rglob("*")) if path.is_file()}


def test_offline_exits_1_and_keeps_nothing(capsys, store, monkeypatch):
    monkeypatch.setenv("READER_ARXIV_DELAY", "0")
    monkeypatch.setenv("READER_ARXIV_RETRIES", "1")
    monkeypatch.setenv("READER_ARXIV_BACKOFF", "0.01")  # the suite's default arXiv: a closed port
    run(capsys, "list")  # the first use's files (example topics) made
    before = files(store)
    code, out, err = run(capsys, "add", "https://arxiv.org/abs/2609.10042v2")
    assert code == 1 and out == ""
    said = err.splitlines()[-1]  # after the client's notice of its retry
    assert (
        said == "reader: error: arXiv cannot be reached (127.0.0.1:9 refused the connection): nothing was added; "
        "not fetched: 2609.10042 (run it again to finish)"
    )
    assert "Traceback" not in err
    assert SENT.id not in Store(store.data_dir).index()
    assert files(store) == before  # no shard, no half-written file, nothing changed


NOT_CACHED = "reader: error: not in the cache: 2609.10042 (`reader add 2609.10042` fetches it from arXiv; nothing was changed)\n"


@pytest.mark.parametrize(
    "command",
    [
        ["star"],
        ["unstar"],
        ["read"],
        ["unread"],
        ["hide"],
        ["unhide"],
        ["tag", "--add", "x"],
        ["note"],
        ["note", "--set", "hi"],
        ["text"],
        ["pdf"],
        ["refs"],
        ["fetch-text"],
        ["similar"],
        ["export"],
    ],
)
def test_every_command_that_takes_an_id_says_how_to_bring_it_in(capsys, store, command):
    code, out, err = run(capsys, command[0], "https://arxiv.org/abs/2609.10042v2", *command[1:])
    assert (code, out, err) == (1, "", NOT_CACHED)


def test_a_version_the_cache_has_not_names_the_add_that_fetches_it(capsys, store):
    code, _, err = run(capsys, "star", "2609.00001v2")
    assert code == 1
    assert err == (
        "reader: error: 2609.00001v2 does not exist in the cache: it has v1 "
        "(`reader add 2609.00001v2` fetches arXiv's newest; nothing was changed)\n"
    )


def test_export_reads_ids_as_every_other_command(capsys, store):
    code, out, err = run(capsys, "export", "10.48550/arXiv.2609.00001", "--format", "csl-json")
    assert code == 0, err
    assert [item["title"] for item in json.loads(out)] == ["Attention Is All You Need"]
