"""The app's export onto a file that holds the user's entries: it says what the file holds and
offers Update (the default, keeping every entry) or Replace (asked once more)."""

from __future__ import annotations

import pytest

from reader.app.screens.dialogs import ConfirmDialog
from reader.app.screens.export import ExistingFileDialog, ExportDialog
from reader.core import bibfile
from tests.helpers.app import make_app, ready
from tests.helpers.export_ownership import BOOK, edited


async def export_to(pilot, target) -> None:
    await pilot.press("e")
    await ready(pilot)
    assert isinstance(pilot.app.screen, ExportDialog)
    pilot.app.screen.query_one("#path").value = str(target)
    await pilot.press("enter")
    await ready(pilot)


@pytest.mark.slow
async def test_export_onto_the_users_bib_offers_update_first_and_replace_asks_again(store, tmp_path):  # noqa: F811
    target = tmp_path / "refs.bib"
    app = make_app(store)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await pilot.press("s", "j", "s", "j", "s")
        await export_to(pilot, target)
        exported = target.read_text()
        ids = [e.fields["eprint"] for e in bibfile.parse(exported)]
        assert len(ids) == 3
        await export_to(pilot, target)  # only reader's entries: written at once, as before
        assert not isinstance(app.screen, ExistingFileDialog) and target.read_text() == exported

        mine = edited(exported, ids[1]) + "\n" + BOOK
        target.write_text(mine)
        await export_to(pilot, target)
        dialog = app.screen
        assert isinstance(dialog, ExistingFileDialog)
        said = " ".join(str(s.render()) for s in dialog.query("Static"))
        assert "refs.bib exists" in said and "refs.bib: 4 entries, 2 not from reader" in said
        assert app.focused.id == "update"
        await pilot.press("enter")  # Update: every entry of the file kept
        await ready(pilot)
        assert target.read_text() == mine
        assert any("refs.bib: added 0 entries, 3 already there" in m for m in app.message_log)

        await export_to(pilot, target)
        assert isinstance(app.screen, ExistingFileDialog)
        await pilot.click("#replace")
        await ready(pilot)
        assert isinstance(app.screen, ConfirmDialog) and target.read_text() == mine
        assert "Replace refs.bib? Its 2 entries not from reader will be lost." in str(app.screen.query_one(".dialog-title").render())
        await pilot.press("escape")  # asked again, and said no: nothing written
        await ready(pilot)
        assert target.read_text() == mine

        await export_to(pilot, target)
        await pilot.click("#replace")
        await ready(pilot)
        await pilot.press("y")
        await ready(pilot)
        assert target.read_text() == exported


@pytest.mark.slow
async def test_export_onto_the_users_ris_offers_no_update_and_enter_cancels(store, tmp_path):  # noqa: F811
    target = tmp_path / "refs.ris"
    mine = "TY  - BOOK\nTI  - Reinforcement Learning\nER  - \n"
    target.write_text(mine)
    app = make_app(store)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await pilot.press("s")
        await export_to(pilot, target)
        assert isinstance(app.screen, ExistingFileDialog) and not app.screen.query("#update")
        assert app.focused.id == "cancel"
        await pilot.press("enter")
        await ready(pilot)
        assert target.read_text() == mine and not isinstance(app.screen, ExistingFileDialog)


@pytest.mark.slow
async def test_at_40x15_the_three_buttons_show(store, tmp_path):  # noqa: F811
    from textual.widgets import Button

    target = tmp_path / "refs.bib"
    target.write_text(BOOK)
    app = make_app(store)
    async with app.run_test(size=(40, 15)) as pilot:
        await ready(pilot)
        await pilot.press("s")
        await export_to(pilot, target)
        dialog = app.screen
        assert isinstance(dialog, ExistingFileDialog)
        shown = dialog.query_one(".dialog").scrollable_content_region
        for button in dialog.query(Button):
            button.focus()
            await pilot.pause()
            assert shown.contains_region(button.region), (button.id, button.region, shown)
        await pilot.press("escape")
        await ready(pilot)
        assert target.read_text() == BOOK
