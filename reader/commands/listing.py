"""`reader list`: cached papers, newest first, as text or JSON."""

from __future__ import annotations

import sys
from contextlib import nullcontext

from reader.commands.common import (
    in_order,
    open_store,
    positive_int,
    print_json,
    read_catalog,
    records,
    search_index,
    selected_ids,
    sort_choices,
    tagged_ids,
    topic_name,
    validated_query,
)
from reader.commands.completion import completes_names
from reader.commands.watches import watch_query
from reader.models import Paper


def register(commands) -> None:
    listing = commands.add_parser(
        "list",
        help="list cached papers, newest first",
        description="List cached papers, newest first, two lines each: the day it was first submitted, its marks, "
        "id and version, [primary category] and title; then the first three authors (+N: how many more). "
        "Marks: * starred, N not read yet; blank: not starred, read. Titles' math is shown as Unicode on a terminal "
        "(unless display.math is tex), as arXiv's TeX when the output is piped.",
    )
    listing.add_argument("--topic", metavar="NAME", help="only this topic's papers (its name, any case)")
    listing.add_argument("--query", metavar="Q", help="filter with arXiv's query syntax or plain words")
    completes_names(listing.add_argument("--tag", metavar="TAG", help="only papers with this tag (any case)"), "tag")
    completes_names(
        listing.add_argument("--watch", metavar="NAME", help="only papers that match this watch's query (its name, any case)"), "watch"
    )
    listing.add_argument("--unread", action="store_true", help="only unread papers")
    listing.add_argument("--starred", action="store_true", help="only starred papers")
    listing.add_argument("--hidden", action="store_true", help="only hidden papers (every other listing leaves them out)")
    listing.add_argument(
        "--new",
        action="store_true",
        help="only papers that arrived since the previous time the app was opened (not those of a topic's first sync)",
    )
    listing.add_argument("--updated", action="store_true", help="only papers updated since you read them (a newer version is cached)")
    listing.add_argument(
        "--sort",
        choices=sort_choices(),
        default="newest",
        help="the order, as the app's S: newest (first submitted, the default), updated (arXiv's last version, latest "
        "first), title, author (the first author's last name), foryou (For you's score: ranks first, as `reader rank`)",
    )
    listing.add_argument("--limit", type=positive_int, metavar="N", help="at most N papers (the first in the order)")
    listing.add_argument("--json", action="store_true", help="print a JSON array of objects, one per paper, instead of text")
    listing.set_defaults(handler=cmd_list)


def cmd_list(args, settings) -> int:
    store = open_store(args, settings)
    query = validated_query(args.query, for_arxiv=False) if args.query else None
    filters = {"topic": topic_name(store, args.topic), "starred": args.starred, "unread": args.unread, "hidden": args.hidden}
    only = _narrowed(tagged_ids(store, args.tag), store.new_ids() if args.new else None, store.updated_ids() if args.updated else None)
    watched = watch_query(store, args.watch)
    sorting = args.sort in ("updated", "title", "author")
    with search_index(store) if query is not None or watched is not None or sorting else nullcontext() as index:
        if index is not None and watched is not None:  # (the index is open whenever a watch is asked for)
            only = _narrowed(only, index.matching(watched))
        # The newest matches' first pages are read by the search index's threads while the
        # catalog's index is read here. A query's papers need only the index's order and days:
        # lines come from the search index's cards, JSON rows from the few records listed
        # (their topics found by binary search).
        limit = args.limit if args.sort == "newest" else None  # another order sorts every match first
        newest = index.newest(query) if index is not None and query is not None and limit is not None else None
        catalog = read_catalog(store, order_only=index is not None)
        ids = selected_ids(catalog, query=query, index=index, limit=limit, only=only, newest=newest, **filters)
        ids = in_order(store, catalog, ids, args.sort, index)[: args.limit]
        if args.json:
            tags, notes, read_versions = store.tags_of(ids), store.notes(), store.read_versions()
            rows = [
                paper_json(p, catalog, tags=tags[p.id], note=notes.get(p.id), read_version=read_versions.get(p.id))
                for p in records(store, catalog, ids)
            ]
            print_json(rows)
            return 0
        if index is not None:  # cards hold what a line shows: a query's list reads no shard at all
            cards = index.cards(ids)
            lines = [_line_of(cards[pid]) for pid in ids if pid in cards]
        else:
            lines = [_line_of(paper) for paper in records(store, catalog, ids)]
    if not lines:
        print("no papers match" if catalog.index else "the cache is empty: run `reader sync`", file=sys.stderr)
    # Titles' math as Unicode for a person at a terminal; a script reading a pipe gets arXiv's TeX.
    from reader.core.texmath import tex_to_unicode  # (with its LaTeX tables: only for a listing)

    shown = tex_to_unicode if settings.math == "unicode" and sys.stdout.isatty() else str
    for published, pid, version, category, title, names, count in lines:
        marks = ("*" if pid in catalog.starred else " ") + (" " if pid in catalog.read else "N")
        authors = ", ".join(names) + (f" +{count - 3}" if count > 3 else "")
        print(f"{published}  {marks}  {pid}v{version}  [{category}]  {shown(title)}")
        print(f"{'':16}{authors}")
    return 0


def _narrowed(*choices: set[str] | None) -> set[str] | None:
    """The papers every given choice holds (None: no choice was given)."""
    given = [choice for choice in choices if choice is not None]
    return set.intersection(*given) if given else None


def _line_of(item) -> tuple[str, str, int, str, str, list[str], int]:
    """What a listed line shows, from a Paper or a search index Card."""
    if isinstance(item, Paper):
        names = [a.name for a in item.authors]
        return item.published[:10], item.id, item.version, item.primary_category, item.title, names[:3], len(names)
    return item.published, item.id, item.version, item.primary_category, item.title, list(item.authors[:3]), item.author_count


def paper_json(paper: Paper, catalog, *, tags: tuple[str, ...] = (), note: str | None = None, read_version: int | None = None) -> dict:
    return {
        "id": paper.id,
        "version": paper.version,
        "title": paper.title,
        "abstract": paper.abstract,
        "authors": [{"name": a.name, "affiliations": list(a.affiliations)} for a in paper.authors],
        "categories": list(paper.categories),
        "primary_category": paper.primary_category,
        "published": paper.published,
        "updated": paper.updated,
        "comment": paper.comment,
        "journal_ref": paper.journal_ref,
        "doi": paper.doi,
        "topics": catalog.topics_of(paper.id, paper.published),
        "read": paper.id in catalog.read,
        "starred": paper.id in catalog.starred,
        "read_version": read_version if paper.id in catalog.read else None,
        "hidden": paper.id in catalog.hidden,
        "tags": list(tags),
        "note": note,
    }
