"""Snapshots of each screen (pytest-textual-snapshot). Update with: pytest --snapshot-update."""

from __future__ import annotations

import pytest

from reader.store import Store
from tests.corpus import record_synced
from tests.helpers.app import make_app
from tests.sample_papers import sample_papers as recent_papers

pytest.importorskip("pytest_textual_snapshot")


@pytest.fixture
def store(data_dir):
    store = Store(data_dir)
    store.add_topic("Agents", "ti:agents")
    papers = recent_papers(40)
    store.save_papers(papers[:30], "Agents")
    store.save_papers(papers[20:], None)
    record_synced(store, "Agents", "ti:agents")
    store.set_marks([papers[1].id], read=True)
    store.set_marks([papers[2].id], starred=True)
    return store


async def settle(pilot):
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


def test_main_screen(snap_compare, store):
    async def run_before(pilot):
        await settle(pilot)
        await pilot.press("j")

    assert snap_compare(make_app(store), terminal_size=(120, 40), run_before=run_before)


def test_small_terminal(snap_compare, store):
    assert snap_compare(make_app(store), terminal_size=(80, 24), run_before=settle)


def test_detail_view(snap_compare, store):
    async def run_before(pilot):
        await settle(pilot)
        await pilot.press("enter")
        await pilot.pause()

    assert snap_compare(make_app(store), terminal_size=(120, 40), run_before=run_before)


def test_detail_view_narrow(snap_compare, store):
    # At 60x20 the footer still offers ? Help (and Back), the other keys left out whole.
    async def run_before(pilot):
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)

    assert snap_compare(make_app(store), terminal_size=(60, 20), run_before=run_before)


def test_help_screen(snap_compare, store):
    async def run_before(pilot):
        await settle(pilot)
        await pilot.press("question_mark")
        await pilot.pause()

    assert snap_compare(make_app(store), terminal_size=(120, 50), run_before=run_before)


@pytest.mark.slow
def test_empty_topic(snap_compare, store):
    store.add_topic("Fresh", "ti:fresh")

    async def run_before(pilot):
        await settle(pilot)
        await pilot.press("tab", *"jjjjjjj")  # Starred, For you, New, Updated, Rising, Agents, Fresh: a topic not synced yet
        await pilot.pause()

    assert snap_compare(make_app(store), terminal_size=(120, 40), run_before=run_before)


def test_demo_state(snap_compare, demo_store):
    assert snap_compare(make_app(demo_store), terminal_size=(120, 40), run_before=settle)


def test_light_theme(snap_compare, store):
    async def run_before(pilot):
        pilot.app.theme = "textual-light"
        await settle(pilot)

    assert snap_compare(make_app(store), terminal_size=(120, 40), run_before=run_before)


@pytest.mark.parametrize("size", [(60, 20), (140, 45)])
def test_narrow_and_wide_terminals(snap_compare, store, size):
    assert snap_compare(make_app(store), terminal_size=size, run_before=settle)


def test_unread_only_mode_is_shown(snap_compare, store):
    async def run_before(pilot):
        await settle(pilot)
        await pilot.press("u")
        await pilot.pause()

    assert snap_compare(make_app(store), terminal_size=(100, 30), run_before=run_before)


# Every built-in theme: the sidebar's separator and the cards must stay visible in each.
def builtin_themes() -> list[str]:
    from textual.app import App

    return sorted(App().available_themes)


@pytest.mark.parametrize("theme", builtin_themes())
def test_each_theme(snap_compare, store, theme):
    async def run_before(pilot):
        pilot.app.theme = theme
        await settle(pilot)

    assert snap_compare(make_app(store), terminal_size=(100, 24), run_before=run_before)
