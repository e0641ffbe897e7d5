"""The app's dialogs keep what was typed (issue 28): Add topic and Add watch close only once
saved, every refusal said on the dialog's line with both fields kept; the export dialog's path
and format follow each other, and it proposes the configured export_path."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from textual.widgets import Input, RadioSet

from reader.app.screens.dialogs import AddTopicDialog
from reader.app.screens.export import ExportDialog
from reader.service import View
from tests.helpers.app import make_app, ready, settings
from tests.helpers.timing import scaled
from tests.sample_papers import sample_papers


@pytest.fixture
def papers():
    return sample_papers(40)


# store, papers: conftest's fixtures (the fixture: Agents (30 papers) and Other (15), synced)


def chosen_format(dialog: ExportDialog) -> int:
    return dialog.query_one("#export-format", RadioSet).pressed_index


async def open_export(pilot) -> ExportDialog:
    await pilot.press("s", "e")  # a star: the dialog offers the starred papers
    await ready(pilot)
    dialog = pilot.app.screen
    assert isinstance(dialog, ExportDialog)
    return dialog


@pytest.mark.slow
async def test_a_typed_paths_extension_chooses_the_format(store, tmp_path):
    app = make_app(store)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        dialog = await open_export(pilot)
        box = dialog.query_one("#path")
        assert chosen_format(dialog) == 0 and box.value.endswith(".bib")
        box.value = str(tmp_path / "refs.RI")
        await pilot.press("end", "S")  # refs.RIS: RIS, whatever the case
        await pilot.pause()
        assert box.value == str(tmp_path / "refs.RIS")
        assert chosen_format(dialog) == 1
        await pilot.press("backspace", "backspace", "backspace", *"json")
        await pilot.pause()
        assert chosen_format(dialog) == 2 and box.value == str(tmp_path / "refs.json")
        await pilot.press("backspace", "backspace", "backspace", "backspace", *"txt")
        await pilot.pause()
        assert chosen_format(dialog) == 2  # an extension of no format changes nothing
        await pilot.press("backspace", "backspace", "backspace", *"bib", "enter")
        await ready(pilot)
    assert (tmp_path / "refs.bib").read_text().startswith("@misc{")


@pytest.mark.slow
async def test_the_export_dialog_proposes_the_configured_path_else_the_last_used(store, tmp_path):
    store.set_setting("export_path", str(tmp_path / "last.bib"))
    configured = tmp_path / "configured.ris"
    app = make_app(store, app_settings=settings(export_path=configured))
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        dialog = await open_export(pilot)
        assert dialog.query_one("#path").value == str(configured) and chosen_format(dialog) == 1
    app = make_app(store)  # no export_path set anywhere: the path used last
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        dialog = await open_export(pilot)
        assert dialog.query_one("#path").value == str(tmp_path / "last.bib") and chosen_format(dialog) == 0


def dialog_error(app) -> str:
    return str(app.screen.query_one(".dialog-error").render())


def reader_cli(data_dir, *args: str) -> None:
    """`reader ARGS` in a process of its own, as another terminal would run it."""
    subprocess.run(
        [sys.executable, "-m", "reader", "--data-dir", str(data_dir), *args], check=True, capture_output=True, timeout=scaled(60)
    )


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["topic", "watch"])
async def test_add_refuses_a_long_name_in_the_dialog_keeping_both_fields(store, kind):
    app = make_app(store)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await pilot.press("a" if kind == "topic" else "w")
        dialog = app.screen
        assert isinstance(dialog, AddTopicDialog)
        name, query = dialog.query_one("#topic-name", Input), dialog.query_one("#topic-query", Input)
        name.value = "n" * 100
        await pilot.press("end", "x", "tab", *"ti:agents", "enter")  # a 101st character, typed
        await ready(pilot)
        assert app.screen is dialog and app.focused is name
        assert dialog_error(app) == f"A {kind} name can be at most 100 characters long (this one has 101)"
        assert name.value == "n" * 100 + "x" and query.value == "ti:agents"  # kept, never cut
        name.value = "bell\x07name"  # a control character, pasted
        query.focus()
        await pilot.press("enter")
        await ready(pilot)
        assert app.focused is name and "cannot contain control characters" in dialog_error(app)
        await pilot.press("backspace")  # typing clears the line
        assert dialog_error(app) == ""
    saved = store.topics() if kind == "topic" else store.watches()
    assert [t.name for t in saved] == (["Agents", "Other"] if kind == "topic" else [])


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["topic", "watch"])
async def test_add_refuses_a_name_another_process_took_after_the_dialog_opened(store, data_dir, kind):
    app = make_app(store)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await pilot.press("a" if kind == "topic" else "w")
        dialog = app.screen
        reader_cli(data_dir, "topics" if kind == "topic" else "watches", "add", "Levine", "au:levine")
        await pilot.press(*"levine", "tab", *"au:levine AND ti:rl", "enter")
        await ready(pilot)
        assert app.screen is dialog and app.focused is dialog.query_one("#topic-name")
        assert dialog_error(app) == f"There is already a {kind} named 'levine'."
        assert dialog.query_one("#topic-query", Input).value == "au:levine AND ti:rl"
        await pilot.press("end", "2", "enter", "enter")  # Enter in the name goes to the query, then saves
        await ready(pilot)
        assert app.screen is app.main
    saved = store.topics() if kind == "topic" else store.watches()
    assert [t.name for t in saved][-2:] == ["Levine", "levine2"]


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["topic", "watch"])
async def test_add_keeps_the_dialog_open_when_the_write_fails(store, kind, monkeypatch):
    app = make_app(store)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await pilot.press("a" if kind == "topic" else "w")
        dialog = app.screen
        await pilot.press(*"Robots", "tab", *"cat:cs.RO")

        def full(*args, **kwargs):
            raise OSError(28, "No space left on device")

        with monkeypatch.context() as patched:
            patched.setattr(os, "fsync", full)
            await pilot.press("enter")
            await ready(pilot)
        assert app.screen is dialog
        assert dialog_error(app).startswith("Not saved: cannot write") and "No space left on device" in dialog_error(app)
        assert (dialog.query_one("#topic-name", Input).value, dialog.query_one("#topic-query", Input).value) == ("Robots", "cat:cs.RO")
        await pilot.press("enter")  # the disk has room again: saved, and the dialog closes
        await ready(pilot)
        assert app.screen is app.main
        assert app.main.view == (View.of_topic("Robots") if kind == "topic" else View.of_watch("Robots"))
