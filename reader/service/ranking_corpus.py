"""For you's corpus: the whole cache's features, shard by shard, read in the ranking's process
(ranker.py). Slow work (reading features); no Textual here."""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor

from reader.core import ranking
from reader.core.features import Corpus, FeatureBlock
from reader.logs import log
from reader.meaning import like
from reader.meaning.kept import KeptVectors
from reader.store import Store
from reader.store.shard_features import Stamp, record_rows, shard_features, shard_stamp

READERS = 2  # threads reading shards' features


class RankingCorpus:
    """The whole cache as the ranking's corpus, shard by shard. A shard whose file has not
    changed keeps its features, so ranking again after a mark or a small sync costs the model's
    training, not a re-read of the cache; a later run reads them back (store/shard_features.py)."""

    def __init__(self, store: Store):
        self.store = store
        self._blocks: dict[str, tuple[tuple[int, int], FeatureBlock]] = {}
        self._corpus: Corpus | None = None  # kept while no shard changed: its IDF and the stars' terms too
        self._meaning = KeptVectors(store.data_dir)  # fused in when built (meaning/like.py)

    def corpus(self) -> Corpus:
        blocks, changed = {}, self._corpus is None
        stale: dict[str, Stamp] = {}
        shards = self.store.shards()
        for shard in shards:
            stamp = shard_stamp(self.store, shard)
            known = self._blocks.get(shard)
            if known is None or known[0] != stamp:
                stale[shard] = stamp
            else:
                blocks[shard] = known
        if stale:
            changed = True
            # Two threads: reading a file, its checksum and numpy's checks let the other run
            # (a first ranking at 1,000,000 papers reads ~1,000 files, 1.2 GB).
            with ThreadPoolExecutor(max_workers=READERS, thread_name_prefix="reader-features") as pool:
                read = pool.map(lambda item: (item[1], shard_features(self.store, *item)), stale.items())
                blocks.update(zip(stale, read))
        blocks = {shard: blocks[shard] for shard in shards}  # in the shards' order: the corpus's rows too
        changed = changed or blocks.keys() != self._blocks.keys()
        self._blocks = blocks
        if changed or self._corpus is None:
            self._corpus = Corpus((block for _, block in blocks.values()), texts=record_rows(self.store))
        return self._corpus

    def rank(
        self, *, starred: set[str], read: set[str], hidden: set[str], candidates: list[str] | None = None
    ) -> ranking.Ranking | ranking.NeedsStars:
        if len(starred) >= ranking.MIN_STARS:
            ranking.import_model_meanwhile()
        started = time.monotonic()
        corpus = self.corpus()
        read_in = time.monotonic() - started
        result = ranking.rank(corpus, starred=starred, read=read, hidden=hidden, candidates=candidates)
        if isinstance(result, ranking.Ranking):
            # Fused with meaning when its index is built: papers near a star though worded otherwise rise.
            fused = like.fused_order(self._meaning.get(), result.ids, result.scores, sorted(starred))
            result = result.reordered(fused) if fused is not None else result
        # (in the log: what a slow ranking spent its time on)
        log.info("For you: %d papers' features in %.2f s, ranked in %.2f s", len(corpus.ids), read_in, time.monotonic() - started - read_in)
        return result
