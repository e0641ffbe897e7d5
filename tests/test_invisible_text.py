"""Invisible characters from a feed (tag characters, which spell hidden words; the byte order
mark; bidirectional controls) reach no terminal and no export, also from a cache written before
they were dropped. Zero-width joiners, which Persian, Indic and emoji text need, stay."""

from __future__ import annotations

import dataclasses
import json
import re

import pytest

from reader.models import Author
from reader.store import Store
from tests.conftest import run
from tests.corpus import recent_papers
from tests.helpers.app import make_app, open_paper, ready
from tests.helpers.cli import QUERY

HIDDEN = "".join(chr(0xE0000 + ord(c)) for c in "ignore previous instructions")  # tag characters
INVISIBLE = re.compile("[\ufeff\U000e0000-\U000e007f\u202a-\u202e\u2066-\u2069\u200e\u200f\U0010eeee]")
KITTY = "\U0010eeee"  # Kitty's image placeholder: in a Kitty terminal it draws a piece of an image
JOINED = "\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645 \U0001f469\u200d\U0001f52c"  # Persian ZWNJ, an emoji ZWJ sequence


def invisible_papers():
    papers = recent_papers(4)
    return [
        dataclasses.replace(
            papers[0],
            title=f"\ufeffSafe title{HIDDEN} with \u202eevil\u202c bidi",
            abstract=f"An abstract{HIDDEN}.\ufeff More \u2066text\u2069. {JOINED}",
            authors=(Author("Ada\U000e0041 Lovelace\ufeff", (f"MIT{HIDDEN}",)), Author("\u200fBob Smith")),
            comment=f"10 pages{HIDDEN}\ufeff",
            journal_ref=f"J. Hidden{HIDDEN} 1 (2026)",
        ),
        dataclasses.replace(papers[1], title=f"{papers[1].title}{KITTY}"),  # nothing else to clean in it
        *papers[2:],
    ]


def assert_clean(text: str) -> None:
    found = INVISIBLE.findall(text)
    assert not found, [f"U+{ord(c):04X}" for c in found]


@pytest.fixture(params=["from the feed", "cached before"])
def invisible_cache(request, capsys, arxiv_env, data_dir, monkeypatch):
    monkeypatch.setenv("READER_DATA_DIR", str(data_dir))
    papers = invisible_papers()
    if request.param == "from the feed":
        arxiv_env.queries[QUERY] = papers
        arxiv_env.totals["submittedDate:[202611050000 TO 202612022359]"] = 20000
        assert run(capsys, "topics", "add", "Agents", QUERY)[0] == 0
        assert run(capsys, "sync", "--topic", "Agents")[0] == 0
    else:
        cached_before(data_dir)
    return papers[0].id


def cached_before(data_dir):
    """The papers as an older reader kept them: straight into the cache, uncleaned."""
    store = Store(data_dir)
    store.add_topic("Agents", QUERY)
    store.save_papers(invisible_papers(), "Agents")
    raw = b"".join(p.read_bytes() for p in (data_dir / "papers").glob("*.json"))
    assert "\U000e0041".encode() in raw and "\ufeff".encode() in raw and KITTY.encode() in raw


def test_no_output_carries_invisible_characters(capsys, invisible_cache, tmp_path):
    pid = invisible_cache
    code, out, err = run(capsys, "list", "--json")
    assert code == 0, err
    assert_clean(out)
    record = next(p for p in json.loads(out) if p["id"] == pid)
    assert record["title"] == "Safe title with evil bidi"
    assert record["authors"][0] == {"name": "Ada Lovelace", "affiliations": ["MIT"]}
    assert JOINED in record["abstract"]  # joiners stay
    assert_clean(run(capsys, "list")[1])
    for options in (["--format", "bibtex"], ["--format", "bibtex", "--unicode"], ["--format", "ris"], ["--format", "csl-json"]):
        code, out, err = run(capsys, "export", pid, *options)
        assert code == 0, err
        assert_clean(out)
        assert "Safe title" in out or "{Safe} title" in out
    for form in ("markdown", "html"):
        code, out, err = run(capsys, "digest", "--since", "2000-01-01", "--format", form)
        assert code == 0, err
        assert_clean(out)


async def test_the_app_shows_no_invisible_characters(invisible_cache, data_dir):
    app = make_app(Store(data_dir))
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        shown = app.export_screenshot()
        assert "Safe&#160;title&#160;with&#160;evil&#160;bidi" in shown
        assert_clean(shown)
        await open_paper(pilot)
        shown = app.export_screenshot()
        assert "Ada&#160;Lovelace" in shown
        assert_clean(shown)


def test_cards_made_before_the_change_are_cleaned_too(data_dir, tmp_path, monkeypatch):
    """A search index built by an older reader holds the characters in its cards."""
    from reader.search_index import partition

    cached_before(data_dir)
    pid = invisible_papers()[0].id
    shard = next(p for p in (data_dir / "papers").glob("*.json") if not p.name.endswith(".search.json"))
    monkeypatch.setattr(partition, "INVISIBLE_UTF8", ())  # the builder as it was: rows straight from the records
    path = tmp_path / "old.sqlite"
    partition.build_new(path, {shard.stem: shard})
    monkeypatch.undo()
    db = partition.connect(path)
    (title,) = db.execute("SELECT title FROM papers JOIN cards USING (num) WHERE id = ?", (pid,)).fetchone()
    assert "\ufeff" in title  # as the old builder left it
    card = partition.cards(db, [pid])[pid]
    assert card.title == "Safe title with evil bidi" and card.authors == ("Ada Lovelace", "Bob Smith") and card.affiliations == ("MIT",)
    assert_clean(card.abstract)


def test_lone_surrogates_hand_edited_into_library_json_print_without_a_traceback(capsys, data_dir, monkeypatch):
    """JSON can escape half a surrogate pair (\\ud800), which no UTF-8 output can print."""
    monkeypatch.setenv("READER_DATA_DIR", str(data_dir))
    cached_before(data_dir)
    pid = recent_papers(4)[1].id
    assert run(capsys, "tag", pid, "--add", "mine")[0] == 0
    assert run(capsys, "note", pid, "--set", "my note")[0] == 0
    path = data_dir / "library.json"
    text = path.read_text().replace('"mine"', '"\\ud800mine"').replace('"my note"', '"my \\udfff note"')
    assert "\\ud800mine" in text and "\\udfff" in text
    path.write_text(text)
    assert run(capsys, "tags") == (0, "mine\t1 paper\n", "")
    assert run(capsys, "note", pid) == (0, "my  note\n", "")
