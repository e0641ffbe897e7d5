"""`reader digest`: the HTML is read by a real HTML5 parser, the Markdown rendered by markdown-it;
hostile titles stay text and every link goes to arxiv.org or doi.org."""

from __future__ import annotations

import dataclasses
import json

import pytest

from reader.models import Author
from tests.conftest import run
from tests.corpus import TODAY, recent_papers
from tests.helpers.cli import QUERY
from tests.helpers.digest import HOSTILE_TITLE


def synced_as_agents(capsys, arxiv_env, papers):
    """`papers` served for the query and synced into the topic "Agents" (the demo topic removed)."""
    arxiv_env.queries[QUERY] = papers
    run(capsys, "topics", "remove", "RL for LLM Agents")
    run(capsys, "topics", "add", "Agents", QUERY)
    assert run(capsys, "sync", "--topic", "Agents")[0] == 0
    return papers


def html_digest(capsys, tmp_path):
    """The HTML digest of "Agents" since 2026-11-30, written to a file: its text, and its document
    as a strict HTML5 parser reads it (any parse error raises)."""
    import html5lib

    target = tmp_path / "digest.html"
    code, _, err = run(capsys, "digest", "--since", "2026-11-30", "--topic", "Agents", "--format", "html", "-o", str(target))
    assert code == 0, err
    text = target.read_text("utf-8")
    return text, html5lib.HTMLParser(strict=True, namespaceHTMLElements=False).parse(text)


@pytest.fixture
def synced_with_hostile(capsys, arxiv_env):  # noqa: F811
    papers = recent_papers(30)
    papers[0] = dataclasses.replace(
        papers[0],
        title=HOSTILE_TITLE,
        doi="10.1000/a(b)c",
        authors=(Author("<b>Mallory</b>"), Author("Eve ![x](https://evil.example/t.png)")),
    )
    return synced_as_agents(capsys, arxiv_env, papers)


def test_html_digest_is_well_formed_self_contained_and_links_only_to_arxiv(capsys, synced_with_hostile, tmp_path):
    text, document = html_digest(capsys, tmp_path)
    assert not list(document.iter("script")) and not list(document.iter("img")) and not list(document.iter("link"))
    assert all("src" not in element.attrib for element in document.iter())
    assert "url(" not in text and "@import" not in text
    hrefs = [a.attrib["href"] for a in document.iter("a")]
    assert hrefs and all(h.startswith(("https://arxiv.org/abs/", "https://doi.org/")) for h in hrefs)
    assert "https://doi.org/10.1000/a%28b%29c" in hrefs
    titles = [div.text for div in document.iter("div") if div.attrib.get("class") == "title"]
    expected = [p for p in synced_with_hostile if p.published[:10] >= "2026-11-30"]
    assert len(titles) == len(expected) == 15
    assert titles[0] == HOSTILE_TITLE  # shown as text, newest first
    meta = next(div for div in document.iter("div") if div.attrib.get("class") == "meta")
    assert "".join(meta.itertext()).startswith("<b>Mallory</b>, Eve ![x](https://evil.example/t.png) · 2026-12-02")
    headline = next(p for p in document.iter("p") if p.attrib.get("class") == "headline")
    assert headline.text.endswith("15 new papers.")


@pytest.fixture
def synced_with_hebrew(capsys, arxiv_env):  # noqa: F811
    papers = recent_papers(10)
    papers[0] = dataclasses.replace(
        papers[0], title="מודלים גדולים: a study", authors=(Author("דוד כהן"), Author("Ada Lovelace"), Author("محمد علي"))
    )
    return synced_as_agents(capsys, arxiv_env, papers)


def test_html_digest_isolates_each_name_and_title_in_any_script(capsys, synced_with_hebrew, tmp_path):
    text, document = html_digest(capsys, tmp_path)
    hebrew = synced_with_hebrew[0]
    item = next(li for li in document.iter("li") if hebrew.id in "".join(li.itertext()))
    title, meta = item.findall("div")
    assert (title.attrib.get("dir"), title.text) == ("auto", hebrew.title)
    # Each name is its own <bdi>, the name its only content: a right-to-left name cannot pull the
    # separators and the date beside it into its own direction.
    names = meta.findall("bdi")
    assert [(bdi.text, list(bdi)) for bdi in names] == [("דוד כהן", []), ("Ada Lovelace", []), ("محمد علي", [])]
    assert names[-1].tail.startswith(" · 2026-") and all(bdi.tail == ", " for bdi in names[:-1])
    for other in document.iter("li"):  # every paper's authors, each in a <bdi>
        assert other.find("div[@class='meta']/bdi") is not None
    assert not any(0x202A <= ord(ch) <= 0x202E or 0x2066 <= ord(ch) <= 0x2069 or ch in "\u200e\u200f\u061c" for ch in text)


def test_markdown_digest_renders_titles_as_text(capsys, synced_with_hostile):
    from markdown_it import MarkdownIt

    code, out, _ = run(capsys, "digest", "--since", "2026-12-01")
    assert code == 0
    rendered = MarkdownIt("commonmark").render(out)
    links = [token.attrGet("href") for token in _tokens(MarkdownIt("commonmark").parse(out)) if token.type == "link_open"]
    shown = [p for p in synced_with_hostile if p.published[:10] >= "2026-12-01"]
    assert len(links) == len(shown) + sum(1 for p in shown if p.doi)  # an arXiv link per paper, a DOI link when it has one
    assert all(link.startswith(("https://arxiv.org/abs/", "https://doi.org/")) for link in links)
    assert "<script>" not in rendered and "<img" not in rendered and "<b>" not in rendered
    assert "&lt;script&gt;alert(1)&lt;/script&gt; [click](javascript:alert(1))" in rendered
    assert rendered.count("<h2>") == 3  # one per topic: no title became a heading


def _tokens(tokens):
    for token in tokens:
        yield token
        yield from _tokens(token.children or [])


def test_only_a_full_digest_written_to_a_file_moves_the_since_date(capsys, synced_with_hostile, tmp_path):
    first = "Papers first submitted since 2026-11-25."  # before any digest: the last week
    code, out, _ = run(capsys, "digest", "--topic", "Agents")
    assert code == 0 and "30 new papers" in out and first in out
    # Printing, --topic and --since are previews: the next digest still starts where it would have.
    code, out, err = run(capsys, "digest")
    assert code == 0 and first in out and err == ""
    code, _, err = run(capsys, "digest", "--topic", "Agents", "-o", str(tmp_path / "agents.md"))
    assert code == 0 and err.endswith("; a preview (--topic): the next digest still starts 2026-11-25\n")
    code, _, err = run(capsys, "digest", "--since", "2026-12-01", "-o", str(tmp_path / "since.md"))
    assert code == 0 and err.endswith("; a preview (--since): the next digest still starts 2026-11-25\n")
    assert first in run(capsys, "digest")[1]
    # A full digest written to a file moves it.
    code, _, err = run(capsys, "digest", "-o", str(tmp_path / "week.md"))
    assert code == 0 and first in (tmp_path / "week.md").read_text()
    assert err == f"wrote 30 papers in 3 topics to {tmp_path / 'week.md'} as Markdown; the next digest starts {TODAY.isoformat()}\n"
    code, out, _ = run(capsys, "digest", "--topic", "Agents")
    assert f"Papers first submitted since {TODAY.isoformat()}." in out and "5 new papers" in out
    code, _, err = run(capsys, "digest", "--since", "yesterday")
    assert code == 1 and err.startswith("reader: error: --since") and err.count("\n") == 1
    code, _, err = run(capsys, "digest", "-o", ".")
    assert code == 1 and "is a folder" in err and err.endswith("digest.md\n")  # not a .bib name
    assert json.loads(run(capsys, "list", "--json", "--limit", "1")[1])[0]["title"] == HOSTILE_TITLE


@pytest.mark.parametrize("name, format", [("week.html", "HTML"), ("week.HTM", "HTML"), ("week.md", "Markdown"), ("week.txt", "Markdown")])
def test_the_output_files_extension_chooses_html_or_markdown(capsys, synced_with_hostile, tmp_path, name, format):
    import html5lib

    target = tmp_path / name
    code, _, err = run(capsys, "digest", "--topic", "Agents", "-o", str(target))
    assert code == 0 and f" to {target} as {format}; " in err
    text = target.read_text("utf-8")
    if format == "HTML":
        document = html5lib.HTMLParser(strict=True, namespaceHTMLElements=False).parse(text)
        assert len([div for div in document.iter("div") if div.attrib.get("class") == "title"]) == 30
    else:
        assert text.startswith("# arXiv digest, ") and "<html" not in text


def test_an_explicit_digest_format_wins_over_the_extension(capsys, synced_with_hostile, tmp_path):
    target = tmp_path / "week.html"
    code, _, err = run(capsys, "digest", "--topic", "Agents", "--format", "markdown", "-o", str(target))
    assert code == 0
    assert err.startswith(f"reader: warning: {target} ends in .html, but --format markdown was given: writing Markdown\n")
    assert target.read_text().startswith("# arXiv digest, ")
