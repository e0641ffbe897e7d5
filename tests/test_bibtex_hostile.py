"""BibTeX export against hostile feeds: no field breaks out of its place and no TeX in a title
can run, checked by compiling with real bibtex and pdflatex, reading which files TeX opened, and
reading the typeset text back from the PDF."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import unicodedata
from pathlib import Path

import pytest

from reader.core.bibtex import export
from reader.core.latex import escape_text
from reader.core.latex_math import harmless_math
from reader.core.tex_decode import decode_tex
from reader.models import Author
from tests.helpers.bibtex import BIBCHECK, paper
from tests.helpers.timing import scaled

HOSTILE_TITLES = [
    r"Math $\input{/etc/passwd}$ here",
    r"$\openout1=pwned.tex \write1{x} \closeout1$",
    r"$\immediate\write18{touch /tmp/reader-pwned}$",
    r"$\csname input\endcsname{/etc/passwd}$",
    r"$^^5cinput{/etc/passwd}$",
    r"$\catcode`\@=0 @input{/etc/passwd}$",
    r"$\def\x{\input{/etc/passwd}}\x$",
    r"$x \text{\input{/etc/passwd}}$",
    r"$\mathrm{\expandafter\input\string{/etc/passwd}}$",
    r"Plain \input{/etc/passwd} and \write18{id}",
    "Unbalanced } braces { and @comment{ and % percent",
    "Line\nbreak $a\n\nb$ and\x0cform\x7ffeed",
]
HOSTILE_AUTHORS = [r"Evil }, year = {1999", r"Mallory \input{/etc/passwd}", r"Trudy ^^5cwrite18{id}"]
HOSTILE_FIELDS = {
    "primary_category": "cs.AI}, note={\\input{/etc/passwd}}} @misc{injected,",
    "doi": "10.1000/x}, note={\\input{/etc/passwd}}",
    "journal_ref": "J. }\\input{/etc/passwd}{",
}


# The user's own tags and notes are text too: escaped like every field, never TeX.
HOSTILE_TAGS = {"2609.00001": [r"\input{/etc/passwd}", "a}b{c", r"50% #1 $x$ ~^_&", r"$\write18{id}$", "Zürich 张伟"]}
HOSTILE_NOTES = {
    "2609.00001": "# Notes\n\n- $\\input{/etc/passwd}$ and } { @misc{injected,\n\tdone 100% \\",
    "2609.00002": "}, note = {\\immediate\\write18{touch /tmp/reader-pwned}}\n^^5cinput{/etc/passwd}",
}


def hostile_export(*, ascii_tags: bool = False, **options) -> str:
    tags = {pid: [t for t in names if t.isascii() or not ascii_tags] for pid, names in HOSTILE_TAGS.items()}
    return export(hostile_papers(), tags=tags, notes=HOSTILE_NOTES, **options)


def hostile_papers():
    papers = [paper(id=f"2609.{i:05d}", title=title) for i, title in enumerate(HOSTILE_TITLES, start=1)]
    papers.append(paper(id="2609.00100", title="Hostile authors", authors=tuple(map(Author, HOSTILE_AUTHORS))))
    papers += [
        paper(id=f"2609.{i:05d}", title=f"Hostile {name}", **{name: value})
        for i, (name, value) in enumerate(HOSTILE_FIELDS.items(), start=101)
    ]
    papers.append(paper(id="2609.00200}, note={x", title="Hostile id"))
    return papers


def test_every_field_keeps_its_shape():
    text = hostile_export()
    assert "@misc{injected" not in text
    assert text.count("@misc{") == len(hostile_papers()) - 1  # the paper whose id is no id is left out
    assert "Hostile id" not in text
    assert "primaryClass = {cs.AI" not in text  # a category that is not a category is left out
    assert "doi = " not in text
    for line in text.splitlines():
        assert not re.search(r"\\(input|write|csname|catcode|def|openout|immediate|expandafter)", line)
        assert "^^" not in line
        assert not re.search(r"[\x00-\x08\x0b-\x1f\x7f]", line)
    assert text.count("  keywords = {") == 1 and text.count("  annote = {") == 2


def _as_text(value: str) -> str:
    """A field value as a reader of the typeset text sees it."""
    from pylatexenc.latex2text import LatexNodes2Text

    symbols = {r"\textbraceleft{}": "\x01", r"\textbraceright{}": "\x02", r"\textbackslash{}": "\x03"}
    for macro, stand_in in symbols.items():  # unknown to pylatexenc: kept apart, put back after
        value = value.replace(macro, stand_in)
    text = LatexNodes2Text().latex_to_text(value)
    return text.replace("\x01", "{").replace("\x02", "}").replace("\x03", "\\").replace("ˆ", "^")


def test_tags_and_notes_stay_inside_their_fields_and_read_as_written():
    from pybtex.database import parse_string

    entries = {e.fields["eprint"]: e for e in parse_string(hostile_export(), "bibtex").entries.values()}
    noted = entries["2609.00002"]
    assert set(noted.fields) == {"title", "year", "eprint", "archivePrefix", "primaryClass", "howpublished", "options", "annote", "url"}
    assert _as_text(noted.fields["annote"]) == " ".join(HOSTILE_NOTES["2609.00002"].split())
    tagged = entries["2609.00001"]
    assert _as_text(tagged.fields["annote"]) == " ".join(HOSTILE_NOTES["2609.00001"].split())
    assert _as_text(tagged.fields["keywords"]) == ", ".join(HOSTILE_TAGS["2609.00001"][:4]) + ", Zürich Zhang Wei"


@pytest.mark.parametrize(
    "span",
    [r"\input{x}", r"\write18{x}", r"^^5c", r"a # b", r"a % b", r"\def\x{y}", r"\text{\input{x}}", "a\nb", r"a \\ b", r"\catcode`\@=0"],
)
def test_math_with_anything_but_harmless_commands_is_text(span):
    assert not harmless_math(span)
    assert "{$" not in escape_text(f"${span}$")


@pytest.mark.parametrize(
    "span",
    [r"O(N\log N)", r"\mathcal{O}(n^2)", r"\alpha_i \le \frac{1}{2}", r"x\,y", r"\sum_{i=1}^{n} \sqrt{x_i}", r"\mathbb{R}^d \times \infty"],
)
def test_harmless_math_stays_math(span):
    assert escape_text(f"${span}$") == "{$" + span + "$}"


@pytest.mark.parametrize("command", [r"\csname", r"\closeout", r"\catcode", r"\vspace", r"\cite", r"\definecolor"])
def test_control_words_starting_like_an_accent_are_not_decoded(command):
    # `\c` + `s` would be an s-cedilla: a different text from the one the feed sent.
    assert decode_tex(command + "{x}") == command + "{x}"


def _installation_roots() -> tuple[str, ...]:
    """TeX's own read-only trees (fonts, formats, texmf.cnf), as kpathsea names them."""
    roots = {"/usr/share/texmf/"}
    for var in ("TEXMFROOT", "TEXMFDIST", "TEXMFSYSVAR", "TEXMFSYSCONFIG", "TEXMFCNF"):
        value = subprocess.run(["kpsewhich", f"-var-value={var}"], capture_output=True, text=True, check=False).stdout.strip()
        roots |= {path.rstrip("/") + "/" for path in value.split(":") if path.startswith("/")}
    return tuple(roots)


def _visible(text: str) -> str:
    """Text as a PDF reader sees it, comparable with what was typeset: OT1's quote and accent
    glyphs back to ASCII, no spaces (TeX's kerning makes its own)."""
    for glyph, ascii_char in {"ˆ": "^", "˜": "~", "‘": "`", "’": "'", "“": '"', "”": '"'}.items():
        text = text.replace(glyph, ascii_char)
    return re.sub(r"\s+", "", unicodedata.normalize("NFKC", text))


@pytest.mark.slow
@pytest.mark.skipif(
    shutil.which("pdflatex") is None or shutil.which("bibtex") is None,
    reason="TeX is not installed (apt-get install texlive-binaries texlive-base texlive-latex-base)",
)
@pytest.mark.parametrize("style", ["plain", "alpha"])
def test_compiling_the_export_touches_no_file_outside_its_folder(tmp_path: Path, style: str):
    from pypdf import PdfReader

    (tmp_path / "refs.bib").write_text(hostile_export(), "utf-8")
    (tmp_path / "doc.tex").write_text(
        f"\\documentclass{{article}}\\begin{{document}}x\\nocite{{*}}\\bibliographystyle{{{style}}}"
        "\\bibliography{refs}\\end{document}\n"
    )
    # TeX's font cache goes into the folder too, so every file written is accounted for.
    env = {**os.environ, "TEXMFVAR": str(tmp_path / "texmf-var")}

    def run(*cmd: str) -> subprocess.CompletedProcess:
        return subprocess.run(cmd, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=scaled(120), check=False)

    latex = ("pdflatex", "-recorder", "-no-shell-escape", "-interaction=nonstopmode", "doc.tex")
    run(*latex)
    bibtex = run("bibtex", "doc")
    assert "error" not in bibtex.stdout.lower(), bibtex.stdout
    assert re.findall(r"^(?:The .*file|Database file #1): (.+)$", (tmp_path / "doc.blg").read_text(), re.MULTILINE) == [
        "doc.aux",
        f"{style}.bst",
        "refs.bib",
    ]
    result = run(*latex)
    assert result.returncode == 0, result.stdout[-2000:]

    recorded = re.findall(r"^(INPUT|OUTPUT) (.+)$", (tmp_path / "doc.fls").read_text(), re.MULTILINE)
    opened = {(kind, os.path.realpath(os.path.join(tmp_path, name))) for kind, name in recorded}
    inside = str(tmp_path.resolve()) + os.sep
    assert [name for kind, name in opened if kind == "OUTPUT" and not name.startswith(inside)] == []
    allowed = (inside, *_installation_roots())
    assert [name for kind, name in opened if not name.startswith(allowed)] == []
    assert "root:" not in (tmp_path / "doc.log").read_text(errors="replace")
    assert not Path("/tmp/reader-pwned").exists()

    # What the feed sent is what the reader of the PDF sees, character for character.
    typeset = _visible("".join(page.extract_text() for page in PdfReader(tmp_path / "doc.pdf").pages))
    for title in HOSTILE_TITLES[:-1] + HOSTILE_AUTHORS + [HOSTILE_FIELDS["journal_ref"]]:
        assert _visible(title) in typeset, title
    assert _visible("Line break $a b$ and form feed") in typeset


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("bibtex") is None, reason="bibtex is not installed")
@pytest.mark.parametrize("unicode", [False, True])
def test_hostile_export_passes_bibcheck_strictly(tmp_path: Path, unicode: bool):
    bib = tmp_path / "hostile.bib"
    # With --unicode a tag keeps its UTF-8 (what biber wants), which --strict reports as a warning
    # on any raw non-ASCII: that tag is left to the tests of the default, transliterated export.
    bib.write_text(hostile_export(unicode=unicode, ascii_tags=unicode), "utf-8")
    result = subprocess.run(
        ["bash", str(BIBCHECK), "--strict", "--no-biber", "--python", sys.executable, str(bib)]
        + (["--no-latex"] if unicode else []),  # UTF-8 text is for xelatex/lualatex, tested below
        capture_output=True,
        text=True,
        timeout=scaled(300),
        check=False,
    )
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
    entries = len(hostile_papers()) - 1  # the paper whose id is no id is left out
    assert f"entry counts: bibtex/plain={entries}, bibtexparser={entries}, pybtex={entries}" in result.stdout


@pytest.mark.skipif(shutil.which("lualatex") is None or shutil.which("bibtex") is None, reason="lualatex is not installed")
def test_the_utf8_export_under_lualatex_touches_no_file_outside_its_folder(tmp_path: Path):
    # `--unicode` is for xelatex/lualatex users, and lualatex runs Lua (\directlua) even with
    # -no-shell-escape: Lua's io.open writes any file, unseen by the .fls list. The UTF-8 export
    # must be as inert as the ASCII one.
    write = f"\\directlua{{io.open('{tmp_path / 'pwned'}','w'):write('x')}}"
    hostile = hostile_papers() + [paper(id="2609.00300", title=f"${write}$ 张伟", authors=(Author(f"Иван {write}"),))]
    (tmp_path / "refs.bib").write_text(export(hostile, unicode=True), "utf-8")
    (tmp_path / "doc.tex").write_text(
        "\\documentclass{article}\\begin{document}x\\nocite{*}\\bibliographystyle{plain}\\bibliography{refs}\\end{document}\n"
    )
    env = {**os.environ, "TEXMFVAR": str(tmp_path / "texmf-var")}

    def run(*cmd: str) -> subprocess.CompletedProcess:
        return subprocess.run(cmd, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=scaled(180), check=False)

    latex = ("lualatex", "-recorder", "-no-shell-escape", "-interaction=nonstopmode", "doc.tex")
    run(*latex)
    bibtex = run("bibtex", "doc")
    assert "error" not in bibtex.stdout.lower(), bibtex.stdout
    result = run(*latex)
    assert result.returncode == 0, result.stdout[-2000:]
    recorded = re.findall(r"^(INPUT|OUTPUT) (.+)$", (tmp_path / "doc.fls").read_text(), re.MULTILINE)
    opened = {os.path.realpath(os.path.join(tmp_path, name)) for _, name in recorded}
    allowed = (str(tmp_path.resolve()) + os.sep, *_installation_roots())
    assert [name for name in opened if not name.startswith(allowed)] == []
    assert "root:" not in (tmp_path / "doc.log").read_text(errors="replace")
    assert "张伟" in (tmp_path / "doc.bbl").read_text("utf-8")  # the UTF-8 reached the document
    assert not (tmp_path / "pwned").exists() and not Path("/tmp/reader-pwned").exists()
