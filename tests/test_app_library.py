"""The app's tag editor and notes, driven with Pilot and checked in the store."""

from __future__ import annotations

import contextlib
import json
import threading

import pytest

from reader.app.screens.detail import DetailScreen
from reader.app.screens.tags import TagDialog, split_tags, tag_changes
from reader.app.widgets.note import NoteEditor, note_link
from reader.errors import StoreError
from reader.service import ALL
from reader.store import Store
from tests.helpers.app import make_app, open_paper, ready
from tests.helpers.timing import scaled
from tests.sample_papers import sample_papers


@pytest.fixture
def papers():
    return sample_papers(6)


@pytest.fixture
def store(data_dir, papers):
    store = Store(data_dir)
    store.add_topic("Agents", "ti:agents")
    store.save_papers(papers, "Agents")
    store.set_tags([papers[5].id], add=["benchmarks"])
    return store


def test_the_line_becomes_tags_to_add_and_remove():
    assert split_tags(" to  read, Survey,, survey ,") == ["to read", "Survey"]
    assert tag_changes(["Survey", "old"], ["survey", "new one"]) == (["new one"], ["old"])
    with pytest.raises(StoreError):
        split_tags("fine, " + "x" * 61)


def test_only_http_links_of_a_note_open():
    assert note_link("https://example.org/a b") == "https://example.org/a%20b"
    assert note_link("HTTP://example.org") == "HTTP://example.org"
    for refused in ("file:///etc/passwd", "javascript:alert(1)", "ftp://example.org", "https://", "/etc/passwd", "http://x\n.org"):
        assert note_link(refused) is None


@pytest.mark.slow
async def test_t_adds_a_completed_tag_and_removes_one(store, papers, data_dir):
    app = make_app(store)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await pilot.press("t")
        dialog = app.screen
        assert isinstance(dialog, TagDialog) and dialog.line.value == ""
        await pilot.press(*"to read, be")
        await ready(pilot)
        assert dialog.line._suggestion == "to read, benchmarks"  # completes the last item from the tags in use
        await pilot.press("tab", "enter")
        await ready(pilot)
        assert not isinstance(app.screen, TagDialog)
        assert Store(data_dir).tags_of([papers[0].id]) == {papers[0].id: ("benchmarks", "to read")}

        await pilot.press("t")
        assert app.screen.line.value == "benchmarks, to read, "
        await pilot.press("ctrl+a", "ctrl+k", *"to read", "enter")
        await ready(pilot)
        assert Store(data_dir).tags_of([papers[0].id]) == {papers[0].id: ("to read",)}
        assert Store(data_dir).tags() == {"benchmarks": 1, "to read": 1}

        await pilot.press("t", *"x" * 61, "enter")  # a name the store refuses: said, and the line is kept
        assert isinstance(app.screen, TagDialog) and "at most 60 characters" in str(app.screen.query_one(".dialog-error").render())
        assert app.screen.line.value == "to read, " + "x" * 61
        await pilot.press("escape")
        assert Store(data_dir).tags_of([papers[0].id]) == {papers[0].id: ("to read",)}


@pytest.mark.slow
async def test_tags_in_the_detail_view(store, papers, data_dir):
    app = make_app(store)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await open_paper(pilot)
        await pilot.press("t", *"[red]x[/red]", "enter")  # shown as typed, never as markup
        await ready(pilot)
        assert isinstance(app.screen, DetailScreen)
        assert Store(data_dir).tags_of([papers[0].id]) == {papers[0].id: ("[red]x[/red]",)}
        assert "Tags  [red]x[/red]" in app.screen.record_view.text


@pytest.mark.slow
async def test_a_note_typed_in_the_detail_view_is_saved_and_shown_as_markdown(store, papers, data_dir):
    app = make_app(store)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await open_paper(pilot)
        assert "No note yet" in app.screen.record_view.text
        await pilot.press("N")
        assert isinstance(app.focused, NoteEditor)
        await pilot.press(*"quick *idea*", "enter", "enter", *"- one")  # q is typed, not "back"
        app.service.flush()
        assert Store(data_dir).note(papers[0].id) == "quick *idea*\n\n- one"
        await pilot.press("escape")
        await ready(pilot)
        assert isinstance(app.screen, DetailScreen) and not app.screen.query(NoteEditor)
        lines = app.screen.record_view.text.splitlines()
        assert "quick idea" in lines and "No note yet" not in app.screen.record_view.text
        assert any(line.strip() in ("• one", "- one") for line in lines)  # a list item
        italic = [segment for strip in app.screen.record_view.lines.strips for segment in strip if segment.text == "idea"]
        assert italic and italic[0].style is not None and italic[0].style.italic
        await pilot.press("escape")
        assert not isinstance(app.screen, DetailScreen)


async def test_the_detail_view_shows_each_paper_as_it_is_now(store, papers, data_dir):
    # The paper under the cursor is read ahead of Enter, and the detail view is one screen kept
    # between openings: neither may show what changed since, or what the last paper showed.
    store.set_note(papers[0].id, "first note")
    app = make_app(store)
    async with app.run_test(size=(120, 24)) as pilot:
        await ready(pilot)  # the first paper's record is read ahead by now
        Store(data_dir).set_note(papers[0].id, "written *since*")  # by another reader process
        await open_paper(pilot)
        screen = app.screen
        assert isinstance(screen, DetailScreen)
        assert "written since" in screen.record_view.text.splitlines()
        await pilot.press("j", "j", "j", "j", "j", "j")  # scrolled down the first paper
        assert screen.query_one("#detail").scroll_y > 0
        await pilot.press("escape", "j", "enter")
        await ready(pilot)
        assert app.screen is screen and screen.paper_id == papers[1].id
        assert papers[1].title in screen.record_view.text
        assert screen.query_one("#detail").scroll_y == 0
        assert "No note yet" in screen.record_view.text and "written" not in screen.record_view.text


async def test_links_in_a_note_open_only_http(store, papers, monkeypatch):
    store.set_note(papers[0].id, "[x](file:///etc/passwd)\n\n[ftp](ftp://example.org/a)\n\n[web](https://example.org/ok)")
    opened: list[str] = []
    monkeypatch.setattr("webbrowser.open", lambda url: opened.append(url) or True)
    app = make_app(store)
    monkeypatch.setattr(app, "open_url", lambda url, **kwargs: opened.append(url))
    async with app.run_test(size=(120, 50)) as pilot:
        await ready(pilot)
        await open_paper(pilot)
        lines = app.screen.record_view.text.splitlines()
        for word in ("[x](file:///etc/passwd)", "ftp", "web"):  # a file: link is not a link at all
            assert word in lines
            await pilot.click("#detail", offset=(2 + 1, lines.index(word)))  # inside the view's left padding
            await ready(pilot)
        assert opened == ["https://example.org/ok"]
        assert [m for m in app.message_log if m.startswith("Not opened: only http and https")] == [
            "Not opened: only http and https links open from a note (ftp://example.org/a)."
        ]
        links = [s.style.link for strip in app.screen.record_view.lines.strips for s in strip if s.style and s.style.link]
        assert links and all(link.startswith("https://arxiv.org/") for link in links)  # the note's are clicks, not terminal links


def editor_script(tmp_path, body: str) -> str:
    script = tmp_path / "editor.sh"
    script.write_text(f"#!/bin/sh\n{body}\n")
    script.chmod(0o755)
    return str(script)


async def test_a_note_edited_in_the_editor(store, papers, data_dir, tmp_path, monkeypatch):
    store.set_note(papers[0].id, "first line")
    monkeypatch.setenv("EDITOR", editor_script(tmp_path, "printf 'from the editor\\n' >> \"$1\""))
    app = make_app(store)
    monkeypatch.setattr(app, "suspend", contextlib.nullcontext)  # the headless driver cannot hand the terminal over
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await open_paper(pilot)
        await pilot.press("E")
        app.service.flush()
        await ready(pilot)
        assert Store(data_dir).note(papers[0].id) == "first line\nfrom the editor"
        assert "first line from the editor" in app.screen.record_view.text.splitlines()
        assert not list(tmp_path.glob("reader-note-*"))

        monkeypatch.setenv("EDITOR", editor_script(tmp_path, "true"))
        await pilot.press("E")
        assert app.message_log[-1] == "The note is unchanged."
        monkeypatch.setenv("EDITOR", editor_script(tmp_path, 'echo changed > "$1"; exit 1'))
        await pilot.press("E")
        assert "exited with status 1: the note is unchanged" in app.message_log[-1]
        monkeypatch.setenv("EDITOR", str(tmp_path / "no-such-editor"))
        await pilot.press("E")
        assert app.message_log[-1].startswith("No editor:")
        app.service.flush()
        assert Store(data_dir).note(papers[0].id) == "first line\nfrom the editor"


async def test_demo_says_once_that_marks_are_not_saved_and_that_tags_and_notes_are_not_taken(demo_store):
    app = make_app(demo_store)
    not_saved, not_taken = "stars and read marks last until you quit", "Demo papers take no tags or notes"
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        assert app.service.is_demo
        await pilot.press("s")
        assert not_saved in app.message_log[-1]  # the first mark says so
        told = len(app.message_log)
        await pilot.press("s", "r", "j", "s")
        assert len(app.message_log) == told  # once, not at every key
        await pilot.press("t")
        assert not isinstance(app.screen, TagDialog)
        assert app.message_log[-1].startswith(not_taken)
        await open_paper(pilot)
        assert "No note yet" not in app.screen.record_view.text  # no "write a note" hint for a paper that cannot keep one
        await pilot.press("N")
        assert not app.screen.query(NoteEditor)
        assert app.message_log[-1].startswith(not_taken)
        await pilot.press("E")
        assert app.message_log[-1].startswith(not_taken)


@pytest.mark.slow
async def test_a_watch_added_in_the_demo_is_kept_for_synced_papers_and_said_so(data_dir, demo_store):
    app = make_app(demo_store)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        assert app.service.is_demo
        await pilot.press("w", *"Levine", "tab", *"au:levine", "enter")
        await ready(pilot)
        assert [w.name for w in Store(data_dir).watches()] == ["Levine"]
        assert "the demo papers are not watched" in app.message_log[-1]
        assert app.main.view == ALL  # not an empty view that cannot say what it matches


@pytest.mark.slow
async def test_a_note_the_store_refuses_stays_in_the_editor_with_the_reason(store, papers, data_dir):
    app = make_app(store)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await open_paper(pilot)
        await pilot.press("N")
        too_long = "x" * 100_001
        editor = app.screen.query_one(NoteEditor)
        editor.text = too_long  # a paste larger than a note may be
        await pilot.pause()
        app.service.flush()
        await ready(pilot)
        error = app.screen.query_one("#note-error")
        assert error.display and "at most 100,000 characters" in str(error.render())
        assert editor.text == too_long
        assert Store(data_dir).note(papers[0].id) == ""
        editor.move_cursor(editor.document.end)
        await pilot.press("backspace")  # short enough again: saved, and the reason goes
        app.service.flush()
        await ready(pilot)
        assert Store(data_dir).note(papers[0].id) == "x" * 100_000
        assert not app.screen.query_one("#note-error").display


async def test_control_sequences_in_a_note_never_reach_the_terminal(store, papers, data_dir, tmp_path, monkeypatch):
    # A library.json edited by hand, and an editor that writes escapes: the record shows the
    # text without them (no OSC 8 link, no title change, no colours).
    hostile = "title \x1b]0;PWNED\x07 and \x1b]8;;file:///etc/passwd\x1b\\link\x1b]8;;\x1b\\ \x1b[41mred\x9b0m"
    store.set_note(papers[0].id, "safe")
    library = data_dir / "library.json"
    library.write_text(library.read_text().replace('"safe"', json.dumps(hostile)))
    monkeypatch.setenv("EDITOR", editor_script(tmp_path, f"printf '{hostile.encode('unicode_escape').decode()}' > \"$1\""))
    app = make_app(Store(data_dir))
    monkeypatch.setattr(app, "suspend", contextlib.nullcontext)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await open_paper(pilot)

        def shown() -> str:
            return "".join(segment.text for strip in app.screen.record_view.lines.strips for segment in strip)

        assert "title ]0;PWNED and ]8;;file:///etc/passwd\\link]8;;\\ [41mred0m" in app.screen.record_view.text
        assert not any(char in shown() for char in "\x1b\x07\x9b")
        await pilot.press("E")
        app.service.flush()
        await ready(pilot)
        assert "PWNED" in app.screen.record_view.text and not any(char in shown() for char in "\x1b\x07\x9b")
        assert "\x1b" not in Store(data_dir).note(papers[0].id)


async def test_n_pressed_before_the_note_is_read_again_edits_the_newest_note(store, papers, data_dir):
    store.set_note(papers[0].id, "old")
    app = make_app(store)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)  # the first paper's record, with "old", is read ahead
        Store(data_dir).set_note(papers[0].id, "written elsewhere")
        await pilot.press("enter", "N")  # N before the record is read again
        await ready(pilot)
        assert isinstance(app.focused, NoteEditor) and app.focused.text == "written elsewhere"


async def test_a_note_that_fails_to_save_after_the_view_moved_on_is_told(store, papers, monkeypatch):
    app = make_app(store)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await open_paper(pilot)
        written = threading.Event()

        def refuse(paper_id, text):
            written.wait(scaled(5))  # until the view has moved on
            raise StoreError("the disk is full")

        monkeypatch.setattr(app.service.store, "set_note", refuse)
        await pilot.press("N", *"hi", "escape", "right_square_bracket")
        written.set()
        app.service.flush()
        await ready(pilot)
        assert app.screen.paper_id == papers[1].id
        assert f"The note of arXiv:{papers[0].id}: Not saved: the disk is full" in app.message_log


def test_tags_and_notes_read_before_a_change_do_not_replace_the_newer_ones(store, papers):
    from reader.config import Settings
    from reader.service import LibraryService

    service = LibraryService(store, Settings.from_env())
    service.open()
    update = service.read_update()  # read before the tag and the note below
    service.set_tags([papers[0].id], add=["urgent"]).result()
    service.set_note(papers[1].id, "read *twice*").result()
    service.apply_update(update)
    assert service.tags() == store.tags() and service.tags()["urgent"] == 1
    assert service.tags_of([papers[0].id, papers[1].id]) == {papers[0].id: ("urgent",), papers[1].id: ()}
    assert service.note(papers[1].id) == "read *twice*" and service.has_note(papers[1].id)
    service.apply_update(service.read_update())
    assert service.tags() == store.tags() and service.tags()["urgent"] == 1
    assert service.note(papers[1].id) == "read *twice*"
    service.close()


def test_a_saved_note_is_on_the_cards_while_the_search_index_is_busy(store, papers, data_dir):
    # The note's words reach the search index after it is saved, which can wait for a refresh
    # of the index (a sync's): meanwhile its card must already say it has a note.
    from reader.config import Settings
    from reader.service import LibraryService

    service = LibraryService(store, Settings.from_env())
    service.open()
    busy, indexed = threading.Event(), threading.Event()
    service.search.update_notes = lambda: (busy.set(), indexed.wait(scaled(10)))
    service.set_note(papers[0].id, "first note")
    assert busy.wait(scaled(10))  # saved, its words not indexed yet
    assert Store(data_dir).note(papers[0].id) == "first note"
    assert service.has_note(papers[0].id) and service.note(papers[0].id) == "first note"
    indexed.set()
    service.close()


def test_a_card_s_tags_and_note_are_drawn_without_reading_a_file(store, papers, monkeypatch):
    from reader.config import Settings
    from reader.service import LibraryService

    store.set_tags([papers[0].id], add=["b-side", "A-side"])
    store.set_note(papers[0].id, "kept")
    service = LibraryService(store, Settings.from_env())
    service.open()

    def unread(*args, **kwargs):
        raise AssertionError("library.json read while drawing")

    monkeypatch.setattr(type(store), "library_doc", unread)
    monkeypatch.setattr(type(store), "tags_of", unread)
    monkeypatch.setattr(type(store), "note", unread)
    assert service.tags_of([papers[0].id, papers[1].id]) == {papers[0].id: ("A-side", "b-side"), papers[1].id: ()}
    assert service.has_note(papers[0].id) and not service.has_note(papers[1].id)
    service.close()
