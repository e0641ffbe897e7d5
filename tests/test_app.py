"""The app driven with Textual's Pilot: every key, background sync, demo and offline states."""

from __future__ import annotations

import dataclasses
import os
import stat
import time

import pytest
from textual import events
from textual.widgets import RadioButton, RadioSet

from reader.app.screens.detail import DetailScreen
from reader.app.screens.dialogs import AddTopicDialog, ConfirmDialog
from reader.app.screens.export import ExportDialog
from reader.app.screens.help import HelpScreen
from reader.app.screens.main import MainScreen
from reader.app.widgets.chart import MomentumChart
from reader.app.widgets.footer import KeyFooter
from reader.app.widgets.outside_watch import OutsideWatch
from reader.config import Source
from reader.service import ALL, STARRED, View
from reader.store import Store
from tests.helpers.app import QUERY, card_text, make_app, open_paper, ready, settings
from tests.helpers.pilot import filter_says
from tests.helpers.timing import scaled
from tests.sample_papers import sample_papers as recent_papers


async def test_first_screen_shows_sidebar_chart_and_newest_cards(store, papers):
    app = make_app(store)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        sidebar = app.main.sidebar
        prompts = [str(sidebar.get_option_at_index(i).prompt) for i in range(sidebar.option_count)]
        assert prompts[0] == "All papers\n40 papers · 40 unread"
        assert prompts[1] == "Starred\n0 papers"
        assert prompts[2:7] == [
            "For you\nby your stars",
            "New\nnothing new",
            "Updated\nno new versions",
            "Rising\ntopic momentum",
            "TOPICS",
        ]
        assert prompts[7] == "Agents\n30 papers · 30 unread"
        assert app.main.paper_list.ids[:3] == [p.id for p in papers[:3]]
        chart = app.query_one(MomentumChart)
        assert chart.headline.startswith("40 papers in the last four weeks")
        first = card_text(app, 0)
        assert papers[0].title[:40] in first and papers[0].published[:10] in first
        assert "Agents" in first.splitlines()[0]


async def test_the_status_line_shows_each_message_across_its_width(store):
    # A message repaints the line without a layout of the screen (a sync says many): a longer
    # message than the last must still show whole, a shorter one leave nothing of the last.
    app = make_app(store)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        status = app.main.status
        shown = []
        for message in ("Syncing 1 topic…", "Agents: fetched 2,000 of 9,381 papers, saving them to the cache now", "Synced"):
            app.main.status_text = message  # the screen's state, bound down to the line
            await pilot.pause()
            shown.append("".join(segment.text for segment in status.render_line(0)).strip())
        assert shown == ["Syncing 1 topic…", "Agents: fetched 2,000 of 9,381 papers, saving them to the cache now", "Synced"]


async def test_the_sync_state_flows_down_from_the_screen_to_the_widgets_showing_it(store):
    # The screen owns whether its sync runs and what the status line says; the status line and the
    # outside watch (which leaves the sync's files alone meanwhile) are bound to it.
    app = make_app(store)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        watch = app.main.query_one(OutsideWatch)
        app.main.syncing, app.main.status_text = True, "Syncing 2 topics…"
        await pilot.pause()
        assert app.main.status.syncing and watch.syncing
        assert "".join(segment.text for segment in app.main.status.render_line(0)).strip() == "Syncing 2 topics…"
        app.main.syncing = False
        await pilot.pause()
        assert not app.main.status.syncing and not watch.syncing


async def test_cursor_keys(store):
    app = make_app(store)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        plist = app.main.paper_list
        await pilot.press("j", "j", "down")
        assert plist.cursor == 3
        await pilot.press("k", "up")
        assert plist.cursor == 1
        await pilot.press("G")
        assert plist.cursor == 39
        await pilot.press("g")
        assert plist.cursor == 0
        await pilot.press("end")
        assert plist.cursor == 39
        await pilot.press("home", "pagedown")
        assert plist.cursor > 1
        await pilot.press("pageup")
        assert plist.cursor == 0


async def test_the_chart_repaints_its_title_when_only_the_title_changes(store):
    # Two views with one headline (two empty topics, a topic and its rising terms): the title
    # painted must follow the view.
    app = make_app(store)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        chart = app.query_one(MomentumChart)
        for title in ("Agents · rising: tool use", "Testing"):
            chart.show(None, title, "No papers in this topic yet")
            await pilot.pause()
            assert "".join(segment.text for segment in chart.render_line(0)).strip().startswith(title)


@pytest.mark.slow
async def test_sidebar_selects_topic_and_starred(store, papers):
    app = make_app(store)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await pilot.press("tab")
        assert app.focused is app.main.sidebar
        await pilot.press(*"jjjjjj")  # All -> Starred -> For you -> New -> Updated -> Rising -> (heading) Agents
        assert app.main.view == View.of_topic("Agents")
        assert list(app.main.paper_list.ids) == [p.id for p in papers[:30]]
        assert app.query_one(MomentumChart).title == "Agents"
        await pilot.press("enter")
        assert app.focused is app.main.paper_list
        await pilot.press("shift+tab")
        await pilot.press(*"kkkkk")
        assert app.main.view == STARRED and list(app.main.paper_list.ids) == []


async def test_star_read_persist_and_enter_opens_detail(store, papers, data_dir):
    app = make_app(store)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await pilot.press("s")
        assert Store(data_dir).marks().starred == {papers[0].id}
        assert "★" in card_text(app, 0)
        await pilot.press("s")
        assert Store(data_dir).marks().starred == set()
        await pilot.press("r")
        assert Store(data_dir).marks().read == {papers[0].id}
        await pilot.press("r", "j", "enter")
        assert isinstance(app.screen, DetailScreen)
        assert Store(data_dir).marks().read == {papers[1].id}
        body = app.screen.record_view.text
        assert papers[1].title in body and papers[1].authors[0].name in body
        await pilot.press("s")
        assert Store(data_dir).marks().starred == {papers[1].id}
        await pilot.press("escape")
        assert not isinstance(app.screen, DetailScreen)
        assert str(app.main.sidebar.get_option_at_index(1).prompt) == "Starred\n1 paper"  # read, so none unread


async def test_the_detail_view_shows_the_paper_as_it_is_when_opened_and_follows_changes(store, papers):
    # Its lines are made ahead while the cursor rests on a paper: a star pressed since, a key
    # pressed in it, or a new width must each show.
    app = make_app(store)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)  # the first paper's lines are made by now, unstarred
        await pilot.press("s", "enter")
        await ready(pilot)
        view = app.screen.record_view
        assert view.text.splitlines()[2] == f"arXiv:{papers[0].id}v{papers[0].version} · {papers[0].primary_category} · ★ starred · read"
        await pilot.press("s", "r")
        assert view.text.splitlines()[2].endswith(f"{papers[0].primary_category} · unread")
        await pilot.resize_terminal(70, 30)
        await ready(pilot)
        assert max(strip.cell_length for strip in view.lines.strips) <= view.scrollable_content_region.width
        assert papers[0].abstract.split()[-1] in view.text  # rewrapped, nothing cut


async def test_text_in_the_detail_view_can_be_selected(store, papers):
    app = make_app(store)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await open_paper(pilot)
        await pilot.mouse_down("#detail", offset=(2, 1))  # the title's first cell, inside the padding, under a blank line
        await pilot.hover("#detail", offset=(2 + 5, 2))
        await pilot.mouse_up("#detail", offset=(2 + 5, 2))
        await pilot.pause()
        assert app.screen.get_selected_text() == f"{papers[0].title}\narXiv:"  # to the cell under the mouse


async def test_the_detail_view_scrolls_by_wheel_and_keys_and_shows_where_it_is(store, papers):
    app = make_app(store)
    async with app.run_test(size=(120, 24)) as pilot:
        await ready(pilot)
        await open_paper(pilot)
        view = app.screen.query_one("#detail")

        def thumb_rows() -> list[int]:
            return [y for y in range(view.scrollable_content_region.height) if view.render_line(y).text.endswith("▐")]

        at_top = thumb_rows()
        assert at_top and at_top[0] == 0 and view.max_scroll_y > 0
        view.post_message(events.MouseScrollDown(view, 5, 5, 0, 0, 0, False, False, False, screen_x=5, screen_y=5))
        await ready(pilot)
        assert view.scroll_y > 0
        await pilot.press("end")
        await ready(pilot)
        assert view.scroll_y == view.max_scroll_y and thumb_rows()[-1] == view.scrollable_content_region.height - 1
        # The whole record can be reached: its last line shown, above a blank one.
        assert view.max_scroll_y + view.scrollable_content_region.height == len(view.lines.strips)
        last = view.scrollable_content_region.height - 1
        assert view.render_line(last).text.strip() == "▐" and view.render_line(last - 1).text.startswith(
            f"https://arxiv.org/pdf/{papers[0].id}"
        )
        assert len(thumb_rows()) == len(at_top)


async def test_next_unread_and_unread_only(store, papers):
    app = make_app(store)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await pilot.press("r", "j", "r", "k")  # first two read
        await pilot.press("n")
        assert app.main.paper_list.current == papers[2].id
        await pilot.press("u")
        assert list(app.main.paper_list.ids) == [p.id for p in papers[2:]]
        assert app.main.paper_list.current == papers[2].id
        await pilot.press("u")
        assert len(app.main.paper_list.ids) == 40


async def test_filter_with_words_and_queries(store, papers):
    app = make_app(store)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await pilot.press("slash")
        await pilot.press(*"ti:testing")
        box = await filter_says(pilot, "match")
        expected = [p.id for p in papers if "testing" in p.title.lower().replace(":", " ").split()]
        assert expected and list(app.main.paper_list.ids) == expected
        assert box.border_subtitle.startswith(f"{len(expected)} match")
        box.value = "ti:(a b)"  # at once, as pasted: typed on a loaded machine, "ti" alone would be the last good filter
        await filter_says(pilot, "not arXiv syntax")
        assert "not arXiv syntax" in box.border_subtitle
        assert list(app.main.paper_list.ids) == expected  # the last good filter stays
        await pilot.press("escape")
        await pilot.pause(0.3)
        await ready(pilot)
        assert len(app.main.paper_list.ids) == 40 and not box.display


@pytest.mark.slow
async def test_filter_box_says_once_that_lower_case_operators_are_words(store, papers):
    app = make_app(store)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await pilot.press("slash", *"testing and agents and tools")
        box = await filter_says(pilot, "match")
        note = '"and" is searched as a word: operators are AND, OR, ANDNOT in capitals'
        assert str(box.border_subtitle).endswith(f" · {note}") and str(box.border_subtitle).count("AND, OR") == 1
        assert box.value == "testing and agents and tools"  # the query stays as typed
        await pilot.press("ctrl+a", "ctrl+k", *"testing AND agents")
        for _ in range(100):
            await ready(pilot)
            if "match" in str(box.border_subtitle) and "capitals" not in str(box.border_subtitle):
                break
            await pilot.pause(0.05)
        assert "capitals" not in str(box.border_subtitle)


async def test_open_abstract_and_pdf_in_browser(store, papers, monkeypatch):
    opened = []
    monkeypatch.setattr("webbrowser.open", lambda url: opened.append(url) or True)
    app = make_app(store)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await pilot.press("o", "p")
        await ready(pilot)
        assert opened == [f"https://arxiv.org/abs/{papers[0].id}v1", f"https://arxiv.org/pdf/{papers[0].id}v1"]
        assert f"Opened {opened[0]}" in app.message_log


async def test_without_a_browser_the_link_is_shown_and_copied(store, papers, monkeypatch):
    monkeypatch.setattr("webbrowser.open", lambda url: False)
    app = make_app(store)
    copied = []
    app.copy_to_clipboard = copied.append
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await pilot.press("o")
        await ready(pilot)
        url = f"https://arxiv.org/abs/{papers[0].id}v1"
        assert copied == [url]
        assert any("No browser could open it" in m and m.endswith(url) for m in app.message_log)


async def test_links_from_the_feed_are_never_opened(data_dir, monkeypatch):
    hostile = dataclasses.replace(recent_papers(1)[0], abs_url="file:///etc/passwd", pdf_url="javascript:alert(1)")
    store = Store(data_dir)
    store.save_papers([hostile], None)
    opened = []
    monkeypatch.setattr("webbrowser.open", lambda url: opened.append(url) or True)
    app = make_app(store)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await pilot.press("o", "p")
        await ready(pilot)
    assert opened == [f"https://arxiv.org/abs/{hostile.id}v{hostile.version}", f"https://arxiv.org/pdf/{hostile.id}v{hostile.version}"]


@pytest.mark.slow
async def test_background_sync_updates_list_and_counts_and_keeps_the_cursor(store, papers, fake_arxiv):
    newer = recent_papers(5, id_base=60000)
    fake_arxiv.queries[QUERY] = newer + papers[:30]
    fake_arxiv.queries["ti:other"] = papers[25:40]
    app = make_app(store, fake_arxiv)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await pilot.press("j", "j")
        current = app.main.paper_list.current
        await pilot.press("R")
        await ready(pilot)
        await ready(pilot)
        assert app.main.paper_list.current == current
        assert set(app.main.paper_list.ids[:5]) == {p.id for p in newer}
        assert str(app.main.sidebar.get_option_at_index(0).prompt).startswith("All papers\n45 papers")
        assert "5 new" in str(app.query_one("#status").render())


@pytest.mark.slow
async def test_add_and_delete_topic(store, fake_arxiv):
    fake_arxiv.queries["cat:cs.LG"] = recent_papers(3, id_base=70000)
    app = make_app(store, fake_arxiv)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await pilot.press("a")
        assert isinstance(app.screen, AddTopicDialog)
        await pilot.press(*"New", "enter", *"cat:cs.LG AND", "enter")
        assert "Invalid query" in str(app.screen.query_one(".dialog-error").render())
        await pilot.press("backspace", "backspace", "backspace", "backspace", "enter")
        await ready(pilot)
        await ready(pilot)
        assert [t.name for t in store.topics()] == ["Agents", "Other", "New"]
        # The cached papers in cs.LG at once, then the sync's three.
        cached = [p.id for p in store.load_papers().values() if "cs.LG" in p.categories and p.id[5] != "7"]
        assert cached and app.main.view == View.of_topic("New") and len(app.main.paper_list.ids) == 3 + len(cached)
        await pilot.press("d")
        assert isinstance(app.screen, ConfirmDialog)
        await pilot.press("y")
        await ready(pilot)  # the sidebar moves to All once the delete is written
        assert [t.name for t in store.topics()] == ["Agents", "Other"] and app.main.view == ALL


@pytest.mark.slow
async def test_export_starred_and_copy_entry(store, papers, tmp_path):
    app = make_app(store)
    copied = []
    app.copy_to_clipboard = copied.append
    target = tmp_path / "out.bib"
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await pilot.press("s", "j", "s", "y")
        await ready(pilot)  # the entry is made in a worker (giving a key writes library.json)
        assert copied and copied[0].startswith("@misc{") and f"eprint = {{{papers[1].id}}}" in copied[0]
        await pilot.press("e")
        assert isinstance(app.screen, ExportDialog)
        app.screen.query_one("#path").value = str(target)
        await pilot.press("enter")
        await pilot.pause()
        assert target.read_text().count("@misc{") == 2
        assert store.setting("export_path") == str(target)
        await pilot.press("e")
        assert app.screen.query_one("#path").value == str(target)
        app.screen.query_one("#path").value = str(tmp_path / "missing" / "x.bib")
        await pilot.press("enter")
        await pilot.pause()
        assert not (tmp_path / "missing").exists()


@pytest.mark.slow
async def test_help_lists_every_key(store):
    app = make_app(store)
    async with app.run_test(size=(120, 50)) as pilot:
        await ready(pilot)
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        rows = dict(r for _, section in app.help_sections() for r in section)
        for key in ["j / ↓", "k / ↑", "g / home", "G / end", "s", "r", "n", "u", "/", "o", "p", "R", "a", "d", "e", "y", "q", "?"]:
            assert any(k == key or k.startswith(key) for k in rows), key
        assert app.screen.sections[0][0] == "Papers"
        await pilot.press("escape")
        assert not isinstance(app.screen, HelpScreen)
        await open_paper(pilot)
        await pilot.press("question_mark")
        assert [title for title, _ in app.screen.sections] == [
            "Detail view",
            "Papers",
            "Actions",
            "Sidebar",
            "Rising",
        ]  # its own keys first


async def test_demo_set_when_there_is_no_cache(demo_store):
    app = make_app(demo_store)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        assert app.service.is_demo and len(app.main.paper_list.ids) == 30
        chart = app.query_one(MomentumChart)
        # The page's own figures, said to be the page's; the bars count only the bundled papers.
        assert chart.headline == "On the page: 70 papers in the last four weeks, up 141% on the four weeks before · 0.7% of all new papers"
        assert chart.title == "Demo · RL for LLM Agents · bars: the 30 bundled papers of 402"
        assert sum(week.count for week in chart.momentum.weeks) == 30
        assert "Demo set" in str(app.query_one("#status").render())
        assert "demo paper" in card_text(app, 0)


@pytest.mark.slow
async def test_offline_says_so_once_and_keeps_the_cache(store):
    app = make_app(store)  # points at a closed port
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await pilot.press("R")
        await ready(pilot)
        await pilot.press("R")
        await ready(pilot)
        status = str(app.query_one("#status").render())
        assert status == "Offline: arXiv cannot be reached (no network?). Showing the cached papers." and "Errno" not in status
        assert not [n for n in app.message_log if "arXiv cannot be reached" in n]  # the status line says it: no toast too
        assert len(app.main.paper_list.ids) == 40


async def test_feed_text_is_shown_literally(data_dir):
    store = Store(data_dir)
    hostile = dataclasses.replace(
        recent_papers(1)[0],
        title="[bold]x[/] [@click=app.quit]y[/] [link=http://evil]z[/link]",
        abstract="\x1b[31mred\x1b[0m [b]not bold[/b]",
    )
    from reader.core.sanitize import clean_text

    hostile = dataclasses.replace(hostile, abstract=clean_text(hostile.abstract))
    store.save_papers([hostile])
    app = make_app(store)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        text = card_text(app, 0)
        assert "[bold]x[/] [@click=app.quit]y[/] [link=http://evil]z[/link]" in text
        assert "\x1b" not in text and "[31mred[0m [b]not bold[/b]" in text
        await pilot.click("#papers", offset=(20, 1))
        await pilot.press("enter")
        assert isinstance(app.screen, DetailScreen)
        assert "[@click=app.quit]y[/]" in app.screen.record_view.text
        assert app.is_running


async def test_theme_is_remembered(store, data_dir):
    app = make_app(store)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        app.theme = "textual-light"
        await pilot.pause()
    assert Store(data_dir).setting("theme") == "textual-light"
    app = make_app(Store(data_dir))
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        assert app.theme == "textual-light"


async def test_theme_setting_applies_and_an_unknown_one_is_said(store):
    app = make_app(store, app_settings=settings(theme="nosuchtheme", sources={"theme": Source("file", "line 2")}))
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        assert app.theme == "textual-dark"
    assert any(
        message.startswith("theme 'nosuchtheme' (config file line 2) is not a theme (themes: ansi-dark, ")
        and message.endswith(", tokyo-night); the default is used")
        for message in app.message_log
    )
    app = make_app(store, app_settings=settings(theme="nord"))
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        assert app.theme == "nord"


async def test_a_misspelt_theme_names_the_nearest_one(store):
    app = make_app(store, app_settings=settings(theme="nrod", sources={"theme": Source("file", "line 1")}))
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        assert app.theme == "textual-dark"
    assert "theme 'nrod' (config file line 1) is not a theme (did you mean nord?); the default is used" in app.message_log


async def test_quit(store):
    app = make_app(store)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await pilot.press("q")
        await pilot.pause()
        assert not app.is_running


@pytest.mark.slow
async def test_the_screen_stays_responsive_while_arxiv_hangs(store, fake_arxiv):
    from tests.arxiv_server import Fault

    fake_arxiv.faults = [Fault("hang", seconds=3)] * 4
    app = make_app(store, fake_arxiv)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await pilot.press("R")
        await pilot.pause(0.2)
        assert app.main.status.syncing
        started = time.monotonic()
        await pilot.press("j", "j", "s")
        assert app.main.paper_list.cursor == 2 and app.main.paper_list.current in app.service.catalog.starred
        assert time.monotonic() - started < scaled(1.0)
        assert app.main.status.syncing  # still waiting on arXiv


async def test_hostile_authors_and_comments_are_plain_text(data_dir):
    from reader.models import Author

    store = Store(data_dir)
    paper = dataclasses.replace(
        recent_papers(1)[0],
        authors=(Author("[red]Mallory[/red]", ("[@click=app.quit]Evil U[/]",)),),
        comment="[link=file:///etc/passwd]click[/link]",
    )
    store.save_papers([paper])
    app = make_app(store)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        assert "[red]Mallory[/red] · [@click=app.quit]Evil U[/]" in card_text(app, 0)
        await pilot.press("enter")
        shown = app.screen.record_view.text
        assert "[red]Mallory[/red]" in shown and "[link=file:///etc/passwd]click[/link]" in shown
        assert not any(
            segment.style and (segment.style.link or segment.style.meta)
            for strip in app.screen.record_view.lines.strips
            for segment in strip
            if "passwd" in segment.text or "Mallory" in segment.text
        )
        assert app.is_running


async def test_a_damaged_index_is_reported_and_rebuilt(store, data_dir):
    (data_dir / "index.json").write_text("{broken")
    app = make_app(Store(data_dir))
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        assert any("index.json is damaged" in n for n in app.message_log)
        assert len(app.main.paper_list.ids) == 40


async def test_keymap_file_remaps_keys_says_which_line_is_wrong_and_moves_beside_the_config(store, data_dir, tmp_path):
    (data_dir / "keymap.toml").write_text('"app.star" = "z"\n"list.down" = 5\n"app.stra" = "q"\n"app.pdf" = "x"\n')
    app = make_app(store)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await pilot.press("z")
        assert app.main.paper_list.current in app.service.catalog.starred
        assert any(keys == "z" and what == "Star" for keys, what in app.help_sections()[1][1])
        await pilot.press("j")  # line 2 was ignored: j still moves down
        assert app.main.paper_list.cursor == 1
    said = " ".join(app.message_log)
    assert "line 2: 'list.down' needs keys as text" in said
    assert "line 3: unknown binding id 'app.stra' (did you mean app.star?)" in said
    assert "keymap.toml: x is now both PDF (app.pdf) and Hide (app.hide); Hide has no key" in app.message_log
    assert "moved from" in said and (tmp_path / "config" / "keymap.toml").is_file()
    assert not (data_dir / "keymap.toml").exists()


@pytest.mark.parametrize("deep", ["[" * 5000 + "]" * 5000, "{a = " * 3000 + "1" + "}" * 3000], ids=["arrays", "inline tables"])
async def test_a_keymap_nested_thousands_deep_starts_the_app_with_the_default_keys(store, data_dir, tmp_path, deep):
    (tmp_path / "config").mkdir(exist_ok=True)
    (tmp_path / "config" / "keymap.toml").write_text('"app.star" = "z"\n"app.read" = ' + deep + "\n")
    app = make_app(store)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await pilot.press("s")  # the default key, not line 1's z: the whole file is ignored
        assert app.main.paper_list.current in app.service.catalog.starred
    assert any(
        "keymap.toml" in m and "line 2: nested more than 8 levels deep" in m and "the whole file is ignored" in m for m in app.message_log
    ), app.message_log


async def test_every_action_is_in_the_command_palette(store, papers):
    app = make_app(store)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        titles = {command.title for command in app.get_system_commands(app.screen)}
        assert {b.description for b in MainScreen.BINDINGS if b.show} <= titles
        await pilot.press("ctrl+p")
        await pilot.press(*"Star")
        await pilot.pause(0.5)
        await pilot.press("enter")
        await pilot.pause(0.2)
        assert papers[0].id in app.service.catalog.starred


@pytest.mark.slow
async def test_enter_in_the_delete_dialog_cancels(store):
    app = make_app(store)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await pilot.press("tab", *"jjjjjj", "d")
        assert isinstance(app.screen, ConfirmDialog)
        await pilot.press("enter")
        assert [t.name for t in store.topics()] == ["Agents", "Other"]


@pytest.mark.slow
async def test_list_actions_stay_off_dialogs_and_the_detail_view(store):
    app = make_app(store)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await pilot.press("tab", *"jjjjjj", "d")
        assert isinstance(app.screen, ConfirmDialog)
        await pilot.press("d", "a", "R")  # no second dialog, no topic dialog, no sync
        assert isinstance(app.screen, ConfirmDialog) and len(app.screen_stack) == 2 and not app.main.status.syncing
        await pilot.press("escape", "tab", "enter")
        assert isinstance(app.screen, DetailScreen)
        await pilot.press("slash", "n")
        assert isinstance(app.screen, DetailScreen) and not app.query_one("#filter").display
        await pilot.press("s")
        assert app.screen.paper_id in app.service.catalog.starred


async def test_a_slash_inside_the_filter_is_a_character(store):
    app = make_app(store)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await pilot.press("slash", *"hep-th", "slash", *"99")
        assert app.query_one("#filter").value == "hep-th/99"


async def test_keys_typed_right_after_slash_land_in_the_filter(store, data_dir):
    from textual import events

    app = make_app(store)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        for char in "/creditdr":  # one burst, queued before any is handled (a fast typist, a paste)
            key = events.Key("slash" if char == "/" else char, char)
            app.post_message(key)
        await pilot.pause()
        assert app.query_one("#filter").value == "creditdr"
        assert Store(data_dir).marks().read == set() and not isinstance(app.screen, ConfirmDialog)


def test_repairs_found_at_start_are_left_for_the_app_to_show(store, data_dir, monkeypatch, capsys):
    """`reader` (the app) does not print the store's repairs to a terminal the app then covers."""
    from reader import cli

    (data_dir / "user.json").write_text("{broken")
    seen = []
    monkeypatch.setattr("reader.app.run_app", lambda store, settings: seen.extend(store.warnings) or 0)
    assert cli.main(["--data-dir", str(data_dir)]) == 0
    assert any("user.json is damaged" in w for w in seen)
    assert "damaged" not in capsys.readouterr().err


async def test_the_app_shows_repairs_when_it_opens(store, data_dir):
    (data_dir / "user.json").write_text("{broken")
    app = make_app(Store(data_dir))
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        assert any("user.json is damaged" in m for m in app.message_log)


@pytest.mark.slow
async def test_hostile_server_text_in_a_notification_is_literal_and_inert(store, fake_arxiv, tmp_path):
    """arXiv's error message reaches the user word for word, as text: clicking it does nothing."""
    from tests.arxiv_server import Fault

    hostile = f"[@click=app.screenshot('{tmp_path}/x.svg')]click[/] [@click=app.quit]q[/] [link=http://evil]z[/link]"
    fake_arxiv.faults = [Fault("error_feed", status=400, body=hostile.encode())] * 4
    app = make_app(store, fake_arxiv)
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        await ready(pilot)
        await pilot.press("R")
        await ready(pilot)
        await pilot.pause()
        shown = [m for m in app.message_log if hostile in m]
        assert shown, app.message_log
        clicked = 0
        while app.screen.query("Toast"):  # a click on a toast dismisses it, and must do nothing else
            await pilot.click("Toast")
            await pilot.pause()
            clicked += 1
        assert clicked >= 1 and app.is_running and isinstance(app.screen, MainScreen)
    assert list(tmp_path.glob("*.svg")) == []


@pytest.mark.slow
async def test_tab_moves_between_fields_in_every_dialog(store, tmp_path):
    app = make_app(store)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await pilot.press("a", "X", "tab", "Y")
        assert app.screen.query_one("#topic-name").value == "X"
        assert app.screen.query_one("#topic-query").value == "Y"
        await pilot.press("shift+tab", "end", "Z")
        assert app.screen.query_one("#topic-name").value == "XZ"
        await pilot.press("escape", "s", "e")
        await ready(pilot)
        assert isinstance(app.screen, ExportDialog)
        await pilot.press("tab")
        assert app.focused.id == "submit"
        await pilot.press("escape", "tab", *"jjjjjj", "d")
        assert isinstance(app.screen, ConfirmDialog)
        assert "y answers yes" in str(app.screen.query_one(".dialog-hint").render())
        focused = app.focused
        await pilot.press("tab")
        assert app.focused is not focused


@pytest.mark.parametrize("typed", [".", "/", "{tmp}", "{tmp}/nodir/", "/proc/starred.bib"])  # /proc takes no new file
async def test_export_to_a_folder_is_refused_in_the_dialog_and_the_path_kept(store, tmp_path, typed):
    app = make_app(store)
    typed = typed.format(tmp=tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await pilot.press("s", "e")
        await ready(pilot)
        app.screen.query_one("#path").value = typed
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, ExportDialog) and app.screen.query_one("#path").value == typed
        error = str(app.screen.query_one(".dialog-error").render())
        assert "folder" in error
    assert not (tmp_path / "nodir").exists()


@pytest.mark.slow
async def test_a_failed_export_is_said_and_the_next_e_offers_what_was_typed(store, tmp_path):
    target = tmp_path / "mine.ris"
    (tmp_path / f".mine.ris.{os.getpid()}.tmp").mkdir()  # the file cannot be written (as root too)
    app = make_app(store)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await pilot.press("s", "e")
        await ready(pilot)
        app.screen.query_one("#path").value = str(target)
        app.screen.query_one("#export-format").query(RadioButton)[1].value = True  # RIS
        await pilot.press("enter")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert any("Export failed: cannot write" in m and "e offers this path again" in m for m in app.message_log)
        await pilot.press("e")
        await ready(pilot)
        assert app.screen.query_one("#path").value == str(target)
        assert app.screen.query_one("#export-format", RadioSet).pressed_index == 1
        (tmp_path / f".mine.ris.{os.getpid()}.tmp").rmdir()
        await pilot.press("enter")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert target.read_text().startswith("TY  - ")


@pytest.mark.slow
async def test_the_export_dialog_keeps_a_private_files_mode_and_link(store, tmp_path):
    target = tmp_path / "library" / "private.bib"
    target.parent.mkdir()
    target.write_text("% mine\n")
    target.chmod(0o600)
    link = tmp_path / "refs.bib"
    link.symlink_to(target)
    app = make_app(store)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await pilot.press("s", "e")
        await ready(pilot)
        app.screen.query_one("#path").value = str(link)
        await pilot.press("enter")
        await app.workers.wait_for_complete()
        await pilot.pause()
        await pilot.press("enter")  # the file holds the user's text: Update, the default, keeps it
        await app.workers.wait_for_complete()
        await pilot.pause()
    assert link.is_symlink() and target.read_text().count("@misc{") == 1 and target.read_text().startswith("% mine\n")
    assert stat.S_IMODE(target.stat().st_mode) == 0o600


@pytest.mark.slow
async def test_tab_never_lands_in_a_kept_filter(store, papers):
    app = make_app(store)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await pilot.press("slash", *"ti:testing", "enter")
        await pilot.pause(0.3)
        await ready(pilot)
        kept = list(app.main.paper_list.ids)
        await pilot.press("tab")
        assert app.focused is app.main.sidebar
        await pilot.press("tab")
        assert app.focused is app.main.paper_list
        await pilot.press("x", "y")
        assert app.query_one("#filter").value == "ti:testing" and list(app.main.paper_list.ids) == kept


@pytest.mark.slow
async def test_empty_states_say_what_is_empty_and_what_to_do(store):
    app = make_app(store)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        main = app.main
        await pilot.press("tab", "j")  # Starred
        assert main.paper_list.empty_message == "No starred papers yet — s stars the highlighted paper"
        await pilot.press("k", "tab", "slash", *"ti:nosuchword", "enter")
        await pilot.pause(0.3)
        await ready(pilot)
        assert list(main.paper_list.ids) == []
        assert main.paper_list.empty_message == "No papers match ti:nosuchword — Esc clears the filter"
        await pilot.press("escape")
        await ready(pilot)
        for _ in range(40):
            await pilot.press("r", "j")
        await pilot.press("u")
        assert main.paper_list.empty_message == "Nothing unread here — u shows read papers too"
        assert "Unread only · 0 papers" in main.paper_list.border_title
        assert "Unread" in [key.description for key in app.screen.query_one(KeyFooter).keys]


def test_cards_shorten_affiliations_and_drop_whole_tags():
    from reader.app.widgets.card_text import affiliation_line, tag_line
    from reader.models import Author
    from reader.search_index.rows import card_of

    paper = dataclasses.replace(
        recent_papers(1)[0],
        authors=(
            Author("A", ("Massachusetts Institute of Technology, Cambridge, Massachusetts, USA",)),
            Author("B", ("ETH Zurich",)),
            Author("C", ("University of Tokyo",)),
        ),
    )
    card = card_of(paper)
    assert affiliation_line(card, 80) == "Massachusetts Institute of Technology, ETH Zurich +1"
    assert affiliation_line(card, 45) == "Massachusetts Institute of Technology +2"
    assert affiliation_line(card, 30) == "Massachusetts Institute of… +2"  # cut at a word, the count kept
    assert affiliation_line(card, 5) == ""  # no name fits: no bare "+3" either
    tags = ["RL Post-Training", "Partially Observable Markov Decision Processes", "Agents"]
    assert tag_line(tags, 100) == "  ".join(tags)
    assert tag_line(tags, 40) == "RL Post-Training  +2"
    assert tag_line(tags, 3) == "+3"


async def test_the_palette_shows_keys_as_the_footer_does(store):
    app = make_app(store)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        helps = {c.title: c.help for c in app.get_system_commands(app.screen)}
        assert helps["Filter"] == "key: /" and helps["Help"] == "key: ?"


async def test_keys_typed_in_a_burst_after_leaving_the_detail_view_act_on_the_list(store, papers):
    """Escape, j, Enter arriving together: Enter opens the paper j moved to, not the one just left."""
    app = make_app(store)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await pilot.press("enter")
        assert isinstance(app.screen, DetailScreen) and app.screen.paper_id == papers[0].id
        for key, char in (("escape", None), ("j", "j"), ("enter", "\r")):
            app.post_message(events.Key(key, char))  # no pause between them, as a fast typist sends them
        await pilot.pause()
        await pilot.pause()
        assert isinstance(app.screen, DetailScreen) and app.screen.paper_id == papers[1].id
        await pilot.press("escape")
        assert app.main.paper_list.current == papers[1].id


async def test_a_click_on_a_key_in_the_footer_presses_it_and_hovering_shows_its_tooltip(store, papers, data_dir):
    app = make_app(store)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        footer = app.screen.query_one(KeyFooter)
        line = str(footer.render())
        assert line.startswith("⏎ Open s Star r Read") and line.rstrip().endswith("▏^p palette")
        await pilot.click(KeyFooter, offset=(line.index("Star"), 0))
        assert Store(data_dir).marks().starred == {papers[0].id}
        await pilot.hover(KeyFooter, offset=(line.index("Next"), 0))
        assert footer.tooltip == "Next unread paper"
        await pilot.hover(KeyFooter, offset=(line.index("palette"), 0))
        assert footer.tooltip is not None and "palette" in str(footer.tooltip).lower()
        app.post_message(events.AppBlur())  # the terminal's window loses the focus: the keys stay
        await pilot.pause()
        assert str(footer.render()) == line
        app.post_message(events.AppFocus())
        await pilot.pause()
        assert str(footer.render()) == line
        await pilot.click(KeyFooter, offset=(line.index("Open"), 0))
        assert isinstance(app.screen, DetailScreen)
        assert str(app.screen.query_one(KeyFooter).render()).startswith(" esc Back  ? Help  s Star")


async def test_a_narrow_footer_leaves_out_whole_keys_not_parts_of_them(store):
    app = make_app(store)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await open_paper(pilot)
        footer = app.screen.query_one(KeyFooter)
        line = str(footer.render())
        shown = line.split("▏")[0].rstrip()
        assert line.rstrip().endswith("▏^p palette") and len(line) == 100
        assert shown.endswith("[ Previous") and " N " not in line  # "N Note" does not fit whole
        assert all(f"{key.display} {key.description}".strip() in shown for key in footer.keys[:5])


async def test_help_and_quit_stay_in_the_footer_however_narrow(store):
    app = make_app(store)
    async with app.run_test(size=(120, 24)) as pilot:
        await ready(pilot)
        footer = app.screen.query_one(KeyFooter)
        wide = str(footer.render()).split("▏")[0].rstrip()
        assert "o Browser" in wide and "? Help" in wide and wide.endswith("q Quit")
        others = wide.replace(" ? Help", "").removesuffix(" q Quit")
        for width in (80, 60, 40):
            await pilot.resize_terminal(width, 24)
            await pilot.pause()
            line = str(footer.render())
            shown = line.split("▏")[0].rstrip()
            assert len(line) == width and line.rstrip().endswith("▏^p palette")
            assert shown.startswith("⏎ Open s Star") and shown.endswith(" ? Help q Quit"), shown
            # The keys left out are whole ones, from the end; help keeps its place before quit.
            assert others.startswith(shown.removesuffix(" ? Help q Quit")), shown
        await pilot.click(KeyFooter, offset=(shown.index("Quit"), 0))
        await pilot.pause()
    assert app.return_code == 0  # the kept key is a key like the others: a click quits


@pytest.mark.slow
async def test_the_sidebar_shortens_its_counts_when_the_terminal_narrows_and_back(store):
    app = make_app(store)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        sidebar = app.main.sidebar
        assert str(sidebar.get_option_at_index(0).prompt).endswith("papers · 40 unread")
        await pilot.resize_terminal(80, 24)  # a narrower sidebar: the longest form that fits
        await pilot.pause()
        assert str(sidebar.get_option_at_index(0).prompt) == "All papers\n40 · 40 unread"
        await pilot.resize_terminal(60, 20)
        await pilot.pause()
        assert str(sidebar.get_option_at_index(0).prompt) == "All papers\n40 · 40 unr."
        await pilot.resize_terminal(120, 40)
        await pilot.pause()
        assert str(sidebar.get_option_at_index(0).prompt) == "All papers\n40 papers · 40 unread"


def test_large_counts_shorten_to_fit_a_narrow_sidebar():
    from reader.app.widgets.sidebar import SidebarEntry, TopicSidebar

    entry = SidebarEntry(ALL, "All papers", 100_000, 85_689)
    shown = [str(TopicSidebar._prompt(entry, compact=True, room=room)).splitlines()[1] for room in (30, 20, 19, 18)]
    assert shown == ["100,000 papers · 85,689 unread", "100k · 85.7k unread", "100k · 85.7k unread", "100k · 85.7k unr."]
    assert str(TopicSidebar._prompt(SidebarEntry(ALL, "All papers", 50_000, 0), compact=True, room=5)).endswith("\n50k")


async def test_a_query_error_quoting_brackets_shows_them_as_typed(store, papers):
    app = make_app(store)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await pilot.press("slash", *"([b]agents")
        box = await filter_says(pilot, "never closed")
        assert "never closed" in str(box.border_subtitle)
        shown = app.export_screenshot()
        assert "column&#160;1:&#160;&#x27;([b]agents&#x27;)" in shown  # as typed: no markup made of it
