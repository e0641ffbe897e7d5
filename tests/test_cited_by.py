""" "Cited by" on the command line: `reader refs ID --cited-by` lists the cached papers whose stored
texts cite ID, from the full-text index's `cites` table, filled as a text is stored and rebuilt
from the stored texts when the index is missing or of an older format."""

from __future__ import annotations

import dataclasses
import json
import sqlite3
import subprocess
import sys

from reader.fulltext import text_index
from reader.fulltext.document import HEADING, PARAGRAPH, REFERENCE, Block, Document
from reader.fulltext.store import TextStore
from reader.store import Store
from tests.conftest import ROOT, run
from tests.helpers.timing import scaled

CITED = "2302.04761"  # Toolformer: the fixture page's reference [2]


def citing_in_the_index(data_dir, cited: str) -> set[str]:
    """What the index file says, read directly (no refresh from the stored texts)."""
    db = sqlite3.connect(TextStore(data_dir).directory / "words.sqlite3")
    try:
        return {row[0] for row in db.execute("SELECT t.id FROM cites c JOIN texts t ON t.num = c.citing WHERE c.cited = ?", (cited,))}
    finally:
        db.close()


def text_citing(paper, *cited: str) -> Document:
    references = tuple(Block(REFERENCE, f"[{n}] A paper. arXiv:{pid}.", pid, n) for n, pid in enumerate(cited, 1))
    return Document(paper.id, paper.version, "html", (Block(PARAGRAPH, "Words."), Block(HEADING, "References"), *references))


def test_cited_by_lists_the_cached_papers_whose_stored_texts_cite_it(capsys, texts_env, data_dir):  # noqa: F811
    first, second, _ = texts_env.papers
    code, out, err = run(capsys, "refs", CITED, "--cited-by")
    assert (code, out) == (0, "") and "cited by 0 papers in your library" in err
    run(capsys, "text", first.id)  # fetched from the loopback arXiv and stored: indexed there and then
    assert citing_in_the_index(data_dir, CITED) == {first.id}
    assert citing_in_the_index(data_dir, "2210.03629") == {first.id}  # an arxiv.org link names it too
    TextStore(data_dir).save(text_citing(second, CITED, first.id))  # stored without the index: found when asked
    Store(data_dir).set_marks([second.id], starred=True)
    code, out, err = run(capsys, "refs", f"arXiv:{CITED}v2", "--cited-by")  # any form people paste; need not be cached
    assert code == 0 and "cited by 2 papers in your library" in err
    assert out.splitlines() == sorted(
        [f"arXiv:{first.id}v{first.version}  {first.title}", f"arXiv:{second.id}v{second.version}  {second.title}  [starred]"]
    )
    code, out, _ = run(capsys, "refs", first.id, "--cited-by", "--json")
    assert json.loads(out) == [{"id": second.id, "version": second.version, "title": second.title, "starred": True, "read": False}]


def test_a_text_replaced_by_a_newer_version_cites_what_that_one_cites(capsys, texts_env, data_dir):  # noqa: F811
    first, second, _ = texts_env.papers
    texts = TextStore(data_dir)
    texts.save(text_citing(second, CITED))
    assert json.loads(run(capsys, "refs", CITED, "--cited-by", "--json")[1])[0]["id"] == second.id
    texts.save(dataclasses.replace(text_citing(second, "2210.03629"), version=second.version + 1))  # a newer version's text
    assert json.loads(run(capsys, "refs", CITED, "--cited-by", "--json")[1]) == []
    assert [row["id"] for row in json.loads(run(capsys, "refs", "2210.03629", "--cited-by", "--json")[1])] == [second.id]


def test_the_index_is_rebuilt_from_the_stored_texts_when_missing_or_of_an_older_format(capsys, texts_env, data_dir, monkeypatch):  # noqa: F811
    first, second, _ = texts_env.papers
    texts = TextStore(data_dir)
    texts.save(text_citing(first, CITED))
    texts.save(text_citing(second, CITED))
    index_file = texts.directory / "words.sqlite3"
    assert not index_file.exists()  # stored without the index
    expected = sorted([first.id, second.id])
    assert [row["id"] for row in json.loads(run(capsys, "refs", CITED, "--cited-by", "--json")[1])] == expected
    assert citing_in_the_index(data_dir, CITED) == set(expected)
    db = sqlite3.connect(index_file)  # an index of the format before cites: words only
    db.execute("DROP TABLE cites")
    db.execute(f"PRAGMA user_version = {text_index.FORMAT - 1}")
    db.commit()
    db.close()
    assert [row["id"] for row in json.loads(run(capsys, "refs", CITED, "--cited-by", "--json")[1])] == expected
    assert citing_in_the_index(data_dir, CITED) == set(expected)


def test_quick_cited_by_never_rebuilds_the_index(texts_env, data_dir):  # noqa: F811
    """The detail view's count: no index yet is no count (the whole index is built when asked
    for the list), never the minutes of reading every text while the record waits."""
    first, second, _ = texts_env.papers
    TextStore(data_dir).save(text_citing(first, CITED))
    index = text_index.TextIndex(data_dir)
    assert index.cited_by(CITED, quick=True) is None
    assert index.cited_by(CITED) == [first.id]
    TextStore(data_dir).save(text_citing(second, CITED))  # one new text: indexed by the quick answer
    assert index.cited_by(CITED, quick=True) == sorted([first.id, second.id])


def test_cited_by_starts_without_the_library_service_and_shows_titles_as_the_shards_hold_them(capsys, texts_env, data_dir):  # noqa: F811
    """The papers' titles come from the search index brought up to date for their shards alone:
    the library service, a refresh of every shard, and imports no command needs (the rotating
    log's, `secrets`) cost more than the lookup (~0.15 s of a 0.4 s command)."""
    first, second, _ = texts_env.papers
    TextStore(data_dir).save(text_citing(second, CITED))
    run(capsys, "list", "--query", "words")  # the search index built, as it is in any library
    store = Store(data_dir)
    store.save_papers([dataclasses.replace(second, title="A title changed by a sync")], "Agents")
    script = (
        "import sys\nfrom reader.cli import main\n"
        f"code = main(['refs', {CITED!r}, '--cited-by', '--json'])\n"
        "print(sorted(name for name in ('reader.service', 'logging.handlers', 'secrets') if name in sys.modules))\n"
        "sys.exit(code)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=scaled(120))
    assert done.returncode == 0, done.stderr
    *rows, imported = done.stdout.splitlines()
    assert [(row["id"], row["title"]) for row in json.loads("\n".join(rows))] == [(second.id, "A title changed by a sync")]
    assert imported == "[]"
