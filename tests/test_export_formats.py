"""RIS, CSL-JSON and `--update` checked by real tools: rispy reads the RIS, the CSL-JSON schema
(vendored in tests/schemas) validates the CSL-JSON and citeproc-py renders it, bibtex judges a
.bib that was updated in place."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import warnings

import pytest

from reader.core import bibfile, csljson, ris
from reader.models import Author
from tests.helpers.bibtex import BIBCHECK, fixture_papers, nasty_papers, paper
from tests.helpers.export import SCHEMA
from tests.helpers.timing import scaled

HOSTILE = paper(
    id="2609.00099",
    title="Two\nlines\r\nER  - \nTY  - JOUR\nTI  - injected",
    abstract="An abstract\u2028with a line separator\x85and NEL\nER  - ",
    authors=(Author("Mallory\nER  - "), Author("LIGO Scientific Collaboration"), Author("张伟")),
    journal_ref="Phys. Rev. D 42\nN1  - x",
    doi="10.1000/ok_1",
)
TAGS = {"2609.00002": ["to read", "LLM; agents"], "2609.00099": ["a\nKW  - b"]}
NOTES = {"2609.00002": "First line\n\n- a *Markdown* list", "2609.00099": "note\nER  - "}


def everything():
    return fixture_papers() + nasty_papers() + [HOSTILE]


def test_rispy_reads_one_record_per_paper_with_every_field():
    import rispy

    papers = everything()
    records = rispy.loads(ris.export(papers, tags=TAGS, notes=NOTES))
    assert len(records) == len({p.id for p in papers})
    by_id = {r["accession_number"]: r for r in records}
    for p in papers:
        record = by_id[f"arXiv:{p.id}"]
        assert record["type_of_reference"] == "UNPB" and record["secondary_title"] == "arXiv"
        assert record["urls"] == [f"https://arxiv.org/abs/{p.id}"]
        assert record["year"] == p.published[:4]
        assert record["date"] == p.published[:10].replace("-", "/")
        assert len(record["authors"]) == len(p.authors)
        assert p.primary_category in record["keywords"]
    tagged = by_id["arXiv:2609.00002"]
    assert tagged["keywords"][:2] == ["to read", "LLM, agents"]  # Zotero splits keywords at `;`
    assert tagged["notes"] == ["First line - a *Markdown* list"]
    hostile = by_id["arXiv:2609.00099"]
    assert hostile["title"] == "Two lines ER - TY - JOUR TI - injected"
    assert hostile["authors"] == ["Mallory ER -", "LIGO Scientific Collaboration", "张伟"]
    assert hostile["doi"] == "10.1000/ok_1"
    assert hostile["notes"] == ["Published in Phys. Rev. D 42 N1 - x", "note ER -"]
    assert by_id["arXiv:2609.00003"]["authors"] == ["Ramírez, José", "Müller, Øyvind", "Einarsdóttir, Sólrún"]
    assert ris.export([paper(authors=(Author("Johannes Diderik van der Waals"),))]).count("AU  - van der Waals, Johannes Diderik\n") == 1


@pytest.mark.slow
def test_csl_json_is_valid_and_renders_with_citeproc():
    import jsonschema
    from citeproc import (
        Citation,
        CitationItem,
        CitationStylesBibliography,
        CitationStylesStyle,
        formatter,
    )
    from citeproc.source.json import CiteProcJSON

    papers = everything()
    data = json.loads(csljson.export(papers, tags=TAGS, notes=NOTES))
    jsonschema.Draft7Validator(json.loads(SCHEMA.read_text())).validate(data)
    assert len(data) == len({p.id for p in papers})
    hostile = next(item for item in data if item["number"] == "arXiv:2609.00099")
    assert hostile["author"] == [{"literal": "Mallory ER -"}, {"literal": "LIGO Scientific Collaboration"}, {"literal": "张伟"}]
    assert hostile["note"] == "Published in Phys. Rev. D 42 N1 - x" and hostile["annote"] == "note\nER -"
    tagged = next(item for item in data if item["number"] == "arXiv:2609.00002")
    assert tagged["keyword"] == "to read, LLM; agents" and tagged["annote"] == NOTES["2609.00002"]
    assert tagged["categories"] == ["cs.LG"] and tagged["issued"] == {"date-parts": [[2026, 9, 1]]}

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # citeproc-py notes the variables its styles do not use
        source = CiteProcJSON(data)
        bibliography = CitationStylesBibliography(CitationStylesStyle("harvard-cite-them-right", validate=False), source, formatter.plain)
        for item in data:
            bibliography.register(Citation([CitationItem(item["id"])]))
        rendered = [str(entry) for entry in bibliography.bibliography()]
    assert len(rendered) == len(data)
    assert all("arXiv" in line for line in rendered)
    assert any(line.startswith("Ramírez, J., Müller, Ø. and Einarsdóttir, S. (2026)") for line in rendered)


def test_every_format_gives_a_paper_the_same_key():
    papers = nasty_papers()
    keys = [item["id"] for item in csljson.items(papers)]
    import rispy

    assert [r["id"] for r in rispy.loads(ris.export(papers))] == keys
    assert keys[:2] == ["lovelace2026costs", "lovelace2026bert"]


USER_BIB = """% My bibliography. Hand-written entries first.
@string{prl = "Phys. Rev. Lett."}
@article{Einstein1905,
  author = {Albert Einstein},
  title = {Zur {Elektrodynamik} bewegter K{\\"o}rper},
  journal = {Annalen der Physik},
  year = {1905},
}
@Misc( myRenamedKey ,
  title = "An exported paper, retitled {"}by hand{"}",
  author = {Ada Lovelace},
  eprint = {arXiv:2609.00002v2},
  year = 2026,
)
@article{LOVELACE2026COSTS,
  author = {Someone Else},
  title = {Taken key, other case},
  journal = prl # " 1",
  year = {2020},
}
@article{scholar, title={From Google Scholar}, author={Ada Lovelace},
  journal={arXiv preprint arXiv:2609.00003}, year={2026}}
"""


def test_update_finds_papers_by_eprint_url_or_scholar_journal():
    result = bibfile.update(USER_BIB, nasty_papers()[:5] + [paper(id="2609.00050", title="Linked")])
    assert result.text.startswith(USER_BIB)
    assert result.kept == {"2609.00002": "myRenamedKey", "2609.00003": "scholar"}
    # A key the file already has, in any case, is not given again.
    assert result.added["2609.00001"] == "lovelace2026costsa"
    linked = USER_BIB + "@misc{linked, url = {https://arxiv.org/pdf/2609.00050v3.pdf}}\n"
    assert bibfile.update(linked, [paper(id="2609.00050")]).kept == {"2609.00050": "linked"}
    again = bibfile.update(result.text, nasty_papers()[:5])
    assert again.text == result.text and not again.added


@pytest.mark.slow
@pytest.mark.skipif(
    shutil.which("bibtex") is None, reason="bibtex is not installed (apt-get install texlive-binaries texlive-base texlive-latex-base)"
)
def test_an_updated_file_passes_real_tool_chains(tmp_path):
    bib = tmp_path / "updated.bib"
    bib.write_text(bibfile.update(USER_BIB, nasty_papers()).text, encoding="utf-8")
    result = subprocess.run(
        ["bash", str(BIBCHECK), "--strict", "--no-biber", "--python", sys.executable, str(bib)],
        capture_output=True,
        text=True,
        timeout=scaled(300),
        check=False,
    )
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
    entries = 3 + len(nasty_papers()) - 2 + 1  # the user's four, less the two found, plus the paper they had
    assert f"entry counts: bibtex/plain={entries}, bibtexparser={entries}, pybtex={entries}" in result.stdout
