"""`reader export` end to end: selectors, formats, refused paths and `--update`."""

from __future__ import annotations

import json

import pytest

from tests.conftest import run
from tests.helpers.export_cli import entries


def test_ids_in_every_form_people_paste(capsys, cached):
    a, b, c = cached[:3]
    code, out, err = run(capsys, "export", a, f"arXiv:{b}", f"https://arxiv.org/abs/{c}v2")
    assert code == 0, err
    assert sorted(entries(out)) == sorted([a, b, c])
    code, _, err = run(capsys, "export", "not-an-id")
    assert code == 1 and err == (
        "reader: error: 'not-an-id' is not an arXiv id (like 2609.12345, 2609.12345v2, arXiv:2609.12345, "
        "hep-th/9901001 or an arxiv.org/abs/ link)\n"
    )
    code, _, err = run(capsys, "export", "2001.00001")
    assert code == 1 and "not in the cache: 2001.00001" in err and err.count("\n") == 1


def test_selectors_combine_with_and(capsys, cached):
    run(capsys, "star", *cached[:2])
    _, out, _ = run(capsys, "export", "--starred", cached[0], cached[3])
    assert entries(out) == [cached[0]]  # cached[3] is not starred
    _, out, _ = run(capsys, "export", "--starred", "--topic", "Agents")
    assert sorted(entries(out)) == sorted(cached[:2])
    newest, other = (json.loads(run(capsys, "list", "--json", "--limit", "2")[1])[i]["title"] for i in (0, 1))
    title_word = next(word for word in newest.split() if word.isalpha() and word.lower()[:4] not in other.lower())  # (stems too)
    _, out, _ = run(capsys, "export", "--topic", "Agents", "--query", f"ti:{title_word}", cached[0], cached[1])
    assert entries(out) == [cached[0]]


def test_formats(capsys, cached):
    import rispy

    code, out, _ = run(capsys, "export", "--format", "ris", *cached[:3])
    assert code == 0
    assert sorted(r["accession_number"] for r in rispy.loads(out)) == sorted(f"arXiv:{i}" for i in cached[:3])
    code, out, _ = run(capsys, "export", "--format", "csl-json", *cached[:3])
    assert sorted(item["number"] for item in json.loads(out)) == sorted(f"arXiv:{i}" for i in cached[:3])
    code, _, err = run(capsys, "export", "--format", "ris", "--unicode", cached[0])
    assert code == 1 and "--unicode is for BibTeX only" in err


def test_the_output_files_extension_chooses_the_format(capsys, cached, tmp_path):
    import jsonschema
    import rispy

    from tests.helpers.export import SCHEMA

    wanted = sorted(f"arXiv:{i}" for i in cached[:3])
    code, _, err = run(capsys, "export", *cached[:3], "-o", str(tmp_path / "refs.ris"))
    assert code == 0 and err == f"wrote 3 entries to {tmp_path / 'refs.ris'} as RIS\n"
    assert sorted(r["accession_number"] for r in rispy.loads((tmp_path / "refs.ris").read_text())) == wanted
    code, _, err = run(capsys, "export", *cached[:3], "-o", str(tmp_path / "refs.JSON"))  # any case
    assert code == 0 and err.endswith(" as CSL-JSON\n")
    items = json.loads((tmp_path / "refs.JSON").read_text())
    jsonschema.Draft7Validator(json.loads(SCHEMA.read_text())).validate(items)
    assert sorted(item["number"] for item in items) == wanted
    for name in ("refs.bib", "refs.txt", "refs"):  # .bib and any other name: BibTeX
        code, _, err = run(capsys, "export", *cached[:3], "-o", str(tmp_path / name))
        assert code == 0 and err.endswith(" as BibTeX\n"), name
        assert sorted(entries((tmp_path / name).read_text())) == sorted(cached[:3])
    code, out, _ = run(capsys, "export", *cached[:3], "-o", "-")  # standard output too
    assert sorted(entries(out)) == sorted(cached[:3])


def test_an_explicit_format_wins_over_the_extension_with_one_line_said(capsys, cached, tmp_path):
    import rispy

    target = tmp_path / "refs.bib"
    code, _, err = run(capsys, "export", "--format", "ris", cached[0], "-o", str(target))
    assert code == 0
    assert err == (f"reader: warning: {target} ends in .bib, but --format ris was given: writing RIS\nwrote 1 entry to {target} as RIS\n")
    assert [r["accession_number"] for r in rispy.loads(target.read_text())] == [f"arXiv:{cached[0]}"]
    code, _, err = run(capsys, "export", "--format", "ris", cached[0], "-o", str(tmp_path / "refs.ris"))
    assert code == 0 and "warning" not in err  # the extension agrees: nothing to say


@pytest.mark.parametrize("name", ["refs.ris", "refs.json", "REFS.RIS"])
def test_update_refuses_a_ris_or_json_file(capsys, cached, tmp_path, name):
    target = tmp_path / name
    target.write_text("TY  - GEN\nER  - \n")
    code, out, err = run(capsys, "export", "--update", str(target), cached[0])
    assert code == 1 and out == ""
    assert err.startswith(f"reader: error: --update {str(target)!r}: --update adds to a BibTeX file only") and err.count("\n") == 1
    assert target.read_text() == "TY  - GEN\nER  - \n"


@pytest.mark.parametrize("target", [".", "/", "", "{tmp}", "{tmp}/nodir/", "{tmp}/missing/x.bib"])
def test_an_output_that_is_no_file_is_refused(capsys, cached, tmp_path, target):
    target = target.format(tmp=tmp_path)
    before = sorted(tmp_path.iterdir())
    code, out, err = run(capsys, "export", cached[0], "-o", target)
    assert code == 1 and out == ""
    assert err.startswith("reader: error: -o ") and err.count("\n") == 1
    assert sorted(tmp_path.iterdir()) == before  # no file name invented, nothing written


USER_BIB = (
    "%% my own notes, kept as typed\r\n"
    '@string{jp = "J. Phys."}\r\n'
    "@article{knuth84, author = {Donald Knuth}, title = {Literate Programming}, journal = jp, year = 1984}\r\n"
    "@misc{myOwnKey,\r\n  title = {An exported paper, retitled by hand: caf\xe9},\r\n  eprint = {%s},\r\n}\r\n"
)


def test_update_keeps_the_users_file_byte_for_byte(capsys, cached, tmp_path):
    bib = tmp_path / "refs.bib"
    original = (USER_BIB % cached[0]).encode("latin-1")  # not UTF-8, and CRLF line ends
    bib.write_bytes(original)
    code, _, err = run(capsys, "export", "--update", str(bib), *cached[:3])
    assert code == 0, err
    assert "added 2 entries, 1 already there" in err
    updated = bib.read_bytes()
    assert updated.startswith(original)
    added = updated[len(original) :].decode("utf-8")
    assert sorted(entries(added.replace("\r\n", "\n"))) == sorted(cached[1:3])
    assert "\n" not in added.replace("\r\n", "")  # the file's own line ends
    assert "myOwnKey" not in added and cached[0] not in added

    # Again, with one more paper: the earlier ones keep their keys, nothing is rewritten.
    keys = {line for line in added.splitlines() if line.startswith("@misc{")}
    code, _, err = run(capsys, "export", "--update", str(bib), *cached[:4])
    assert "added 1 entry, 3 already there" in err
    again = bib.read_bytes()
    assert again.startswith(updated)
    assert not keys & {line for line in again[len(updated) :].decode().splitlines() if line.startswith("@misc{")}
    code, _, err = run(capsys, "export", "--update", str(bib), *cached[:4])
    assert bib.read_bytes() == again and "added 0 entries, 4 already there" in err


def test_update_options_are_checked(capsys, cached, tmp_path):
    code, _, err = run(capsys, "export", "--format", "ris", "--update", str(tmp_path / "x.bib"), cached[0])
    assert code == 1 and "--update is for BibTeX only" in err
    code, _, err = run(capsys, "export", "--update", str(tmp_path / "x.bib"), "-o", str(tmp_path / "y.bib"), cached[0])
    assert code == 1 and "leave out -o" in err
    code, _, err = run(capsys, "export", "--update", str(tmp_path), cached[0])
    assert code == 1 and "is a folder" in err
    new = tmp_path / "new.bib"
    code, _, err = run(capsys, "export", "--update", str(new), cached[0])  # a file not there yet is made
    assert code == 0 and entries(new.read_text()) == [cached[0]]


def test_tag_selects_and_tags_and_notes_reach_every_format(capsys, cached, tmp_path):
    import jsonschema
    import rispy

    from tests.helpers.export import SCHEMA

    a, b, c, d = cached[:4]
    run(capsys, "tag", a, b, c, "--add", "Reading group")
    run(capsys, "tag", b, "--add", "50% $\\input{/etc/passwd}$ done")
    run(capsys, "note", a, "--set", "Discuss §3\nER  - \nTY  - JOUR\n\t} @misc{x,")
    run(capsys, "star", b, c, d)

    _, out, _ = run(capsys, "export", "--tag", "reading GROUP")
    assert sorted(entries(out)) == sorted([a, b, c])
    _, out, _ = run(capsys, "export", "--tag", "reading group", "--starred", a, b)
    assert entries(out) == [b]  # every selector must hold
    assert "keywords = {50\\% \\$\\textbackslash{}input\\textbraceleft{}/etc/passwd\\textbraceright{}\\$ done, Reading group}" in out

    code, out, _ = run(capsys, "export", "--tag", "Reading group", "--format", "ris")
    assert code == 0
    records = {r["accession_number"]: r for r in rispy.loads(out)}
    assert len(records) == 3
    assert records[f"arXiv:{a}"]["keywords"][0] == "Reading group"
    assert records[f"arXiv:{a}"]["notes"][-1] == "Discuss §3 ER - TY - JOUR } @misc{x,"
    assert records[f"arXiv:{b}"]["keywords"][:2] == ["50% $\\input{/etc/passwd}$ done", "Reading group"]

    code, out, _ = run(capsys, "export", "--tag", "Reading group", "--format", "csl-json")
    items = json.loads(out)
    jsonschema.Draft7Validator(json.loads(SCHEMA.read_text())).validate(items)
    by_number = {item["number"]: item for item in items}
    assert by_number[f"arXiv:{a}"]["annote"] == "Discuss §3\nER -\nTY - JOUR\n} @misc{x,"
    assert by_number[f"arXiv:{a}"]["keyword"] == "Reading group" and "annote" not in by_number[f"arXiv:{c}"]

    bib = tmp_path / "refs.bib"
    bib.write_text("@misc{mine, title = {Mine}}\n")
    assert run(capsys, "export", "--update", str(bib), "--tag", "reading group")[0] == 0
    assert bib.read_text().count("keywords = {") == 3 and "annote = {Discuss \\S{}3" in bib.read_text()

    code, out, err = run(capsys, "export", "--tag", "nope")
    assert (
        code == 1
        and out == ""
        and err == "reader: error: no tag named 'nope' (tags: '50% $\\\\input{/etc/passwd}$ done', 'Reading group')\n"
    )
