"""`reader import FILE`: a library as each tool writes it (tests/fixtures/import), matched to the
cached papers and to papers the loopback arXiv serves, starred or tagged; bad files change
nothing; a second run changes nothing and asks arXiv nothing."""

from __future__ import annotations

import json
import os
from dataclasses import replace
from pathlib import Path

import pytest

from reader.store import Store
from tests.conftest import ROOT, run
from tests.helpers.import_library import CACHED, ON_ARXIV_ONLY, by_key, id_requests, imported

FIXTURES = ROOT / "tests" / "fixtures" / "import"


def user_files(data_dir: Path) -> dict[str, bytes]:
    return {name: (data_dir / name).read_bytes() for name in ("user.json", "library.json") if (data_dir / name).exists()}


# --- each tool's file ------------------------------------------------------------------------------


def test_google_scholar_by_its_journal_line_and_by_exact_title(capsys, library, arxiv):
    code, result, err = imported(capsys, str(FIXTURES / "scholar.bib"))
    assert code == 0, err
    rows = by_key(result)
    assert rows["vaswani2026attention"] == "2611.01001"
    assert rows["he2026deep"] == "2611.01002"  # no id: its title, lower case, and a shared author
    assert "no arXiv id, and no cached paper has this title" in rows["lecun1989backpropagation"]  # not on arXiv
    assert [m["how"] for m in result["matched"]] == ["text", "title"]
    assert result["fetched"] == [] and id_requests(arxiv) == []  # all cached: no request
    assert library.marks().starred == {"2611.01001", "2611.01002"}
    assert "3 entries: 2 matched, 0 fetched from arXiv, 1 not found" in err


def test_arxivs_own_bibtex_fetches_what_the_cache_lacks_and_keeps_it_out_of_new(capsys, library, arxiv):
    code, result, err = imported(capsys, str(FIXTURES / "arxiv.bib"))
    assert code == 0, err
    assert by_key(result) == {"chen2026schrodingerbridgesbeatdiffusion": "2611.01003", "kaplan2026scalinglawsneurallanguage": "2612.02001"}
    assert result["fetched"] == ["2612.02001"]
    assert [r.params["id_list"] for r in id_requests(arxiv)] == ["2612.02001"]  # one batched request
    assert "asked arXiv for 1 of 1 paper" in err
    fresh = Store(library.data_dir)
    assert fresh.load_paper("2612.02001").title == ON_ARXIV_ONLY.title
    assert "2612.02001" in fresh.index() and fresh.index().topics_of("2612.02001") == []
    assert "2612.02001" not in fresh.new_ids()  # brought in, not announced
    assert fresh.marks().starred == {"2611.01003", "2612.02001"}
    code, out, _ = run(capsys, "list", "--starred", "--json")
    assert sorted(row["id"] for row in json.loads(out)) == ["2611.01003", "2612.02001"]
    code, out, _ = run(capsys, "list", "--new", "--json")
    assert json.loads(out) == []


@pytest.mark.parametrize(
    "name, expected",
    [
        ("zotero.bib", {"muller_learning_2026": "2611.01004", "kaplan_scaling_2026": "2612.02001"}),
        (
            "betterbibtex.bib",
            {
                "chenSchrodingerBridgesBeat2026": "2611.01003",
                "heDeepResidualLearning2026": "2611.01002",
                "halPaper2026": "no arXiv id, and no cached paper has this title (--search-titles looks for it on arXiv)",
            },
        ),
        ("jabref.bib", {"Vaswani2026": "2611.01001"}),
        ("mendeley.bib", {"He2026": "2611.01002"}),
        (
            "zotero.ris",
            {
                "line 1": "2611.01001",
                "line 17": "2611.01002",
                "line 25": "no arXiv id, and no cached paper has this title (--search-titles looks for it on arXiv)",
                "line 36": "2612.02001",
            },
        ),
        # A CSL item's id is a citation key, even one shaped like an arXiv id: the second item is
        # 2611.01004, by its title (an en dash for the cached title's `--`) and author.
        (
            "zotero.json",
            {
                "http://zotero.org/users/local/abc/items/ATTN": "2611.01001",
                "2611.01002": "2611.01004",
                "kaplan2026": "2612.02001",
                "lecun1989": "no arXiv id, and no cached paper has this title (--search-titles looks for it on arXiv)",
            },
        ),
    ],
)
def test_each_tools_file(capsys, library, arxiv, name, expected):
    code, result, err = imported(capsys, str(FIXTURES / name))
    assert code == 0, err
    assert by_key(result) == expected
    matched = {v for v in expected.values() if not v.startswith("no ")}
    assert library.marks().starred == matched
    assert result["fetched"] == (["2612.02001"] if "2612.02001" in matched else [])


def test_hand_written_entries_url_in_howpublished_doi_in_capitals_and_titles(capsys, library, arxiv):
    code, result, err = imported(capsys, str(FIXTURES / "handwritten.bib"))
    assert code == 0, err
    rows = by_key(result)
    assert rows["maldacena"] == "hep-th/9711200"  # \url{https://arxiv.org/abs/hep-th/9711200v3}
    assert rows["lowercase-doi"] == "2611.01003"  # 10.48550/ARXIV.2611.01003
    assert rows["titleonly"] == "2611.01004"  # braces, lower case, `--`, spaces, M{\"u}ller
    assert rows["shared"].startswith("2 cached papers have this title (2611.01006, 2611.01007)")
    assert rows["strangers"] == "the cached paper with this title (2611.01008) shares no author's family name with it: give its arXiv id"
    hows = {m["key"]: m["how"] for m in result["matched"]}
    assert hows == {"maldacena": "link", "lowercase-doi": "doi", "titleonly": "title"}
    assert id_requests(arxiv) == []


def test_a_list_of_ids_in_every_form(capsys, library, arxiv):
    code, out, err = run(capsys, "import", str(FIXTURES / "ids.txt"))
    assert code == 0, err
    assert out.splitlines()[0] == "7 entries: 6 matched, 1 fetched from arXiv, 0 not found, 1 broken"
    assert out.splitlines()[1] == "starred: 6 papers"
    assert out.splitlines()[2] == "line 9\tnot an id\tnot an arXiv id"
    assert library.marks().starred == {"2611.01001", "2611.01002", "2611.01003", "2611.01004", "2612.02001", "hep-th/9711200"}


def test_standard_input_and_a_forced_format(capsys, library, arxiv, monkeypatch):
    import io

    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(b"2611.01001\narXiv:2611.01008\n")))
    code, result, _ = imported(capsys, "-", "--format", "ids")
    assert code == 0 and by_key(result) == {"line 1": "2611.01001", "line 2": "2611.01008"}


def test_standard_input_larger_than_the_limit_is_refused_like_a_file(capsys, library, arxiv, monkeypatch):
    """`yes 2611.01001 | reader import -` read 256 MB and imported it, the last line cut."""
    import io

    monkeypatch.setattr("reader.commands.importing.MAX_FILE_BYTES", 2**20)
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(b"2611.01001\n" * (2**20 // 11 + 1))))
    before = user_files(library.data_dir)
    code, out, err = run(capsys, "import", "-")
    assert (code, out) == (1, "")
    assert err == "reader: error: standard input is larger than 1 MB: not a library file; nothing was changed\n"
    assert user_files(library.data_dir) == before


# --- marks -------------------------------------------------------------------------------------------


def test_tag_instead_of_star_and_both_with_star(capsys, library, arxiv):
    code, out, _ = run(capsys, "import", str(FIXTURES / "jabref.bib"), "--tag", "Reading group")
    assert code == 0 and "tagged 'Reading group': 1 paper" in out
    assert library.marks().starred == set() and library.papers_tagged("reading group") == ["2611.01001"]
    code, out, _ = run(capsys, "import", str(FIXTURES / "mendeley.bib"), "--tag", "reading GROUP", "--star")
    assert code == 0 and "starred and tagged 'reading GROUP': 1 paper" in out
    assert library.marks().starred == {"2611.01002"}
    assert library.tags() == {"Reading group": 2}


def test_a_second_run_changes_nothing_and_asks_arxiv_nothing(capsys, library, arxiv):
    for name in ("arxiv.bib", "zotero.bib", "ids.txt"):
        assert run(capsys, "import", str(FIXTURES / name), "--tag", "mine", "--star")[0] == 0
    requests = len(arxiv.requests)
    index = (library.data_dir / "index.json").read_bytes()
    before = user_files(library.data_dir)
    stats = {name: os.stat(library.data_dir / name).st_mtime_ns for name in before}
    for name in ("arxiv.bib", "zotero.bib", "ids.txt"):
        code, out, _ = run(capsys, "import", str(FIXTURES / name), "--tag", "mine", "--star")
        assert code == 0 and "0 fetched from arXiv" in out
    assert len(arxiv.requests) == requests
    assert user_files(library.data_dir) == before and (library.data_dir / "index.json").read_bytes() == index
    assert {name: os.stat(library.data_dir / name).st_mtime_ns for name in before} == stats  # not even rewritten
    code, out, _ = run(capsys, "list", "--json")
    ids = [row["id"] for row in json.loads(out)]
    assert len(ids) == len(set(ids)) == len(CACHED) + 1  # no paper listed twice


# --- round trips ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("format", ["bibtex", "ris", "csl-json"])
def test_every_export_format_imports_back_to_the_same_papers(capsys, library, arxiv, tmp_path, format):
    chosen = [p.id for p in CACHED[::2]]
    library.set_marks(chosen, starred=True)
    library.set_tags(chosen[:2], add=["x; y"])
    library.set_note(chosen[0], "See 2611.01008 and arXiv:2611.01007 too.")  # a note naming other papers
    exported = tmp_path / f"mine.{format}"
    assert run(capsys, "export", "--starred", "--format", format, "-o", str(exported))[0] == 0
    library.set_marks(chosen, starred=False)
    code, result, err = imported(capsys, str(exported))
    assert code == 0, err
    assert sorted(m["id"] for m in result["matched"]) == sorted(chosen)
    assert {m["how"] for m in result["matched"]} == {"id"}  # the id wins over the note naming other papers
    assert result["unmatched"] == [] and library.marks().starred == set(chosen)


# --- bad files -------------------------------------------------------------------------------------------


def _bad_files(tmp_path: Path) -> dict[str, Path]:
    noise = tmp_path / "noise.bib"
    noise.write_bytes(bytes(range(256)) * 4 + b"\n@misc{cut,\n  title = {Half")
    empty = tmp_path / "empty.bib"
    empty.write_bytes(b"")
    folder = tmp_path / "folder.bib"
    folder.mkdir()
    prose = tmp_path / "notes.txt"
    prose.write_text("Some notes about papers I liked.\nNothing here is an id.\n")
    json_junk = tmp_path / "library.json"
    json_junk.write_text('{"items": [1, 2')
    other_json = tmp_path / "settings.json"
    other_json.write_text('{"theme": "nord", "fonts": [1, 2]}')
    return {"noise": noise, "empty": empty, "folder": folder, "prose": prose, "json": json_junk, "other json": other_json}


@pytest.mark.parametrize(
    "kind, message",
    [
        ("noise", "is not a text file (a control character, '\\x00', on line 1): nothing was changed"),
        ("empty", "is empty: nothing was changed"),
        ("folder", "is a directory, not a library file: nothing was changed"),
        ("prose", "holds no entry (no line is a BibTeX entry, an RIS record, CSL-JSON or an arXiv id): nothing was changed"),
        ("json", "is not valid CSL-JSON (line 1, column 16): nothing was changed"),
        ("other json", "is not CSL-JSON (an array of items): nothing was changed"),
        ("missing", "cannot read"),
    ],
)
def test_a_bad_file_is_one_line_and_changes_nothing(capsys, library, arxiv, tmp_path, kind, message):
    library.set_marks(["2611.01001"], starred=True)
    library.set_tags(["2611.01002"], add=["kept"])
    files = _bad_files(tmp_path)
    path = files.get(kind, tmp_path / "missing.bib")
    before = {p: p.read_bytes() for p in files.values() if p.is_file()}
    state = user_files(library.data_dir)
    code, out, err = run(capsys, "import", str(path), "--tag", "new")
    assert code == 1 and out == ""
    assert err.startswith("reader: error: ") and message in err and err.count("\n") == 1 and "Traceback" not in err
    assert user_files(library.data_dir) == state
    assert {p: p.read_bytes() for p in files.values() if p.is_file()} == before
    assert arxiv.requests == []


def test_an_entry_cut_off_at_the_end_is_reported_with_its_line_and_the_others_come_in(capsys, library, arxiv, tmp_path):
    text = (
        (FIXTURES / "jabref.bib").read_text()
        + "\n"
        + (FIXTURES / "mendeley.bib").read_text()
        + "\n@misc{late,\n  eprint = {2611.01008},\n  title = {Cut"
    )
    path = tmp_path / "cut.bib"
    path.write_text(text)
    code, out, err = run(capsys, "import", str(path))
    assert code == 0, err
    line = text[: text.index("@misc{late")].count("\n") + 1
    assert f"late\t(no title)\tcut off: the entry @misc{{late starting on line {line} never ends, so it was not read" in out
    assert library.marks().starred == {"2611.01001", "2611.01002"}
    assert path.read_text() == text


@pytest.mark.parametrize("as_json", [False, True])
def test_entries_with_c1_controls_and_bidi_overrides_are_reported_clean(capsys, library, arxiv, tmp_path, as_json):
    """C1 controls (U+009B is CSI, U+009D OSC) and bidi overrides pass the file's control-character
    check; the report shows keys, titles and reasons cleaned as feed text is."""
    path = tmp_path / "c1.bib"
    path.write_text(
        "@article{k\u009b2J\u202e, title={T\u009d0;PWN\u009c \u202eevil}, journal={J}}\n@misc{cut\u009b31m, title={Cut", encoding="utf-8"
    )
    code, out, err = run(capsys, "import", str(path), *(["--json"] if as_json else []))
    assert code == 0, err
    assert not any(ch in out + err for ch in "\u009b\u009c\u009d\u202e")
    if as_json:
        result = json.loads(out)
        assert [(row["key"], row["title"]) for row in result["unmatched"]] == [("k2J", "T0;PWN evil")]
        assert [(row["key"], row["line"]) for row in result["broken"]] == [("cut31m", 2)]
    else:
        assert out.splitlines()[1].startswith("k2J\tT0;PWN evil\t") and "@misc{cut31m starting on line 2" in out


@pytest.mark.parametrize("as_json", [False, True])
def test_csl_json_with_lone_surrogates_is_reported_without_a_traceback(capsys, library, arxiv, tmp_path, as_json):
    """JSON may escape half a surrogate pair (\\ud800): no UTF-8 output can print it."""
    path = tmp_path / "lone.json"
    path.write_text('[{"id": "\\ud800", "title": "\\udfff x", "author": [{"family": "\\udc00"}]}]')
    code, out, err = run(capsys, "import", str(path), *(["--json"] if as_json else []))
    assert code == 0, err
    if as_json:
        assert json.loads(out)["unmatched"][0] | {"reason": ""} == {"key": "\ufffd", "title": "\ufffd x", "reason": ""}
    else:
        assert out.splitlines()[1].startswith("\ufffd\t\ufffd x\t")


def test_arxiv_unreachable_applies_the_cached_papers_and_lists_the_rest_as_not_fetched(capsys, library, monkeypatch):
    monkeypatch.setenv("READER_ARXIV_DELAY", "0")
    monkeypatch.setenv("READER_ARXIV_RETRIES", "1")
    monkeypatch.setenv("READER_ARXIV_BACKOFF", "0.01")  # the suite's default arXiv: a closed port
    code, out, err = run(capsys, "import", str(FIXTURES / "arxiv.bib"))
    assert code == 1
    assert "2 entries: 1 matched, 0 fetched from arXiv, 0 not found, 1 not fetched" in out
    assert out.splitlines()[-1].startswith("arXiv stopped answering: 0 papers fetched from arXiv and kept, 1 starred, 1 not fetched")
    assert out.splitlines()[-1].endswith("run it again to finish (it asks arXiv only for what is missing)")
    assert "kaplan2026scalinglawsneurallanguage\tScaling Laws for Neural Language Models\tnot fetched: " in out
    assert library.marks().starred == {"2611.01003"}
    assert "Traceback" not in err


def test_search_titles_asks_arxiv_for_an_exact_title(capsys, library, arxiv, tmp_path):
    path = tmp_path / "titles.bib"
    path.write_text(
        "@article{k, title={Scaling laws for neural language models}, author={Kaplan, Jared}}\n"
        "@article{other, title={Scaling laws for neural language models}, author={Smith, John}}\n"
    )
    arxiv.queries['ti:"scaling laws for neural language models"'] = [
        ON_ARXIV_ONLY,
        replace(ON_ARXIV_ONLY, id="2612.02002", title="Scaling Laws for Neural Language Models Revisited"),
    ]
    code, result, err = imported(capsys, str(path), "--search-titles")
    assert code == 0, err
    assert by_key(result) == {"k": "2612.02001", "other": "no arXiv paper has exactly this title and one of its authors"}
    assert result["fetched"] == ["2612.02001"]
    assert library.marks().starred == {"2612.02001"}
    requests = len(arxiv.requests)
    code, result, _ = imported(capsys, str(path))  # now cached: found by its title, no request
    assert by_key(result)["k"] == "2612.02001" and len(arxiv.requests) == requests
