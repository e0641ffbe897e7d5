"""The app's dialogs keep what was typed (issue 28): Add topic and Add watch close only once
saved, every refusal said on the dialog's line with both fields kept; the export dialog's path
and format follow each other, and it proposes the configured export_path."""

from __future__ import annotations

import pytest
from textual.widgets import RadioSet

from reader.app.screens.export import ExportDialog
from tests.sample_papers import sample_papers
from tests.test_app import make_app, ready, settings
from tests.test_app import store as two_topics


@pytest.fixture
def papers():
    return sample_papers(40)


store = two_topics  # the fixture: Agents (30 papers) and Other (15), synced


def chosen_format(dialog: ExportDialog) -> int:
    return dialog.query_one("#export-format", RadioSet).pressed_index


async def open_export(pilot) -> ExportDialog:
    await pilot.press("s", "e")  # a star: the dialog offers the starred papers
    await ready(pilot)
    dialog = pilot.app.screen
    assert isinstance(dialog, ExportDialog)
    return dialog


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
