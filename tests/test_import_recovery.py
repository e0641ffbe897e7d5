"""`reader import` past a broken entry (BibTeX, RIS, a list of ids), title look-ups made together,
and a run stopped half-way (Ctrl+C, arXiv gone) that says what it kept and is finished by a rerun."""

# ruff: noqa: F811 (the fixtures imported from test_import.py are parameters of the tests)

from __future__ import annotations

import json

import pytest

from reader.core import bibfile
from tests.conftest import run
from tests.helpers.import_library import id_requests, imported, paper

SIX = """@article{first,
  title = {Attention Is All You Need},
  eprint = {2611.01001},
}

@article{missingbrace,
  title = {Deep Residual Learning for Image Recognition,
  author = {He, Kaiming},
}

@misc{third, eprint = {2611.01003}}
@misc{fourth,
  title = {Learning to Reason -- Step by Step},
  author = {M{\\"u}ller, J{\\"o}rg},
}
@misc{fifth, url = {https://arxiv.org/abs/hep-th/9711200}}
@misc{sixth, title = {Graph Neural Networks for Molecules}, author = {Diaz, Rosa}}
"""


def test_a_broken_entry_is_reported_with_its_line_and_every_entry_after_it_is_read(capsys, library, arxiv, tmp_path):
    path = tmp_path / "six.bib"
    path.write_text(SIX)
    code, out, err = run(capsys, "import", str(path))
    assert code == 0, err
    assert out.splitlines()[0] == "6 entries: 5 matched, 0 fetched from arXiv, 0 not found, 1 broken"
    assert out.splitlines()[2] == (
        "missingbrace\t(no title)\tbroken: the entry @article{missingbrace starting on line 6 is not "
        "closed before the next one on line 11 (a } is missing), so it was not read"
    )
    assert library.marks().starred == {"2611.01001", "2611.01003", "2611.01004", "hep-th/9711200", "2611.01008"}
    code, result, err = imported(capsys, str(path))
    assert result["broken"] == [{"key": "missingbrace", "line": 6, "reason": out.splitlines()[2].split("\t")[2]}]
    assert result["unmatched"] == [] and len(result["matched"]) == 5


def test_the_parser_counts_lines_as_it_goes_and_recovers_at_each_broken_entry():
    text = "".join(f"@misc{{k{i},\n  title = {{T{i}{'' if i % 3 == 1 else '}'},\n}}\n" for i in range(9))
    entries = bibfile.parse(text)
    assert [(e.key, e.line, e.closed, e.cut_at) for e in entries] == [
        (f"k{i}", 1 + 3 * i, i % 3 != 1, 4 + 3 * i if i % 3 == 1 else 0) for i in range(9)
    ]


def test_update_names_the_broken_entry_in_the_middle_of_the_file_and_writes_nothing(capsys, library, arxiv, tmp_path):
    path = tmp_path / "six.bib"
    path.write_text(SIX)
    code, out, err = run(capsys, "export", "--update", str(path), "2611.01002")
    assert code == 1 and out == ""
    assert "line 6: the entry @article{missingbrace is not closed before the next entry (line 11)" in err
    assert path.read_text() == SIX


def test_an_ris_record_without_its_end_is_reported_and_the_next_one_is_read(capsys, library, arxiv, tmp_path):
    path = tmp_path / "lib.ris"
    path.write_text(
        "TY  - JOUR\nTI  - Attention Is All You Need\nAN  - arXiv:2611.01001\nER  - \n\n"
        "TY  - JOUR\nID  - open\nTI  - Never ended\n\n"
        "TY  - JOUR\nTI  - X\nAN  - arXiv:2611.01003\nER  - \n"
    )
    code, result, err = imported(capsys, str(path))
    assert code == 0, err
    assert err.startswith("3 entries: 2 matched, 0 fetched from arXiv, 0 not found, 1 broken")
    assert result["broken"] == [
        {
            "key": "open",
            "line": 6,
            "reason": "broken: the record starting on line 6 is not closed before "
            "the next one on line 10 (its ER line is missing), so it was not read",
        }
    ]
    assert library.marks().starred == {"2611.01001", "2611.01003"}


def test_titles_are_looked_up_together_not_one_search_each(capsys, library, arxiv, tmp_path, monkeypatch):
    from reader.service.search import CacheSearch

    searches = []
    original = CacheSearch.matching
    monkeypatch.setattr(CacheSearch, "matching", lambda self, query: searches.append(query) or original(self, query))
    path = tmp_path / "titles.bib"
    path.write_text(
        "".join(f"@book{{b{i}, title = {{A Book Not on arXiv {i}}}, author = {{Doe, Jane}}}}\n" for i in range(60))
        + "@misc{t, title = {Graph Neural Networks for Molecules}, author = {Diaz, Rosa}}\n"
    )
    code, result, err = imported(capsys, str(path))
    assert code == 0, err
    assert [m["id"] for m in result["matched"]] == ["2611.01008"] and len(result["unmatched"]) == 60
    assert len(searches) <= 1  # today's cache is small: its titles are read once, no search at all


def _two_batches(arxiv) -> tuple[list[str], str]:
    fresh = [paper(f"2612.{3000 + i:05d}", f"Fresh paper {i}", ["Ann Lee"]) for i in range(150)]
    arxiv.by_id.update({p.id: p for p in fresh})
    return [p.id for p in fresh], "".join(f"{p.id}\n" for p in fresh)


def test_ctrl_c_half_way_marks_what_was_kept_and_a_rerun_asks_only_for_the_rest(capsys, library, arxiv, tmp_path, monkeypatch):
    from reader.arxiv.client import ArxivClient

    ids, text = _two_batches(arxiv)
    path = tmp_path / "many.txt"
    path.write_text(text)
    original = ArxivClient.fetch_ids

    async def stopped_at_the_second_batch(self, batch):
        if len(id_requests(arxiv)) == 1:
            raise KeyboardInterrupt
        return await original(self, batch)

    monkeypatch.setattr(ArxivClient, "fetch_ids", stopped_at_the_second_batch)
    code, out, err = run(capsys, "import", str(path), "--tag", "many")
    assert code == 130, err
    assert out.splitlines()[0] == "150 entries: 100 matched, 100 fetched from arXiv, 0 not found, 50 not fetched"
    assert out.splitlines()[1] == "tagged 'many': 100 papers"
    assert out.splitlines()[-1].startswith("interrupted: 100 papers fetched from arXiv and kept, 100 tagged 'many', 50 not fetched")
    assert "run it again to finish" in out.splitlines()[-1]
    assert sorted(library.papers_tagged("many")) == sorted(ids[:100])
    monkeypatch.setattr(ArxivClient, "fetch_ids", original)
    code, out, err = run(capsys, "import", str(path), "--tag", "many")
    assert code == 0, err
    assert out.splitlines()[0] == "150 entries: 150 matched, 50 fetched from arXiv, 0 not found"
    assert [r.params["id_list"] for r in id_requests(arxiv)][1:] == [",".join(ids[100:])]
    assert sorted(library.papers_tagged("many")) == sorted(ids)


@pytest.mark.slow
def test_a_503_that_does_not_end_says_what_was_kept_and_exits_1(capsys, library, arxiv, tmp_path, monkeypatch):
    monkeypatch.setenv("READER_ARXIV_RETRIES", "1")
    ids, text = _two_batches(arxiv)
    path = tmp_path / "many.txt"
    path.write_text(text)
    answer = arxiv.answer
    monkeypatch.setattr(arxiv, "answer", lambda path, params: answer(path, params) if len(arxiv.requests) == 1 else (503, {}, b"busy"))
    code, out, err = run(capsys, "import", str(path))
    assert code == 1
    assert out.splitlines()[0] == "150 entries: 100 matched, 100 fetched from arXiv, 0 not found, 50 not fetched"
    assert out.splitlines()[-1].startswith("arXiv stopped answering: 100 papers fetched from arXiv and kept, 100 starred, 50 not fetched")
    assert library.marks().starred == set(ids[:100])


def test_an_id_arxiv_has_not_is_remembered_with_the_day_and_not_asked_again(capsys, library, arxiv, tmp_path):
    path = tmp_path / "ids.txt"
    path.write_text("2612.09999\n2611.01001\n")
    code, out, err = run(capsys, "import", str(path))
    assert code == 0, err
    assert "asked arXiv for 1 of 1 paper" in err and "fetched 1 of 1" not in err
    assert out.splitlines()[0] == "2 entries: 1 matched, 0 fetched from arXiv, 1 not found"
    assert "line 1\t(no title)\tnot on arXiv: it has no paper 2612.09999 (asked on 2026-12-02" in out
    requests = len(arxiv.requests)
    code, result, err = imported(capsys, str(path))
    assert len(arxiv.requests) == requests  # remembered: not asked again
    assert result["unmatched"][0]["reason"] == "not on arXiv: it had no paper 2612.09999 when asked on 2026-12-02"
    assert json.loads((library.data_dir / "sync.json").read_text())["not_on_arxiv"]["1"]["ids"] == {"2612.09999": "2026-12-02"}


@pytest.mark.parametrize("text, line", [("2611.01001\nnot-an-id\n2611.01003\n", 2)])
def test_a_bad_line_of_an_id_list_is_broken_and_listed_with_its_line(capsys, library, arxiv, tmp_path, text, line):
    path = tmp_path / "ids.txt"
    path.write_text(text)
    code, result, err = imported(capsys, str(path))
    assert code == 0, err
    assert result["broken"] == [{"key": f"line {line}", "line": line, "reason": "not an arXiv id"}]
    assert library.marks().starred == {"2611.01001", "2611.01003"}


def test_a_comment_whose_braces_do_not_balance_is_no_broken_entry():
    """JabRef's group names are any text, a brace or `@misc{` among them; bibtex reads no comment's
    braces: the comment is skipped, the entries after it read, nothing called broken."""
    text = (
        "% This file was created with JabRef 5.1.\n@Comment{jabref-meta: databaseType:bibtex;}\n"
        "@Comment{jabref-meta: grouping:\n1 StaticGroup:see @misc{x\\;0\\;1\\;;\n}\n"
        "@article{after, title = {After the comment}, eprint = {2611.01001}}\n"
    )
    entries = [entry for entry in bibfile.parse(text) if entry.kind != "comment"]
    assert [(entry.key, entry.closed, entry.fields.get("eprint")) for entry in entries] == [("after", True, "2611.01001")]
