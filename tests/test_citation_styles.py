"""The arXiv id in the typeset reference: exported entries are compiled with real bibtex in plain,
alpha, unsrt, ieeetr and plainnat and with biblatex's standard styles (biber), the PDF read back
with pdftotext, and each reference must show the id once (the url plainnat and biblatex print
aside). `bibtex.print_arxiv_id = false` keeps arXiv's own shape, whose id only biblatex prints."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from reader.core import bibtex
from reader.models import Author
from tests.conftest import run
from tests.helpers.bibtex import paper
from tests.helpers.tex import compile_with_biber, compile_with_bibtex, needs_biber, needs_tex

pytestmark = pytest.mark.slow  # TeX tool chains

BIBTEX_STYLES = ("plain", "alpha", "unsrt", "ieeetr", "plainnat")
# biblatex's standard styles: numeric is its default
BIBLATEX_STYLES = ("numeric", "alphabetic", "authoryear")


def cited_papers():
    return [
        paper(id="2609.10042", title="Momentum of research topics", authors=(Author("Ada Lovelace"),)),
        paper(
            id="2609.10043",
            title="Published elsewhere as well",
            authors=(Author("Grace Hopper"),),
            journal_ref="J. Phys. A 42 (2009) 1-10",
            doi="10.1000/xyz.1",
        ),
        paper(
            id="hep-th/9901001",
            title="Strings of the old numbering",
            authors=(Author("Emmy Noether"),),
            categories=("hep-th",),
            primary_category="hep-th",
            published="1999-01-04T00:00:00Z",
        ),
        paper(id="2609.10044", title="Category not known", authors=(Author("Alan Turing"),), primary_category="c{s}"),
        paper(
            id="math/9910001",
            title="Topology with a subject class",
            authors=(Author("Henri Poincare"),),
            categories=("math.AT",),
            primary_category="math.AT",
            published="1999-10-01T00:00:00Z",
        ),
    ]


# How arXiv asks to be cited: the primary category after a new-style id; an old-style id names
# its archive, so only a subject class is added; a category that is not one is left out.
LABELS = {
    "2609.10042": "arXiv:2609.10042 [cs.LG]",
    "2609.10043": "arXiv:2609.10043 [cs.LG]",
    "hep-th/9901001": "arXiv:hep-th/9901001",
    "2609.10044": "arXiv:2609.10044",
    "math/9910001": "arXiv:math/9910001 [math.AT]",
}


def _squeezed(text: str) -> str:
    """Without white space: pdftotext breaks an id or a url at a line's end, or spaces its dots."""
    return re.sub(r"\s+", "", text)


def references(text: str) -> dict[str, str]:
    """Paper id -> the typeset text from its title up to the next reference's title (the
    author and label of the next reference hold no id)."""
    starts = sorted((text.index(p.title), p.id) for p in cited_papers())
    ends = [start for start, _ in starts[1:]] + [len(text)]
    return {paper_id: text[start:end] for (start, paper_id), end in zip(starts, ends, strict=True)}


def shown_ids(reference: str, paper_id: str) -> int:
    """How often the reference prints the id, leaving out the url (https://arxiv.org/abs/ID)."""
    squeezed = _squeezed(reference)
    return squeezed.count(paper_id) - squeezed.count("arxiv.org/abs/" + paper_id)


@needs_tex
@pytest.mark.parametrize("style", BIBTEX_STYLES)
def test_every_bibtex_style_prints_the_arxiv_id_once(tmp_path, style):
    text, _ = compile_with_bibtex(tmp_path, bibtex.export(cited_papers()), style)
    for paper_id, reference in references(text).items():
        assert _squeezed(LABELS[paper_id]) in _squeezed(reference), (style, reference)
        assert shown_ids(reference, paper_id) == 1, (style, reference)
    if style == "plainnat":  # it prints the url too, as it always did
        assert "URLhttps://arxiv.org/abs/2609.10042" in _squeezed(text)


@needs_biber
@pytest.mark.parametrize("style", BIBLATEX_STYLES)
def test_biblatex_prints_the_arxiv_id_once(tmp_path, style):
    """biblatex prints howpublished as well as eprint: the entry turns its eprint line off."""
    text = compile_with_biber(tmp_path, bibtex.export(cited_papers()), style)
    for paper_id, reference in references(text).items():
        assert _squeezed(LABELS[paper_id]) in _squeezed(reference), (style, reference)
        assert shown_ids(reference, paper_id) == 1, (style, reference)
        assert "url:https://arxiv.org/abs/" + paper_id in _squeezed(reference)


def test_the_setting_off_writes_arxivs_own_fields_only():
    shown, plain = (bibtex.export(cited_papers(), print_arxiv_id=flag) for flag in (True, False))
    assert plain.count("howpublished") == plain.count("options") == 0
    assert shown.count("howpublished = {arXiv:") == shown.count("options = {eprint=false}") == 5
    # Apart from those two fields, the same entries.
    assert re.sub(r"  (howpublished|options) = \{[^}]*\},\n", "", shown) == plain


@needs_biber
def test_the_setting_off_keeps_todays_typeset_form(tmp_path):
    bib = bibtex.export(cited_papers(), print_arxiv_id=False)
    text, _ = compile_with_bibtex(tmp_path / "plain", bib, "plain")
    assert all(shown_ids(reference, paper_id) == 0 for paper_id, reference in references(text).items())
    text = compile_with_biber(tmp_path / "biber", bib, "numeric")
    for paper_id, reference in references(text).items():  # biblatex's own eprint line
        assert shown_ids(reference, paper_id) == 1 and "arXiv:" + paper_id in _squeezed(reference)


# --- the setting, through the service the app exports and copies with, and the command line -----


@pytest.fixture
def stored(data_dir):
    from reader.store import Store

    store = Store(data_dir)
    store.add_topic("Kept", "ti:kept")
    papers = cited_papers()[:2]
    store.save_papers(papers, "Kept")
    return store, papers


def _service_output(store, papers) -> tuple[str, str]:
    """(the app's export of the papers, what `y` copies for the first) with the settings in force."""
    from reader.config import load_settings
    from reader.service import LibraryService

    service = LibraryService(store, load_settings())
    try:
        return service.export_text("bibtex", papers), service.citation(papers[0])
    finally:
        service.close()


def test_the_app_follows_the_setting_from_the_file_and_the_environment(stored, tmp_path, monkeypatch):
    store, papers = stored
    exported, copied = _service_output(store, papers)
    assert exported.count("howpublished = {arXiv:") == 2 and "howpublished = {arXiv:2609.10042 [cs.LG]}" in copied
    (tmp_path / "config").mkdir(exist_ok=True)
    (tmp_path / "config" / "config.toml").write_text("[bibtex]\nprint_arxiv_id = false\n")
    exported, copied = _service_output(store, papers)
    assert "howpublished" not in exported + copied and "options" not in exported + copied
    assert "eprint = {2609.10042}" in copied
    monkeypatch.setenv("READER_BIBTEX_PRINT_ARXIV_ID", "Yes")  # the environment over the file
    exported, copied = _service_output(store, papers)
    assert exported.count("options = {eprint=false}") == 2


def test_reader_config_shows_the_setting(capsys, tmp_path):
    code, out, _ = run(capsys, "config")
    assert code == 0 and re.search(r"^  bibtex\.print_arxiv_id +true +default$", out, re.MULTILINE)
    (tmp_path / "config").mkdir(exist_ok=True)
    (tmp_path / "config" / "config.toml").write_text("[bibtex]\nprint_arxiv_id = 0\n")
    code, out, err = run(capsys, "export", "2609.10042")
    assert code == 1 and out == ""
    assert err == (
        f"reader: error: {Path(tmp_path / 'config' / 'config.toml')}, line 2: bibtex.print_arxiv_id = 0 "
        "is not true or false (allowed: true or false)\n"
    )


def test_reader_export_prints_the_id_by_default(stored, capsys):
    code, out, _ = run(capsys, "export", "2609.10042", "2609.10043")
    assert code == 0
    assert "howpublished = {arXiv:2609.10042 [cs.LG]}" in out and out.count("options = {eprint=false}") == 2


def test_reader_export_and_update_follow_the_setting(stored, capsys, tmp_path):
    store, papers = stored
    (tmp_path / "config").mkdir(exist_ok=True)
    (tmp_path / "config" / "config.toml").write_text("[bibtex]\nprint_arxiv_id = false\n")
    code, out, _ = run(capsys, "export", "2609.10042")
    assert code == 0 and "eprint = {2609.10042}" in out and "howpublished" not in out and "options" not in out
    refs = tmp_path / "refs.bib"
    code, _, _ = run(capsys, "export", "2609.10043", "--update", str(refs))
    assert code == 0 and "eprint = {2609.10043}" in refs.read_text() and "howpublished" not in refs.read_text()
    from reader.config import load_settings
    from reader.service import LibraryService

    service = LibraryService(store, load_settings())  # the app's Update onto a file
    try:
        service.exports.update_export(refs, papers)
    finally:
        service.close()
    assert "eprint = {2609.10042}" in refs.read_text() and "howpublished" not in refs.read_text()
