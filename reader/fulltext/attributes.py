"""What a start tag's attributes tell the LaTeXML reader: whether a browser hides the element
(the `hidden` attribute, an inline `display:none` or `visibility:hidden`, which LaTeXML itself
writes on a \\phantom's contents), and an attribute's value with its character references
converted as in text.

`aria-hidden` hides nothing here: it hides an element from screen readers only, a browser still
shows it, and LaTeXML never writes it (on arXiv's pages it marks only an empty link of ar5iv's
footer, outside the paper)."""

from __future__ import annotations

import re
from html import unescape

_HIDING_STYLE = re.compile(r"(?:^|[;\s])(?:display\s*:\s*none|visibility\s*:\s*(?:hidden|collapse))\b", re.IGNORECASE)
# html's own pattern of a reference: numeric, or a name (html.unescape finds the longest known one)
# A start tag's name, then each attribute: the way html.parser splits them (its own patterns are
# not public).
_TAG_NAME = re.compile(r"<[a-zA-Z][^\t\n\r\f />\x00]*(?:\s|/(?!>))*")
_ATTRIBUTE = re.compile(r"""([^\s/>][^\s/=>]*)(\s*=+\s*('[^']*'|"[^"]*"|(?!['"])[^>\s]*))?(?:\s|/(?!>))*""")
_REFERENCE = re.compile(r"&(#[0-9]+;?|#[xX][0-9a-fA-F]+;?|[^\t\n\f <&#;]{1,32};?)")


def hidden_by(attrs: list[tuple[str, str | None]]) -> bool:
    """The element is not displayed, whatever its class: `hidden`, or an inline style hiding it."""
    return any(
        name == "hidden" or (name == "style" and bool(value) and _HIDING_STYLE.search(value or "") is not None) for name, value in attrs
    )


def character(reference: str) -> str:
    """The character of a numeric reference (`27`, `x1b`), even a control one: html.unescape
    would drop an ESC and keep what follows it, so an escape sequence written as references is
    then dropped whole with the text's other escapes. Not a number: the reference as written."""
    try:
        point = int(reference[1:], 16) if reference[:1] in "xX" else int(reference)
    except ValueError:
        return f"&#{reference};"
    return chr(point) if 0 < point < 0x110000 and not 0xD800 <= point < 0xE000 else "\ufffd"


def raw_attribute(start_tag: str, wanted: str) -> str | None:
    """The value of attribute `wanted` in a start tag as written, its references converted as
    character() does; None when the tag has none."""
    found = _TAG_NAME.match(start_tag)
    position = found.end() if found else len(start_tag)
    while position < len(start_tag):
        match = _ATTRIBUTE.match(start_tag, position)
        if not match or match.end() == position:
            break
        name, rest, value = match.group(1, 2, 3)
        position = match.end()
        if name.lower() != wanted:
            continue
        if not rest:
            return ""
        if value[:1] == value[-1:] and value[:1] in ("'", '"') and len(value) > 1:
            value = value[1:-1]
        return _REFERENCE.sub(_converted, value) if "&" in value else value
    return None


def _converted(match: re.Match[str]) -> str:
    reference = match.group(1)
    if reference[:1] == "#":
        return character(reference[1:].rstrip(";"))
    return unescape(match.group(0))
