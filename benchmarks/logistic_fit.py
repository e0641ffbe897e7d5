"""For you's fit through scipy (core/logistic.py) against scikit-learn's LogisticRegression, on a
cache: `python -m benchmarks.logistic_fit DATA_DIR [--runs R]`.

Ranks the whole cache from its marks (every shard's features read once, in this process) with
each fit in turn, and prints each fit's time, how far the two orders agree (top 10, 20, 50, 100
and all) and the largest difference of a score. Compare within one run: the machine is shared."""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from reader.core import logistic, ranking
from reader.service.ranking_corpus import RankingCorpus
from reader.store import Store


def scikit_learn_fit(rows, labels, sample_weights, c):
    from sklearn.linear_model import LogisticRegression  # type: ignore[import-untyped, unused-ignore]

    model = LogisticRegression(C=c, max_iter=1000, random_state=0)
    model.fit(rows, labels, sample_weight=sample_weights)
    return model.coef_[0], float(model.intercept_[0])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("data", type=Path)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    store = Store(args.data)
    marks = store.marks()
    corpus = RankingCorpus(store).corpus()
    print(f"{len(corpus):,} papers, {len(marks.starred)} stars")
    import sklearn.linear_model  # type: ignore[import-untyped, unused-ignore]  # noqa: F401  (imported once, outside the timing)

    ours_fit = logistic.fit
    results = {}
    for _ in range(args.runs):
        for name, fit in (("scipy", ours_fit), ("scikit-learn", scikit_learn_fit)):
            logistic.fit = fit
            started = time.perf_counter()
            results[name] = ranking.rank(corpus, starred=marks.starred, read=marks.read, hidden=marks.hidden)
            print(f"{name:13} rank (fit and scores) {time.perf_counter() - started:.2f} s")
    logistic.fit = ours_fit
    ours, theirs = results["scipy"], results["scikit-learn"]
    assert isinstance(ours, ranking.Ranking) and isinstance(theirs, ranking.Ranking)
    for top in (10, 20, 50, 100, len(ours.ids)):
        same = "same order" if ours.ids[:top] == theirs.ids[:top] else f"{len(set(ours.ids[:top]) & set(theirs.ids[:top]))} shared"
        print(f"top {top:,}: {same}")
    score = dict(zip(theirs.ids, theirs.scores))
    print(f"largest score difference: {max(abs(s - score[pid]) for pid, s in zip(ours.ids, ours.scores)):.2e}")


if __name__ == "__main__":
    main()
