"""Meaning in the app and in "more like this": the filter box's `~` query lists the papers about a
text under "About: TEXT", each card saying why, and Esc brings the list back as it was; a cache too
small to learn from says so and shows word matches; `reader similar` fuses likeness with meaning.
The cache holds 400 real papers (tests/helpers/meaning.py), its meaning index built once by the
engine's own update and copied for each test."""

from __future__ import annotations

import json
import shutil

import pytest

from reader.meaning.vectors import DIRECTORY
from reader.store import Store
from tests.conftest import run
from tests.helpers.app import card_text, make_app, ready
from tests.helpers.pilot import screen_text, until

QUERY = "agents that learn from their mistakes"
ADVERSARIAL_IMITATION = "2103.13887"  # "Adversarial Imitation Learning with Trajectorial Augmentation and Correction"
TRIPLE_GAIL = "2005.10622"  # "Triple-GAIL: A Multi-Modal Imitation Learning Framework with Generative Adversarial Nets"


@pytest.fixture
def learned_store(learned_data_dir) -> Store:
    return Store(learned_data_dir)


async def type_meaning(pilot, text: str) -> None:
    """`/`, then the query as typed, until its answer is listed."""
    await pilot.press("slash", *text)
    await until(pilot, lambda: pilot.app.main.about.active and pilot.app.main.filter_text == text)
    await ready(pilot)


@pytest.mark.slow
async def test_a_meaning_query_lists_the_papers_about_it_with_why_and_esc_restores_the_list(learned_store):
    app = make_app(learned_store)
    async with app.run_test(size=(160, 50)) as pilot:
        await ready(pilot)
        plist = app.main.paper_list
        await pilot.press("j", "j")
        before, cursor = list(plist.ids), plist.current
        assert len(before) == 400 and cursor == before[2]

        await type_meaning(pilot, f"~{QUERY}")
        assert plist.border_title.startswith(f"About: {QUERY} · best first, by meaning and words")
        assert f"About: {QUERY}" in screen_text(app)  # the header rule, on screen
        ranked = list(plist.ids)
        expected = [hit.id for hit in app.service.meaning.about(QUERY, app.main.view).hits]
        assert ranked == expected and plist.current == ranked[0]  # the engine's order, the cursor on the best
        assert ranked != before[: len(ranked)]
        first = card_text(app, 0)
        assert "About: " in first and "words: " in first  # the reason on the first card: meaning, then shared words
        assert "About: " in card_text(app, 1)

        await pilot.press("enter", "S")  # Enter keeps it (a meaning is no query to parse); S does not re-sort it
        await ready(pilot)
        assert app.focused is plist and list(plist.ids) == ranked and plist.border_title.startswith("About: ")

        await pilot.press("escape")  # Esc clears the query
        await until(pilot, lambda: not app.main.about.active and len(plist.ids) == 400)
        await ready(pilot)
        assert list(plist.ids) == before and plist.current == cursor
        assert not plist.border_title and "About:" not in card_text(app, 0)


async def test_a_cache_too_small_to_learn_meaning_says_so_and_shows_word_matches(store):
    app = make_app(store)  # 40 papers
    async with app.run_test(size=(160, 50)) as pilot:
        await ready(pilot)
        await type_meaning(pilot, "~agents that recover from mistakes")
        plist = app.main.paper_list
        assert plist.border_title == (
            "About: agents that recover from mistakes · Meaning needs ≥ 200 papers (this cache has 40); showing word matches"
        )
        assert "Meaning needs ≥ 200 papers" in screen_text(app)
        assert plist.ids and "words: " in card_text(app, 0)
        assert "mistakes" in card_text(app, 0).lower()

        app.query_one("#filter").value = "~[bold]agents[/] [/x] mistakes"  # markup typed is text in the header
        await until(pilot, lambda: app.main.filter_text.startswith("~[bold]"))
        await ready(pilot)
        assert "About: [bold]agents[/] [/x] mistakes · Meaning needs" in screen_text(app)


def test_reader_similar_fuses_meaning_and_finds_what_words_alone_miss(capsys, learned_store):
    """Triple-GAIL is a generative adversarial imitation learning framework, worded otherwise than
    the adversarial imitation paper asked about: likeness alone leaves it out of the ten."""
    data_dir = learned_store.data_dir
    shutil.move(data_dir / DIRECTORY, data_dir.parent / "kept")
    code, out, err = run(capsys, "similar", ADVERSARIAL_IMITATION, "--json")
    assert code == 0, err
    words = json.loads(out)
    assert len(words) == 10 and TRIPLE_GAIL not in [row["id"] for row in words]
    assert all(row["meaning"] == [] for row in words)

    shutil.move(data_dir.parent / "kept", data_dir / DIRECTORY)
    code, out, err = run(capsys, "similar", ADVERSARIAL_IMITATION, "--json")
    assert code == 0, err
    fused = json.loads(out)
    ids = [row["id"] for row in fused]
    assert len(fused) == 10 and ADVERSARIAL_IMITATION not in ids
    assert TRIPLE_GAIL in ids[:3]
    assert all(row["meaning"] for row in fused)  # each with its words nearest it in meaning

    code, out, err = run(capsys, "similar", ADVERSARIAL_IMITATION)
    assert code == 0 and "in meaning: " in out

    code, out, err = run(capsys, "similar", "--text", QUERY, "--json")  # a text: ranked as `reader find` ranks it
    assert code == 0, err
    assert json.loads(out)[0]["meaning"]


def test_for_you_is_fused_with_nearness_in_meaning_to_the_stars(learned_store):
    """The same candidates, reordered: the ten nearest the stars in meaning rise; the model's
    reasons stay."""
    from reader.meaning.like import nearest_any
    from reader.meaning.vectors import MeaningVectors
    from reader.service.ranking_corpus import RankingCorpus

    data_dir = learned_store.data_dir
    speech = ["2102.07259", "2001.00378", "1909.09116"]  # three speech-recognition papers starred
    fused = RankingCorpus(Store(data_dir)).rank(starred=set(speech), read=set(), hidden=set())
    index = MeaningVectors.open(data_dir)
    assert index is not None
    nearness = nearest_any(index, speech)
    assert nearness is not None
    nearest = sorted(fused.ids, key=lambda pid: -nearness[index.row(pid)])[:10]
    shutil.move(data_dir / DIRECTORY, data_dir.parent / "kept")
    words = RankingCorpus(Store(data_dir)).rank(starred=set(speech), read=set(), hidden=set())
    assert sorted(fused.ids) == sorted(words.ids) and fused.ids != words.ids
    assert sum(map(fused.ids.index, nearest)) < sum(map(words.ids.index, nearest))
    assert all(scored.because for scored in fused.top(3))


@pytest.mark.slow
async def test_m_in_the_app_fuses_meaning_and_says_the_words_nearest_in_meaning(learned_store):
    from reader.app.screens.similar import SimilarScreen

    app = make_app(learned_store)
    async with app.run_test(size=(160, 50)) as pilot:
        await ready(pilot)
        await until(pilot, lambda: app.main.loaded)  # the search index built
        plist = app.main.paper_list
        plist.set_cursor(plist.ids.index(ADVERSARIAL_IMITATION))
        await pilot.press("m")
        await ready(pilot)
        screen = app.screen
        assert isinstance(screen, SimilarScreen)
        await until(pilot, lambda: bool(screen.paper_list.ids))
        assert TRIPLE_GAIL in screen.paper_list.ids[:3]
        reason = screen.paper_list.annotate(TRIPLE_GAIL)[0][0]
        assert " · in meaning: " in reason
        assert "and by meaning" in str(screen.query_one("#like-about").render())


def test_the_kept_index_is_opened_once_and_again_when_an_update_rewrites_it(learned_store):
    from reader.meaning.kept import KeptVectors

    kept = KeptVectors(learned_store.data_dir)
    first = kept.get()
    assert first is not None and kept.get() is first
    meta = learned_store.data_dir / DIRECTORY / "meta.json"
    meta.write_text(meta.read_text(encoding="utf-8") + "\n", encoding="utf-8")  # as an update writes it last
    again = kept.get()
    assert again is not None and again is not first
    shutil.rmtree(learned_store.data_dir / DIRECTORY)
    assert kept.get() is None
