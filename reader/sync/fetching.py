"""Papers fetched from arXiv by id (or found by their exact title) and kept in the cache, outside
any topic: what `reader import` brings in. Requests go through the client, so they wait
politely and retry as a sync's do; papers are saved a batch at a time, as they arrive, and are
not "new" (the user brought them, arXiv did not announce them)."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable
from dataclasses import dataclass, field

from reader.arxiv.client import ArxivClient
from reader.core.import_file import shares_author, title_key
from reader.core.query import Term
from reader.core.text import word_string
from reader.errors import ArxivBadRequestError, ArxivUnreachableError, ReaderError
from reader.models import Paper
from reader.store import Store
from reader.store.shard_features import FeatureKeeper

ID_BATCH = 100  # ids per id_list request (as the sync's)
TITLE_RESULTS = 10  # papers asked for per title: an exact title is rarely shared by more


@dataclass(slots=True)
class Fetched:
    saved: list[str] = field(default_factory=list)  # ids fetched and kept, in the order asked
    missing: list[str] = field(default_factory=list)  # ids arXiv answered without (withdrawn, mistyped)
    refused: list[str] = field(default_factory=list)  # ids arXiv refuses as malformed (HTTP 400)
    not_tried: list[str] = field(default_factory=list)  # ids left when arXiv stopped answering
    error: str | None = None  # why it stopped
    unreachable: bool = False


async def fetch_ids(store: Store, client: ArxivClient, ids: list[str], on_progress: Callable[[int, int], None] | None = None) -> Fetched:
    """Fetch `ids` (unversioned) ID_BATCH at a time and keep what arXiv returns. A failure stops
    the run: what was saved stays, the rest is `not_tried`."""
    result = Fetched()
    features = FeatureKeeper(store)
    try:
        await _fetch(store, client, ids, on_progress, features, result)
    finally:
        await asyncio.to_thread(features.wait)
    return result


async def _fetch(
    store: Store,
    client: ArxivClient,
    ids: list[str],
    on_progress: Callable[[int, int], None] | None,
    features: FeatureKeeper,
    result: Fetched,
) -> None:
    pending = [ids[start : start + ID_BATCH] for start in range(0, len(ids), ID_BATCH)]
    done = 0
    while pending:
        batch = pending.pop(0)
        try:
            page = await client.fetch_ids(batch)
        except ArxivBadRequestError as error:
            # One malformed id (`2013.12345`) fails its whole batch: the others are asked again
            # without it (the one arXiv names, else each half on its own).
            if len(batch) == 1:
                result.refused += batch
                done += 1
                continue
            named = [pid for pid in batch if re.search(rf"(?<![\w.]){re.escape(pid)}(?![\w.])", str(error))]
            if len(named) == 1:
                result.refused += named
                done += 1
                pending.insert(0, [pid for pid in batch if pid != named[0]])
            else:
                pending[:0] = [batch[: len(batch) // 2], batch[len(batch) // 2 :]]
            continue
        except ReaderError as error:
            result.error, result.unreachable = str(error), isinstance(error, ArxivUnreachableError)
            result.not_tried = [pid for rest in (batch, *pending) for pid in rest]
            break
        wanted = set(batch)
        papers = [paper for paper in page.papers if paper.id in wanted]
        await asyncio.to_thread(store.save_papers, papers, None, news=False, on_shard=features.on_shard)
        got = {paper.id for paper in papers}
        result.saved += [pid for pid in batch if pid in got]
        result.missing += [pid for pid in batch if pid not in got]
        done += len(batch)
        if on_progress is not None:
            on_progress(done, len(ids))


async def find_by_title(client: ArxivClient, title: str, families: tuple[tuple[str, ...], ...]) -> list[Paper]:
    """The papers arXiv holds under exactly this title (see title_key) that share an author's
    family name with the citation: a search of the title's words in `ti:`, read exactly."""
    words = word_string(title_key(title)).split()
    if not words:
        return []
    query = str(Term("ti", tuple(words), " " + " ".join(words) + " "))
    page = await client.search(query, max_results=TITLE_RESULTS)
    key = title_key(title)
    exact = [paper for paper in page.papers if title_key(paper.title) == key]
    return [paper for paper in exact if shares_author(families, (a.name for a in paper.authors))]


async def keep(store: Store, papers: list[Paper]) -> None:
    """Save papers found some other way (a title search) as fetch_ids saves its own."""
    features = FeatureKeeper(store)
    await asyncio.to_thread(store.save_papers, papers, None, news=False, on_shard=features.on_shard)
    await asyncio.to_thread(features.wait)
