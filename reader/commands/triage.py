"""`reader rank` (papers ranked for you by your marks) and `reader rising` (topics by momentum,
a topic's rising terms)."""

from __future__ import annotations

import argparse
import sys

from reader.commands.common import open_store, positive_int, print_json, print_warnings, read_catalog, search_index, topic_name
from reader.core.text import plural

DEFAULT_LIMIT = 20


def register(commands) -> None:
    rank = commands.add_parser(
        "rank",
        help="unread papers ranked by what you star, hide and read",
        description="Unread papers ranked by a model trained on your marks: starred papers are what you want, hidden "
        "ones what you do not, papers read without a star count a little against their kind. Needs 3 stars.",
    )
    rank.add_argument("--topic", metavar="NAME", help="only this topic's papers")
    rank.add_argument("--limit", type=positive_int, default=DEFAULT_LIMIT, metavar="N", help=f"how many (default {DEFAULT_LIMIT})")
    rank.add_argument("--json", action="store_true", help="print a JSON array of {id, title, score, because}")
    rank.set_defaults(handler=cmd_rank)

    rising = commands.add_parser(
        "rising",
        help="topics by momentum, or a topic's rising terms",
        description="Without --topic: your topics ranked by their last four weeks against the four before. With it: "
        "the terms whose share of the topic's papers grew most in the last four weeks against the eight before.",
    )
    rising.add_argument("--topic", metavar="NAME", help="the terms rising in this topic")
    rising.add_argument("--limit", type=positive_int, default=DEFAULT_LIMIT, metavar="N", help=f"how many terms (default {DEFAULT_LIMIT})")
    rising.add_argument("--json", action="store_true", help="print a JSON array")
    rising.set_defaults(handler=cmd_rising)


def cmd_rank(args: argparse.Namespace, settings) -> int:
    from reader.core import ranking
    from reader.service.ranking_corpus import RankingCorpus

    store = open_store(args, settings)
    topic = topic_name(store, args.topic)
    catalog = read_catalog(store, order_only=True)  # (ids, days and masks: what counting the stars and a topic need)
    stars = len(catalog.index.holding(catalog.starred))
    if stars < ranking.MIN_STARS:  # said before any paper is read
        return _needs_stars(ranking.NeedsStars(stars), args.json)

    candidates = catalog.select(topic=topic) if topic is not None else None
    result = _ranked_from_candidates(store, catalog, candidates, args.limit)
    if result is None:
        # The whole cache is the corpus (word weights and the background need it), whatever the topic.
        result = RankingCorpus(store).rank(starred=catalog.starred, read=catalog.read, hidden=catalog.hidden, candidates=candidates)
    if isinstance(result, ranking.NeedsStars):  # starred papers whose records are missing
        return _needs_stars(result, args.json)
    best = list(zip(result.ids[: args.limit], result.scores[: args.limit]))
    # Whole records for titles, and for reasons that name authors as they write themselves.
    papers = store.papers_by_id(pid for pid, _ in best)
    print_warnings(store)
    rows = []
    for pid, score in best:
        paper = papers.get(pid)
        if paper is not None:
            rows.append({"id": pid, "title": paper.title, "score": round(score, 4), "because": result.explain(ranking.row_of_paper(paper))})
    if args.json:
        print_json(rows)
        return 0
    if not rows:
        print("nothing to rank: every paper here is read, starred or hidden", file=sys.stderr)
    for row in rows:
        print(f"{row['score']:.3f}  {row['id']}  {row['title']}")
        if row["because"]:
            print(f"{'':7}because: {', '.join(row['because'])}")
    return 0


def _ranked_from_candidates(store, catalog, among, limit: int):
    """The papers sharing the stars' distinctive terms ranked, reading only their features
    (service/first_rank.py); None when the whole cache must be ranked instead (said in the log):
    no search index yet or one that cannot be refreshed, document counts missing for many
    shards, or fewer candidates than asked for."""
    import logging
    import sqlite3

    from reader.core.ranking import NeedsStars
    from reader.errors import ReaderError
    from reader.search_index import SearchIndex
    from reader.service.first_rank import rank_from_candidates

    log = logging.getLogger("reader.features")
    if not SearchIndex.open(store.data_dir).built():
        log.info("For you: no search index yet: every paper's features are read")
        return None
    try:
        with search_index(store) as index:
            result = rank_from_candidates(store, index, starred=catalog.starred, read=catalog.read, hidden=catalog.hidden, among=among)
    except (ReaderError, sqlite3.Error) as error:
        # The index locked by another writer (the app refreshing after a sync), or a read-only
        # data directory: the whole-cache ranking needs no index.
        log.info("For you: the search index cannot be used (%s): every paper's features are read", error)
        return None
    if result is not None and not isinstance(result, NeedsStars) and len(result) < limit:
        log.info("For you: %d candidates, fewer than asked for: every paper is ranked", len(result))
        return None
    return result


def _needs_stars(needs, as_json: bool) -> int:
    print(needs.message, file=sys.stderr)
    if as_json:
        print_json([])
    return 0


def cmd_rising(args: argparse.Namespace, settings) -> int:
    from reader.core import rising
    from reader.core.coverage import view_coverage
    from reader.service.triage import recent_words

    store = open_store(args, settings)
    topic = topic_name(store, args.topic)
    as_of = settings.today()
    catalog = read_catalog(store)
    if topic is None:
        trends = rising.rising_topics(
            catalog, [t.name for t in store.topics()], as_of, store.sync_file.coverage_spans(), store.sync_file.total_new_last4(as_of)
        )
        if args.json:
            print_json([trend.to_json() for trend in trends])
            return 0
        for trend in trends:
            print(f"{trend.topic}\t{_change(trend)}")
        return 0
    coverage = view_coverage(store.sync_file.coverage_spans(), topic)
    terms = rising.rising_terms(recent_words(store, catalog.index, topic, as_of), as_of, limit=args.limit, coverage=coverage)
    if args.json:
        print_json([term.to_json() for term in terms])
        return 0
    if not rising.terms_covered(coverage, as_of):
        first, _ = rising.terms_window(as_of)
        since = f" (complete since {coverage.since})" if coverage.since else ""
        print(
            f"no rising terms in {topic!r} as of {as_of}: the twelve weeks they compare, from {first}, are not all "
            f"synced{since}: `reader sync --topic` fetches them",
            file=sys.stderr,
        )
    elif not terms:
        print(
            f"nothing rising in {topic!r} as of {as_of}: it needs papers in the last four weeks "
            "and in the eight before, and terms in at least three recent papers",
            file=sys.stderr,
        )
    for term in terms:
        print(f"{term.term}\t{term.last4:,} papers in the last four weeks, {term.prev8:,} in the eight before\tx{term.growth:.1f}")
    return 0


def _change(trend) -> str:
    def papers(count: int | None) -> str:
        return "not synced" if count is None else plural(count, "paper", thousands=True)

    text = f"{papers(trend.last4)} in the last four weeks, {papers(trend.prev4)} in the four before"
    if trend.change_pct is not None:
        text += f" ({trend.change_pct:+.0f}%)"
    if trend.share_pct is not None:
        text += f", {trend.share_pct:.2f}% of all new papers"
    return text
