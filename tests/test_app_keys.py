"""Keys of the main screen's panes (issue 28): the sidebar's ends, Rising's first and last row,
the footer's kept keys, Enter on a broken filter, and texts that name the key bound now."""

from __future__ import annotations

import pytest

from reader.app.screens.detail import DetailScreen
from reader.app.screens.help import HelpScreen
from reader.app.widgets.filter_box import FilterBox
from reader.app.widgets.footer import KeyFooter
from reader.app.widgets.notice_line import NoticeLine
from reader.app.widgets.rising import RisingTable
from reader.service import ALL, RISING, View
from tests.helpers.app import card_text, choose, make_app, open_paper, ready
from tests.sample_papers import sample_papers


@pytest.fixture
def papers():
    return sample_papers(40)


# store, papers: conftest's fixtures (the fixture: Agents (30 papers) and Other (15), synced)


def keymap(tmp_path, text: str) -> None:
    folder = tmp_path / "config"
    folder.mkdir(exist_ok=True)
    (folder / "keymap.toml").write_text(text)


@pytest.mark.slow
async def test_the_sidebar_stops_at_both_ends_and_jumps_to_either(store):
    store.add_watch("Levine", "au:levine")
    app = make_app(store)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        main, sidebar = app.main, app.main.sidebar
        await pilot.press("tab")
        assert app.focused is sidebar and main.view == ALL
        await pilot.press("k")  # no wrap to the last entry
        assert main.view == ALL and sidebar.highlighted == 0
        await pilot.press("G")
        await ready(pilot)
        last = sidebar.views[-1]
        assert main.view == last == View.of_watch("Levine")
        await pilot.press("j", "down")  # no wrap back to the top
        assert main.view == last
        await pilot.press("g")
        assert main.view == ALL
        await pilot.press("end")
        assert main.view == last
        await pilot.press("home")
        assert main.view == ALL
        # A page down lands on a view, never on a section's heading, and stops at the end.
        for _ in range(len(sidebar.views)):
            await pilot.press("pagedown")
            assert sidebar.highlighted is not None and not sidebar.get_option_at_index(sidebar.highlighted).disabled
        assert main.view == last
        await pilot.press("pageup", "pageup", "pageup", "pageup")
        assert main.view == ALL
        # k skips the heading above the first topic.
        await choose(pilot, View.of_topic("Agents"))
        await pilot.press("k")
        assert main.view == RISING


@pytest.mark.slow
async def test_a_remapped_sidebar_last_moves_there_and_help_lists_the_sidebar_keys(store, tmp_path):
    keymap(tmp_path, '"sidebar.last" = "L"\n"sidebar.first" = "F"\n')
    app = make_app(store)
    async with app.run_test(size=(120, 50)) as pilot:
        await ready(pilot)
        await pilot.press("tab", "L")
        assert app.main.view == app.main.sidebar.views[-1] == View.of_topic("Other")
        await pilot.press("G")  # the default key no longer does it
        assert app.main.view == View.of_topic("Other")
        await pilot.press("F")
        assert app.main.view == ALL
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        sections = dict(app.help_sections())
        assert ("L", "Last entry") in sections["Sidebar"] and ("F", "First entry") in sections["Sidebar"]
        assert ("pgup", "Page up") in sections["Sidebar"] and ("g / home", "First entry") not in sections["Sidebar"]


async def test_rising_moves_to_its_first_and_last_row(store):
    store.add_topic("Third", "ti:third")
    app = make_app(store)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await choose(pilot, RISING)
        await pilot.press("tab")
        table = app.main.query_one(RisingTable)
        assert app.focused is table and table.row_count == 3
        for key, row in (("G", 2), ("g", 0), ("end", 2), ("home", 0)):
            await pilot.press(key)
            assert table.cursor_row == row, key


def footer_line(app) -> str:
    return str(app.screen.query_one(KeyFooter).render()).split("▏")[0].rstrip()


async def test_help_stays_in_the_detail_views_footer_however_narrow(store):
    app = make_app(store)
    async with app.run_test(size=(60, 20)) as pilot:
        await ready(pilot)
        assert "? Help" in footer_line(app) and footer_line(app).endswith("q Quit")
        await open_paper(pilot)
        assert isinstance(app.screen, DetailScreen)
        shown = footer_line(app)
        assert shown.startswith(" esc Back ") and " ? Help " in shown, shown
        await pilot.resize_terminal(30, 20)
        await pilot.pause()
        assert "? Help" in footer_line(app), footer_line(app)


async def test_enter_on_a_query_that_does_not_parse_keeps_the_keyboard_in_the_filter(store):
    app = make_app(store)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        box = app.main.query_one(FilterBox)
        await pilot.press("slash", *"(ti:agent", "enter")
        await ready(pilot)
        assert app.focused is box and "parenthes" in str(box.border_subtitle).lower()
        box.border_subtitle = ""
        await pilot.press("enter")  # again: said again
        assert app.focused is box and "parenthes" in str(box.border_subtitle).lower()
        await pilot.press("s", "a")  # typed into the query, not a star and not Add topic
        await pilot.pause()
        assert box.value == "(ti:agentsa" and not store.marks().starred and app.screen is app.main
        await pilot.press("backspace", "backspace", ")", "enter")
        await ready(pilot)
        assert app.focused is app.main.paper_list and app.main.filter_text == "(ti:agent)"


async def test_enter_on_a_query_error_quoting_brackets_says_them_as_typed(store):
    # The box's note is its subtitle's one source, always shown as text: Enter's own saying of
    # the error (before the filter's answer) quotes what was typed, brackets and all.
    app = make_app(store)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        box = app.main.query_one(FilterBox)
        await pilot.press("slash", *"([b]agents")
        await ready(pilot)  # the filter's answer: the same error, said
        box.border_subtitle = ""
        await pilot.press("enter")  # said again by the box itself, at once
        assert app.focused is box
        assert "column&#160;1:&#160;&#x27;([b]agents&#x27;)" in app.export_screenshot()


@pytest.mark.slow
async def test_texts_name_the_key_bound_now(store, tmp_path):
    keymap(tmp_path, '"app.hide" = "s"\n"app.sync" = "ctrl+r"\n"app.unread_only" = "U"\n')
    store.add_topic("Fresh", "ti:fresh")  # never synced: its empty list says how to sync it
    app = make_app(store)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        first = app.main.paper_list.current
        await pilot.press("x")  # no longer hides
        await ready(pilot)
        assert store.marks().hidden == set()
        await pilot.press("s")
        await ready(pilot)
        assert store.marks().hidden == {first}
        card = card_text(app, 0)
        assert "s brings it back" in card and "x brings" not in card
        assert "Hidden: not shown again (s brings it back)." in app.message_log
        await pilot.press("U")
        assert app.main.paper_list.border_title.endswith("· U shows all")
        await pilot.press("U")
        await choose(pilot, View.of_topic("Fresh"))
        assert app.main.paper_list.empty_message == "No papers in Fresh yet — ^r syncs it from arXiv"
        await pilot.press("question_mark")
        await pilot.pause()
        help_text = " ".join(what for _, rows in app.help_sections() for _, what in rows)
        assert "x again" not in help_text and "Press Esc to close." in str(app.screen.query_one(".help").query("Static").last().render())


def screen_text(app) -> str:
    """Every character on the terminal now, as the user sees it."""
    return "\n".join(strip.text for strip in app.screen._compositor.render_strips())


async def test_help_lists_a_key_taken_by_a_remap_only_for_the_binding_that_has_it(store, tmp_path):
    keymap(tmp_path, '"app.read" = "x"\n')  # x was Hide's
    app = make_app(store)
    async with app.run_test(size=(120, 60)) as pilot:
        await ready(pilot)
        assert "keymap.toml: x is now both Read (app.read) and Hide (app.hide); Hide has no key" in app.message_log
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        rows = [" ".join(line.split("│")[1].split()) for line in screen_text(app).splitlines() if line.count("│") == 2]
        hide = "Not interested: hide the paper (the same key again brings it back)"
        assert "x Read" in rows and f"no key {hide}" in rows and f"x {hide}" not in rows, rows
        detail = dict(app.help_sections())["Detail view"]  # below the fold: as help lists it
        assert ("x", "Read") in detail and ("no key", hide) in detail


async def test_ctrl_c_says_in_plain_text_the_same_keys_that_quit_on_every_screen(store):
    app = make_app(store)
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        await ready(pilot)
        said = "^q quits reader from any screen; q too on the main screen"
        await pilot.press("ctrl+c")
        await pilot.pause()
        assert app.message_log[-1] == said and app.is_running
        toast = " ".join(screen_text(app).split())  # the toast as drawn: no markup to show
        assert "^q quits reader from any screen" in toast and "[b]" not in toast, toast
        await open_paper(pilot)
        await pilot.press("N")  # the note editor: q types a q there, ^q still quits
        await ready(pilot)
        assert app.focused is app.screen.query_one("#note-editor")
        await pilot.press("ctrl+c")
        await pilot.pause()
        assert app.message_log[-1] == said
        assert str(app.screen.query_one(NoticeLine).render()) == said  # the detail view's line
        await pilot.press("ctrl+q")
        await pilot.pause()
        assert not app.is_running
