"""The "For you" ranking: learned from stars, hidden and read papers, explained, deterministic."""

from __future__ import annotations

import statistics

import pytest

from reader.core.query import search_text
from reader.core.ranking import (
    Corpus,
    NeedsStars,
    Ranking,
    Row,
    featurize,
    rank,
    row_of_paper,
    rows_of_search_texts,
)
from reader.core.terms import terms
from tests.themes import theme_papers


@pytest.fixture(scope="module")
def themes():
    papers = theme_papers(30)
    return papers["agents"], papers["proteins"]


@pytest.fixture(scope="module")
def corpus(themes):
    agents, proteins = themes
    return Corpus.of_rows([row_of_paper(p) for p in agents + proteins], block_size=16)


def ids(papers):
    return [p.id for p in papers]


def ranked(corpus, **marks) -> Ranking:
    result = rank(corpus, **marks)
    assert isinstance(result, Ranking), result
    return result


def positions(result: Ranking, papers) -> list[int]:
    wanted = set(ids(papers))
    return [i for i, pid in enumerate(result.ids) if pid in wanted]


@pytest.mark.slow
def test_five_stars_of_a_theme_rank_the_rest_of_it_above_the_other_theme(corpus, themes):
    agents, proteins = themes
    result = ranked(corpus, starred=ids(agents[:5]))
    assert sorted(result.ids) == sorted(ids(agents[5:] + proteins))  # the stars are not candidates
    assert max(positions(result, agents[5:])) < min(positions(result, proteins))
    assert result.scores == sorted(result.scores, reverse=True)
    assert all(0 < score < 1 for score in result.scores)

    # And the same the other way round: nothing in the data favours one theme.
    result = ranked(corpus, starred=ids(proteins[:5]))
    assert max(positions(result, proteins[5:])) < min(positions(result, agents))


def test_reasons_are_terms_of_the_paper_and_of_the_stars(corpus, themes):
    agents, _ = themes
    stars = agents[:5]
    result = ranked(corpus, starred=ids(stars))
    best = result.top(5)
    assert [s.id for s in best] == result.ids[:5]
    star_terms = {t for p in stars for t in terms(row_of_paper(p).words)} | {a.name for p in stars for a in p.authors}
    by_id = {p.id: p for p in agents}
    for scored in best:
        assert 1 <= len(scored.because) <= 3
        paper = by_id[scored.id]
        mine = set(terms(row_of_paper(paper).words)) | {a.name for a in paper.authors} | set(paper.categories)
        assert set(scored.because) <= mine
        assert set(scored.because) <= star_terms | set(paper.categories)
        # No reason inside another: `tool use` and `tool` would say one thing twice.
        words = [set(reason.split()) for reason in scored.because]
        assert not any(a <= b for i, a in enumerate(words) for j, b in enumerate(words) if i != j)


def test_a_phrase_is_named_rather_than_its_words():
    # Three stars about `reward shaping`; the candidate shares only that phrase with them.
    stars = [Row(f"2611.0000{i}", f"reward shaping for {topic}", ("A. Author",)) for i, topic in enumerate(["robots", "games", "dialogue"])]
    others = [Row(f"2611.0010{i}", f"protein folding study number {word}") for i, word in enumerate(["alpha", "beta", "gamma", "delta"])]
    candidate = Row("2611.00200", "reward shaping in markets", ("B. Other",))
    result = ranked(Corpus.of_rows([*stars, *others, candidate]), starred=[r.id for r in stars])
    assert result.ids[0] == candidate.id
    assert result.because(candidate.id) == ["reward shaping"]


def test_an_author_is_a_reason_as_written():
    stars = [Row(f"2611.0000{i}", f"topic {w}", ("Sergey Levine", f"Other {w}")) for i, w in enumerate(["one", "two", "three"])]
    others = [Row(f"2611.0010{i}", f"unrelated {w}", (f"Someone {w}",)) for i, w in enumerate(["alpha", "beta", "gamma"])]
    candidate = Row("2611.00200", "different words entirely", ("Sergey Levine",))
    result = ranked(Corpus.of_rows([*stars, *others, candidate]), starred=[r.id for r in stars])
    assert result.ids[0] == candidate.id and result.because(candidate.id) == ["Sergey Levine"]
    # The same author written another way is the same feature, named as this paper writes it.
    assert result.explain(Row("2611.00300", "nothing here", ("Sergey  LEVINE",))) == ["Sergey  LEVINE"]


def test_hiding_papers_of_a_theme_pushes_it_down(corpus, themes):
    agents, proteins = themes
    starred = ids(agents[:3] + proteins[:3])
    hidden = proteins[3:9]
    before = ranked(corpus, starred=starred)
    after = ranked(corpus, starred=starred, hidden=ids(hidden))
    assert set(ids(hidden)).isdisjoint(after.ids)
    still = set(after.ids)
    # Among the papers ranked both times, the protein papers move down, the agent papers up.
    before_ranks = [pid for pid in before.ids if pid in still]
    left = [p for p in proteins if p.id in still]
    assert statistics.mean(positions(after, left)) > statistics.mean([before_ranks.index(p.id) for p in left]) + 5
    assert statistics.median(positions(after, left)) > statistics.median(positions(after, agents[3:]))
    assert sum(pid in set(ids(agents)) for pid in after.ids[:10]) >= 8


def test_read_papers_count_against_their_theme_but_less_than_hidden_ones(corpus, themes):
    agents, proteins = themes
    starred = ids(agents[:3] + proteins[:3])
    marked = ids(proteins[3:9])
    read = ranked(corpus, starred=starred, read=marked)
    hidden = ranked(corpus, starred=starred, hidden=marked)
    plain = ranked(corpus, starred=starred)
    left = [p for p in proteins[9:]]
    common = [pid for pid in plain.ids if pid in set(read.ids)]

    def mean_rank(order):
        return statistics.mean(order.index(p.id) for p in left)

    assert mean_rank(common) < mean_rank(read.ids) < mean_rank(hidden.ids)
    assert set(marked).isdisjoint(read.ids)  # read papers are not candidates


def test_same_input_same_order_whatever_the_blocks(themes):
    agents, proteins = themes
    rows = [row_of_paper(p) for p in agents + proteins]
    marks = {"starred": ids(agents[:4] + proteins[:2]), "hidden": ids(proteins[5:7]), "read": ids(agents[10:14])}
    first = ranked(Corpus.of_rows(rows, block_size=7), **marks)
    again = ranked(Corpus.of_rows(rows, block_size=7), **marks)
    blocks = [featurize(rows[40:]), featurize(rows[:20][::-1]), featurize(rows[20:40][::-1])]
    by_id = {row.id: row for row in rows}
    reordered = ranked(Corpus(blocks, texts=lambda asked: {pid: by_id[pid] for pid in asked}), **marks)
    assert first.ids == again.ids == reordered.ids
    assert first.scores == again.scores
    assert first.scores == pytest.approx(reordered.scores, abs=1e-9)
    assert [first.because(pid) for pid in first.ids] == [reordered.because(pid) for pid in first.ids]


def test_ties_are_broken_by_id():
    stars = [Row(f"2611.0000{i}", f"graph neural networks part {w}") for i, w in enumerate(["one", "two", "three"])]
    twins = [Row(pid, "graph neural networks again") for pid in ["2611.00300", "2611.00100", "2611.00200"]]
    result = ranked(Corpus.of_rows(stars + twins + [Row("2611.00400", "unrelated cooking recipes")]), starred=[r.id for r in stars])
    assert result.ids[:3] == ["2611.00100", "2611.00200", "2611.00300"]
    assert result.scores[0] == result.scores[1] == result.scores[2]


def test_fewer_than_three_stars_say_what_is_needed(corpus, themes):
    agents, _ = themes
    result = rank(corpus, starred=ids(agents[:2]) + ["2611.99999"])  # not in the corpus: no star
    assert isinstance(result, NeedsStars)
    assert (result.stars, result.missing) == (2, 1)
    assert "Star 1 more paper " in result.message and "2 of 3" in result.message
    assert rank(corpus, starred=[]).message.startswith("Star 3 more papers")  # type: ignore[union-attr]


def test_candidates_are_unread_unhidden_unstarred_and_in_the_given_set(corpus, themes):
    agents, proteins = themes
    pool = ids(agents[:12] + proteins[:12])
    result = ranked(corpus, starred=ids(agents[:3]), read=ids(agents[3:5]), hidden=ids(proteins[:2]), candidates=pool)
    assert sorted(result.ids) == sorted(ids(agents[5:12] + proteins[2:12]))
    everything_marked = ranked(corpus, starred=ids(agents[:3]), read=ids(agents[3:]) + ids(proteins))
    assert everything_marked.ids == [] and everything_marked.top() == []


def test_rows_from_search_texts_rank_as_rows_from_papers(themes):
    agents, proteins = themes
    papers = agents + proteins
    texts = {p.id: search_text(p) for p in papers}
    from_texts = rows_of_search_texts(texts)
    assert [r.words.split() for r in from_texts] == [row_of_paper(p).words.split() for p in papers]
    assert from_texts[0].categories == ("cs.lg", "cs.ai")  # folded, and without the bare archive `cs`
    assert from_texts[0].authors == tuple(a.name.lower().replace(".", "") for a in papers[0].authors)
    with_names = rows_of_search_texts(texts, {p.id: p for p in papers})
    assert with_names == [row_of_paper(p) for p in papers]
    marks = {"starred": ids(agents[:5])}
    assert ranked(Corpus.of_rows(from_texts), **marks).ids == ranked(Corpus.of_rows(with_names), **marks).ids


def test_stop_words_never_count(themes):
    agents, proteins = themes
    rows = [row_of_paper(p) for p in agents + proteins]
    # The same papers with stop words sprinkled through them rank the same.
    noisy = [Row(r.id, " the ".join(r.words.split(" of ")) + " we show that this paper", r.authors, r.categories) for r in rows]
    marks = {"starred": ids(agents[:5])}
    assert ranked(Corpus.of_rows(noisy), **marks).ids == ranked(Corpus.of_rows(rows), **marks).ids


def test_every_row_reads_back_as_it_was_counted(themes):
    rows = [row_of_paper(p) for p in themes[0] + themes[1]]
    corpus = Corpus.of_rows(rows, block_size=23)
    texts = corpus.texts_of([row.id for row in rows[::-1]] + ["2611.99999"])
    assert [texts[row.id] for row in rows] == rows and texts["2611.99999"] == Row("2611.99999", "")
