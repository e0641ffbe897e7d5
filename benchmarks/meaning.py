"""Search by meaning: its quality on real papers and its speed at scale.
`python -m benchmarks.meaning [--quality] [--speed] [--papers N]`.

Quality (benchmarks/data/, see SOURCES.md there): 4,082 real arXiv papers (title, abstract, the
topic folder a collector filed each under) plus the real API responses of tests/fixtures
(true primary categories), in one cache.
- known item by paraphrase: each query of meaning-queries.tsv was written from one paper's
  abstract with every content word of its title removed or replaced; the share whose paper is
  in the top 10 (and on meaning-queries-heldout.tsv, meaning-queries-heldout2.tsv and
  meaning-queries-heldout3.tsv, written before tuning, for other papers);
- more like this by label: for every 8th labelled paper, the share of its 10 nearest holding one
  of its labels (topic folders; primary category for the fixtures' papers).
Each candidate answers both on the same cache: today's words (`reader similar`'s likeness over
the search index), plain TF-IDF cosine, LSA at 128 and 256 dimensions, a packaged word-vector
model when installed (wordllama), and the fusion `reader find` uses.

Speed: a cache of --papers papers (the real ones again and again under new ids, so the words are
real), the first build, adding 10,000 papers, `reader find` from process start, and its RSS."""

from __future__ import annotations

import argparse
import dataclasses
import gzip
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from benchmarks.cache import model_papers
from reader.models import Paper

DATA = Path(__file__).resolve().parent / "data"
PAPERS = DATA / "meaning-papers.jsonl.gz"
QUERIES = DATA / "meaning-queries.tsv"
HELD_OUT = DATA / "meaning-queries-heldout.tsv"  # written before tuning; each change is checked on them too
HELD_OUT_2 = DATA / "meaning-queries-heldout2.tsv"  # written before the third round's tuning, for other papers again
HELD_OUT_3 = DATA / "meaning-queries-heldout3.tsv"  # written before the fourth round's tuning, for other papers again
TOP = 10


@dataclasses.dataclass
class Real:
    papers: list[Paper]
    labels: dict[str, set[str]]


def real_papers() -> Real:
    """The benchmark's papers as cache records: the fixtures' as arXiv sent them, the collected
    ones given one common category (their label must not leak into a category reason)."""
    template = model_papers()[0]
    papers: dict[str, Paper] = {}
    labels: dict[str, set[str]] = {}
    for paper in model_papers():
        if paper.id not in papers and paper.abstract.strip():
            papers[paper.id] = paper
            labels[paper.id] = {paper.primary_category}
    with gzip.open(PAPERS, "rt", encoding="utf-8") as lines:
        for line in lines:
            row = json.loads(line)
            pid = row["id"]
            if pid in papers or "/" in pid:
                continue
            stamp = f"20{pid[:2]}-{pid[2:4]}-15T12:00:00Z"
            papers[pid] = dataclasses.replace(
                template,
                id=pid,
                version=1,
                title=row["title"],
                abstract=row["abstract"],
                published=stamp,
                updated=stamp,
                categories=["cs.LG"],
                primary_category="cs.LG",
                abs_url=f"https://arxiv.org/abs/{pid}v1",
                pdf_url=f"https://arxiv.org/pdf/{pid}v1",
            )
            labels[pid] = set(row["labels"])
    return Real(list(papers.values()), labels)


def queries(path: Path = QUERIES) -> list[tuple[str, str]]:
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            pid, text = line.split("\t", 1)
            rows.append((pid, text.strip()))
    return rows


def query_sets() -> dict[str, list[tuple[str, str]]]:
    """The known-item queries and each held-out set, by the name the variants' tables give them."""
    return {
        "known item": queries(QUERIES),
        "held out": queries(HELD_OUT),
        "held out, second set": queries(HELD_OUT_2),
        "held out, third set": queries(HELD_OUT_3),
    }


def make_store(data_dir: Path, papers: list[Paper]):
    from reader.store import Store

    store = Store(data_dir)
    store.add_topic("All", "cat:cs.LG")
    store.set_setting("examples_added", True)
    for start in range(0, len(papers), 20_000):
        store.save_papers(papers[start : start + 20_000], "All")
    return store


Ranker = Callable[[str], list[str]]  # text -> ids, best first
Neighbours = Callable[[Paper], list[str]]


def _dense(embed: Callable[[list[str]], object], papers: list[Paper]) -> tuple[Ranker, Neighbours]:
    import numpy as np

    from reader.meaning.model import paper_text

    ids = [p.id for p in papers]
    matrix = np.asarray(embed([paper_text(p.title, p.abstract) for p in papers]), dtype=np.float32)
    matrix /= np.maximum(np.linalg.norm(matrix, axis=1, keepdims=True), 1e-9)
    row = {pid: i for i, pid in enumerate(ids)}

    def near(vector, leave: str | None) -> list[str]:
        scores = matrix @ vector
        if leave is not None:
            scores[row[leave]] = -np.inf
        return [ids[i] for i in np.argsort(-scores)[:TOP]]

    def ranker(text: str) -> list[str]:
        vector = np.asarray(embed([text]), dtype=np.float32)[0]
        return near(vector / max(float(np.linalg.norm(vector)), 1e-9), None)

    return ranker, lambda paper: near(matrix[row[paper.id]], paper.id)


def candidates(store, papers: list[Paper]) -> dict[str, tuple[Ranker, Neighbours]]:
    from sklearn.feature_extraction.text import TfidfVectorizer

    from reader.core.similar import like_paper, like_text
    from reader.meaning import build, expand, find, model, vectors
    from reader.meaning.like import like_paper as fused_like
    from reader.search_index import SearchIndex

    terms = SearchIndex.open(store.data_dir)
    terms.refresh(store)
    texts = [model.paper_text(p.title, p.abstract) for p in papers]
    found: dict[str, tuple[Ranker, Neighbours]] = {
        "words (today's reader similar)": (
            lambda text: [like.id for like in like_text(terms, text, limit=TOP).papers],
            lambda paper: [like.id for like in like_paper(terms, paper, limit=TOP).papers],
        ),
        "words: every word of the query (reader find's words rank)": (
            lambda text: [like.id for like in expand.words_of(terms, text, limit=TOP).papers],
            lambda paper: [like.id for like in like_paper(terms, paper, limit=TOP).papers],
        ),
    }
    tfidf = TfidfVectorizer(sublinear_tf=True, stop_words="english", min_df=2).fit(texts)
    found["words (TF-IDF cosine)"] = _dense(lambda batch: tfidf.transform(batch).toarray(), papers)
    for dims in (128, 256):
        fitted = model.fit(texts, "benchmark", dimensions=dims)
        found[f"LSA {dims}"] = _dense(lambda batch, fitted=fitted: fitted.embed(batch)[0], papers)
    try:
        import wordllama  # type: ignore[import-not-found]

        # Its wheel holds the weights and the tokenizer, but load() looks for the tokenizer in a
        # folder the wheel does not have and then downloads it: pointed at the package, it
        # loads offline.
        llama = wordllama.WordLlama.load(cache_dir=Path(wordllama.__file__).parent, disable_download=True)
        found["wordllama 256 (packaged)"] = _dense(lambda batch: llama.embed(batch), papers)
    except ImportError:
        print("wordllama not installed: its row is left out", file=sys.stderr)
    build.update(store, rebuild=True)
    index = vectors.MeaningVectors.open(store.data_dir)
    found["stored LSA: reader find; nearest by meaning alone"] = (
        lambda text: [hit.id for hit in find.about(index, terms, text, limit=TOP).hits],
        lambda paper: [pid for pid, _ in index.nearest(index.vector(paper.id), TOP, leave_out={paper.id})],
    )
    found["stored LSA: reader find; reader similar (likeness fused with meaning)"] = (
        lambda text: [hit.id for hit in find.about(index, terms, text, limit=TOP).hits],
        lambda paper: [like.id for like in fused_like(index, terms, paper, limit=TOP).papers],
    )

    def unexpanded(text: str) -> list[str]:
        weight, expand.FEEDBACK_WEIGHT = expand.FEEDBACK_WEIGHT, 0.0
        try:
            return [hit.id for hit in find.about(index, terms, text, limit=TOP).hits]
        finally:
            expand.FEEDBACK_WEIGHT = weight

    found["stored LSA: reader find without feedback"] = (unexpanded, lambda paper: [])
    return found


def query_cost(store, asked: list[tuple[str, str]]) -> None:
    """What `reader find`'s ranking logic costs per query: the words rank's time (five distinctive
    terms as "more like this" asks, against every word of the query as `reader find` asks) and
    the feedback's (which reads only the candidates' vectors)."""
    import statistics

    from reader.core.similar import like_text
    from reader.meaning import expand, find, vectors
    from reader.search_index import SearchIndex

    terms = SearchIndex.open(store.data_dir)
    terms.refresh(store)
    index = vectors.MeaningVectors.open(store.data_dir)  # None: the feedback is not timed
    times: dict[str, list[float]] = {"five terms": [], "every word": [], "feedback": []}
    for _, text in asked:
        for name, rank in (("five terms", like_text), ("every word", expand.words_of)):
            started = time.perf_counter()
            found = rank(terms, text, limit=find.DEPTH)
            times[name].append(time.perf_counter() - started)
        if index is not None:
            query = index.embed(text)
            near = index.nearest(query, find.DEPTH)
            candidates = [pid for pid, _ in near] + [like.id for like in found.papers]
            started = time.perf_counter()
            expand.feedback(index, query, [pid for pid, _ in near[: expand.FEEDBACK_PAPERS]], candidates)
            times["feedback"].append(time.perf_counter() - started)
    print(f"per query, median over {len(asked)} queries of {terms.paper_count():,} papers:")
    for name in ("five terms", "every word"):
        print(f"  words rank, {name}: {statistics.median(times[name]) * 1000:.1f} ms")
    if times["feedback"]:
        print(f"  feedback: {statistics.median(times['feedback']) * 1000:.2f} ms")


def quality() -> list[dict]:
    real = real_papers()
    asked, held, held_2, held_3 = queries(), queries(HELD_OUT), queries(HELD_OUT_2), queries(HELD_OUT_3)
    by_id = {p.id: p for p in real.papers}
    missing = [pid for pid, _ in asked + held + held_2 + held_3 if pid not in by_id]
    if missing:
        raise SystemExit(f"queries name papers not in the set: {missing[:5]}")
    from reader.meaning.model import stop_stems, tokens

    stop = stop_stems()
    worded = [pid for pid, text in asked + held + held_2 + held_3 if set(tokens(text, stop)) & set(tokens(by_id[pid].title, stop))]
    if worded:
        raise SystemExit(f"queries sharing a content word with their paper's title: {worded}")
    probes = [p for p in real.papers[::8] if real.labels.get(p.id)]
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        store = make_store(Path(folder), real.papers)
        for name, (ranker, neighbours) in candidates(store, real.papers).items():
            started = time.perf_counter()
            hits = sum(pid in ranker(text)[:TOP] for pid, text in asked)
            held_hits = sum(pid in ranker(text)[:TOP] for pid, text in held)
            held_2_hits = sum(pid in ranker(text)[:TOP] for pid, text in held_2)
            held_3_hits = sum(pid in ranker(text)[:TOP] for pid, text in held_3)
            agree = []
            for paper in probes:
                near = neighbours(paper)[:TOP]
                agree.append(sum(bool(real.labels.get(pid, set()) & real.labels[paper.id]) for pid in near) / TOP)
            rows.append(
                {
                    "candidate": name,
                    "known_item_top10": hits / len(asked),
                    "held_out_top10": held_hits / len(held),
                    "held_out_2_top10": held_2_hits / len(held_2),
                    "held_out_3_top10": held_3_hits / len(held_3),
                    "label_agreement": sum(agree) / len(agree) if any(agree) else None,
                    "seconds": time.perf_counter() - started,
                }
            )
            print(json.dumps(rows[-1]), file=sys.stderr)
        query_cost(store, asked + held)
    print(
        f"{len(real.papers):,} papers, {len(asked)} paraphrase queries, {len(held)}, {len(held_2)} and {len(held_3)} held out,"
        f" {len(probes)} papers asked for their 10 nearest"
    )
    print("| candidate | known item in top 10 | held out | second set | third set | same label among 10 nearest |")
    print("|---|---|---|---|---|---|")
    for row in rows:
        agreement = "" if row["label_agreement"] is None else f"{row['label_agreement']:.1%}"
        print(
            f"| {row['candidate']} | {row['known_item_top10']:.0%} | {row['held_out_top10']:.0%} | {row['held_out_2_top10']:.0%}"
            f" | {row['held_out_3_top10']:.0%} | {agreement} |"
        )
    return rows


def _rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def speed(count: int, added: int) -> None:
    from reader.meaning import build, vectors

    real = real_papers().papers
    papers = []
    for i in range(count + added):
        model = real[i % len(real)]
        pid = f"{2001 + (i // 90000) * 100 + (i // 90000):04d}.{i % 90000:05d}"
        papers.append(dataclasses.replace(model, id=pid, published=f"20{pid[:2]}-{pid[2:4]}-15T12:00:00Z"))
    with tempfile.TemporaryDirectory() as folder:
        data_dir = Path(folder)
        store = make_store(data_dir, papers[:count])
        started, cpu = time.perf_counter(), time.process_time()
        build.update(store)
        first, first_cpu = time.perf_counter() - started, time.process_time() - cpu
        store.save_papers(papers[count:], "All")
        started, cpu = time.perf_counter(), time.process_time()
        build.update(store)
        more, more_cpu = time.perf_counter() - started, time.process_time() - cpu
        status = vectors.status(store)
        query_cost(store, queries() + queries(HELD_OUT))
        env = dict(os.environ, READER_DATA_DIR=str(data_dir))
        command = [sys.executable, "-m", "reader", "find", "agents that learn from their mistakes", "--limit", "10"]
        subprocess.run(command, env=env, capture_output=True, check=True)  # the search index is brought up to date once
        timings, cpus = [], []
        for _ in range(3):
            started, before = time.perf_counter(), resource.getrusage(resource.RUSAGE_CHILDREN)
            subprocess.run(command, env=env, capture_output=True, check=True)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            timings.append(time.perf_counter() - started)
            cpus.append(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
        child = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    print(f"{count:,} papers: first build {first:.1f} s ({first_cpu:.1f} s CPU), adding {added:,} {more:.1f} s ({more_cpu:.1f} s CPU)")
    print(f"  stored {status.size / 2**20:.1f} MB ({status.vocabulary:,} stems, {status.dimensions} dimensions)")
    print(f"  reader find: {min(timings):.2f} s from process start, {min(cpus):.2f} s CPU (best of 3)")
    print(f"  peak RSS of a child process (the search index's builders included) {child:.0f} MB")
    print(f"  this process's peak RSS (build included) {_rss_mb():.0f} MB")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quality", action="store_true", help="the evaluation on real papers only")
    parser.add_argument("--speed", action="store_true", help="the timings only")
    parser.add_argument("--papers", type=int, default=100_000)
    parser.add_argument("--added", type=int, default=10_000)
    args = parser.parse_args()
    if not args.speed:
        quality()
    if not args.quality:
        speed(args.papers, args.added)


if __name__ == "__main__":
    main()
