"""How a meaning query reads what it ranks: the scan of every stored vector in each way of storing
them, and the words rank by row numbers against sets of ids. CPU time (threads included), the
median of a few runs. `python -m benchmarks.meaning_read [--vectors N] [--data DIR]`.

- The scan: N random unit vectors of 256 dimensions stored as float16 (made float32 a block at a
  time, as format 2 was scanned; or summed by einsum), as 16-bit codes and a scale (format 3,
  kept: reader/meaning/quantized.py) and as 8-bit codes and a scale (measured, not kept); each
  with its largest cosine error against float32 and how many of a query's 200 nearest it keeps.
- The words rank (with --data, a data directory with its search index built): each query's
  words_of by the search index's row numbers (search_index/weighed.py) and by each word's set of
  ids (`best_likes`, as before), with whether the two answers are equal."""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

QUERIES = ["agents that learn from their mistakes", "segmenting organs in medical scans", "keyword spotting on small devices"]
BLOCK = 16_384
RUNS = 5


def cpu_ms(work) -> float:
    """The median CPU time of `work` over RUNS runs (after one not counted), in ms."""
    work()
    times = []
    for _ in range(RUNS):
        started = time.process_time()
        work()
        times.append((time.process_time() - started) * 1000)
    return statistics.median(times)


def scans(count: int) -> None:
    import numpy as np

    from reader.meaning.quantized import quantize

    rng = np.random.default_rng(0)
    vectors = rng.standard_normal((count, 256), dtype=np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    query = vectors[0] + 0.5 * vectors[1]
    query /= np.linalg.norm(query)
    exact = vectors @ query
    halves = vectors.astype(np.float16)
    codes16, scales16 = quantize(vectors)
    peaks = np.abs(vectors).max(axis=1)
    codes8 = np.rint(vectors / (peaks / 127)[:, None]).astype(np.int8)
    scales8 = (peaks / 127).astype(np.float32)

    def blocks(compare):
        out = np.empty(count, dtype=np.float32)
        for start in range(0, count, BLOCK):
            out[start : start + BLOCK] = compare(start, start + BLOCK)
        return out

    ways = {
        "float16 made float32, then matmul (format 2 before)": lambda: blocks(lambda a, b: halves[a:b].astype(np.float32) @ query),
        "float16 summed by einsum (format 2 now)": lambda: blocks(lambda a, b: np.einsum("ij,j->i", halves[a:b], query, dtype=np.float32)),
        "16-bit codes and a scale, einsum (format 3)": lambda: blocks(
            lambda a, b: np.einsum("ij,j->i", codes16[a:b], query, dtype=np.float32) * scales16[a:b]
        ),
        "8-bit codes and a scale, einsum (not kept)": lambda: blocks(
            lambda a, b: np.einsum("ij,j->i", codes8[a:b], query, dtype=np.float32) * scales8[a:b]
        ),
    }
    best = set(np.argsort(-exact)[:200].tolist())
    print(f"scan of {count:,} vectors (256 dimensions)")
    for name, way in ways.items():
        scores = way()
        kept = len(best & set(np.argsort(-scores)[:200].tolist())) / 200
        print(f"  {name}: {cpu_ms(way):.1f} ms CPU, cosine off by at most {np.abs(scores - exact).max():.1e}, 200 nearest {kept:.0%} kept")


def words_rank(data_dir: Path) -> None:
    from reader.core.similar import weighed_by_sets
    from reader.meaning import expand, find
    from reader.search_index import SearchIndex

    index = SearchIndex.open(data_dir)

    class BySets:
        def __getattr__(self, name):
            return getattr(index, name)

        def best_weighed(self, weighed, *, limit, leave_out=()):
            return weighed_by_sets(index, weighed, limit=limit, leave_out=leave_out)

    print(f"words rank at {index.paper_count():,} papers")
    for text in QUERIES:
        for limit in (find.DEPTH, 10 * find.DEPTH):
            rows = cpu_ms(lambda text=text, limit=limit: expand.words_of(index, text, limit=limit))
            sets = cpu_ms(lambda text=text, limit=limit: expand.words_of(BySets(), text, limit=limit))
            same = expand.words_of(index, text, limit=limit) == expand.words_of(BySets(), text, limit=limit)
            print(f"  {text!r}, {limit} papers: by rows {rows:.0f} ms, by sets {sets:.0f} ms CPU; {'equal' if same else 'DIFFERENT'}")
    index.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vectors", type=int, default=1_000_000)
    parser.add_argument("--data", type=Path, help="a data directory with its search index built: the words rank too")
    args = parser.parse_args()
    scans(args.vectors)
    if args.data is not None:
        words_rank(args.data)


if __name__ == "__main__":
    main()
