"""`reader find TEXT`: the cached papers about a text by meaning fused with words, each with why;
`reader index`: the meaning index's state, `--rebuild` to make it again."""

from __future__ import annotations

import sys

from reader.commands.common import (
    open_store,
    positive_int,
    print_json,
    print_warning,
    read_catalog,
    search_index,
    tagged_ids,
    topic_name,
)
from reader.core.text import plural
from reader.errors import ReaderError

DEFAULT_LIMIT = 10
MAX_TEXT_BYTES = 64 * 1024  # a query, an abstract or a page of notes: more says nothing more


def register(commands) -> None:
    find = commands.add_parser(
        "find",
        help="the cached papers about a text, by meaning (offline)",
        description="The cached papers closest in meaning to TEXT, best first, offline, each with its score and why: "
        "the words of TEXT nearest it in meaning, and the words it shares exactly. Meaning comes from a model learned "
        "from your own cache (`reader index` says which and when); it is fused with a search by words, so a paper "
        "holding TEXT as a phrase comes first. A cache too small to learn from is answered by words, and says so. "
        "Hidden papers are left out.",
    )
    find.add_argument("text", metavar="TEXT", help="what the papers should be about; - reads standard input")
    find.add_argument("--topic", metavar="NAME", help="only this topic's papers (its name, any case)")
    find.add_argument("--tag", metavar="TAG", help="only papers with this tag (any case)")
    find.add_argument("--unread", action="store_true", help="only unread papers")
    find.add_argument("--starred", action="store_true", help="only starred papers")
    find.add_argument("--limit", type=positive_int, default=DEFAULT_LIMIT, metavar="N", help=f"how many (default {DEFAULT_LIMIT})")
    find.add_argument(
        "--json", action="store_true", help="print a JSON array of {id, title, score, meaning, because, words, exact, starred, read}"
    )
    find.set_defaults(handler=cmd_find)
    index = commands.add_parser(
        "index",
        help="the meaning index behind `reader find`: its model, size, age; --rebuild",
        description="Say which model answers `reader find`, how big it is and when it was built. The index is kept up "
        "to date by each sync (new papers are folded in; the model is learned again when their words drift); "
        "--rebuild learns it again from the whole cache now.",
    )
    index.add_argument("--rebuild", action="store_true", help="learn the model again from the whole cache and place every paper")
    index.add_argument("--json", action="store_true", help="print a JSON object instead of text")
    index.set_defaults(handler=cmd_index)


def _text(argument: str) -> str:
    if argument != "-":
        text = argument
    else:
        raw = sys.stdin.buffer.read(MAX_TEXT_BYTES + 1)
        if len(raw) > MAX_TEXT_BYTES:
            raise ReaderError(f"the text on standard input is longer than {MAX_TEXT_BYTES // 1024} kB: give a query or an abstract")
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as error:
            raise ReaderError(f"the text on standard input is not UTF-8 (byte {error.start})") from None
    if not text.split():
        raise ReaderError("the text is empty: give the words to find papers about")
    return text


def _progress(what: str, done: int, total: int) -> None:
    print(f"{what}: {done:,} of {total:,}", file=sys.stderr)


def cmd_find(args, settings) -> int:
    from reader.meaning import build, find

    text = _text(args.text)
    store = open_store(args, settings)
    state, index = build.update(store, progress=_progress)
    if index is None:
        print_warning(f"meaning: {state.note}")
    marks = store.marks()
    among = None
    if args.topic is not None or args.tag is not None or args.unread or args.starred:
        catalog = read_catalog(store, order_only=True)
        among = set(catalog.select(topic=topic_name(store, args.topic), starred=args.starred, unread=args.unread))
        tagged = tagged_ids(store, args.tag)
        if tagged is not None:
            among &= tagged
    with search_index(store) as terms:
        found = find.about(index, terms, text, limit=args.limit, among=among, leave_out=marks.hidden, note=state.note)
        cards = terms.cards(hit.id for hit in found.hits)
    rows = [
        {
            "id": hit.id,
            "title": cards[hit.id].title,
            "score": round(hit.score, 4),
            "meaning": None if hit.meaning is None else round(hit.meaning, 4),
            "because": list(hit.because),
            "words": list(hit.words),
            "exact": hit.exact,
            "starred": hit.id in marks.starred,
            "read": hit.id in marks.read,
        }
        for hit in found.hits
        if hit.id in cards
    ]
    if args.json:
        print_json(rows)
        return 0
    if not rows:
        print("no cached paper is about that text" + (" among those chosen" if among is not None else ""), file=sys.stderr)
        return 0
    print(f"about the text, by {found.by}:", file=sys.stderr)
    for row in rows:
        marks_shown = ("*" if row["starred"] else " ") + (" " if row["read"] else "N")
        print(f"{row['score']:.3f}  {marks_shown}  {row['id']}  {row['title']}")
        why = []
        if row["exact"]:
            why.append("holds the phrase")
        if row["because"]:
            why.append("in meaning: " + ", ".join(row["because"]))
        if row["words"]:
            why.append("words: " + ", ".join(row["words"]))
        if why:
            print(f"{'':12}{'; '.join(why)}")
    return 0


def status_lines(state) -> list[str]:
    """What `reader index` and `reader config` say of the meaning index."""
    if not state.ready:
        return [f"meaning: {state.note}"]
    return [
        f"meaning: LSA learned from this cache, {state.dimensions} dimensions, {plural(state.vocabulary, 'word stem', thousands=True)}, "
        f"fitted on {plural(state.fitted_on, 'paper', thousands=True)}",
        f"  {plural(state.papers, 'paper', thousands=True)} placed{f' of {state.cached:,} cached' if state.cached else ''}, "
        f"{state.size / 2**20:.1f} MB, updated {state.built}",
        "  `reader index --rebuild` learns it again (each sync keeps it up to date)",
    ]


def status_json(state) -> dict:
    return {
        "model": "lsa" if state.ready else "words",
        "papers": state.papers,
        "cached": state.cached,
        "built": state.built,
        "fitted_on": state.fitted_on,
        "vocabulary": state.vocabulary,
        "dimensions": state.dimensions,
        "bytes": state.size,
        "note": state.note,
    }


def cmd_index(args, settings) -> int:
    from reader.meaning import build, vectors

    store = open_store(args, settings)
    state = build.update(store, rebuild=True, progress=_progress)[0] if args.rebuild else vectors.status(store)
    if args.json:
        print_json(status_json(state))
        return 0
    for line in status_lines(state):
        print(line)
    return 0
