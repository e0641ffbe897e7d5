"""`reader digest` as text: the Markdown escapes only what a Markdown parser would otherwise read
as markup (checked by markdown-it: every title renders back to itself, as plain text), so it reads
as written in a terminal or a mail; and `--since` says what it takes."""

from __future__ import annotations

import dataclasses
import json

import pytest
from markdown_it import MarkdownIt

from reader.models import Author
from tests.conftest import run
from tests.corpus import recent_papers
from tests.helpers.cli import QUERY
from tests.helpers.digest import HOSTILE_TITLE

TITLES = [
    "Role-Decoupled Agents: <0.1% of all new papers.",  # nothing here is markup: shown as typed
    "snake_case tools, *stars*, __dunder__ and _x_",
    HOSTILE_TITLE,  # a tag, a javascript: link, an image and a heading, all kept as text
    "AT&amp;T &copy; & co: `code` ~~struck~~ ~1B",
    "A \\* backslash \\",
    "![img](https://evil.example/x.png) and <https://evil.example/auto>",
]
AUTHORS = (Author("- Mallory"), Author("<b>Eve</b>"))  # the authors' line starts with them


@pytest.fixture
def synced_with_markup(capsys, arxiv_env):  # noqa: F811
    papers = recent_papers(10)
    for index, title in enumerate(TITLES):
        papers[index] = dataclasses.replace(papers[index], title=title)
    papers[0] = dataclasses.replace(papers[0], authors=AUTHORS)
    arxiv_env.queries[QUERY] = papers
    run(capsys, "topics", "remove", "RL for LLM Agents")
    run(capsys, "topics", "add", "Agents", QUERY)
    assert run(capsys, "sync", "--topic", "Agents")[0] == 0
    return papers


def _items(source: str) -> list[list]:
    """The inline tokens of each list item's paragraph, as markdown-it reads the digest (less the
    empty text tokens it leaves around delimiters)."""
    tokens = MarkdownIt("commonmark").enable("strikethrough").parse(source)
    return [
        [child for child in token.children or [] if child.type != "text" or child.content]
        for before, token in zip(tokens, tokens[1:])
        if before.type == "paragraph_open" and before.level == 2
    ]


def test_markdown_digest_escapes_only_what_markdown_would_misread(capsys, synced_with_markup):
    code, out, _ = run(capsys, "digest", "--topic", "Agents", "--since", "2026-11-01")
    assert code == 0
    stored = {paper["id"]: paper["title"] for paper in json.loads(run(capsys, "list", "--json")[1])}
    items = _items(out)
    assert len(items) == len(stored) == 10
    shown_titles = []
    for children in items:
        kinds = [token.type for token in children]
        assert kinds[0] == "strong_open" and "strong_close" in kinds
        inside = children[1 : kinds.index("strong_close")]
        assert all(token.type == "text" for token in inside), kinds  # no code, link, tag or emphasis
        shown_titles.append("".join(token.content for token in inside))
    assert sorted(shown_titles) == sorted(stored.values())
    assert set(TITLES) <= set(shown_titles)
    # The authors' line: plain text up to the first of our links, "- Mallory" no list item.
    first = items[0]
    after_break = first[[token.type for token in first].index("hardbreak") + 1 :]
    authors = "".join(token.content for token in after_break[: [t.type for t in after_break].index("link_open")])
    assert authors.startswith("- Mallory, <b>Eve</b> · ")
    links = [token.attrGet("href") for children in items for token in children if token.type == "link_open"]
    assert all(str(link).startswith(("https://arxiv.org/abs/", "https://doi.org/")) for link in links)
    rendered = MarkdownIt("commonmark").render(out)
    assert "<script" not in rendered and "<img" not in rendered and "<b>" not in rendered and 'javascript:alert(1)"' not in rendered
    # What needs no escaping reads as written: a hyphen, a "<" before a digit, a full stop.
    assert "- **Role-Decoupled Agents: <0.1% of all new papers.**  \n" in out
    headline = out.split("## Agents\n\n")[1].splitlines()[0]
    assert headline.endswith(" 10 new papers.") and "\\" not in headline, headline
    assert "  \\- Mallory, \\<b>Eve\\</b> · " in out


def test_digest_since_a_word_it_does_not_know_says_last_is_allowed(capsys):
    code, out, err = run(capsys, "digest", "--since", "yesterday")
    assert code == 1 and out == ""
    assert err == (
        "reader: error: --since='yesterday' is not a date in the form YYYY-MM-DD (allowed: last or a date from 1991-01-01 to 9999-01-01)\n"
    )
