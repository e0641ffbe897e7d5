"""Writing onto a file that holds entries reader did not write (or ones changed since) never drops
them without being told to: `reader export -o` refuses, `--update` keeps them, `--force` replaces."""

from __future__ import annotations

import json

import pytest

from reader.core import bibfile
from tests.conftest import run
from tests.helpers.export_cli import entries
from tests.helpers.export_ownership import BOOK, edited


def test_export_onto_a_bib_with_the_users_entries_refuses_and_update_or_force_say_what_happens(capsys, cached, tmp_path):  # noqa: F811
    run(capsys, "star", *cached[:6])
    bib = tmp_path / "refs.bib"
    code, _, err = run(capsys, "export", "--starred", "-o", str(bib))
    assert code == 0 and err == f"wrote 6 entries to {bib} as BibTeX\n"
    code, _, err = run(capsys, "export", "--starred", "-o", str(bib))  # only reader's entries: written as today
    assert code == 0 and err == f"wrote 6 entries to {bib} as BibTeX\n"

    mine = edited(bib.read_text(), cached[2]) + "\n" + BOOK
    bib.write_text(mine)
    code, out, err = run(capsys, "export", "--starred", "-o", str(bib))
    assert code == 1 and out == ""
    assert err == (
        f"reader: error: {bib}: 7 entries, 2 not from reader (yours, or changed since reader wrote them): "
        f"nothing written; --update {bib} adds to it, keeping every entry; --force replaces it, dropping them\n"
    )
    assert bib.read_text() == mine

    code, _, err = run(capsys, "export", "--starred", "--update", str(bib))  # what the refusal says
    assert code == 0 and "added 0 entries, 6 already there" in err and bib.read_text() == mine

    code, _, err = run(capsys, "export", "--starred", "-o", str(bib), "--force")
    assert code == 0 and err == f"wrote 6 entries to {bib} as BibTeX\n"
    parsed = bibfile.parse(bib.read_text())
    assert [e.kind for e in parsed] == ["misc"] * 6 and "Fixed by hand" not in bib.read_text()


def test_a_tag_added_after_the_export_is_no_edit_of_the_user(capsys, cached, tmp_path):  # noqa: F811
    """The file's entries are reader's as it wrote them, whatever changed in the library since."""
    run(capsys, "star", *cached[:3])
    bib = tmp_path / "refs.bib"
    assert run(capsys, "export", "--starred", "-o", str(bib))[0] == 0
    assert run(capsys, "tag", cached[0], "--add", "to-read")[0] == 0
    run(capsys, "unstar", cached[1])
    code, _, err = run(capsys, "export", "--starred", "-o", str(bib))
    assert code == 0, err
    assert sorted(entries(bib.read_text())) == sorted([cached[0], cached[2]]) and "keywords = {to-read}" in bib.read_text()


def test_an_entry_appended_by_update_is_reader_s(capsys, cached, tmp_path):  # noqa: F811
    bib = tmp_path / "refs.bib"
    bib.write_text(BOOK)
    assert run(capsys, "export", "--update", str(bib), cached[0])[0] == 0
    code, _, err = run(capsys, "export", cached[1], "-o", str(bib))
    assert code == 1 and f"{bib}: 2 entries, 1 not from reader" in err  # the book only


@pytest.mark.parametrize("name", ["refs.ris", "refs.json"])
def test_ris_and_csl_json_keep_a_record_reader_did_not_write(capsys, cached, tmp_path, name):  # noqa: F811
    target = tmp_path / name
    assert run(capsys, "export", *cached[:2], "-o", str(target))[0] == 0
    if name.endswith(".ris"):
        mine = target.read_text() + "\nTY  - BOOK\nTI  - Reinforcement Learning\nER  - \n"
    else:
        mine = json.dumps([*json.loads(target.read_text()), {"id": "sutton2018", "type": "book", "title": "RL"}], indent=2)
    target.write_text(mine)
    code, _, err = run(capsys, "export", *cached[:2], "-o", str(target))
    assert code == 1 and err.startswith(f"reader: error: {target}: 3 entries, 1 not from reader") and err.count("\n") == 1
    assert "--update" not in err and "--force replaces it" in err
    assert target.read_text() == mine
    assert run(capsys, "export", *cached[:2], "-o", str(target), "--force")[0] == 0
    assert "sutton2018" not in target.read_text() and "Reinforcement Learning" not in target.read_text()


def test_a_file_of_other_text_is_not_overwritten(capsys, cached, tmp_path):  # noqa: F811
    notes = tmp_path / "notes.bib"
    notes.write_text("my notes, not BibTeX at all\n")
    code, _, err = run(capsys, "export", cached[0], "-o", str(notes))
    assert code == 1 and "1 entry, 1 not from reader" in err
    assert notes.read_text() == "my notes, not BibTeX at all\n"
    empty = tmp_path / "empty.bib"
    empty.write_text("\n")
    assert run(capsys, "export", cached[0], "-o", str(empty))[0] == 0 and entries(empty.read_text()) == [cached[0]]


@pytest.mark.parametrize("name", ["week.md", "week.html"])
def test_digest_replaces_a_digest_but_not_another_file(capsys, cached, tmp_path, name):  # noqa: F811
    target = tmp_path / name
    assert run(capsys, "digest", "--topic", "Agents", "-o", str(target))[0] == 0
    code, _, err = run(capsys, "digest", "--topic", "Agents", "-o", str(target))  # yesterday's digest: replaced
    assert code == 0, err
    target.write_text("# Reading notes\n\nMy own thoughts on this week's papers.\n")
    code, out, err = run(capsys, "digest", "--topic", "Agents", "-o", str(target))
    assert code == 1 and out == ""
    assert err == f"reader: error: {target} is not a digest reader wrote: nothing written; --force replaces it, dropping its text\n"
    assert target.read_text().startswith("# Reading notes")
    assert run(capsys, "digest", "--topic", "Agents", "-o", str(target), "--force")[0] == 0
    assert "arXiv digest" in target.read_text()


def test_what_counts_as_reader_s_entry():
    from reader.core.ownership import fingerprints, holdings

    written = "@misc{a,\n  title = {A},\n}\n\n@misc{b,\n  title = {B},\n}\n"
    known = set(fingerprints("bibtex", written))
    assert holdings("bibtex", written.replace("\n", "\r\n"), known) == holdings("bibtex", written, known)  # line ends aside
    assert holdings("bibtex", written.replace("{A},", "{A},  "), known).foreign == 0  # trailing blanks aside
    commented = written.replace("\n\n@misc{b", "\n% read this one first\n\n@misc{b")
    assert holdings("bibtex", commented, known).foreign == 1  # text between entries is the user's
    assert holdings("bibtex", "Just my notes\n" + written, known).entries == 3

    items = [{"id": "a", "title": "A"}, {"id": "b", "title": "B"}]
    known = set(fingerprints("csl-json", json.dumps(items, indent=2)))
    assert holdings("csl-json", json.dumps(items), known).foreign == 0  # formatting aside
    assert holdings("csl-json", json.dumps([items[0], {"id": "b", "title": "B!"}]), known).foreign == 1
    assert holdings("csl-json", "not JSON", known).foreign == 1 and holdings("csl-json", "[]", known).entries == 0


def test_a_pipe_in_place_of_the_record_of_written_entries_never_hangs_an_export(capsys, cached, tmp_path, data_dir):  # noqa: F811
    """written.json is read like every state file: a pipe there is no record (reader's entries are
    then seen as the user's, which keeps them), and the export writes a new record in its place."""
    import os

    os.mkfifo(data_dir / "written.json")
    bib = tmp_path / "refs.bib"
    code, _, err = run(capsys, "export", *cached[:2], "-o", str(bib))
    assert code == 0 and err == f"wrote 2 entries to {bib} as BibTeX\n"
    assert (data_dir / "written.json").is_file() and len(json.loads((data_dir / "written.json").read_text())["fingerprints"]) == 2
