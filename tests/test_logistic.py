"""The ranking's model fitted through scipy (core/logistic.py) ranks as scikit-learn's
LogisticRegression did: the same papers in the same order, the same scores to the solver's
tolerance; and a ranking no longer imports scikit-learn."""

from __future__ import annotations

import subprocess
import sys

import pytest

from reader.core import logistic
from reader.core.ranking import Corpus, Ranking, rank, row_of_paper
from tests.helpers.bibtex import fixture_papers
from tests.helpers.meaning import real_papers


def scikit_learn_fit(rows, labels, sample_weights, c):
    """The fit as the ranking made it before: scikit-learn's own."""
    from sklearn.linear_model import LogisticRegression

    model = LogisticRegression(C=c, max_iter=1000, random_state=0)
    model.fit(rows, labels, sample_weight=sample_weights)
    return model.coef_[0], float(model.intercept_[0])


def both(monkeypatch, corpus: Corpus, **marks) -> tuple[Ranking, Ranking]:
    ours = rank(corpus, **marks)
    with monkeypatch.context() as patch:
        patch.setattr(logistic, "fit", scikit_learn_fit)
        theirs = rank(corpus, **marks)
    assert isinstance(ours, Ranking) and isinstance(theirs, Ranking)
    return ours, theirs


@pytest.mark.slow
def test_real_papers_rank_as_scikit_learn_ranked_them(monkeypatch):
    papers = real_papers(1500)
    corpus = Corpus.of_rows([row_of_paper(p) for p in papers])
    marks = {
        "starred": [p.id for p in papers[::97][:5]],
        "hidden": [p.id for p in papers[5::89][:4]],
        "read": [p.id for p in papers[7::31][:20]],
    }
    ours, theirs = both(monkeypatch, corpus, **marks)
    assert ours.ids[:50] == theirs.ids[:50]
    assert sorted(ours.ids) == sorted(theirs.ids)
    assert ours.scores == pytest.approx(theirs.scores, abs=1e-3)
    assert [ours.because(pid) for pid in ours.ids[:20]] == [theirs.because(pid) for pid in theirs.ids[:20]]


def test_recorded_papers_rank_as_scikit_learn_ranked_them(monkeypatch):
    papers = fixture_papers()
    corpus = Corpus.of_rows([row_of_paper(p) for p in papers])
    ours, theirs = both(monkeypatch, corpus, starred=[p.id for p in papers[:: max(len(papers) // 4, 1)][:4]])
    assert ours.ids == theirs.ids
    assert ours.scores == pytest.approx(theirs.scores, abs=1e-3)


def test_a_ranking_imports_no_scikit_learn():
    script = """
import sys
from reader.core.ranking import Corpus, Row, rank
rows = [Row(f"2611.{i:05d}", f"graph neural networks part {i}" if i < 4 else f"cooking recipe {i}") for i in range(40)]
result = rank(Corpus.of_rows(rows), starred=[r.id for r in rows[:4]])
assert result.ids, result
print(sorted(name for name in sys.modules if name.startswith("sklearn")))
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"
