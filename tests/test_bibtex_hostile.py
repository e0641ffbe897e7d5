"""BibTeX export against hostile feeds: no field breaks out of its place and no TeX in a title
can run, checked by compiling with real bibtex and pdflatex and reading which files TeX opened."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from reader.core.bibtex import escape_text, export, harmless_math
from tests.test_bibtex import paper

HOSTILE_TITLES = [
    r"Math $\input{/etc/passwd}$ here",
    r"$\openout1=pwned.tex \write1{x} \closeout1$",
    r"$\immediate\write18{touch /tmp/reader-pwned}$",
    r"$\csname input\endcsname{/etc/passwd}$",
    r"$^^5cinput{/etc/passwd}$",
    r"$\catcode`\@=0 @input{/etc/passwd}$",
    r"Plain \input{/etc/passwd} and \write18{id}",
    "Unbalanced } braces { and @comment{ and % percent",
]


def hostile_papers():
    papers = [paper(id=f"2609.{i:05d}", title=title) for i, title in enumerate(HOSTILE_TITLES, start=1)]
    papers.append(paper(id="2609.00100", primary_category="cs.AI}, note={\\input{/etc/passwd}}} @misc{injected,"))
    papers.append(paper(id="2609.00101", doi="10.1000/x}, note={\\input{/etc/passwd}}"))
    papers.append(paper(id="2609.00102", journal_ref="J. }\\input{/etc/passwd}{"))
    return papers


def test_every_field_keeps_its_shape():
    text = export(hostile_papers())
    assert "@misc{injected" not in text
    assert text.count("@misc{") == len(hostile_papers())
    assert "primaryClass = {cs.AI}" not in text  # a category that is not a category is left out
    assert "doi = " not in text
    for line in text.splitlines():
        assert "\\input" not in line and "\\write" not in line and "\\csname" not in line
        assert "^^" not in line


@pytest.mark.parametrize("span", [r"\input{x}", r"\write18{x}", r"^^5c", r"a # b", r"a % b", r"\def\x{y}"])
def test_math_with_anything_but_harmless_commands_is_text(span):
    assert not harmless_math(span)
    assert "{$" not in escape_text(f"${span}$")


@pytest.mark.parametrize("span", [r"O(N\log N)", r"\mathcal{O}(n^2)", r"\alpha_i \le \frac{1}{2}", r"x\,y"])
def test_harmless_math_stays_math(span):
    assert escape_text(f"${span}$") == "{$" + span + "$}"


@pytest.mark.skipif(shutil.which("pdflatex") is None or shutil.which("bibtex") is None,
                    reason="TeX is not installed (apt-get install texlive-binaries texlive-base texlive-latex-base)")
def test_compiling_the_export_touches_no_file_outside_its_folder(tmp_path: Path):
    (tmp_path / "refs.bib").write_text(export(hostile_papers()), "utf-8")
    (tmp_path / "doc.tex").write_text(
        "\\documentclass{article}\\begin{document}x\\nocite{*}\\bibliographystyle{plain}\\bibliography{refs}\\end{document}\n"
    )
    # TeX's own font cache goes into the folder too, so every file written is accounted for.
    env = {**os.environ, "TEXMFVAR": str(tmp_path / "texmf-var")}
    run = lambda *cmd: subprocess.run(cmd, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)  # noqa: E731
    run("pdflatex", "-recorder", "-no-shell-escape", "-interaction=nonstopmode", "doc.tex")
    bibtex = run("bibtex", "doc")
    assert "error" not in bibtex.stdout.lower(), bibtex.stdout
    latex = run("pdflatex", "-recorder", "-no-shell-escape", "-interaction=nonstopmode", "doc.tex")
    assert latex.returncode == 0, latex.stdout[-2000:]
    opened = re.findall(r"^(?:INPUT|OUTPUT) (.+)$", (tmp_path / "doc.fls").read_text(), re.M)
    allowed = (str(tmp_path), "/usr/share/texlive", "/usr/share/texmf", "/var/lib/texmf", "/etc/texmf")
    outside = [f for f in opened if f.startswith("/") and not f.startswith(allowed)]
    assert outside == []
    assert "/etc/passwd" not in [f for f in opened]
    assert "root:" not in (tmp_path / "doc.log").read_text(errors="replace")
    assert not Path("/tmp/reader-pwned").exists()
