"""Pages the loopback arXiv serves under /html/: the LaTeXML fixture, a hostile page, a gzip
bomb and a page nested 100,000 deep (the tests and the benchmark both use them)."""

from __future__ import annotations

import gzip
from pathlib import Path

FULLTEXT = Path(__file__).resolve().parent / "fixtures" / "fulltext"
PAPER_HTML = (FULLTEXT / "paper.html").read_bytes()  # LaTeXML 0.8.7's page in arXiv's chrome (make.sh)
PAPER_PDF = (FULLTEXT / "paper.pdf").read_bytes()  # pdflatex's PDF of the same paper.tex
HTML = {"Content-Type": "text/html; charset=utf-8"}
PDF = {"Content-Type": "application/pdf"}
DEEP = 100_000

# What a hostile page hides, tries to run or to send to the terminal: none of it may be printed.
SECRETS = (
    "HEAD-SECRET",
    "SCRIPT-SECRET",
    "STYLE-SECRET",
    "NOSCRIPT-SECRET",
    "TEMPLATE-SECRET",
    "ATTR-SECRET",
    "LINK-SECRET",
    "ALT-SECRET",
    "WINDOW-TITLE",
    "REF-TITLE",
    "DIALOG-SECRET",
    "HIDDEN-CLASS-SECRET",
    "NOSCRIPT-TAIL",
)
HOSTILE_HTML = (
    "<!DOCTYPE html><html><head><title>HEAD-SECRET</title><script>alert('SCRIPT-SECRET')</script></head><body>"
    "<header>chrome before the paper</header>"
    '<article class="ltx_document"><h1 class="ltx_title ltx_title_document">Hostile [bold red]Title[/]</h1>'
    "<script>document.write('SCRIPT-SECRET')</script><style>p{}/* STYLE-SECRET */</style>"
    "<noscript>NOSCRIPT-SECRET <p>NOSCRIPT-SECRET</p></noscript>"
    "<div><noscript></div>NOSCRIPT-TAIL</noscript></div>"
    "<template><p>TEMPLATE-SECRET</p><template>TEMPLATE-SECRET</template>TEMPLATE-SECRET</template>"
    "<dialog>DIALOG-SECRET</dialog><span class='ltx_rdf'>HIDDEN-CLASS-SECRET</span>"
    '<p title="ATTR-SECRET" data-x="ATTR-SECRET">Visible words [link=https://x.example]click[/link] and \\[escaped] '
    '<a href="https://evil.example/LINK-SECRET">link words</a><img alt="ALT-SECRET" src="x.png"></p>'
    "<p>raw escapes \x1b]0;WINDOW-TITLE\x07end \x1b[31mred\x1b[0m \x1b[2J clear</p>"
    "<p>as references &#27;]0;REF-TITLE&#7;done &#x1b;[41mbg&#x1b;[0m &#155;31mcsi &#x9d;0;REF-TITLE&#x9c;ok</p>"
    "<p>bidi &#x202e;desrever&#x202c; and \u2066isolate\u2069 text</p>"
    "<p>&lt;b&gt;not bold&lt;/b&gt; $(rm -rf ~) `whoami` %s %n {{7*7}}</p>"
    "</article><footer>chrome after</footer></body></html>"
).encode("utf-8")


def deep_page(levels: int = DEEP) -> bytes:
    return (
        b'<html><body><article class="ltx_document"><p>before the depths</p>'
        + b"<div>" * levels
        + b"deep words"
        + b"</div>" * levels
        + b"<p>after the depths</p></article></body></html>"
    )


def gzip_bomb(gibibytes: int = 1) -> bytes:
    """A gzip body inflating to `gibibytes` GiB of spaces after a page's start: one member for the
    start, then the same 1 MiB member again and again (gzip allows members to follow each other)."""
    member = gzip.compress(b" " * 2**20, 9)
    return gzip.compress(b"<html><body>") + member * (1024 * gibibytes)


_ARTICLE = b'<html><body><article class="ltx_document"><p>words before</p>'
# Small on the wire, costly to read (minutes of CPU or gigabytes each before work was bounded):
# each is refused within seconds. Gzip-served; all but `attributes` inflate to 15-63 MB.
HOSTILE_WORK = {
    "open tag": lambda: _ARTICLE + b"<a " * 5_000_000,
    "attributes": lambda: _ARTICLE + b"<a " + b"b " * 2_000_000 + b">",
    "end tags": lambda: _ARTICLE + b"</a>" * 15_900_000,
    "comments": lambda: _ARTICLE + b"<!---->" * 9_000_000,
    "references": lambda: _ARTICLE + b"&a" * 8_000_000,
    "tags in head": lambda: b"<html><head>" + b"<b>" * 21_000_000,
    # A formula's MathML is read (for its Unicode): its elements count as the page's
    "math elements": lambda: _ARTICLE + b'<p><math alttext="x">' + b"<mi>x</mi>" * 600_000,
}


def pdf_of_text_operators(pages: int, operators: int, shared: bool = True, after: bytes = b"") -> bytes:
    """A PDF of `pages` pages whose content is `operators` text-showing operators (19 bytes
    each): one stream every page shares, or (shared=False) on the first page alone; after the
    pages of the PDF `after`, when given."""
    import io

    from pypdf import PdfWriter
    from pypdf.generic import DecodedStreamObject, DictionaryObject, NameObject

    writer = PdfWriter()
    font = DictionaryObject(
        {
            NameObject("/Type"): NameObject("/Font"),
            NameObject("/Subtype"): NameObject("/Type1"),
            NameObject("/BaseFont"): NameObject("/Helvetica"),
        }
    )
    resources = DictionaryObject({NameObject("/Font"): DictionaryObject({NameObject("/F1"): writer._add_object(font)})})
    stream = DecodedStreamObject()
    stream.set_data(b"BT /F1 9 Tf 72 700 Td " + b"(word word) Tj T* " * operators + b"ET\n")
    content = writer._add_object(stream.flate_encode())
    for number in range(pages):
        page = writer.add_blank_page(612, 792)
        page[NameObject("/Resources")] = resources
        if shared or number == 0:
            page[NameObject("/Contents")] = content
    if after:
        writer.append(io.BytesIO(after))
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()
