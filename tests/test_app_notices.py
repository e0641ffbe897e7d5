"""Notices (issue 28): the offline notice once, and never over text the user opened (the help
screen, the detail view): there they take a line of their own."""

from __future__ import annotations

import pytest

from reader.app import ReaderApp
from reader.app.screens.detail import DetailScreen
from reader.app.screens.help import HelpScreen
from reader.app.widgets.notice_line import NoticeLine
from reader.arxiv.client import ClientOptions
from tests.helpers.app import make_app, open_paper, ready, settings
from tests.helpers.pilot import screen_text, until
from tests.sample_papers import sample_papers


@pytest.fixture
def papers():
    return sample_papers(40)


def offline_notices(app) -> list[str]:
    return [message for message in app.message_log if "arXiv cannot be reached" in message]


@pytest.mark.slow
async def test_the_offline_notice_shows_once_at_start_where_the_status_line_is_hidden(demo_store):
    options = ClientOptions(api_url="http://127.0.0.1:9/api/query", rss_url="http://127.0.0.1:9/rss/", delay=0, retries=0, timeout=2)
    app = ReaderApp(demo_store, settings(), client_options=options, sync_on_start=True)  # a sync at start, offline
    async with app.run_test(size=(80, 24), notifications=True) as pilot:  # a short terminal: no status line
        await ready(pilot)
        await until(pilot, lambda: offline_notices(app))  # the sync's child process says so, when it has started
        assert not app.main.status.display
        assert offline_notices(app) == ["Offline: arXiv cannot be reached (no network?). Showing the demo set."]
        assert len(app.screen.query("Toast")) == 1
        await pilot.press("R")
        await ready(pilot)
        assert len(offline_notices(app)) == 1


@pytest.mark.slow
async def test_notices_never_cover_the_detail_view_or_help(store):
    app = make_app(store)
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await ready(pilot)
        app.notify("Shown before the detail view opened", timeout=30)
        await pilot.pause()
        assert len(app.screen.query("Toast")) == 1  # on the list: a toast in the corner
        await open_paper(pilot)
        assert isinstance(app.screen, DetailScreen)
        record = app.screen.record_view
        height = record.size.height
        assert "Shown before" not in screen_text(app)  # the toast shown on the list does not follow
        app.notify("Said while the paper is read", severity="warning")
        await pilot.pause()
        line = app.screen.query_one(NoticeLine)
        assert line.display and str(line.render()) == "Said while the paper is read"
        assert record.size.height == height - 1  # the line takes its row: the text moves up, never under it
        assert line.region.y == record.region.bottom and screen_text(app).count("Said while the paper is read") == 1
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        app.notify("Said over help", severity="error")
        await pilot.pause()
        help_line = app.screen.query_one(NoticeLine)
        assert help_line.display and str(help_line.render()) == "Said over help"
        assert help_line.region.y >= app.screen.query_one(".help").region.bottom
