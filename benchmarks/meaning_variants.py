"""Search by meaning: the ranking variants measured and not kept, on the evaluation of
benchmarks/meaning.py (the same 4,180 papers in one cache; the known-item queries and both
held-out sets). `python -m benchmarks.meaning_variants [--dimensions]`.

Each variant changes one thing in what `reader find` ranks, expands or fuses (reader/meaning/find.py
and expand.py) and is compared with today's answer in the same run:
- fusing by score (CombSUM: each list's scores over its best, or min-max), not by rank;
- RM3: the rarest terms of the first fused papers' own title and abstract asked of the candidates
  only, as a third list or mixed into the words rank;
- query-side stem variants: each query word also matches the stems of the model's vocabulary that
  begin with it or that it begins with (`learner` and `learn`);
- the words rank's weights raised to a power (0.5: IDF, as BM25 weighs a word, rather than its square);
- meaning's first candidates scored by every word of the query (asked of them only), merged into
  the words rank or as a third list;
- with --dimensions, LSA with 384 and 512 directions (the model learned again; more like this too);
- with --ppmi, word vectors learned from the cache (positive PMI of the words within 5 of each
  other in a title and abstract, truncated SVD to 200 dimensions: words used in the same
  contexts, unlike LSA's whole-paper company), each paper the TF-IDF-weighed sum of its words'
  vectors: alone, summed with LSA's cosine, and in `reader find` in LSA's place or beside it."""

from __future__ import annotations

import argparse
import bisect
import shutil
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from benchmarks.meaning import TOP, make_store, query_sets, real_papers
from reader.core.query import Or
from reader.core.similar import TEXT_SHARE, distinctive_terms, text_node
from reader.core.stem import stem_string
from reader.core.text import word_string
from reader.meaning import build, expand, find, model, vectors
from reader.search_index import SearchIndex

Ranker = Callable[[str], list[str]]


@contextmanager
def replaced(module: object, name: str, value: object) -> Iterator[None]:
    kept = getattr(module, name)
    setattr(module, name, value)
    try:
        yield
    finally:
        setattr(module, name, kept)


def evaluate(name: str, ranker: Ranker, sets: dict[str, list[tuple[str, str]]]) -> None:
    shares = [sum(pid in ranker(text)[:TOP] for pid, text in asked) / len(asked) for asked in sets.values()]
    print(f"| {name} | " + " | ".join(f"{share:.1%}" for share in shares) + " |", flush=True)


def by_score(minmax: bool) -> Callable[..., list[tuple[str, float]]]:
    def fuse(ranked: list[list[tuple[str, float]]], *, first: object = ()) -> list[tuple[str, float]]:
        scores: dict[str, float] = {}
        for hits in ranked:
            best = max((score for _, score in hits), default=0.0)
            low = min((score for _, score in hits), default=0.0) if minmax else 0.0
            for pid, score in hits:
                scores[pid] = scores.get(pid, 0.0) + ((score - low) / (best - low) if best > low else 1.0)
        lead = set(first)  # type: ignore[call-overload]
        return sorted(((pid, score / max(len(ranked), 1)) for pid, score in scores.items()), key=lambda h: (h[0] not in lead, -h[1], h[0]))

    return fuse


def about_with(
    index, terms, text: str, extra: Callable[[list[tuple[str, float]], list[tuple[str, float]], list[str], dict], list]
) -> list[str]:
    """find.about's steps (words, meaning, feedback, fusion), with `extra` given the meaning and
    words lists, the first fused papers and the candidates, returning the lists to fuse last."""
    words = expand.words_of(terms, text, limit=find.DEPTH)
    word_hits = [(like.id, like.score) for like in words.papers][: find.DEPTH]
    exact = find._exact(terms, text)
    query = index.embed(text)
    near = index.nearest(query, find.DEPTH)
    first = [pid for pid, _ in find.fuse([near, word_hits], first=exact)[: expand.FEEDBACK_PAPERS]]
    candidates = dict.fromkeys([pid for pid, _ in near] + [pid for pid, _ in word_hits])
    moved = expand.feedback(index, query, first, candidates)
    return [pid for pid, _ in find.fuse(extra(moved[: find.DEPTH], word_hits, first, candidates), first=exact)[:TOP]]


def weighed(terms, chosen: list[tuple[str, float]], among: list[str]) -> list[tuple[str, float]]:
    """`among`'s papers scored by the share of the chosen terms' weight they hold, best first."""
    total = sum(weight for _, weight in chosen) or 1.0
    score: dict[str, float] = {}
    for term, weight in chosen:
        for pid in terms.matching_among(text_node(term), among):
            score[pid] = score.get(pid, 0.0) + TEXT_SHARE * weight / total
    return sorted(score.items(), key=lambda item: (-item[1], item[0]))


def rm3(store, terms, papers: int, count: int, mix: float | None):
    texts: dict[str, str] = {}

    def extra(moved, word_hits, first, candidates):
        wanted = [pid for pid in first[:papers] if pid not in texts]
        for pid, paper in store.papers_by_id(wanted).items():
            texts[pid] = word_string(paper.title) + word_string(paper.abstract)
        weight: dict[str, float] = {}
        for pid in first[:papers]:
            for term, w in distinctive_terms(terms, texts.get(pid, ""), indexed=True, count=20, phrases=False):
                weight[term] = weight.get(term, 0.0) + w
        expansion = weighed(terms, sorted(weight.items(), key=lambda item: (-item[1], item[0]))[:count], list(candidates))
        if mix is None:
            return [moved, word_hits, expansion]
        words, best = dict(word_hits), max((score for _, score in word_hits), default=1.0)
        more = dict(expansion)
        mixed = {pid: mix * words.get(pid, 0.0) / best + (1 - mix) * more.get(pid, 0.0) for pid in set(words) | set(more)}
        return [moved, sorted(mixed.items(), key=lambda item: (-item[1], item[0]))]

    return extra


def every_word_among_meaning(index, terms, text: str, *, third: bool) -> list[str]:
    chosen = distinctive_terms(terms, word_string(text), indexed=False, count=expand.QUERY_WORDS, phrases=False)
    among = [pid for pid, _ in index.nearest(index.embed(text), find.DEPTH)]
    found = weighed(terms, chosen, among)

    def extra(moved, word_hits, first, candidates):
        if third:
            return [moved, word_hits, found]
        merged = dict(word_hits)
        for pid, score in found:
            merged[pid] = max(merged.get(pid, 0.0), min(score, 1.0))
        return [moved, sorted(merged.items(), key=lambda item: (-item[1], item[0]))]

    return about_with(index, terms, text, extra)


def stem_variants(vocabulary: list[str], shortest: int = 5, longer_by: int = 3) -> Callable[[str], object]:
    """text_node widened to the vocabulary's stems that begin with the word's stem or that it begins with."""
    known = sorted(vocabulary)

    def node(term: str):
        stem = stem_string(term).strip()
        if " " in term or len(stem) < shortest:
            return text_node(term)
        found = []
        i = bisect.bisect_left(known, stem)
        while i < len(known) and known[i].startswith(stem):
            if known[i] != stem and len(known[i]) - len(stem) <= longer_by:
                found.append(known[i])
            i += 1
        found += [stem[:cut] for cut in range(max(shortest, len(stem) - longer_by), len(stem)) if stem[:cut] in known]
        return Or((text_node(term), *(text_node(v) for v in found))) if found else text_node(term)

    return node


class Ppmi:
    """Word vectors of the cache's words by positive PMI within WINDOW words, and a paper's as
    its words' TF-IDF-weighed sum (the LSA model's vocabulary and IDF)."""

    WINDOW, DIMENSIONS = 5, 200

    def __init__(self, index, papers) -> None:
        import numpy as np
        from scipy.sparse import coo_matrix, csr_matrix
        from sklearn.decomposition import TruncatedSVD

        self.model, self.column = index.model, index.model.column()
        self.words = model.Words(self.model.stop)
        size = len(self.column)
        pairs: list[tuple[object, object]] = []
        for paper in papers:
            codes = np.array(
                [self.column[t] for t in self.words.tokens(f"{paper.title} {paper.abstract}") if t in self.column], dtype=np.int64
            )
            pairs += [(codes[:-gap], codes[gap:]) for gap in range(1, self.WINDOW + 1) if len(codes) > gap]
        rows = np.concatenate([a for a, _ in pairs])
        cols = np.concatenate([b for _, b in pairs])
        counts = coo_matrix((np.ones(len(rows), dtype=np.float32), (rows, cols)), shape=(size, size)).tocsr()
        counts = (counts + counts.T).tocoo()
        total = counts.data.sum()
        row_sums = np.asarray(counts.tocsr().sum(axis=1)).ravel()
        context = row_sums**0.75 / (row_sums**0.75).sum()  # smoothed context probabilities (Levy et al.)
        pmi = np.log(counts.data / (row_sums[counts.row] / total) / context[counts.col] / total)
        kept = pmi > 0
        ppmi = csr_matrix((pmi[kept], (counts.row[kept], counts.col[kept])), shape=(size, size))
        svd = TruncatedSVD(self.DIMENSIONS, random_state=0).fit(ppmi)
        vectors = svd.transform(ppmi) / np.sqrt(svd.singular_values_)
        self.vectors = (vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-9)).astype(np.float32)
        self.ids = [p.id for p in papers]
        self.matrix = np.stack([self.embed(model.paper_text(p.title, p.abstract)) for p in papers])
        self.lsa_rows = np.array([index.row(pid) for pid in self.ids])
        self.index = index

    def embed(self, text: str):
        import numpy as np

        counts: dict[int, int] = {}
        for token in self.words.tokens(text):
            if (i := self.column.get(token)) is not None:
                counts[i] = counts.get(i, 0) + 1
        if not counts:
            return np.zeros(self.DIMENSIONS, dtype=np.float32)
        used = np.fromiter(counts, dtype=np.int64)
        vector = (1 + np.log(np.fromiter(counts.values(), dtype=np.float32))) * self.model.idf[used] @ self.vectors[used]
        norm = float(np.linalg.norm(vector))
        return vector / norm if norm else vector

    def nearest(self, text: str, count: int, *, lsa: float) -> list[tuple[str, float]]:
        """The papers by their cosine with the text, plus `lsa` times LSA's, best first."""
        import numpy as np

        scores = self.matrix @ self.embed(text)
        if lsa:
            scores = scores + lsa * self.index.scores(self.index.embed(text))[self.lsa_rows]
        return [(self.ids[i], float(scores[i])) for i in np.argsort(-scores, kind="stable")[:count]]

    def neighbours(self, paper_id: str, *, lsa: float) -> list[str]:
        import numpy as np

        row = self.ids.index(paper_id)
        scores = self.matrix @ self.matrix[row]
        if lsa:
            scores = scores + lsa * (self.index.vectors[self.lsa_rows].astype(np.float32) @ self.index.vector(paper_id))
        scores[row] = -np.inf
        return [self.ids[i] for i in np.argsort(-scores, kind="stable")[:TOP]]


def compare_ppmi(index, terms, real, sets) -> None:
    words = Ppmi(index, real.papers)
    probes = [p for p in real.papers[::8] if real.labels.get(p.id)]
    for lsa, name in ((0.0, "PPMI word vectors"), (1.0, "LSA and PPMI cosines summed")):
        evaluate(f"{name}, alone", lambda text, lsa=lsa: [pid for pid, _ in words.nearest(text, TOP, lsa=lsa)], sets)
        agree = [
            sum(bool(real.labels.get(pid, set()) & real.labels[p.id]) for pid in words.neighbours(p.id, lsa=lsa)) / TOP for p in probes
        ]
        print(f"{name}: same field among 10 nearest {sum(agree) / len(agree):.1%}")

    def fused(text: str, lists: Callable[[list, list, str], list]) -> list[str]:
        return about_with(index, terms, text, lambda moved, word_hits, first, candidates: lists(moved, word_hits, text))

    evaluate(
        "reader find, PPMI a third list", lambda text: fused(text, lambda m, w, t: [m, w, words.nearest(t, find.DEPTH, lsa=0.0)]), sets
    )
    evaluate(
        "reader find, LSA and PPMI summed a third list",
        lambda text: fused(text, lambda m, w, t: [m, w, words.nearest(t, find.DEPTH, lsa=1.0)]),
        sets,
    )
    exact = find._exact
    for lsa, name in ((0.0, "PPMI"), (1.0, "LSA and PPMI summed")):

        def plain(text: str, lsa: float = lsa) -> list[str]:
            word_hits = [(like.id, like.score) for like in expand.words_of(terms, text, limit=find.DEPTH).papers]
            return [pid for pid, _ in find.fuse([words.nearest(text, find.DEPTH, lsa=lsa), word_hits], first=exact(terms, text))[:TOP]]

        evaluate(f"{name} fused with words (no feedback)", plain, sets)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dimensions", action="store_true", help="also LSA with 384 and 512 directions (learned again)")
    parser.add_argument("--ppmi", action="store_true", help="only the word vectors by positive PMI (see above)")
    args = parser.parse_args()
    real = real_papers()
    sets = query_sets()
    with tempfile.TemporaryDirectory() as folder:
        store = make_store(Path(folder), real.papers)
        terms = SearchIndex.open(store.data_dir)
        terms.refresh(store)
        build.update(store, rebuild=True)
        index = vectors.MeaningVectors.open(store.data_dir)
        assert index is not None
        print(f"| variant | {' | '.join(sets)} |")
        print("|---" * (len(sets) + 1) + "|")

        def today(text: str) -> list[str]:
            return [hit.id for hit in find.about(index, terms, text, limit=TOP).hits]

        evaluate("reader find today", today, sets)
        if args.ppmi:
            compare_ppmi(index, terms, real, sets)
            return
        evaluate("words alone (every word)", lambda text: [like.id for like in expand.words_of(terms, text, limit=TOP).papers], sets)
        for name, minmax in (("fused by score (each over its best)", False), ("fused by score (min-max)", True)):
            with replaced(find, "fuse", by_score(minmax)):
                evaluate(name, today, sets)
        for papers, count, mix in ((5, 10, None), (3, 10, None), (5, 20, None), (10, 10, None), (5, 10, 0.5), (5, 10, 0.7)):
            how = "a third list" if mix is None else f"mixed into the words rank at {mix}"
            extra = rm3(store, terms, papers, count, mix)
            evaluate(
                f"RM3: {count} terms of the first {papers} papers, {how}",
                lambda text, extra=extra: about_with(index, terms, text, extra),
                sets,
            )
        with replaced(expand, "text_node", stem_variants(index.model.vocabulary)):
            evaluate("query-side stem variants", today, sets)
        kept_terms = expand.distinctive_terms
        for power in (0.5, 1.5):
            with replaced(expand, "distinctive_terms", lambda *a, power=power, **k: [(t, w**power) for t, w in kept_terms(*a, **k)]):
                evaluate(f"the words rank's weights to the power {power}", today, sets)
        for third in (False, True):
            how = "a third list" if third else "merged into the words rank"
            evaluate(
                f"meaning's first 200 scored by every word, {how}",
                lambda text, third=third: every_word_among_meaning(index, terms, text, third=third),
                sets,
            )
        if args.dimensions:
            for dims in (384, 512):
                copy = Path(folder) / f"lsa{dims}"
                shutil.copytree(store.data_dir, copy, ignore=shutil.ignore_patterns("lsa*"))
                with replaced(model, "PAPERS_PER_DIMENSION", 8):
                    model.fit.__kwdefaults__["dimensions"] = dims
                    try:
                        from reader.store import Store

                        build.update(Store(copy), rebuild=True)
                    finally:
                        model.fit.__kwdefaults__["dimensions"] = model.DIMENSIONS
                wider = vectors.MeaningVectors.open(copy)
                assert wider is not None
                wide_terms = SearchIndex.open(copy)
                evaluate(
                    f"LSA {dims} directions, fused",
                    lambda text, wider=wider, wide_terms=wide_terms: [h.id for h in find.about(wider, wide_terms, text, limit=TOP).hits],
                    sets,
                )
                evaluate(
                    f"LSA {dims} directions, meaning alone",
                    lambda text, wider=wider: [p for p, _ in wider.nearest(wider.embed(text), TOP)],
                    sets,
                )
                probes = [p for p in real.papers[::8] if real.labels.get(p.id)]
                agree = [
                    sum(
                        bool(real.labels.get(pid, set()) & real.labels[p.id])
                        for pid, _ in wider.nearest(wider.vector(p.id), TOP, leave_out={p.id})
                    )
                    / TOP
                    for p in probes
                ]
                print(f"LSA {dims}: same field among 10 nearest {sum(agree) / len(agree):.1%}")


if __name__ == "__main__":
    main()
