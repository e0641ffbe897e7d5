"""`reader topics list|add|remove`: the topics, each a name and an arXiv search query, with their
cached papers and what arXiv holds."""

from __future__ import annotations

import sys
from collections.abc import Iterator

from reader.commands.common import add_list_command, open_store, print_list, read_catalog, search_index, validated_query
from reader.commands.completion import completes_names
from reader.core.text import plural


def register(commands) -> None:
    actions = add_list_command(
        commands,
        "topics",
        cmd_topics,
        help="list, add or remove topics",
        list_help="the topics with their counts",
        json_help="print an array of {name, query, cached, arxiv_total, last_sync, covered_since}",
    )
    add = actions.add_parser("add", help="add a topic: a name and an arXiv search query")
    add.add_argument("name", help="the topic's name, as the sidebar shows it")
    add.add_argument("query", help="arXiv syntax, e.g. 'ti:agent AND cat:cs.LG'")
    remove = actions.add_parser("remove", help="remove a topic (papers, stars and read marks stay)")
    completes_names(remove.add_argument("name", help="the topic's name (any case)"), "topic")


def cmd_topics(args, settings) -> int:
    store = open_store(args, settings)
    if args.action == "add":
        query = validated_query(args.query, for_arxiv=True)
        topic = store.add_topic(args.name, args.query)
        # The cached papers its query matches join it at once (no request); a sync adds arXiv's.
        with search_index(store) as index:
            filled = store.add_to_topic(topic.name, index.matching(query))
        print(
            f"added topic {topic.name!r}: {topic.query} ({plural(filled, 'cached paper', thousands=True)} match{'es' if filled == 1 else ''} it)"
        )
        print("run `reader sync` to fetch its papers from arXiv", file=sys.stderr)
    elif args.action == "remove":
        topic = store.remove_topic(args.name)
        print(f"removed topic {topic.name!r} (its papers stay in the cache; stars and read marks are kept)")
    else:
        _list_topics(store, as_json=args.json)
    return 0


def _list_topics(store, *, as_json: bool) -> None:
    """Each topic with its cached papers, arXiv's total (over the sync horizon, as of the last
    sync) and the first day of the stretch its cache holds whole."""
    from reader.core.coverage import Coverage

    index = store.index()
    states, spans = store.sync_file.sync_states(), store.sync_file.coverage_spans()
    rows = []
    for topic in store.topics():
        state = states.get(topic.name)
        since = Coverage.of_spans(spans.get(topic.name, ())).since
        rows.append(
            {
                "name": topic.name,
                "query": topic.query,
                "cached": len(index.in_topic(topic.name, index.ids)),
                "arxiv_total": state.arxiv_total if state is not None and state.query == topic.query else None,
                "last_sync": state.last_sync if state is not None else None,
                "covered_since": since.isoformat() if since else None,
            }
        )

    def lines() -> Iterator[str]:
        papers = read_catalog(store)
        for row in rows:
            total, unread = papers.counts(row["name"])
            on_arxiv = f" ({row['arxiv_total']:,} on arXiv)" if row["arxiv_total"] is not None else ""
            covered = f", complete since {row['covered_since']}" if row["covered_since"] else ""
            yield f"{row['name']}\t{total:,} papers{on_arxiv}, {unread:,} unread\tlast sync: {row['last_sync'] or 'never'}{covered}\t{row['query']}"

    print_list(rows, as_json=as_json, lines=lines, empty="no topics yet: add one with `reader topics add NAME QUERY`")
