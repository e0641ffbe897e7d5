"""Tags and notes: the store's API, their own mirrored file (safe as stars, never rewritten by a
star), and the `tag`, `tags`, `note` and `list --tag` commands."""

from __future__ import annotations

import json
import random
import subprocess
import sys

import pytest

from reader.errors import StoreError
from reader.service import View
from reader.store import Store
from reader.store.firstrun import ensure_example_topics
from reader.store.library_doc import LONGEST_NOTE
from tests.conftest import ROOT, run
from tests.helpers.kill import DAMAGE, kill_after
from tests.sample_papers import sample_papers


@pytest.fixture
def seeded(data_dir):
    store = Store(data_dir)
    store.add_topic("Kept", "ti:kept")
    ensure_example_topics(store)
    papers = sample_papers(12)
    store.save_papers(papers, "Kept")
    return store, [p.id for p in papers]


# --- the store -----------------------------------------------------------------------------------


def test_tags_compare_ignoring_case_and_keep_the_case_first_written(seeded):
    store, ids = seeded
    assert store.set_tags(ids[:2], add=["To read", "ML"]) == {ids[0]: ("ML", "To read"), ids[1]: ("ML", "To read")}
    store.set_tags([ids[2]], add=["to READ", "  agents   memory "])
    assert store.tags() == {"agents memory": 1, "ML": 2, "To read": 3}  # sorted by name, ignoring case
    assert store.tags_of([ids[2], ids[5]]) == {ids[2]: ("agents memory", "To read"), ids[5]: ()}
    assert store.tags_of() == {ids[0]: ("ML", "To read"), ids[1]: ("ML", "To read"), ids[2]: ("agents memory", "To read")}
    store.set_tags(ids[:3], remove=["AGENTS MEMORY", "to read"])
    assert store.tags() == {"ML": 2}  # a tag without papers is gone
    assert Store(store.data_dir).tags_of() == {ids[0]: ("ML",), ids[1]: ("ML",)}


def test_renaming_into_an_existing_tag_merges_and_deleting_keeps_the_papers(seeded):
    store, ids = seeded
    store.set_marks(ids[:2], starred=True)
    store.set_tags(ids[:2], add=["ml"])
    store.set_tags(ids[1:4], add=["Machine learning"])
    assert store.rename_tag("ML", "ML!") == "ML!"  # a new name, in the case given
    assert store.rename_tag("ml!", "MACHINE LEARNING") == "Machine learning"  # merged, the existing name kept
    assert store.tags() == {"Machine learning": 4}
    assert store.rename_tag("machine learning", "Machine Learning") == "Machine Learning"  # only the case changes
    assert store.delete_tag("machine LEARNING") == 4
    assert store.tags() == {} and store.tags_of(ids[:1]) == {ids[0]: ()}
    assert len(store.load_papers()) == len(ids) and store.marks().starred == set(ids[:2])
    with pytest.raises(StoreError, match="no tag named 'gone'"):
        store.delete_tag("gone")
    with pytest.raises(StoreError, match="no tag named 'gone'"):
        store.rename_tag("gone", "x")


@pytest.mark.parametrize(
    "name, problem",
    [
        ("", "needs a name"),
        ("red\x1b[31m", "control characters"),
        ("a, b", "comma"),
        ("x" * 61, "at most 60"),
        ("bidi\u202eevil", "control characters"),
        ("bad \udcff", "not valid Unicode"),
    ],
)
def test_bad_tag_names_are_refused_and_change_nothing(seeded, name, problem):
    store, ids = seeded
    store.set_tags(ids[:1], add=["kept"])
    before = (store.data_dir / "library.json").read_bytes()
    with pytest.raises(StoreError, match=problem):
        store.set_tags(ids[:2], add=["other", name])
    with pytest.raises(StoreError, match=problem):
        store.rename_tag("kept", name)
    assert (store.data_dir / "library.json").read_bytes() == before


def test_only_arxiv_ids_are_tagged_or_annotated(seeded):
    store, _ = seeded
    with pytest.raises(StoreError, match="not an arXiv id"):
        store.set_tags(["demo-1"], add=["x"])
    with pytest.raises(StoreError, match="not an arXiv id"):
        store.set_note("../../etc", "x")
    assert not (store.data_dir / "library.json").exists()


def test_notes_keep_lines_and_tabs_and_lose_terminal_controls(seeded):
    store, ids = seeded
    kept = store.set_note(ids[0], "# Title\r\n\n- item\twith tab\x1b]0;pwned\x07 \x1b[2J\u202e\x85end\r")
    assert kept == "# Title\n\n- item\twith tab]0;pwned [2Jend\n"
    assert store.note(ids[0]) == kept and store.note(ids[1]) == ""
    store.set_note(ids[1], "second")
    assert Store(store.data_dir).notes() == {ids[0]: kept, ids[1]: "second"}
    store.set_note(ids[0], " \n\t ")  # blank: no note
    assert store.notes() == {ids[1]: "second"}


def test_a_note_too_long_is_a_clear_error_and_keeps_the_old_note(seeded):
    store, ids = seeded
    store.set_note(ids[0], "short")
    with pytest.raises(StoreError, match=r"a note can be at most 100,000 characters long \(this one has 100,001\)"):
        store.set_note(ids[0], "x" * (LONGEST_NOTE + 1))
    assert store.note(ids[0]) == "short"
    assert store.set_note(ids[0], "y" * LONGEST_NOTE) == "y" * LONGEST_NOTE


def test_a_star_never_rewrites_tags_or_notes_and_a_note_never_rewrites_marks(seeded):
    store, ids = seeded
    store.set_tags(ids[:3], add=["t"])
    store.set_note(ids[0], "n")
    library = (store.data_dir / "library.json").stat()
    store.set_marks(ids[:5], starred=True, read=True)
    assert (store.data_dir / "library.json").stat().st_mtime_ns == library.st_mtime_ns
    user = (store.data_dir / "user.json").read_bytes()
    store.set_note(ids[1], "another")
    store.set_tags(ids[4:], add=["u"])
    store.rename_tag("u", "v")
    assert (store.data_dir / "user.json").read_bytes() == user


# --- damage and kills ----------------------------------------------------------------------------


def _tagged_and_noted(store, ids):
    store.set_tags(ids[:3], add=["Kept tag"])
    store.set_note(ids[1], "kept note\nline two")


@pytest.mark.parametrize("damage", DAMAGE)
@pytest.mark.parametrize("victim", ["library.json", "library.json.bak"])
def test_a_damaged_library_file_is_moved_aside_and_repaired_from_its_copy(seeded, capsys, victim, damage):
    store, ids = seeded
    _tagged_and_noted(store, ids)
    path = store.data_dir / victim
    path.write_bytes(DAMAGE[damage](path.read_bytes()))
    code, out, err = run(capsys, "tags", "list")
    assert code == 0 and out == "Kept tag\t3 papers\n"
    assert "library" in err and "damaged" in err and "Traceback" not in err
    assert list(store.data_dir.glob(f"{victim}.damaged-*"))
    again = Store(store.data_dir)
    assert again.tags() == {"Kept tag": 3} and again.note(ids[1]) == "kept note\nline two"
    assert not again.warnings
    assert (store.data_dir / "library.json").read_bytes() == (store.data_dir / "library.json.bak").read_bytes()


def test_tags_and_notes_made_after_opening_survive_damage_and_a_deleted_file(seeded):
    store, ids = seeded
    _tagged_and_noted(store, ids)
    (store.data_dir / "library.json").write_bytes(b'{"tags": {"1": {"name": 5}}}')  # valid JSON, wrong shape
    store.set_note(ids[2], "written on")  # the same process writes on: repaired first, from the copy
    assert any("library.json is damaged" in w and "restored tags, notes and citation keys" in w for w in store.warnings)
    (store.data_dir / "library.json").unlink()
    again = Store(store.data_dir)
    assert any("library.json is missing" in w for w in again.warnings)
    assert again.tags() == {"Kept tag": 3}
    assert again.notes() == {ids[1]: "kept note\nline two", ids[2]: "written on"}


def test_both_copies_damaged_start_afresh_with_a_warning_and_stars_stay(seeded):
    store, ids = seeded
    store.set_marks(ids[:2], starred=True)
    _tagged_and_noted(store, ids)
    for name in ("library.json", "library.json.bak"):
        (store.data_dir / name).write_bytes(b"\x00garbage")
    again = Store(store.data_dir)
    assert any("its copy is damaged too" in w for w in again.warnings)
    assert again.tags() == {} and again.marks().starred == set(ids[:2])


TAG_LOOP = """
import sys
from pathlib import Path
from reader.store import Store
store = Store(Path(sys.argv[1]))
ids = sys.argv[2].split(",")
i = 0
while True:
    paper_id = ids[i % len(ids)]
    store.set_tags([paper_id], add=[f"tag {i % 7}"])
    store.set_note(paper_id, f"note {i}\\nfor {paper_id}")
    print(f"{paper_id}|{i % 7}|{i}", flush=True)
    i += 1
"""


@pytest.mark.slow
def test_sigkill_while_tagging_and_writing_notes_loses_nothing_acknowledged(seeded):
    store, ids = seeded
    rng = random.Random(15)
    for attempt in range(6):
        acknowledged = kill_after(TAG_LOOP, [str(store.data_dir), ",".join(ids)], rng.uniform(0.6, 1.2))
        if attempt % 2:  # and then library.json is damaged: its copy holds every acknowledged change
            (store.data_dir / "library.json").write_bytes(b"\x00 damaged")
        after = Store(store.data_dir)
        assert bool(after.warnings) == bool(attempt % 2), after.warnings
        tags, notes = after.tags_of(), after.notes()
        last_note: dict[str, str] = {}
        for line in acknowledged:
            pid, tag, note = line.split("|")
            assert f"tag {tag}" in tags[pid]
            last_note[pid] = note
        for pid, note in last_note.items():  # the newest acknowledged note, or one written after it
            assert int(notes[pid].split()[1]) >= int(note)
        assert acknowledged  # not vacuous: the loop got to write
        assert after.marks().starred == set() and len(after.load_papers()) == len(ids)


# --- the command line ----------------------------------------------------------------------------


def test_tag_tags_and_list_by_tag_from_the_command_line(seeded, capsys):
    _store, ids = seeded
    code, out, _ = run(capsys, "tag", ids[0], f"arXiv:{ids[1]}v1", "--add", "To read", "--add", "ml")
    assert code == 0 and out == f"{ids[0]}\tml, To read\n{ids[1]}\tml, To read\n"
    run(capsys, "tag", ids[2], "--add", "TO READ")
    assert run(capsys, "tags")[1] == "ml\t2 papers\nTo read\t3 papers\n"
    assert json.loads(run(capsys, "tags", "list", "--json")[1]) == [{"name": "ml", "count": 2}, {"name": "To read", "count": 3}]

    code, out, _ = run(capsys, "list", "--tag", "to read", "--json")
    rows = json.loads(out)
    assert [r["id"] for r in rows] == ids[:3] and rows[0]["tags"] == ["ml", "To read"] and rows[0]["note"] is None
    code, out, _ = run(capsys, "list", "--tag", "ML")
    assert code == 0 and f"{ids[0]}v" in out and f"{ids[1]}v" in out and f"{ids[2]}v" not in out
    assert json.loads(run(capsys, "list", "--json", "--limit", "1", "--tag", "To read")[1])[0]["id"] == ids[0]

    code, out, _ = run(capsys, "tags", "rename", "ML", "to read")
    assert code == 0 and out == "renamed tag 'ML' to 'To read' (3 papers)\n"
    code, out, _ = run(capsys, "tag", ids[0], "--remove", "to read")
    assert out == f"{ids[0]}\t(no tags)\n"
    code, out, _ = run(capsys, "tags", "delete", "To Read")
    assert code == 0 and "2 papers (the papers stay)" in out
    assert run(capsys, "tags", "list", "--json")[1] == "[]\n"
    assert len(json.loads(run(capsys, "list", "--json")[1])) == len(ids)


@pytest.mark.parametrize(
    "args, message",
    [
        (["tag", "ID0"], "say what to change: --add TAG and/or --remove TAG"),
        (
            ["tag", "ID0", "2501.99999", "--add", "x"],
            "not in the cache: 2501.99999 (`reader add 2501.99999` fetches it from arXiv; nothing was changed)",
        ),
        (["tag", "ID0", "--add", "red\x1b[31m"], "control characters"),
        (["tag", "ID0", "--remove", "never made"], "no tag named 'never made' (nothing was changed)"),
        (["list", "--tag", "nope"], "no tag named 'nope' (tags: 'first')"),
        (["tags", "rename", "nope", "x"], "no tag named 'nope'"),
        (["tags", "delete", "nope"], "no tag named 'nope'"),
        (["note", "2501.99999"], "not in the cache: 2501.99999"),
    ],
)
def test_library_commands_fail_with_one_line(seeded, capsys, args, message):
    store, ids = seeded
    store.set_tags(ids[1:2], add=["first"])
    before = (store.data_dir / "library.json").read_bytes()
    code, out, err = run(capsys, *[ids[0] if a == "ID0" else a for a in args])
    assert code == 1 and out == ""
    assert err.startswith("reader: error: ") and message in err and err.count("\n") == 1, err
    assert (store.data_dir / "library.json").read_bytes() == before


def test_note_prints_sets_from_text_or_standard_input_and_removes(seeded, capsys):
    _store, ids = seeded
    code, out, err = run(capsys, "note", ids[0])
    assert code == 0 and out == "" and "has no note" in err
    assert run(capsys, "note", ids[0], "--set", "plain text")[0] == 0
    assert run(capsys, "note", ids[0])[1] == "plain text\n"
    note = "# Reading\n\n* point one\n\tindented \x1b[31mred\n"
    done = subprocess.run(
        [sys.executable, "-m", "reader", "note", ids[0], "--set", "-"],
        input=note.encode(),
        cwd=ROOT,
        capture_output=True,
    )
    assert done.returncode == 0, done.stderr
    assert run(capsys, "note", ids[0])[1] == "# Reading\n\n* point one\n\tindented [31mred\n"
    rows = json.loads(run(capsys, "list", "--json")[1])
    assert {r["id"]: r["note"] for r in rows if r["note"]} == {ids[0]: "# Reading\n\n* point one\n\tindented [31mred\n"}
    bad = subprocess.run([sys.executable, "-m", "reader", "note", ids[0], "--set", "-"], input=b"caf\xe9", cwd=ROOT, capture_output=True)
    assert bad.returncode == 1 and b"not UTF-8 text" in bad.stderr and b"Traceback" not in bad.stderr
    assert run(capsys, "note", ids[0], "--set", "")[2] == f"{ids[0]}: note removed\n"
    assert run(capsys, "list", "--json")[1].count('"note": null') == len(ids)


def test_shell_completion_offers_tag_names_from_the_store(seeded, capsys):
    store, ids = seeded
    store.set_tags(ids[:1], add=["To read", "Theory", "agents"])
    assert run(capsys, "__complete", "bash", "--", "list", "--tag", "t")[1] == "Theory\nTo\\ read\n"
    assert run(capsys, "__complete", "bash", "--", "tag", ids[0], "--remove", "")[1] == "Theory\nTo\\ read\nagents\n"
    assert run(capsys, "__complete", "bash", "--", "tags", "rename", "'to")[1] == "'To read'\n"
    assert run(capsys, "__complete", "bash", "--", "tags", "delete", "A")[1] == "agents\n"


# --- the service the app calls -------------------------------------------------------------------


@pytest.fixture
def service(seeded):
    from reader.config import load_settings
    from reader.service import LibraryService

    store, ids = seeded
    service = LibraryService(store, load_settings())
    yield service, store, ids
    service.close()


def test_the_service_saves_tags_in_its_writer_thread_and_reports_failures(service):
    service, store, ids = service
    errors: list[str] = []
    assert service.set_tags(ids[:2], add=["Later"]).result() == {ids[0]: ("Later",), ids[1]: ("Later",)}
    assert service.tags_notes.rename_tag("later", "Soon").result() == "Soon"
    assert service.tags() == {"Soon": 2} and service.tags_of(ids[1:3]) == {ids[1]: ("Soon",), ids[2]: ()}
    assert service.set_tags(ids[:1], add=["bad\x1b[0m"], on_error=errors.append).result() is None
    assert errors == ["Not saved: a tag name cannot contain control characters: 'bad\\x1b[0m'"]
    assert service.tags_notes.delete_tag("SOON").result() == 2
    assert Store(store.data_dir).tags() == {}


def test_notes_typed_faster_than_the_disk_are_written_once_with_the_latest_text(service, monkeypatch):
    import threading

    service, store, ids = service
    written: list[tuple[str, str]] = []
    save = store.set_note
    monkeypatch.setattr(store, "set_note", lambda pid, text: written.append((pid, text)) or save(pid, text))
    gate = threading.Event()
    service._writer.submit(gate.wait)  # the disk is busy: the keystrokes below queue up
    typed = "".join(f"word{i} " for i in range(30))
    futures = [service.set_note(ids[0], typed[: i + 1]) for i in range(len(typed))]
    service.set_note(ids[1], "other paper")
    assert service.note(ids[0]) == typed and store.note(ids[0]) == ""  # read back before it is written
    gate.set()
    service.flush()
    assert written == [(ids[0], typed), (ids[1], "other paper")]
    assert futures[0].result() == typed and all(f.result() is None for f in futures[1:])
    assert Store(store.data_dir).notes() == {ids[0]: typed, ids[1]: "other paper"}
    errors: list[str] = []
    service.set_note(ids[0], "x" * (LONGEST_NOTE + 1), on_error=errors.append)
    service.flush()
    assert errors and "at most 100,000 characters" in errors[0] and store.note(ids[0]) == typed


# --- notes in search: the index (reader list --query) answers as the scan does ----------------------


def test_note_search_from_the_command_line_equals_the_scan_and_follows_edits(seeded, capsys):
    from reader.core.query import parse, search_text
    from reader.core.scan import SearchBlock

    store, ids = seeded
    papers = store.load_papers()

    def listed(query: str) -> set[str]:
        code, out, err = run(capsys, "list", "--json", "--query", query)
        assert code == 0, err
        return {row["id"] for row in json.loads(out)}

    def scanned(query: str) -> set[str]:
        block = SearchBlock({p.id: search_text(p) for p in papers.values()}, store.notes())
        return block.matching(parse(query, implicit_and=True))

    run(capsys, "note", ids[0], "--set", "Read for the **Zürich** seminar\n\n- ask about `RLHF`")
    run(capsys, "note", ids[3], "--set", 'seminar: "credit assignment" ANDNOT hype (50%)')
    run(capsys, "note", ids[5], "--set", "张伟 suggested this; see ti:agents")
    queries = [
        "note:zurich",
        "seminar",
        'note:"zurich seminar"',
        "note:rlhf OR note:credit",
        "note:seminar ANDNOT note:credit",
        "seminar AND ti:agents",
        "note:张伟",
        "note:agents",
        "agents ANDNOT note:agents",
        'all:"credit assignment"',
    ]
    answers = {q: listed(q) for q in queries}
    assert answers == {q: scanned(q) for q in queries}
    assert answers["note:zurich"] == {ids[0]} and answers["seminar"] >= {ids[0], ids[3]}
    assert answers["note:张伟"] == {ids[5]}

    run(capsys, "note", ids[0], "--set", "nothing about that any more")
    run(capsys, "note", ids[3], "--set", "")
    assert listed("note:seminar") == scanned("note:seminar") == set()
    assert listed("note:nothing") == {ids[0]}


def test_the_service_exports_a_tag_with_its_tags_and_notes(service):
    service, store, ids = service
    service.set_tags(ids[1:3], add=["Group"]).result()
    service.set_note(ids[1], "first\nsecond").result()
    service.open()
    papers = service.papers(service.select(View.of_tag("group")))
    assert [p.id for p in papers] == ids[1:3]
    items = json.loads(service.export_text("csl-json", papers))
    assert [(i["keyword"], i.get("annote")) for i in items] == [("Group", "first\nsecond"), ("Group", None)]
    assert "keywords = {Group}" in service.export_text("bibtex", papers)
