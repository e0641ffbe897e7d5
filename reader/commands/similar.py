"""`reader similar ID` and `reader similar --text TEXT`: the cached papers most like a paper (or
a piece of text, a draft's abstract say), offline, each with why."""

from __future__ import annotations

import sys

from reader.commands.common import cached_paper, open_store, positive_int, print_json, search_index
from reader.commands.marks import ID_HELP
from reader.errors import ReaderError

DEFAULT_LIMIT = 10


def register(commands) -> None:
    similar = commands.add_parser(
        "similar",
        help="the cached papers most like a paper, or like a text",
        description="The cached papers most like a paper, best first, offline: those sharing the terms that set it "
        "apart (its few most distinctive words and phrases, weighed by how rare they are in the cache), then its "
        "authors and categories; fused with the papers nearest it in meaning once the meaning index is built "
        "(`reader index`), each then with its words nearest them in meaning. Never the paper itself or a hidden "
        "paper; starred and read ones included. --text ranks the papers like a piece of text instead (a draft's "
        "abstract, say).",
    )
    similar.add_argument("id", nargs="?", metavar="ID", help=ID_HELP)
    similar.add_argument("--text", metavar="TEXT", help="papers like this text instead of a paper; - reads standard input")
    similar.add_argument("--limit", type=positive_int, default=DEFAULT_LIMIT, metavar="N", help=f"how many (default {DEFAULT_LIMIT})")
    similar.add_argument("--json", action="store_true", help="print a JSON array of {id, title, score, because, meaning, starred, read}")
    similar.set_defaults(handler=cmd_similar)


def cmd_similar(args, settings) -> int:
    from reader.core.similar import Like, Likeness, like_text
    from reader.meaning import find, like
    from reader.meaning.vectors import MeaningVectors

    if (args.id is None) == (args.text is None):
        raise ReaderError("give one paper's ID, or --text TEXT (not both)")
    text = _standard_input() if args.text == "-" else args.text
    if text is not None and not text.split():
        raise ReaderError("the text is empty: give the words to compare papers with")
    store = open_store(args, settings)
    paper = None
    if args.id is not None:
        paper_id, _ = cached_paper(store, args.id)
        paper = store.load_paper(paper_id)
        if paper is None:  # its shard was lost since the index was read
            raise ReaderError(f"cannot read {paper_id} in the cache: `reader add {paper_id}` fetches it again")
    marks = store.marks()
    meaning = MeaningVectors.open(store.data_dir)  # None until a sync or `reader index` builds it: likeness alone
    with search_index(store) as index:
        if paper is not None:
            found = like.like_paper(meaning, index, paper, limit=args.limit, leave_out=marks.hidden)
        elif meaning is None:
            found = like_text(index, text or "", limit=args.limit, leave_out=marks.hidden)
        else:
            about = find.about(meaning, index, text or "", limit=args.limit, leave_out=marks.hidden)
            hits = [Like(hit.id, round(hit.score, 4), hit.words, hit.because) for hit in about.hits]
            found = Likeness((), hits)
        cards = index.cards(found_paper.id for found_paper in found.papers)
    rows = [
        {
            "id": similar.id,
            "title": cards[similar.id].title,
            "score": similar.score,
            "because": list(similar.because),
            "meaning": list(similar.meaning),
            "starred": similar.id in marks.starred,
            "read": similar.id in marks.read,
        }
        for similar in found.papers
        if similar.id in cards
    ]
    if args.json:
        print_json(rows)
        return 0
    what = f"{paper.id} ({paper.title})" if paper is not None else "the text"
    if not rows:
        print(f"no cached paper shares a distinctive term with {what}", file=sys.stderr)
        return 0
    by = f", by: {', '.join(found.terms)}" if found.terms else ""
    print(f"like {what}{by}{'' if meaning is not None else ' (words alone: the meaning index is not built)'}", file=sys.stderr)
    for row in rows:
        marks_shown = ("*" if row["starred"] else " ") + (" " if row["read"] else "N")
        print(f"{row['score']:.3f}  {marks_shown}  {row['id']}  {row['title']}")
        why = ([f"because: {', '.join(row['because'])}"] if row["because"] else []) + (
            [f"in meaning: {', '.join(row['meaning'])}"] if row["meaning"] else []
        )
        if why:
            print(f"{'':12}{'; '.join(why)}")
    return 0


# A paper's whole text is a few hundred kB; each distinct word of the text is asked of the search
# index, so 40 MB of distinct words took 70 s and 1 GB (100 MB: 2.7 GB), 2 MB takes ~3 s.
MAX_TEXT_BYTES = 2 * 1024 * 1024


def _standard_input() -> str:
    raw = sys.stdin.buffer.read(MAX_TEXT_BYTES + 1)
    if len(raw) > MAX_TEXT_BYTES:
        raise ReaderError(f"the text on standard input is longer than {MAX_TEXT_BYTES // 2**20} MB: give an abstract or a paper's text")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise ReaderError(f"the text on standard input is not UTF-8 (byte {error.start})") from None
