"""The command line, end to end, against a loopback arXiv."""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
from importlib import import_module

import pytest

from reader.cli import build_parser, command_word
from reader.commands import AREAS
from tests.conftest import run
from tests.corpus import recent_papers
from tests.helpers.cli import synced

JSON_KEYS = {
    "id",
    "version",
    "title",
    "abstract",
    "authors",
    "categories",
    "primary_category",
    "published",
    "updated",
    "comment",
    "journal_ref",
    "doi",
    "topics",
    "read",
    "read_version",
    "starred",
    "hidden",
    "tags",
    "note",
}


def test_first_run_has_example_topics(capsys):
    code, out, _ = run(capsys, "topics", "list")
    assert code == 0
    assert "RL for LLM Agents" in out


def test_sync_list_star_and_momentum(capsys, arxiv_env):
    code, out, err = synced(capsys, arxiv_env)
    assert code == 0, err
    assert "Agents: 30 new, 0 updated" in out
    assert "synced 1 of 1 topics: 30 new, 0 updated" in out

    code, out, _ = run(capsys, "list", "--json", "--limit", "5")
    rows = json.loads(out)
    assert len(rows) == 5 and set(rows[0]) == JSON_KEYS
    assert rows[0]["published"] >= rows[-1]["published"]
    assert rows[0]["topics"] == ["Agents"] and rows[0]["starred"] is False
    first = rows[0]["id"]

    assert run(capsys, "star", first, f"{rows[1]['id']}v1")[0] == 0
    assert run(capsys, "read", first)[0] == 0
    code, out, _ = run(capsys, "list", "--starred", "--json")
    assert {r["id"] for r in json.loads(out)} == {first, rows[1]["id"]}
    code, out, _ = run(capsys, "list", "--unread", "--json")
    assert first not in {r["id"] for r in json.loads(out)} and len(json.loads(out)) == 29
    assert run(capsys, "unstar", first)[0] == 0
    code, out, _ = run(capsys, "list", "--starred", "--json")
    assert [r["id"] for r in json.loads(out)] == [rows[1]["id"]]

    code, out, _ = run(capsys, "momentum", "--topic", "Agents", "--json")
    data = json.loads(out)
    assert set(data) == {"topic", "as_of", "covered_since", "weeks", "last4", "prev4", "change_pct", "share_pct", "total_new_last4"}
    assert data["covered_since"] == "2026-08-12"  # the 16-week horizon, synced whole
    assert data["as_of"] == "2026-12-02" and len(data["weeks"]) == 12
    assert data["last4"] == 30 and data["prev4"] == 0 and data["change_pct"] is None
    assert data["total_new_last4"] == 20000 and data["share_pct"] == 0.15
    assert data["weeks"][-1] == {"start": "2026-11-30", "count": 15, "covered": True}


def test_list_query_filters(capsys, arxiv_env):
    synced(capsys, arxiv_env)
    code, out, _ = run(capsys, "list", "--query", "ti:testing", "--json")
    rows = json.loads(out)
    assert rows and all("test" in r["title"].lower() for r in rows)  # testing, tests, tested: as arXiv's search
    assert any("testing" not in r["title"].lower() for r in rows)  # an inflection matched too
    code, out, err = run(capsys, "list", "--query", "ti:(a b)")
    assert code == 1 and "invalid query" in err and "ti:a OR ti:b" in err


def test_list_help_explains_the_marks_a_line_shows(capsys, arxiv_env):
    synced(capsys, arxiv_env)
    papers = json.loads(run(capsys, "list", "--json", "--limit", "2")[1])
    run(capsys, "star", papers[0]["id"])
    run(capsys, "read", papers[1]["id"])
    lines = run(capsys, "list", "--limit", "2")[1].splitlines()
    assert f"  *N  {papers[0]['id']}v" in lines[0] and f"      {papers[1]['id']}v" in lines[2]
    code, out, _ = run(capsys, "list", "--help")
    assert code == 0 and "Marks: * starred, N not read yet; blank: not starred, read." in " ".join(out.split())


def test_lower_case_operators_are_said_once_and_the_query_kept(capsys, arxiv_env):
    synced(capsys, arxiv_env)
    note = 'reader: note: "and" is searched as a word: operators are AND, OR, ANDNOT in capitals\n'
    code, out, err = run(capsys, "list", "--query", "ti:testing and agents and ti:testing", "--json")
    assert code == 0 and err == note  # once, however often it appears
    assert json.loads(out) and out == run(capsys, "list", "--query", 'ti:testing AND all:"and" AND agents', "--json")[1]
    code, _, err = run(capsys, "export", "--query", "testing or agents", "--topic", "Agents")
    assert code == 0 and err.startswith('reader: note: "or" is searched as a word: ')
    code, _, err = run(capsys, "list", "--query", 'ti:testing AND "tools and agents"')
    assert code == 0 and "note" not in err  # a phrase's words are meant
    code, _, err = run(capsys, "topics", "add", "Bad", "ti:quantum and ti:monte")  # arXiv syntax: refused
    assert code == 1 and "two terms need an operator between them: AND, OR or ANDNOT, in capitals" in err
    assert err.count("\n") == 1


@pytest.mark.parametrize("filters", [(), ("--topic", "b"), ("--unread",), ("--starred",), ("--hidden",), ("--topic", "A", "--unread")])
def test_list_query_lines_hold_the_papers_of_its_json(capsys, data_dir, filters):
    """The lines come from the index's order alone (Store.index_order) and the search index's
    cards; --json from the whole index and the records: the same papers, in the same order."""
    from reader.store import Store

    store = Store(data_dir)
    papers = recent_papers(60)
    store.add_topic("A", "ti:a")
    store.add_topic("B", "ti:b")
    store.save_papers(papers[:40], "A")
    store.save_papers(papers[25:], "B")
    ids = [p.id for p in papers]
    store.set_marks(ids[::3], read=True)
    store.set_marks(ids[::4], starred=True)
    store.set_marks(ids[::5], hidden=True)
    shown = 0
    for query in ("cat:cs", "learning", "ti:agent ANDNOT cat:cs.LG"):
        code, out, _ = run(capsys, "list", "--query", query, "--limit", "12", *filters)
        listed = re.findall(r"^\S+  ..  (\S+)v\d+  \[", out, flags=re.MULTILINE)
        assert code == 0 and len(listed) == len(out.splitlines()) // 2
        code, out, _ = run(capsys, "list", "--query", query, "--limit", "12", *filters, "--json")
        assert code == 0 and listed == [row["id"] for row in json.loads(out)]
        shown += len(listed)
    assert shown


@pytest.mark.parametrize(
    "args, message",
    [
        (("topics", "add", "Bad", "ti:a b"), "need an operator"),
        (("list", "--topic", "Nope"), "no topic named 'Nope'"),
        (("star", "not-an-id"), "is not an arXiv id"),
        (("star", "2609.99999"), "not in the cache: 2609.99999 (`reader add 2609.99999` fetches it from arXiv; nothing was changed)"),
        (("momentum", "--as-of", "2026-13-01"), "--as-of='2026-13-01' is not a date"),
        (("topics", "remove", "Nope"), "no topic named 'Nope'"),
        (("sync", "--topic", "Nope"), "no topic named 'Nope'"),
    ],
)
def test_bad_input_is_one_line_and_changes_nothing(capsys, args, message):
    before = run(capsys, "topics", "list")[1]
    code, _out, err = run(capsys, *args)
    assert code == 1
    assert message in err and err.startswith("reader: error: ") and err.count("\n") == 1
    assert "Traceback" not in err
    assert run(capsys, "topics", "list")[1] == before


def test_sync_failure_exits_non_zero_with_arxivs_message(capsys, arxiv_env):
    run(capsys, "topics", "add", "Broken", "ti:unknown")
    code, out, _err = run(capsys, "sync", "--topic", "Broken")
    assert code == 1
    # arXiv echoes the query as sent: the topic's, within the sync's window of submission dates
    assert "Broken: 0 new, 0 updated (0 fetched) - FAILED: arXiv says: Invalid query string: '(ti:unknown) AND submittedDate:[" in out


def test_installed_command_with_invalid_environment(tmp_path):
    env = {**os.environ, "READER_DATA_DIR": str(tmp_path / "d"), "READER_ARXIV_DELAY": "soon"}
    result = subprocess.run([sys.executable, "-m", "reader", "topics", "list"], env=env, capture_output=True, text=True, check=False)
    assert result.returncode == 1
    assert result.stderr == "reader: error: READER_ARXIV_DELAY='soon' is not a number (allowed: a number from 0 to 600 seconds)\n"
    result = subprocess.run([sys.executable, "-m", "reader", "sync", "--help"], env=env, capture_output=True, text=True, check=False)
    assert result.returncode == 0 and "--topic NAME" in result.stdout


def test_export_starred_to_a_file_and_stdout(capsys, arxiv_env, tmp_path):
    synced(capsys, arxiv_env)
    rows = json.loads(run(capsys, "list", "--json", "--limit", "3")[1])
    run(capsys, "star", *[r["id"] for r in rows])
    target = tmp_path / "starred.bib"
    code, out, err = run(capsys, "export", "--starred", "-o", str(target))
    assert code == 0 and "wrote 3 entries" in err
    text = target.read_text()
    assert text.count("@misc{") == 3
    assert all(f"eprint = {{{r['id']}}}" in text for r in rows)
    code, out, _ = run(capsys, "export", "--starred")
    assert out == text


def test_export_to_an_unwritable_path_is_a_clear_error(capsys, arxiv_env, tmp_path):
    synced(capsys, arxiv_env)
    code, out, err = run(capsys, "export", "--topic", "Agents", "-o", str(tmp_path / "no" / "such" / "dir.bib"))
    assert code == 1 and err.startswith("reader: error: -o ") and "does not exist" in err and err.count("\n") == 1
    assert not (tmp_path / "no").exists()
    code, out, err = run(capsys, "export", "--topic", "Agents", "-o", "/proc/agents.bib")  # a folder that takes no file
    assert code == 1 and "Cannot write in the folder /proc" in err and err.count("\n") == 1
    code, _out, err = run(capsys, "export")
    assert code == 1 and "say what to export" in err


def test_ids_in_every_pasted_form(capsys, arxiv_env):
    synced(capsys, arxiv_env)
    rows = json.loads(run(capsys, "list", "--json", "--limit", "4")[1])
    ids = [r["id"] for r in rows]
    forms = [
        f"arXiv:{ids[0]}",
        f"https://arxiv.org/abs/{ids[1]}v{rows[1]['version']}",
        f"arxiv.org/pdf/{ids[2]}v1.pdf",
        f"https://doi.org/10.48550/arXiv.{ids[3]}",
    ]
    code, out, err = run(capsys, "star", *forms)
    assert code == 0, err
    assert out == "star: 4 papers\n"
    starred = json.loads(run(capsys, "list", "--starred", "--json")[1])
    assert {r["id"] for r in starred} == set(ids)


def test_a_version_the_cache_does_not_have_is_refused(capsys, arxiv_env):
    synced(capsys, arxiv_env)
    row = json.loads(run(capsys, "list", "--json", "--limit", "1")[1])[0]
    too_new = f"{row['id']}v{row['version'] + 7}"
    code, _out, err = run(capsys, "read", too_new)
    assert code == 1
    assert err == (
        f"reader: error: {too_new} does not exist in the cache: it has v{row['version']} "
        f"(`reader add {too_new}` fetches arXiv's newest; nothing was changed)\n"
    )
    assert not json.loads(run(capsys, "list", "--json", "--limit", "1")[1])[0]["read"]


@pytest.mark.parametrize(
    "args, message",
    [
        (("topics", "add", "X", "ti:quantum AND"), "the query ends where a term was expected (at column 15, the end of the query)"),
        (("topics", "add", "X", "ti:a OR OR ti:b"), "(at column 9: 'OR ti:b')"),
        (
            ("list", "--query", "ti:("),
            "invalid query 'ti:(': ti:( ... ) is not arXiv syntax: write (ti:a OR ti:b) instead (at column 1: 'ti:(')",
        ),
        (("topics", "add", "\udcff", "ti:x"), "'\ufffd' is not valid UTF-8 text"),
        (("list", "--query", "caf\udce9"), "'caf\ufffd' is not valid UTF-8 text"),
        (("topics", "add", "a\x1b[2Jb", "ti:x"), "cannot contain control characters"),
        (("momentum", "--as-of", "0001-01-01"), "--as-of='0001-01-01' is out of range"),
        (("--data-dir", "", "topics"), "--data-dir='' is not a path"),
        (("star", "https://example.org/abs/2609.12345"), "is not an arXiv id"),
        (("star", "2609.12345v0"), "arXiv versions start at v1"),
        (("list", "--limit", "0"), "argument --limit: must be at least 1 (see `reader list --help`)"),
        (("list", "--bogus"), "unrecognized arguments: --bogus (see `reader list --help`)"),
        (("topics", "add", "a", "ti:a", "extra"), "unrecognized arguments: extra (see `reader topics add --help`)"),
        (("--bogus", "list"), "unrecognized arguments: --bogus (see `reader --help`)"),
        (("frobnicate",), "invalid choice: 'frobnicate'"),
    ],
)
def test_hostile_arguments_get_one_line_and_exit_1(capsys, args, message):
    code, _out, err = run(capsys, *args)
    assert code == 1
    assert err.startswith("reader: error: ") and err.count("\n") == 1 and message in err, err
    assert "Traceback" not in err and "usage:" not in err


@pytest.mark.parametrize(
    "args, message",
    [
        (("topic", "list"), "argument COMMAND: invalid choice: 'topic' (did you mean topics?) (choose from sync, topics, list, "),
        (("topics", "lsit"), "invalid choice: 'lsit' (did you mean list?) (choose from list, add, remove) (see `reader topics --help`)"),
        (("list", "--stared"), "unrecognized arguments: --stared (did you mean --starred?) (see `reader list --help`)"),
        (("list", "--limt=3"), "unrecognized arguments: --limt=3 (did you mean --limit?) (see `reader list --help`)"),
        (("export", "--format", "bibtexx"), "invalid choice: 'bibtexx' (did you mean bibtex?) (choose from bibtex, ris, csl-json)"),
        (("frobnicate",), "invalid choice: 'frobnicate' (choose from sync, topics, "),  # nothing near: no guess
    ],
)
def test_a_typo_names_the_nearest_command_option_or_choice(capsys, args, message):
    code, _out, err = run(capsys, *args)
    assert code == 1 and err.count("\n") == 1 and message in err, err
    assert "__complete" not in err and "'sync'" not in err  # the completion helper stays hidden; names as typed


def test_a_folder_of_other_files_is_refused_as_data_directory(capsys, tmp_path):
    (tmp_path / "thesis.tex").write_text("mine")
    code, _out, err = run(capsys, "--data-dir", str(tmp_path), "topics", "list")
    assert code == 1 and "is not a reader data directory" in err
    assert [p.name for p in tmp_path.iterdir()] == ["thesis.tex"]


def test_help_says_what_each_option_does_and_where_the_data_lives(tmp_path):
    env = {**os.environ, "READER_DATA_DIR": str(tmp_path / "here")}
    shown = subprocess.run([sys.executable, "-m", "reader", "--help"], env=env, capture_output=True, text=True, check=False).stdout
    assert f"{tmp_path / 'here'},from$READER_DATA_DIR" in "".join(shown.split())  # help wraps at - too
    env.pop("READER_DATA_DIR")
    shown = subprocess.run([sys.executable, "-m", "reader", "--help"], env=env, capture_output=True, text=True, check=False).stdout
    from reader.config import default_data_dir

    assert f"(default:{default_data_dir()})" in "".join(shown.split())
    listing = subprocess.run(
        [sys.executable, "-m", "reader", "list", "--help"], env=env, capture_output=True, text=True, check=False
    ).stdout
    for option in ("--topic NAME", "--limit N", "--json"):
        line = next(line for line in listing.splitlines() if line.strip().startswith(option))
        assert len(line.strip()) > len(option) + 5, line  # followed by its help text


def _helps(parser: argparse.ArgumentParser, path: str = "") -> dict[str, str]:
    """Every parser's help under `parser` (commands, their actions), by the words that reach it."""
    helps = {path: parser.format_help()}
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                helps.update(_helps(sub, f"{path} {name}".strip()))
    return helps


def test_the_table_of_commands_names_what_each_area_registers_in_the_order_of_the_help():
    """reader/commands' AREAS says which module registers each command (a command run imports
    that module alone): it names every command its module registers, and the help's order."""
    for name, commands in AREAS:
        subparsers = argparse.ArgumentParser().add_subparsers()
        import_module(f"reader.commands.{name}").register(subparsers)
        assert tuple(subparsers.choices) == commands, name
    listed = next(action for action in build_parser()._actions if isinstance(action, argparse._SubParsersAction))
    assert list(listed.choices) == [command for _, commands in AREAS for command in commands]


def test_a_command_run_imports_only_its_own_area_of_the_commands():
    """`reader star` imported the modules of every command (full texts, import, export...): ~40
    ms of each start. The help still imports them all."""
    loaded = (
        "import sys; from reader.cli import build_parser; build_parser(sys.argv[1]);"
        "print(' '.join(sorted(m.rpartition('.')[2] for m in sys.modules if m.startswith('reader.commands.'))))"
    )
    star = subprocess.run([sys.executable, "-c", loaded, "star"], capture_output=True, text=True, check=True).stdout.split()
    assert "marks" in star and not {"text", "importing", "export", "figures", "meaning", "listing", "tags_notes"} & set(star)
    assert (
        "difflib"
        not in subprocess.run(
            [sys.executable, "-c", "import sys, reader.cli; print(' '.join(sys.modules))"], capture_output=True, text=True, check=True
        ).stdout.split()
    )  # (only a mistyped word needs it)
    every = subprocess.run([sys.executable, "-c", loaded, "--help"], capture_output=True, text=True, check=True).stdout.split()
    assert set(every) >= {name for name, _ in AREAS}


def test_the_app_is_opened_without_building_or_importing_any_command(capsys):
    """`reader` (with only its top options) builds no command's parser on the way to the app's
    first paint; anything else (a help, an abbreviation, a stray word) gets the whole line."""
    opens = (
        "import sys; from reader.cli import parser_for; parser = parser_for(sys.argv[1:]);"
        "print(len(parser._subparsers._group_actions[0].choices), *sorted(m for m in sys.modules if m.startswith('reader.commands.')))"
    )
    for argv in ([], ["--data-dir", "x", "-vv"], ["--data-dir=x", "--verbose"]):
        shown = subprocess.run([sys.executable, "-c", opens, *argv], capture_output=True, text=True, check=True).stdout.split()
        assert shown[0] == "0" and set(shown[1:]) <= {"reader.commands.common", "reader.commands.app"}, argv
    for argv in (["--he"], ["--verb"], ["--"], ["stra"], ["--data-dir", "x", "--bogus"]):
        shown = subprocess.run([sys.executable, "-c", opens, *argv], capture_output=True, text=True, check=True).stdout.split()
        assert int(shown[0]) > 30, argv
    code, out, err = run(capsys, "--data-dir")  # (the value missing: said as before)
    assert code == 1 and out == "" and err == "reader: error: argument --data-dir: expected one argument (see `reader --help`)\n"


def test_a_command_run_builds_only_its_own_parser_with_the_same_arguments_and_help():
    whole = _helps(build_parser())
    commands = sorted({path.split()[0] for path in whole if path and not path.startswith("__")})
    assert len(commands) > 20
    for command in commands:
        alone = _helps(build_parser(command))
        assert {path.split()[0] for path in alone if path} == {command}
        assert {path: text for path, text in alone.items() if path} == {
            path: text for path, text in whole.items() if path.split()[:1] == [command]
        }
    assert set(_helps(build_parser("refz"))) == set(whole)  # not a command: the whole line says so
    assert [command_word(argv) for argv in (["--data-dir", "x", "-v", "refs", "1"], ["-h", "refs"], ["--data-dir=x"], [])] == [
        "refs",
        None,
        None,
        None,
    ]
