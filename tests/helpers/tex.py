"""Shared test helpers, first written for tests/test_citations.py."""

from __future__ import annotations

import re
import shutil
import subprocess
import unicodedata
from pathlib import Path

import pytest

from tests.helpers.timing import scaled

TEX_MISSING = shutil.which("pdflatex") is None or shutil.which("bibtex") is None


PDFTOTEXT_MISSING = shutil.which("pdftotext") is None


BIBER_MISSING = (
    shutil.which("biber") is None
    or not shutil.which("kpsewhich")
    or not subprocess.run(["kpsewhich", "biblatex.sty"], capture_output=True, text=True, check=False).stdout.strip()
)


needs_tex = pytest.mark.skipif(
    TEX_MISSING or PDFTOTEXT_MISSING,
    reason="needs bibtex, pdflatex and pdftotext (apt-get install texlive-binaries texlive-base texlive-latex-base poppler-utils)",
)


needs_biber = pytest.mark.skipif(
    TEX_MISSING or PDFTOTEXT_MISSING or BIBER_MISSING,
    reason="needs biber, biblatex and pdftotext (apt-get install biber texlive-bibtex-extra texlive-latex-recommended lmodern poppler-utils)",
)


def _run(folder: Path, *command: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        command,
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=scaled(180),
        check=False,
        env={"PATH": "/usr/bin:/bin", "HOME": str(folder), "TEXMFVAR": str(folder / "texmf-var")},
    )


def _latex_errors(folder: Path) -> list[str]:
    log = (folder / "doc.log").read_text("utf-8", errors="replace")
    return [line for line in log.splitlines() if line.startswith("!") or "Warning: Citation" in line]


def _typeset(folder: Path) -> str:
    """The PDF's text as a reader sees it, one space between words. In -layout mode: without it
    pdftotext reorders the words of a line TeX stretched wide (one ending in an unbreakable id)."""
    text = _run(folder, "pdftotext", "-layout", "-enc", "UTF-8", "doc.pdf", "-").stdout
    return unicodedata.normalize("NFC", " ".join(text.replace("-\n", "-").split()))


def compile_with_bibtex(folder: Path, bib: str, style: str) -> tuple[str, str]:
    """(typeset text, .bbl) of a document citing every entry: pdflatex, bibtex, pdflatex twice,
    plain LaTeX (OT1), with natbib for its styles (plainnat). No error in any log."""
    folder.mkdir(exist_ok=True)
    (folder / "refs.bib").write_text(bib, "utf-8")
    natbib = "\\usepackage{natbib}" if style.endswith("nat") else ""
    (folder / "doc.tex").write_text(
        f"\\documentclass{{article}}{natbib}\\begin{{document}}\\nocite{{*}}\\bibliographystyle{{{style}}}\\bibliography{{refs}}\\end{{document}}\n"
    )
    _run(folder, "pdflatex", "-interaction=nonstopmode", "doc.tex")
    result = _run(folder, "bibtex", "doc")
    assert result.returncode == 0 and "Warning" not in result.stdout and "error" not in result.stdout.lower(), result.stdout
    for _ in range(2):
        _run(folder, "pdflatex", "-interaction=nonstopmode", "doc.tex")
    assert _latex_errors(folder) == []
    return _typeset(folder), (folder / "doc.bbl").read_text("utf-8")


def compile_with_biber(folder: Path, bib: str, style: str = "alphabetic") -> str:
    """The typeset text of a biblatex document (T1, lmodern, `style`) citing every entry, its
    data read by biber. No error or warning in any log."""
    folder.mkdir(exist_ok=True)
    (folder / "refs.bib").write_text(bib, "utf-8")
    (folder / "doc.tex").write_text(
        "\\documentclass{article}\\usepackage[T1]{fontenc}\\usepackage{lmodern}"
        f"\\usepackage[backend=biber,style={style}]{{biblatex}}\\addbibresource{{refs.bib}}"
        "\\begin{document}\\nocite{*}\\printbibliography\\end{document}\n"
    )
    _run(folder, "pdflatex", "-interaction=nonstopmode", "doc.tex")
    result = _run(folder, "biber", "doc")
    assert result.returncode == 0 and not re.search(r"^(WARN|ERROR)", result.stdout, re.MULTILINE), result.stdout
    _run(folder, "pdflatex", "-interaction=nonstopmode", "doc.tex")
    assert _latex_errors(folder) == []
    return _typeset(folder)
