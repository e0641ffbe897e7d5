"""Every query form the search tests use, through every path that answers one: `reader list
--query` whole; with `--limit` (read newest first, page by page: a second implementation of the
same answer), also walked a few rows at a time and before the search indexes exist; the app's
filter, from the search index and from the scan; a topic and a watch with the query where
arXiv's syntax allows it. Each gives the reference: the scan evaluator over the records, the
notes and the stored full texts, in the catalog's order (so every path equals every other)."""

from __future__ import annotations

import dataclasses
import json
import shutil
from pathlib import Path

import pytest

from reader.core.query import MAX_DEPTH, parse, search_text
from reader.core.scan import SearchBlock
from reader.errors import QueryError
from reader.fulltext.document import PARAGRAPH, TITLE, Block, Document
from reader.fulltext.store import TextStore
from reader.fulltext.text_index import stored_words
from reader.search_index import newest
from reader.store import Store
from tests.conftest import run
from tests.helpers.app import make_app, ready
from tests.helpers.pilot import filter_by
from tests.helpers.queries import alternating
from tests.sample_papers import sample_papers
from tests.search_index_corpus import fixture_papers, made_papers

FORMS = [
    # field queries: test_query, test_app_search, test_search_index, test_cli, test_watches
    "ti:testing",
    "ti:learning",
    "ti:DEEP",
    'ti:"deep learning"',
    "ti:test",
    'abs:"reinforcement learning"',
    "au:wang OR au:smith",
    "au:smith OR au:weber",
    "au:Einarsdóttir",
    'au:"smith bob"',
    "au:del_maestro",
    "cat:cs",
    "cat:cs.LG",
    "cat:cs.CL ANDNOT cat:cs.AI",
    "co:pages",
    'jr:"phys rev"',
    "id:hep-th/9901001",
    "id:hep-th/9901001v1",
    "all:cs.ai",
    "ti:credit",
    "ti:assignment",
    # operators and parentheses: test_query, test_search_index, test_index_log, test_topic_fill, test_cli
    "au:del_maestro ANDNOT (ti:checkerboard OR ti:Pyrochlore)",
    "cat:cs.SE OR cat:cs.SC AND cat:cs.LG",
    "(cat:cs.SE OR cat:cs.SC) AND cat:cs.LG",
    "ti:testing ANDNOT ti:wild",
    "ti:the OR abs:the",
    "ti:the OR abs:learning",
    "abs:software AND ti:test",
    "abs:the OR abs:software",
    "ti:agent ANDNOT cat:cs.LG",
    "abs:agents ANDNOT cat:cs.LG",
    "learning ANDNOT ti:agent",
    "(ti:agent OR ti:agents) AND abs:tool",
    "cat:cs OR cat:math OR cat:cond OR cat:quant OR cat:stat",
    'ti:testing AND all:"and" AND agents',
    "((ti:agents))",
    # dates and what matches nothing: test_app_search, search_index_corpus
    "submittedDate:[202401 TO 202612] AND abs:model",
    "submittedDate:[2016 TO 2017] OR ti:testing",
    "rn:ABC-1",
    "rn:ABC-1 OR ti:testing",
    "zebrafish",
    "ti:zyzzyva",
    # plain words (the filter's implicit AND): test_cli, test_query, test_app_search, test_search_index
    "learning",
    "testing",
    "credit assignment",
    "testing ANDNOT wild",
    "testing or agents",
    "quantum and monte",
    "ti:testing and agents and ti:testing",
    'ti:testing AND "tools and agents"',
    "schrodinger",
    "量子",
    # notes: test_search_index, test_library, test_app_search
    "note:zurich",
    "seminar",
    'all:"zurich seminar"',
    "note:credit AND ti:credit",
    "credit ANDNOT note:seminar",
    'note:"zebrafish paper"',
    "note:larvae OR ti:agents",
    # full texts: test_fulltext_cli, and the forms of the report (`text:x OR ti:y`)
    'text:"reward shaping"',
    'text:"shaping reward"',
    "text:toolformer AND text:potentials",
    "text:SCHRÖDINGER OR text:lovelace",
    'text:"sparse rewards" ANDNOT text:zzz',
    'text:"reward shaping" AND cat:cs',
    "text:nowhere",
    "shaping",
    'text:"reward shaping" OR ti:testing',
    "ti:testing ANDNOT text:toolformer",
    "(text:toolformer OR au:smith) AND cat:cs",
    "submittedDate:[202401 TO 202612] AND text:lovelace",
    "text:toolformer note:zurich",
    # inflections, as arXiv's search takes them (the papers of INFLECTED hold each form)
    "abs:agent",
    "abs:agent AND abs:LLM",
    "ti:agent AND abs:LLMs",
    "learn",
    "learned",
    "ti:learned",
    "ti:learns",
    'ti:"learning agents"',
    'ti:"learned agent"',
    '"learning agents"',
    '"learned agent"',
    '"LEARNED AGENTS"',
    "au:smiths",
    "au:smith",
    "note:seminars",
    "text:rewarding",
    'text:"sparse reward"',
    'text:"agent that calls tool"',
    # deeper than FTS5 takes: search_index_corpus, test_deep_queries
    "(" * 40 + "ti:the" + " OR abs:learning)" * 40,
    alternating(MAX_DEPTH - 1),
    alternating(20, "text:toolformer"),
]
INFLECTED = [  # (title, abstract): agent(s), learn(s/ed/ing) and LLM(s) in their forms
    ("Learning agents for code review", "LLM agents that learn from the reviews they get."),
    ("A learned agent plays chess", "An agent learned with an LLM as its teacher."),
    ("Agency and learnability", "No agent learns here; LLMs are not studied."),
    ("The agent learns", "Agents learning from LLMs, and one learned agent."),
]
LIMITS = (1, 25)  # and 4: before the indexes exist, and walked
NOTES = {"zurich": "Read for the Zürich seminar", "credit": "seminar notes: credit assignment", "fish": "compare with the zebrafish paper"}
TEXTS = [  # (every how many papers from which, the stored text's paragraph)
    (slice(0, None, 4), "We study reward shaping for agents that call tools."),
    (slice(1, None, 6), "Toolformer and potentials, after Ada Lovelace: sparse rewards."),
    (slice(2, None, 7), "Schrödinger’s reward; shaping comes later."),
]


def arxiv_syntax(query: str) -> bool:
    """A topic or a watch can have this query (arXiv's syntax: no notes, no full texts)."""
    try:
        parse(query)
    except QueryError:
        return False
    return True


@pytest.fixture(scope="module")
def cache(tmp_path_factory) -> Path:
    """The papers of the search tests (recorded, made, sampled), notes, and stored full texts
    (one for a paper the cache does not hold)."""
    data_dir = tmp_path_factory.mktemp("paths") / "data"
    store = Store(data_dir)
    papers = fixture_papers()
    papers += made_papers(papers[0]) + sample_papers(30)
    papers += [
        dataclasses.replace(papers[0], id=f"2609.9010{i}", title=title, abstract=abstract) for i, (title, abstract) in enumerate(INFLECTED)
    ]
    store.add_topic("Agents", "ti:agents")
    store.save_papers(papers[::2], "Agents")
    store.save_papers(papers[1::2], None)
    ids = store.index().ids
    for pid, note in zip(ids[5::40], NOTES.values()):
        store.set_note(pid, note)
    texts = TextStore(data_dir)
    records = store.load_papers()
    for every, paragraph in TEXTS:
        for pid in ids[every]:
            texts.save(Document(pid, records[pid].version, "html", (Block(TITLE, records[pid].title), Block(PARAGRAPH, paragraph))))
    texts.save(Document("2101.00009", 1, "html", (Block(PARAGRAPH, "reward shaping toolformer potentials lovelace"),)))
    return data_dir


@pytest.fixture(scope="module")
def answers(cache) -> dict[str, list[str]]:
    """Each form's reference answer: the scan over the records, notes and stored texts, in the
    catalog's order (the paths below never change what a query matches)."""
    store = Store(cache)
    block = SearchBlock({pid: search_text(p) for pid, p in store.load_papers().items()}, store.notes(), stored_words(cache))
    order = store.index().ids
    found = {}
    for query in FORMS:
        matched = block.matching(parse(query, implicit_and=True))
        found[query] = [pid for pid in order if pid in matched]
    return found


def listed(capsys, data_dir: Path, *args: str) -> list[str]:
    code, out, err = run(capsys, "--data-dir", str(data_dir), "list", *args, "--json")
    assert code == 0, err
    return [row["id"] for row in json.loads(out)]


def without_indexes(data_dir: Path) -> None:
    """Derived data only: the search index and the full texts' index are built again as asked."""
    shutil.rmtree(data_dir / "search", ignore_errors=True)
    (TextStore(data_dir).directory / "words.sqlite3").unlink(missing_ok=True)


@pytest.mark.slow
@pytest.mark.parametrize("query", FORMS, ids=lambda query: query if len(query) < 60 else query[:57] + "...")
def test_every_path_of_reader_list_gives_the_same_answer(capsys, monkeypatch, cache, answers, query):
    expected = answers[query]
    without_indexes(cache)
    assert listed(capsys, cache, "--query", query, "--limit", "4") == expected[:4], "before the indexes exist"
    assert listed(capsys, cache, "--query", query) == expected, "whole"
    for limit in LIMITS:
        assert listed(capsys, cache, "--query", query, "--limit", str(limit)) == expected[:limit], limit
    monkeypatch.setattr(newest, "WALK_FROM", 1)  # walked down the date index a few rows at a time
    monkeypatch.setattr(newest, "FIRST_PAGE", 2)
    assert listed(capsys, cache, "--query", query, "--limit", "4") == expected[:4], "walked"
    monkeypatch.undo()
    if not arxiv_syntax(query):
        return
    assert run(capsys, "--data-dir", str(cache), "watches", "add", "Paths", query)[0] == 0
    try:
        assert listed(capsys, cache, "--watch", "Paths") == expected, "watch"
        assert listed(capsys, cache, "--watch", "Paths", "--limit", "4") == expected[:4], "watch, limited"
    finally:
        run(capsys, "--data-dir", str(cache), "watches", "remove", "Paths")
    code, out, err = run(capsys, "--data-dir", str(cache), "topics", "add", "Paths", query)
    try:
        assert code == 0, err
        assert listed(capsys, cache, "--topic", "Paths") == expected, "topic"
        assert listed(capsys, cache, "--topic", "Paths", "--query", query, "--limit", "4") == expected[:4], "topic, limited"
    finally:
        run(capsys, "--data-dir", str(cache), "topics", "remove", "Paths")


def test_the_forms_cut_and_match_something(answers):
    """The table is not vacuous: limits cut, some forms match nothing, full texts are searched."""
    assert sum(1 for found in answers.values() if len(found) > max(LIMITS)) > 10
    assert sum(1 for found in answers.values() if not found) >= 5
    assert len(answers['text:"reward shaping"']) > max(LIMITS) and "2101.00009" not in answers['text:"reward shaping"']
    assert sum(1 for query in FORMS if arxiv_syntax(query)) > 30


def test_words_match_their_inflections(answers):
    """agents finds agent, learned finds learning, in phrases too (the reference: the scan)."""
    inflected = {f"2609.9010{i}" for i in range(len(INFLECTED))}
    assert answers["learn"] == answers["learned"] == answers["learning"]
    assert answers["ti:learned"] == answers["ti:learns"] and inflected - {"2609.90102"} <= set(answers["ti:learned"])
    assert answers['"learning agents"'] == answers['"learned agent"'] == answers['"LEARNED AGENTS"']
    assert inflected & set(answers['"learned agent"']) == {"2609.90100", "2609.90101", "2609.90103"}
    assert inflected <= set(answers["abs:agent AND abs:LLM"])
    assert answers['ti:"learning agents"'] == answers['ti:"learned agent"'] and "2609.90102" not in answers['ti:"learned agent"']
    assert answers["au:smiths"] == answers["au:smith"] != []
    assert answers["note:seminars"] and answers["text:rewarding"] and answers['text:"sparse reward"']
    assert answers['text:"agent that calls tool"']


@pytest.mark.slow
@pytest.mark.parametrize("indexed", [True, False])
async def test_the_apps_filter_gives_the_same_answer(cache, answers, tmp_path, indexed):
    data_dir = tmp_path / "data"
    shutil.copytree(cache, data_dir)
    if not indexed:  # the index cannot be built here: the scan answers
        shutil.rmtree(data_dir / "search", ignore_errors=True)
        (data_dir / "search").write_text("not a directory")
    app = make_app(Store(data_dir))
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        assert app.main.service.search_ready is indexed
        differ = []
        for query in FORMS:
            await filter_by(pilot, query)
            if list(app.main.paper_list.ids) != answers[query]:
                differ.append(query)
        assert differ == []
