"""A digest of new papers per topic, for a cron job, a mail or a note-taking app: each topic's
momentum headline, then its papers first submitted since a day, newest first (title, authors,
links).

Markdown escapes only what Markdown would act on where it stands (a `*`, a `[`, a `<` that opens a
tag, a `#` at a line's start...), so a title cannot make a link, a tag or a heading and still
reads as written in plain text. HTML is one self-contained file: escaped text, inline CSS, no script, no image, no remote
resource; its only links go to arxiv.org (built from the validated id) and doi.org (a DOI of the
checked shape). Text in any direction keeps its place: each author's name is a <bdi>, titles and
topic names take their direction from their own text (dir="auto").
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass, field
from datetime import date
from urllib.parse import quote

from reader.core import citation
from reader.core.tex_decode import decode_tex
from reader.core.text import plural
from reader.models import Paper

MAX_AUTHORS = 8


@dataclass(slots=True)
class TopicDigest:
    name: str
    headline: str  # the momentum headline, e.g. "70 papers in the last four weeks, up 141% ..."
    papers: list[Paper] = field(default_factory=list)  # new since the digest's day, newest first


def _authors(paper: Paper) -> str:
    names, others = citation.authors(paper)
    shown = ", ".join(names[:MAX_AUTHORS])
    more = len(names) - MAX_AUTHORS
    if more > 0:
        return f"{shown} and {more} more"
    return shown + (" et al." if others else "")


def _title(paper: Paper) -> str:
    return citation.text(decode_tex(paper.title)) or paper.id


def _doi_url(paper: Paper) -> str | None:
    doi = citation.doi(paper)
    # Percent-encoded but for `/`: a `)` in a DOI cannot end a Markdown link early.
    return f"https://doi.org/{quote(doi, safe='/')}" if doi else None


# --- Markdown ---------------------------------------------------------------------------------------

# What Markdown (CommonMark, and GFM's strikethrough) would act on anywhere in a line: only these
# are escaped, so the text still reads as written in a terminal or a plain-text mail.
_MARKDOWN_INLINE = re.compile(
    r"""
    \\(?=[!-/:-@\[-`{-~]|$)     # a backslash that would escape what follows (at the end: the markup after it)
  | [`*\[\]]                   # code, emphasis, links and images
  | (?<![^\W_])_ | _(?![^\W_])  # _ but inside a word, where it never emphasises (snake_case)
  | <(?=[A-Za-z/!?])           # a tag, a comment or an autolink; not "<0.1%"
  | &(?=\#?\w+;)               # an entity: "&amp;" would show as "&"
""",
    re.VERBOSE,
)
# At a line's start: a heading, a quote, a list item ("- ", "+ ", "1. ", "2) ").
_LINE_START = re.compile(r"#{1,6}(?=\s|$)|>|[-+](?=\s|$)|[0-9]{1,9}(?=[.)](?:\s|$))")
_HEADING_END = re.compile(r"(?:^|(?<=\s))#+\s*$")  # "## Name #": a closing sequence, dropped


def _md(text: str, *, line_start: bool = False, heading: bool = False) -> str:
    """Text that Markdown shows as written, escaping only what it would otherwise read as markup
    where the text stands: anywhere, at the start of a line (`line_start`), at a heading's end."""
    escaped = _MARKDOWN_INLINE.sub(lambda match: "\\" + match.group(), text)
    if text.count("~") > 1:  # a pair strikes out the text between (GFM)
        escaped = escaped.replace("~", "\\~")
    start = _LINE_START.match(escaped) if line_start else None
    if start:  # the marker itself, or the list number's dot or parenthesis
        escaped = "\\" + escaped if not start.group().isdigit() else escaped[: start.end()] + "\\" + escaped[start.end() :]
    end = _HEADING_END.search(escaped) if heading else None
    if end:
        escaped = escaped[: end.start()] + "\\" + escaped[end.start() :]
    return escaped


def markdown(digests: list[TopicDigest], since: date, today: date) -> str:
    lines = [f"# arXiv digest, {today.isoformat()}", "", f"Papers first submitted since {since.isoformat()}.", ""]
    for digest in digests:
        count = plural(len(digest.papers), "new paper", thousands=True)
        lines += [f"## {_md(digest.name, heading=True)}", "", _md(f"{digest.headline}. {count}.", line_start=True), ""]
        for paper in digest.papers:
            links = [f"[arXiv:{paper.id}]({citation.abs_url(paper)})"]
            doi = _doi_url(paper)
            if doi:
                links.append(f"[DOI]({doi})")
            lines.append(f"- **{_md(_title(paper))}**  ")
            lines.append(f"  {_md(_authors(paper), line_start=True)} · {paper.published[:10]} · {' · '.join(links)}")
        lines.append("")
    return "\n".join(lines).rstrip("\n") + "\n"


# --- HTML -------------------------------------------------------------------------------------------

_STYLE = """
body { font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #1f2328;
       max-width: 46rem; margin: 2rem auto; padding: 0 1rem; }
h1 { font-size: 1.6rem; margin-bottom: 0; }
h2 { font-size: 1.25rem; margin: 2rem 0 0.25rem; border-bottom: 1px solid #d0d7de; }
p.since, p.headline { color: #59636e; margin: 0.25rem 0 1rem; }
ol { padding-left: 1.25rem; }
li { margin-bottom: 0.9rem; }
.title { font-weight: 600; }
.meta { color: #59636e; font-size: 0.9rem; }
a { color: #0969da; }
"""


def _e(text: str) -> str:
    return html.escape(text, quote=True)


def _html_authors(paper: Paper) -> str:
    """Each name its own <bdi>: a right-to-left name (Hebrew, Arabic) never reorders the names,
    separators and date around it, with no invisible bidi control in the text."""
    names, others = citation.authors(paper)
    shown = ", ".join(f"<bdi>{_e(name)}</bdi>" for name in names[:MAX_AUTHORS])
    more = len(names) - MAX_AUTHORS
    if more > 0:
        return f"{shown} and {more} more"
    return shown + (" et al." if others else "")


def _html_paper(paper: Paper) -> str:
    links = [f'<a href="{_e(citation.abs_url(paper))}">arXiv:{_e(paper.id)}</a>']
    doi = _doi_url(paper)
    if doi:
        links.append(f'<a href="{_e(doi)}">DOI</a>')
    return (
        f'<li><div class="title" dir="auto">{_e(_title(paper))}</div>'
        f'<div class="meta">{_html_authors(paper)} · {_e(paper.published[:10])} · {" · ".join(links)}</div></li>'
    )


def html_page(digests: list[TopicDigest], since: date, today: date) -> str:
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en">',
        '<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>arXiv digest, {today.isoformat()}</title>",
        f"<style>{_STYLE}</style></head>",
        "<body>",
        f"<h1>arXiv digest, {today.isoformat()}</h1>",
        f'<p class="since">Papers first submitted since {since.isoformat()}.</p>',
    ]
    for digest in digests:
        parts.append(f'<h2 dir="auto">{_e(digest.name)}</h2>')
        parts.append(f'<p class="headline">{_e(digest.headline)}. {plural(len(digest.papers), "new paper", thousands=True)}.</p>')
        if digest.papers:
            parts.append("<ol>" + "".join(_html_paper(p) for p in digest.papers) + "</ol>")
    parts += ["</body>", "</html>"]
    return "\n".join(parts) + "\n"


_MARKDOWN_HEAD = re.compile(r"# arXiv digest, \d{4}-\d{2}-\d{2}\r?\n")
_HTML_HEAD = re.compile(r"<!DOCTYPE html>\r?\n<html[^>]*>\r?\n<head>.*\r?\n<title>arXiv digest, \d{4}-\d{2}-\d{2}</title>")


def is_digest(text: str) -> bool:
    """Whether `text` is a digest reader wrote (its heading, in either format): a file `digest -o`
    may replace without being told to."""
    return bool(_MARKDOWN_HEAD.match(text) or _HTML_HEAD.match(text))
