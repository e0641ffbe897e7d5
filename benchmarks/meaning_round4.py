"""Search by meaning, fourth round: the candidates docs/ranking.md listed as not yet measured, on
the evaluation of benchmarks/meaning.py (the same 4,180 papers in one cache; the known-item
queries and the three held-out sets). `python -m benchmarks.meaning_round4 [--sif] [--snowball]
[--misses] [--cost PAPERS]`.

Each changes one thing in what `reader find` ranks (reader/meaning/find.py, expand.py) and is
compared with today's answer in the same run:
- BM25 for the words rank, with the candidates' real term frequencies and lengths (their titles
  and abstracts, as the shards hold them; the lengths' mean over the candidates, IDF from the
  search index's counts), plain and BM25F (the title weighed 2 or 3 times the abstract); over the
  words rank's own candidates (its first 200, or 1,000) or over both ranks' candidates;
- a query-likelihood model with Dirichlet smoothing over the same candidates;
- the meaning rank's feedback taken from the papers both ranks put in their first 20, not from
  the fused first 5;
- with --sif, SIF weighing of the cache's PPMI word vectors (a/(a + p(w)), the papers' first
  principal component removed) as the meaning side;
- with --snowball, the LSA model learned on Snowball's English stems rather than SQLite's Porter
  stems (the words rank keeps the search index's);
- with --misses, where each known item today's answer misses ranks in each list;
- with --cost, what BM25 adds to a query at scale (its candidates read from the shards)."""

from __future__ import annotations

import argparse
import math
import tempfile
from collections import Counter
from collections.abc import Callable
from pathlib import Path

from benchmarks.meaning import QUERIES, TOP, make_store, queries, query_sets, real_papers
from benchmarks.meaning_variants import Ppmi, about_with, evaluate, replaced
from reader.core.similar import distinctive_terms, text_node
from reader.core.stem import stem_string
from reader.core.text import word_string
from reader.meaning import build, expand, find, model, vectors
from reader.search_index import SearchIndex

Fields = tuple[list[str], list[str]]  # a paper's title and abstract, as stems


def stems(text: str) -> list[str]:
    return stem_string(word_string(text)).split()


def query_terms(terms, text: str) -> list[tuple[str, float]]:
    """The words rank's terms (stemmed) with BM25's IDF from the index's counts."""
    chosen = distinctive_terms(terms, word_string(text), indexed=False, count=expand.QUERY_WORDS, phrases=False)
    papers = terms.paper_count()
    counts = terms.document_counts([text_node(term) for term, _ in chosen])
    return [(stem_string(term).strip(), math.log(1 + (papers - n + 0.5) / (n + 0.5))) for (term, _), n in zip(chosen, counts) if n > 0]


def bm25(asked: list[tuple[str, float]], fields: dict[str, Fields], *, title: float, k1: float = 1.2, b: float = 0.75):
    """The papers of `fields` by BM25F (title weighed `title` times the abstract), best first."""
    if not fields:
        return []
    mean_title = sum(len(t) for t, _ in fields.values()) / len(fields) or 1.0
    mean_abstract = sum(len(a) for _, a in fields.values()) / len(fields) or 1.0
    scored = []
    for pid, (t, a) in fields.items():
        tc, ac = Counter(t), Counter(a)
        nt, na = 1 - b + b * len(t) / mean_title, 1 - b + b * len(a) / mean_abstract
        score = 0.0
        for stem, idf in asked:
            tf = title * tc[stem] / nt + ac[stem] / na
            score += idf * tf / (k1 + tf)
        if score > 0:
            scored.append((pid, score))
    return sorted(scored, key=lambda hit: (-hit[1], hit[0]))


def likelihood(asked: list[tuple[str, float]], fields: dict[str, Fields], papers: int, *, mu: float):
    """The papers of `fields` by the query's likelihood under each paper's words, Dirichlet-
    smoothed by the cache's (a word's share of the cache's words estimated from how many papers
    hold it), best first; scores shifted to start at 0 for the worst."""
    if not fields:
        return []
    mean = sum(len(t) + len(a) for t, a in fields.values()) / len(fields)
    background = {stem: max(papers / math.exp(idf) - 0.5, 0.5) / papers / mean for stem, idf in asked}
    scored = []
    for pid, (t, a) in fields.items():
        counts, length = Counter(t + a), len(t) + len(a)
        scored.append((pid, sum(math.log((counts[s] + mu * background[s]) / (length + mu)) for s, _ in asked)))
    low = min(score for _, score in scored)
    return sorted(((pid, score - low) for pid, score in scored), key=lambda hit: (-hit[1], hit[0]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sif", action="store_true", help="only SIF-weighed PPMI word vectors as the meaning side")
    parser.add_argument("--snowball", action="store_true", help="only LSA learned on Snowball stems")
    parser.add_argument("--misses", action="store_true", help="only where today's missed known items rank in each list")
    parser.add_argument("--cost", type=int, metavar="PAPERS", help="only what BM25 adds to a query on a cache of PAPERS papers")
    args = parser.parse_args()
    if args.cost:
        cost(args.cost)
        return
    real = real_papers()
    sets = query_sets()
    with tempfile.TemporaryDirectory() as folder:
        store = make_store(Path(folder), real.papers)
        terms = SearchIndex.open(store.data_dir)
        terms.refresh(store)
        if args.snowball:
            snowball(store, terms, sets)
            return
        build.update(store, rebuild=True)
        index = vectors.MeaningVectors.open(store.data_dir)
        assert index is not None
        print(f"| variant | {' | '.join(sets)} |")
        print("|---" * (len(sets) + 1) + "|")

        def today(text: str) -> list[str]:
            return [hit.id for hit in find.about(index, terms, text, limit=TOP).hits]

        evaluate("reader find today", today, sets)
        evaluate("words alone (every word)", lambda text: [like.id for like in expand.words_of(terms, text, limit=TOP).papers], sets)
        if args.sif:
            compare_sif(index, terms, real, sets)
            return
        if args.misses:
            misses(index, terms, sets["known item"])
            return
        compare_words(index, terms, real.papers, sets)


def misses(index, terms, asked: list[tuple[str, str]]) -> None:
    """Where each known item today's `reader find` leaves out of its first 10 ranks in the fused
    answer, in meaning's first 200 and in the words rank's first 200 (-: not there)."""
    found = Counter()
    for pid, text in asked:
        fused = [hit.id for hit in find.about(index, terms, text, limit=find.DEPTH).hits]
        if pid in fused[:TOP]:
            continue
        near = [p for p, _ in index.nearest(index.embed(text), find.DEPTH)]
        words = [like.id for like in expand.words_of(terms, text, limit=find.DEPTH).papers]
        at = [str(ranked.index(pid) + 1) if pid in ranked else "-" for ranked in (fused, near, words)]
        found["missed"] += 1
        found["in neither list"] += at[1] == at[2] == "-"
        found["not in the words rank"] += at[2] == "-"
        found["fused 11-20"] += at[0] != "-" and int(at[0]) <= 20
        print(f"{pid} fused {at[0]}, meaning {at[1]}, words {at[2]}: {text[:60]}")
    print(f"{len(asked)} queries: " + ", ".join(f"{name} {n}" for name, n in found.items()))


def compare_words(index, terms, real: list, sets: dict) -> None:
    """The words rank by BM25(F) or query likelihood, in its place or as a third list, and the
    feedback taken from where both ranks agree."""
    fields: dict[str, Fields] = {p.id: (stems(p.title), stems(p.abstract)) for p in real}
    papers = terms.paper_count()

    def candidates(text: str, pool: int, union: bool) -> tuple[list, dict[str, Fields]]:
        own = [like.id for like in expand.words_of(terms, text, limit=pool).papers]
        ids = list(dict.fromkeys(own + [pid for pid, _ in index.nearest(index.embed(text), find.DEPTH)])) if union else own
        return query_terms(terms, text), {pid: fields[pid] for pid in ids}

    def words_rank(make: Callable[[list, dict], list], pool: int, union: bool) -> Callable[[str], list[str]]:
        return lambda text: about(index, terms, text, make(*candidates(text, pool, union))[: find.DEPTH])

    def third_list(make: Callable[[list, dict], list]) -> Callable[[str], list[str]]:
        def ranker(text: str) -> list[str]:
            extra = make(*candidates(text, find.DEPTH, False))[: find.DEPTH]
            return about_with(index, terms, text, lambda moved, word_hits, first, found: [moved, word_hits, extra])

        return ranker

    plain = lambda a, f: bm25(a, f, title=1.0)  # noqa: E731
    evaluate(
        "words alone, BM25 over the words rank's first 200",
        lambda text: [p for p, _ in plain(*candidates(text, 200, False))][:TOP],
        sets,
    )
    for pool, union in ((200, False), (1000, False), (200, True)):
        where = "both ranks' candidates" if union else f"the words rank's first {pool}"
        for title in (1.0, 2.0, 3.0):
            name = "BM25" if title == 1 else f"BM25F, title x{title:g}"
            evaluate(f"{name} over {where}", words_rank(lambda a, f, title=title: bm25(a, f, title=title), pool, union), sets)
        for mu in (300.0, 1000.0):
            evaluate(
                f"query likelihood, Dirichlet mu={mu:g}, over {where}",
                words_rank(lambda a, f, mu=mu: likelihood(a, f, papers, mu=mu), pool, union),
                sets,
            )
    evaluate(
        "BM25 over the words rank's first 200, fused by rank alone",
        words_rank(lambda a, f: [(p, 1.0) for p, _ in plain(a, f)], 200, False),
        sets,
    )
    evaluate("BM25 without lengths (b = 0)", words_rank(lambda a, f: bm25(a, f, title=1.0, b=0.0), 200, False), sets)
    evaluate("reader find, BM25 a third list", third_list(plain), sets)
    evaluate("reader find, query likelihood (mu=300) a third list", third_list(lambda a, f: likelihood(a, f, papers, mu=300.0)), sets)
    for depth in (10, 20, 40):
        evaluate(f"feedback from the papers both ranks put in their first {depth}", agreeing(index, terms, depth), sets)


def about(index, terms, text: str, word_hits: list[tuple[str, float]], *, agree: int = 0) -> list[str]:
    """find.about's steps (meaning, feedback, fusion) with `word_hits` as the words rank; with
    `agree`, feedback from the papers both ranks put in their first `agree` (in the fused
    order), the fused first five when they agree on none."""
    exact = find._exact(terms, text)
    query = index.embed(text)
    near = index.nearest(query, find.DEPTH)
    fused = [pid for pid, _ in find.fuse([near, word_hits], first=exact)]
    first = fused[: expand.FEEDBACK_PAPERS]
    if agree:
        both = {pid for pid, _ in near[:agree]} & {pid for pid, _ in word_hits[:agree]}
        first = [pid for pid in fused if pid in both][: expand.FEEDBACK_PAPERS] or first
    candidates = dict.fromkeys([pid for pid, _ in near] + [pid for pid, _ in word_hits])
    moved = expand.feedback(index, query, first, candidates)
    return [pid for pid, _ in find.fuse([moved[: find.DEPTH], word_hits], first=exact)[:TOP]]


def cost(count: int) -> None:
    """What BM25 adds to a query: its candidates' titles and abstracts read from the shards (200
    ids drawn at random: the words rank's are spread over the cache as much), stemmed, scored."""
    import dataclasses
    import random
    import statistics
    import time

    real = real_papers().papers
    papers = []
    for i in range(count):
        paper = real[i % len(real)]
        pid = f"{2001 + (i // 90000) * 100 + (i // 90000):04d}.{i % 90000:05d}"
        papers.append(dataclasses.replace(paper, id=pid, published=f"20{pid[:2]}-{pid[2:4]}-15T12:00:00Z"))
    draw = random.Random(0)
    with tempfile.TemporaryDirectory() as folder:
        store = make_store(Path(folder), papers)
        walls, cpus, reading = [], [], []
        for _, text in queries(QUERIES)[:31]:
            ids = [p.id for p in draw.sample(papers, find.DEPTH)]
            asked = [(stem, 1.0) for stem in dict.fromkeys(stems(text))][: expand.QUERY_WORDS]
            started, cpu = time.perf_counter(), time.process_time()
            found = store.papers_by_id(ids)
            reading.append(time.process_time() - cpu)
            bm25(asked, {pid: (stems(p.title), stems(p.abstract)) for pid, p in found.items()}, title=1.0)
            walls.append(time.perf_counter() - started)
            cpus.append(time.process_time() - cpu)
    print(f"BM25 over {find.DEPTH} candidates at {count:,} papers: {statistics.median(walls) * 1000:.0f} ms median")
    print(f"  {statistics.median(cpus) * 1000:.0f} ms CPU, of which reading the {len(found)} papers from the shards")
    print(f"  {statistics.median(reading) * 1000:.0f} ms (the rest: stemming and scoring them)")


def agreeing(index, terms, depth: int) -> Callable[[str], list[str]]:
    def ranker(text: str) -> list[str]:
        word_hits = [(like.id, like.score) for like in expand.words_of(terms, text, limit=find.DEPTH).papers]
        return about(index, terms, text, word_hits, agree=depth)

    return ranker


class Sif(Ppmi):
    """The PPMI word vectors, each paper the SIF-weighed mean of its words' (a / (a + p(w)),
    p(w) the word's share of the cache's words), the papers' first principal component removed."""

    A = 1e-3

    def __init__(self, index, papers) -> None:
        import numpy as np

        self.share = None
        super().__init__(index, papers)  # fits the word vectors; its paper matrix is remade below
        counts = np.zeros(len(self.column), dtype=np.float64)
        for paper in papers:
            for token in self.words.tokens(model.paper_text(paper.title, paper.abstract)):
                if (i := self.column.get(token)) is not None:
                    counts[i] += 1
        self.share = (counts / counts.sum()).astype(np.float32)
        self.component = None
        matrix = np.stack([self.embed(model.paper_text(p.title, p.abstract)) for p in papers])
        _, _, vt = np.linalg.svd(matrix - 0, full_matrices=False)
        self.component = vt[0]
        self.matrix = np.stack([self.embed(model.paper_text(p.title, p.abstract)) for p in papers])

    def embed(self, text: str):
        import numpy as np

        if self.share is None:
            return super().embed(text)
        counts: dict[int, int] = {}
        for token in self.words.tokens(text):
            if (i := self.column.get(token)) is not None:
                counts[i] = counts.get(i, 0) + 1
        if not counts:
            return np.zeros(self.DIMENSIONS, dtype=np.float32)
        used = np.fromiter(counts, dtype=np.int64)
        weight = np.fromiter(counts.values(), dtype=np.float32) * self.A / (self.A + self.share[used])
        vector = weight @ self.vectors[used] / weight.sum()
        if self.component is not None:
            vector = vector - (vector @ self.component) * self.component
        norm = float(np.linalg.norm(vector))
        return (vector / norm if norm else vector).astype(np.float32)


def compare_sif(index, terms, real, sets) -> None:
    words = Sif(index, real.papers)
    probes = [p for p in real.papers[::8] if real.labels.get(p.id)]
    for lsa, name in ((0.0, "SIF-weighed PPMI"), (1.0, "LSA and SIF-weighed PPMI summed")):
        evaluate(f"{name}, alone", lambda text, lsa=lsa: [pid for pid, _ in words.nearest(text, TOP, lsa=lsa)], sets)
        agree = [
            sum(bool(real.labels.get(pid, set()) & real.labels[p.id]) for pid in words.neighbours(p.id, lsa=lsa)) / TOP for p in probes
        ]
        print(f"{name}: same field among 10 nearest {sum(agree) / len(agree):.1%}")

        def plain(text: str, lsa: float = lsa, exact=find._exact) -> list[str]:
            word_hits = [(like.id, like.score) for like in expand.words_of(terms, text, limit=find.DEPTH).papers]
            return [pid for pid, _ in find.fuse([words.nearest(text, find.DEPTH, lsa=lsa), word_hits], first=exact(terms, text))[:TOP]]

        evaluate(f"{name} fused with words, in LSA's place (no feedback)", plain, sets)
        evaluate(
            f"reader find, {name} a third list",
            lambda text, lsa=lsa: about_with(index, terms, text, lambda m, w, first, c: [m, w, words.nearest(text, find.DEPTH, lsa=lsa)]),
            sets,
        )


def snowball(store, terms, sets) -> None:
    """Today's `reader find` with LSA learned on Porter's stems, then on Snowball's."""
    import snowballstemmer

    english = snowballstemmer.stemmer("english")

    def snowball_string(words: str) -> str:
        return " ".join(english.stemWords(words.split(" ")))

    print(f"| variant | {' | '.join(sets)} |")
    print("|---" * (len(sets) + 1) + "|")
    for name in ("Porter (today)", "Snowball"):
        folder = store.data_dir / "meaning"
        if folder.exists():
            import shutil

            shutil.rmtree(folder)
        stemmer = snowball_string if name == "Snowball" else stem_string
        with replaced(model, "stem_string", stemmer):
            model.stop_stems.cache_clear()
            build.update(store, rebuild=True)
            index = vectors.MeaningVectors.open(store.data_dir)
            assert index is not None
            evaluate(
                f"reader find, LSA on {name} stems",
                lambda text, index=index: [h.id for h in find.about(index, terms, text, limit=TOP).hits],
                sets,
            )
            evaluate(f"LSA on {name} stems, alone", lambda text, index=index: [p for p, _ in index.nearest(index.embed(text), TOP)], sets)
        model.stop_stems.cache_clear()


if __name__ == "__main__":
    main()
