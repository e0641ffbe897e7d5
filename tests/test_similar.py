"""`reader similar`: the cached papers most like one, offline, by what sets it apart. The corpus
holds a templated series (sixty short nightly logs written from one template), one log of the
run that caught a magnetar's radio burst, a few papers on magnetar bursts, and the recorded
fixture's hundred papers around them."""

from __future__ import annotations

import io
import json

import pytest

from reader.models import Author, Paper
from reader.store import Store
from tests.conftest import run
from tests.corpus import TODAY, recent_papers, stamp

TEMPLATE = (
    "We report nightly photometry of the Kestrel survey field {n} taken with the robotic telescope array. "
    "Light curves, calibration frames and observing conditions are released with this log."
)
SUBJECT = [
    (
        "Repeating fast radio bursts from a young magnetar",
        "We detect repeating fast radio bursts from a young magnetar "
        "in a nearby galaxy and measure the burst energies, their waiting times and the dispersion of each radio pulse.",
    ),
    (
        "A magnetar origin for fast radio bursts",
        "The energetics of fast radio bursts point to magnetars: we model "
        "the coherent emission of a flaring magnetar magnetosphere and compare it with radio burst spectra.",
    ),
    (
        "Polarisation of radio bursts from the Galactic magnetar",
        "We measure the polarisation of radio bursts from the "
        "Galactic magnetar during its outburst and find rotating position angles across each burst.",
    ),
    (
        "Searching for fast radio bursts in magnetar X-ray flares",
        "Simultaneous radio and X-ray monitoring of two magnetars finds one fast radio burst coincident with a short X-ray flare.",
    ),
    (
        "The rate of magnetar giant flares and fast radio bursts",
        "We compare the rate of magnetar giant flares with the "
        "volumetric rate of fast radio bursts and discuss what fraction of bursts magnetars can explain.",
    ),
]
TARGET = "2612.30031"


def paper(pid: str, title: str, abstract: str, authors: list[str], category: str, day: int) -> Paper:
    return Paper(
        id=pid,
        version=1,
        title=title,
        abstract=abstract,
        authors=tuple(Author(a) for a in authors),
        categories=(category,),
        primary_category=category,
        published=stamp(TODAY, -day * 600),
        updated=stamp(TODAY, -day * 600),
    )


def corpus() -> list[Paper]:
    papers = [p for p in recent_papers(100, id_base=10000)]
    for n in range(60):
        abstract = TEMPLATE.format(n=n)
        title = f"Nightly photometry log {n} of the Kestrel survey"
        if n == 31:  # the run's one log on a subject
            title += ": a magnetar radio burst"
            abstract += " A fast radio burst from the magnetar was caught during the night."
        papers.append(paper(f"2612.{30000 + n:05d}", title, abstract, ["Kestrel Survey Team"], "astro-ph.IM", n))
    for i, (title, abstract) in enumerate(SUBJECT):
        papers.append(paper(f"2612.{40000 + i:05d}", title, abstract, [f"Author {chr(65 + i)} Person"], "astro-ph.HE", 70 + i))
    return papers


@pytest.fixture
def cache(data_dir):
    store = Store(data_dir)
    store.save_papers(corpus(), None)
    return store


def similar(capsys, *args) -> list[dict]:
    code, out, err = run(capsys, "similar", *args, "--json")
    assert code == 0, err
    return json.loads(out)


def subject_ids() -> set[str]:
    return {f"2612.{40000 + i:05d}" for i in range(len(SUBJECT))}


def test_a_short_paper_in_a_templated_run_finds_its_subject(capsys, cache):
    rows = similar(capsys, TARGET, "--limit", "5")
    assert len(rows) == 5 and TARGET not in [r["id"] for r in rows]
    assert len(subject_ids() & {r["id"] for r in rows}) >= 3
    assert all(r["because"] for r in rows)
    assert any("magnetar" in reason or "radio burst" in reason for reason in rows[0]["because"])
    assert set(rows[0]) == {"id", "title", "score", "because", "meaning", "starred", "read"}
    assert [r["score"] for r in rows] == sorted((r["score"] for r in rows), reverse=True)


def test_a_whole_vector_cosine_would_give_the_template_instead(cache):
    """What the test above guards against: For you's TF-IDF rows, compared whole (arxiv-sanity's
    cosine), rank the target's siblings in the series first."""
    from reader.core.features import Corpus, row_of_paper

    papers = corpus()
    features = Corpus.of_rows([row_of_paper(p) for p in papers])
    rows = features.weighted_rows(list(range(len(papers))))
    target = rows[features.position[TARGET]]
    cosine = (rows @ target.T).toarray().ravel()
    best = [features.ids[i] for i in cosine.argsort()[::-1] if features.ids[i] != TARGET][:5]
    assert len(subject_ids() & set(best)) < 3


def test_same_cache_same_order_never_itself_nor_hidden_and_marks_shown(capsys, cache):
    first = similar(capsys, TARGET, "--limit", "20")
    assert similar(capsys, TARGET, "--limit", "20") == first
    for a, b in zip(first, first[1:]):  # ties by id
        assert a["score"] > b["score"] or a["id"] < b["id"]
    hidden, starred, read = first[0]["id"], first[1]["id"], first[2]["id"]
    cache.set_marks([hidden], hidden=True)
    cache.set_marks([starred], starred=True)
    cache.set_marks([read], read=True)
    after = similar(capsys, TARGET, "--limit", "20")
    assert hidden not in [r["id"] for r in after]
    shown = {r["id"]: r for r in after}
    assert shown[starred]["starred"] and shown[read]["read"] and not shown[read]["starred"]


def test_text_finds_papers_like_a_draft(capsys, cache, monkeypatch):
    draft = "We search archival data for radio bursts from magnetars and constrain the burst rate."
    rows = similar(capsys, "--text", draft, "--limit", "5")
    assert len(subject_ids() & {r["id"] for r in rows}) >= 4
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(draft.encode())))
    assert similar(capsys, "--text", "-", "--limit", "5") == rows


def test_text_on_standard_input_longer_than_2_mb_is_refused_in_one_line(capsys, cache, monkeypatch):
    """Each distinct word is asked of the index: 40 MB of them took 70 s and 1 GB."""
    draft = "We search archival data for radio bursts from magnetars and constrain the burst rate.\n"
    text = draft * (2 * 1024 * 1024 // len(draft) + 1)
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(text.encode())))
    code, out, err = run(capsys, "similar", "--text", "-")
    assert (code, out) == (1, "")
    assert err == "reader: error: the text on standard input is longer than 2 MB: give an abstract or a paper's text\n"
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(text[: 2 * 1024 * 1024].encode())))
    assert run(capsys, "similar", "--text", "-")[0] == 0


def test_plain_output_and_errors(capsys, cache):
    code, out, err = run(capsys, "similar", f"arXiv:{TARGET}v1", "--limit", "3")
    assert code == 0 and len(out.splitlines()) == 6 and "because: " in out.splitlines()[1]
    assert err.startswith(f"like {TARGET} (")
    assert run(capsys, "similar", "2612.99999")[0:3:2] == (
        1,
        "reader: error: not in the cache: 2612.99999 (`reader add 2612.99999` fetches it from arXiv; nothing was changed)\n",
    )
    assert run(capsys, "similar")[2] == "reader: error: give one paper's ID, or --text TEXT (not both)\n"
    assert run(capsys, "similar", TARGET, "--text", "x")[0] == 1
    assert run(capsys, "similar", "--text", "  ")[2] == "reader: error: the text is empty: give the words to compare papers with\n"


# --- the app: m ---------------------------------------------------------------------------------------


def _app_on(cache):
    from tests.helpers.app import make_app

    return make_app(cache)


async def _loaded(pilot) -> None:
    import asyncio

    from tests.helpers.app import ready

    await ready(pilot)
    while not pilot.app.main.loaded:  # the search index built
        await asyncio.sleep(0.05)


async def test_m_on_the_list_opens_like_with_reasons_and_esc_returns(cache):
    from reader.app.screens.main import MainScreen
    from reader.app.screens.similar import SimilarScreen
    from tests.helpers.app import ready

    app = _app_on(cache)
    async with app.run_test(size=(120, 40)) as pilot:
        await _loaded(pilot)
        main = app.main
        main.paper_list.set_cursor(main.paper_list.ids.index(TARGET))
        await pilot.press("m")
        await ready(pilot)
        screen = app.screen
        assert isinstance(screen, SimilarScreen)
        assert (
            str(screen.query_one("#like-title").render()) == "Like: Nightly photometry log 31 of the Kestrel survey: a magnetar radio burst"
        )
        assert "Esc returns" in str(screen.query_one("#like-about").render())
        shown = screen.paper_list.ids
        assert TARGET not in shown and len(subject_ids() & set(shown[:5])) >= 3
        reason = screen.paper_list.annotate(shown[0])
        assert reason[0][0].startswith(f"{screen.likes[shown[0]].score:.2f} · because: ") and "magnetar" in reason[0][0]
        await pilot.press("s")  # the paper keys work here too
        assert shown[0] in app.service.catalog.starred
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, MainScreen) and main.paper_list.current == TARGET


async def test_m_in_the_detail_view_and_enter_in_like_then_esc_back_each_step(cache):
    from reader.app.screens.detail import DetailScreen
    from reader.app.screens.similar import SimilarScreen
    from tests.helpers.app import open_paper, ready

    app = _app_on(cache)
    async with app.run_test(size=(120, 40)) as pilot:
        await _loaded(pilot)
        app.main.paper_list.set_cursor(app.main.paper_list.ids.index(TARGET))
        await open_paper(pilot)
        detail = app.screen
        assert isinstance(detail, DetailScreen) and detail.paper_id == TARGET
        await pilot.press("m")
        await ready(pilot)
        like = app.screen
        assert isinstance(like, SimilarScreen) and like.paper_list.ids
        first = like.paper_list.ids[0]
        await pilot.press("enter")
        await ready(pilot)
        assert isinstance(app.screen, DetailScreen) and app.screen is not detail and app.screen.paper_id == first
        assert first in app.service.catalog.read
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is like
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is detail and detail.paper_id == TARGET


async def test_likes_list_draws_the_catalog_its_screen_binds_down(cache):
    # As on the main screen, the screen holds the catalog its list draws: a new one set on the
    # screen reaches the list, whose cards are drawn again with its marks.
    from reader.app.screens.similar import SimilarScreen
    from reader.core.catalog import Catalog
    from tests.helpers.app import ready

    app = _app_on(cache)
    async with app.run_test(size=(120, 40)) as pilot:
        await _loaded(pilot)
        await pilot.press("m")
        await ready(pilot)
        like = app.screen
        assert isinstance(like, SimilarScreen)
        plist = like.paper_list
        assert plist.catalog is like.catalog is app.service.catalog

        def first_card() -> str:
            return "\n".join(plist.render_line(row).text for row in range(plist.card_height))

        assert plist.ids and "★" not in first_card()
        marked = Catalog(like.catalog.index, starred=[plist.ids[0]])
        like.catalog = marked
        await pilot.pause()
        assert plist.catalog is marked and "★" in first_card()
