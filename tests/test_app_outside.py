"""Changes other processes make to the data directory show in the running app (issue 28): with no
key pressed, quietly, cursor, filter and view kept; the app's own changes are not read back."""

from __future__ import annotations

import asyncio
import dataclasses
import os
import subprocess
import sys

import pytest

from reader.app.screens.detail import DetailScreen
from reader.app.screens.dialogs import AddTopicDialog
from reader.app.widgets.outside_watch import OutsideWatch
from reader.service import ALL, View
from reader.store import Store
from tests.helpers.app import card_text, choose, make_app, open_paper, ready
from tests.helpers.pilot import reader_cli, until
from tests.helpers.timing import scaled
from tests.sample_papers import sample_papers
from tests.terminal import run_in_terminal


@pytest.fixture
def papers():
    return sample_papers(40)


# store, papers: conftest's fixtures (the fixture: Agents (30 papers) and Other (15, five of them in both), synced)


def sidebar_names(app) -> list[str | None]:
    return [view.name for view in app.main.sidebar.views]


@pytest.mark.slow
async def test_topics_and_stars_from_another_process_show_with_no_key_pressed(store, papers, data_dir):
    both = papers[27]  # in Agents and in Other
    app = make_app(store)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        main = app.main
        await choose(pilot, View.of_topic("Other"))
        await pilot.press("tab")
        main.paper_list.set_cursor(main.paper_list.ids.index(both.id))
        await pilot.pause()
        assert card_text(app, main.paper_list.cursor).splitlines()[0].rstrip().endswith("Agents  Other")
        said = len(app.message_log)

        await reader_cli(data_dir, "topics", "add", "Robots", "cat:cs.RO")
        await until(pilot, lambda: "Robots" in sidebar_names(app))
        assert main.view == View.of_topic("Other") and main.paper_list.current == both.id

        await reader_cli(data_dir, "star", papers[30].id)  # a paper of Other, on the list
        await until(pilot, lambda: str(main.sidebar.get_option_at_index(1).prompt).startswith("Starred\n1 paper"))
        assert "★" in card_text(app, main.paper_list.ids.index(papers[30].id)) and main.paper_list.current == both.id

        await reader_cli(data_dir, "topics", "remove", "Other")
        await until(pilot, lambda: "Other" not in sidebar_names(app))
        assert main.view == ALL and main.paper_list.current == both.id  # the topic shown is gone: All papers
        assert str(main.status.render()) == "The topic 'Other' shown was removed by another process: All papers shown instead."
        assert card_text(app, main.paper_list.cursor).splitlines()[0].rstrip().endswith("Agents")  # its label gone at once
        assert len(app.message_log) == said  # quietly: no toast

        # The app's own star is not news: its write leaves nothing to read back.
        watch = main.query_one(OutsideWatch)
        reads = watch.reads
        await pilot.press("s")
        await asyncio.to_thread(app.service.flush)
        watch.look()
        assert watch.reads == reads and not app.service.outside.changed()


@pytest.mark.slow
async def test_a_filter_a_dialog_and_the_detail_view_stay_while_changes_come_in(store, papers, data_dir):
    app = make_app(store)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        main = app.main
        await pilot.press("slash", *"ti:agents", "enter")
        await ready(pilot)
        filtered = list(main.paper_list.ids)
        assert 0 < len(filtered) < 40
        await pilot.press("a", *"Half typed")
        dialog = app.screen
        assert isinstance(dialog, AddTopicDialog)
        await reader_cli(data_dir, "topics", "add", "Robots", "cat:cs.RO")
        await until(pilot, lambda: "Robots" in sidebar_names(app))
        assert app.screen is dialog and dialog.query_one("#topic-name").value == "Half typed"
        assert main.filter_text == "ti:agents" and list(main.paper_list.ids) == filtered
        await pilot.press("escape")
        await open_paper(pilot)
        detail = app.screen
        assert isinstance(detail, DetailScreen) and "★ starred" not in detail.record_view.lines.texts[2]
        await reader_cli(data_dir, "star", detail.paper_id)
        await reader_cli(data_dir, "tag", detail.paper_id, "--add", "Seminar")
        await until(
            pilot, lambda: "★ starred" in detail.record_view.lines.texts[2] and "Seminar" in "\n".join(detail.record_view.lines.texts)
        )
        assert app.screen is detail


async def test_papers_synced_elsewhere_replace_the_demo_set(demo_store, data_dir, papers):
    app = make_app(demo_store)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        assert app.service.is_demo
        Store(data_dir).save_papers(papers[:5], "RL for LLM Agents")  # as a cron `reader sync` would
        await until(pilot, lambda: not app.service.is_demo and len(app.main.paper_list.ids) == 5)
        assert list(app.main.paper_list.ids) == [p.id for p in papers[:5]]


@pytest.mark.slow
def test_in_a_real_terminal_a_topic_added_and_a_star_from_another_terminal_show(store, papers, data_dir):
    def other_terminal(*args: str):
        argv = [sys.executable, "-m", "reader", "--data-dir", str(data_dir), *args]
        return lambda: subprocess.run(argv, check=True, capture_output=True, timeout=scaled(60))

    run = run_in_terminal(
        [sys.executable, "-m", "reader", "--data-dir", str(data_dir)],
        env={**os.environ, "TERM": "xterm-256color"},
        size=(120, 40),
        keys=[
            ("All papers", other_terminal("topics", "add", "Robots", "cat:cs.RO")),
            ("Robots", other_terminal("star", papers[0].id)),  # the first card's paper
            ("★", "q"),
        ],
        deadline=90,
    )
    assert run.status == 0, run.output[-2000:]
    assert "★" in run.output.split("Robots", 1)[1]


async def test_papers_a_sync_elsewhere_appends_to_the_index_log_show(store, papers, data_dir):
    # A save appends to index.log and leaves index.json as it was (issue 32): the app still
    # sees it, and shows the new papers in their places, counted.
    app = make_app(store)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        main = app.main
        before = list(main.paper_list.ids)
        index_json = (data_dir / "index.json").read_bytes()
        newer = [dataclasses.replace(paper, id=f"2612.{90000 + n:05d}") for n, paper in enumerate(papers[:5])]
        Store(data_dir).save_papers(newer, "Agents")  # as a cron `reader sync` would
        assert (data_dir / "index.json").read_bytes() == index_json and b"2612.90000" in (data_dir / "index.log").read_bytes()
        await until(pilot, lambda: len(main.paper_list.ids) == len(before) + 5)
        assert set(main.paper_list.ids) == set(before) | {p.id for p in newer}
        assert list(main.paper_list.ids) == Store(data_dir).index().ids
        assert str(main.sidebar.get_option_at_index(0).prompt).startswith(f"All papers\n{len(before) + 5} papers")
