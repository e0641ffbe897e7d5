"""A user's own file keeps what it was: mode, links, hard links; `--update` never adds twice."""

from __future__ import annotations

import json
import os
import stat

import pytest

from reader.safe_files import FileWriteError, write_user_file
from tests.conftest import run
from tests.helpers.export_cli import entries


def mode(path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


def onto(how: str, path) -> list[str]:
    """The options that write onto a file holding the user's text: `-o` replaces it only with `--force`."""
    return [how, str(path), *(["--force"] if how == "-o" else [])]


@pytest.mark.parametrize("how", ["-o", "--update"])
def test_an_export_keeps_the_files_mode(capsys, cached, tmp_path, how):  # noqa: F811
    bib = tmp_path / "private.bib"
    bib.write_text("% my references\n")
    bib.chmod(0o600)
    code, _, err = run(capsys, "export", *onto(how, bib), *cached[:2])
    assert code == 0, err
    assert mode(bib) == 0o600
    assert sorted(entries(bib.read_text())) == sorted(cached[:2])


@pytest.mark.parametrize("how", ["-o", "--update"])
def test_a_symlink_stays_a_link_and_its_target_is_written(capsys, cached, tmp_path, how):  # noqa: F811
    target = tmp_path / "library" / "refs.bib"
    target.parent.mkdir()
    target.write_text("")
    target.chmod(0o640)
    link = tmp_path / "refs.bib"
    link.symlink_to(target)
    code, _, err = run(capsys, "export", how, str(link), cached[0])
    assert code == 0, err
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert entries(target.read_text()) == [cached[0]] and mode(target) == 0o640
    assert [p.name for p in target.parent.iterdir()] == ["refs.bib"]  # no temporary file left


@pytest.mark.parametrize("target_name", ["passwd", "notes.txt", "missing.bib"])
def test_update_through_a_link_to_anything_but_a_bib_file_is_refused(capsys, cached, tmp_path, target_name):  # noqa: F811
    folder = tmp_path / "files"
    folder.mkdir()
    secret = folder / target_name
    if target_name != "missing.bib":
        secret.write_text("root:x:0:0:root:/root:/bin/bash\n")
        secret.chmod(0o600)
    link = folder / "refs.bib"
    link.symlink_to(secret)
    before = {p.name: (p.read_bytes() if p.exists() else None) for p in folder.iterdir()}
    code, out, err = run(capsys, "export", "--update", str(link), cached[0])
    assert code == 1 and out == ""
    assert "not a .bib file" in err and err.count("\n") == 1 and "Traceback" not in err
    assert link.is_symlink()
    assert {p.name: (p.read_bytes() if p.exists() else None) for p in folder.iterdir()} == before


@pytest.mark.parametrize("how", ["-o", "--update"])
def test_a_hard_link_is_written_in_place_never_split(capsys, cached, tmp_path, how):  # noqa: F811
    bib = tmp_path / "refs.bib"
    bib.write_text("@misc{mine, title = {Mine}}\n")
    other = tmp_path / "backup-name.bib"
    os.link(bib, other)
    code, _, err = run(capsys, "export", *onto(how, bib), cached[0])
    assert code == 0, err
    assert os.stat(bib).st_ino == os.stat(other).st_ino and os.stat(bib).st_nlink == 2
    assert other.read_text() == bib.read_text() and entries(other.read_text()) == [cached[0]]
    assert other.read_text().startswith("@misc{mine") == (how == "--update")


def test_update_refuses_a_file_whose_entry_never_closes(capsys, cached, tmp_path):  # noqa: F811
    bib = tmp_path / "refs.bib"
    original = b"@misc{done, title = {Done}}\n\n% a comment\n@article{broken,\n  title = {Never {closed},\n  year = 2020\n"
    bib.write_bytes(original)
    for _ in range(2):
        code, out, err = run(capsys, "export", "--update", str(bib), *cached[:2])
        assert code == 1 and out == ""
        assert err.count("\n") == 1 and "line 4" in err and "@article{broken" in err and "never closes" in err
        assert bib.read_bytes() == original


def test_a_device_or_a_link_loop_is_refused(capsys, cached, tmp_path):  # noqa: F811
    loop = tmp_path / "loop.bib"
    loop.symlink_to(loop)
    for target in (str(loop), "/dev/null"):
        code, _, err = run(capsys, "export", "-o", target, cached[0])
        assert code == 1 and err.count("\n") == 1, err
    assert os.path.exists("/dev/null") and stat.S_ISCHR(os.stat("/dev/null").st_mode)


def test_the_digest_keeps_the_files_mode(capsys, cached, tmp_path):  # noqa: F811
    digest = tmp_path / "week.md"
    digest.write_text("old\n")
    digest.chmod(0o604)
    code, _, err = run(capsys, "digest", *onto("-o", digest))
    assert code == 0, err
    assert mode(digest) == 0o604 and digest.read_text() != "old\n"


def test_a_failed_in_place_write_puts_the_old_bytes_back(tmp_path, monkeypatch):
    bib = tmp_path / "refs.bib"
    bib.write_bytes(b"old text\n")
    os.link(bib, tmp_path / "other.bib")
    real_fsync = os.fsync
    calls = []

    def failing_fsync(fd):
        calls.append(fd)
        if len(calls) == 1:
            raise OSError(28, "No space left on device")
        return real_fsync(fd)

    monkeypatch.setattr(os, "fsync", failing_fsync)
    with pytest.raises(FileWriteError, match="cannot write .*refs.bib: No space left on device"):
        write_user_file(bib, b"new and longer text\n")
    assert bib.read_bytes() == b"old text\n" and (tmp_path / "other.bib").read_bytes() == b"old text\n"


def test_csl_json_to_a_private_file(capsys, cached, tmp_path):  # noqa: F811
    out = tmp_path / "refs.json"
    out.write_text("[]")
    out.chmod(0o600)
    assert run(capsys, "export", "--format", "csl-json", "-o", str(out), cached[0])[0] == 0
    assert mode(out) == 0o600 and json.loads(out.read_text())[0]["number"] == f"arXiv:{cached[0]}"
