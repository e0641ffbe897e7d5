"""What a page's elements and LaTeXML's classes are to the reader of its text (html.py): which
hold no text (void), which hold text never shown (opaque, hidden by tag or by arXiv's CSS), which
end a block, which are figures and notes, and the kind of block an element's text makes."""

from __future__ import annotations

from reader.fulltext.document import CAPTION, HEADING, ITEM, REFERENCE, TITLE

VOID = frozenset(["area", "base", "br", "col", "embed", "hr", "img", "input", "keygen", "link", "meta", "param", "source", "track", "wbr"])
# Elements whose contents are never text to read. The opaque ones hold raw text or markup that
# never displays: nothing inside them counts, not even an end tag of another element.
OPAQUE = frozenset(["head", "noscript", "template", "title", "textarea", "iframe", "noembed", "noframes", "xmp", "plaintext"])
HIDDEN_TAGS = frozenset(["script", "style", "dialog", "svg", "button", "select", "option", "canvas", "audio", "video", "object", "form"])
# Hidden by arXiv's and LaTeXML's CSS (ltx_note_outer only on narrow screens: footnotes are read).
HIDDEN_CLASSES = frozenset(["ltx_rdf", "ltx_nodisplay", "ltx_tag_note", "ltx_author_before", "ltx_author_after", "ltx_phantom", "sr-only"])
BLOCK_TAGS = frozenset(
    [
        "p",
        "div",
        "section",
        "article",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "li",
        "ul",
        "ol",
        "dl",
        "dt",
        "dd",
        "table",
        "tbody",
        "thead",
        "tfoot",
        "figure",
        "figcaption",
        "blockquote",
        "pre",
        "header",
        "footer",
        "nav",
        "aside",
        "main",
        "hr",
    ]
)
# LaTeXML's floats whose images are a figure's: a figure (its sub-figure panels' images its own),
# a table with images in its cells, another float (a biography's photo).
FLOAT_CLASSES = frozenset(["ltx_figure", "ltx_table", "ltx_float"])
# Notes that print nothing: a \footnotemark only repeats an earlier note's mark; a journal's
# front matter (mn2e's pubyear, pagerange) is no note of the text. Other front-matter notes
# (a dedication, a copyright) print as lines of their own, with no mark.
SILENT_NOTES = frozenset(["ltx_role_footnotemark", "ltx_role_pubyear", "ltx_role_pagerange"])
FRONT_MATTER = "\x00front"  # the mark of an open front-matter note: none is printed


def classes_of(attrs: list[tuple[str, str | None]]) -> frozenset[str]:
    for name, value in attrs:
        if name == "class" and value:
            return frozenset(value.split())
    return frozenset()


def block_kind(tag: str, classes: frozenset[str], in_bibliography: bool) -> str | None:
    """The kind of block an element's text makes, when the element decides it."""
    if tag in ("h1", "h2", "h3", "h4", "h5", "h6"):
        return TITLE if "ltx_title_document" in classes else HEADING
    if "ltx_bibitem" in classes or (tag == "li" and in_bibliography):
        return REFERENCE
    if tag == "li":
        return ITEM
    if tag == "figcaption" or "ltx_caption" in classes:
        return CAPTION
    return None
