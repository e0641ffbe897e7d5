"""Every recorded arXiv response parses exactly, field by field."""

from __future__ import annotations

import time

import pytest

from reader.arxiv.parse import parse_api_page, parse_rss
from reader.core.sanitize import clean_text
from reader.errors import ArxivAPIError, FeedFormatError
from reader.models import Author
from tests.atom import error_feed
from tests.conftest import fixture_bytes


def page(name: str):
    return parse_api_page(fixture_bytes(name))


def test_old_format_idlist_with_doi_journal_ref_and_wrapped_title():
    result = page("api-2016-idlist-1111.2011v2-doi-jref-wrapped.xml")
    assert (result.total_results, result.start_index, result.items_per_page) == (1, 0, 10)
    (paper,) = result.papers
    assert paper.id == "1111.2011"
    assert paper.version == 2
    assert paper.title == "Quantum Criticality for Extended Nodes on a Bethe Lattice in the Large Connectivity Limit"
    assert paper.abstract.startswith("Theoretical description of anisotropic systems, such as layered superconductors")
    assert paper.abstract.endswith("similar to adding a single extra dimension to the theory describing a single node.")
    assert "\n" not in paper.abstract and "  " not in paper.abstract
    assert paper.authors == (Author("James M. Murray"), Author("Adrian Del Maestro"), Author("Zlatko Tesanovic"))
    assert paper.categories == ("cond-mat.str-el", "cond-mat.stat-mech")
    assert paper.primary_category == "cond-mat.str-el"
    assert paper.published == "2011-11-08T18:48:36Z"
    assert paper.updated == "2012-04-02T12:38:54Z"
    assert paper.comment == "8 pages, 3 figures. Published version"
    assert paper.journal_ref == "Phys. Rev. B 85, 115117 (2012)"
    assert paper.doi == "10.1103/PhysRevB.85.115117"
    # Built from the id, not copied from the feed's http:// links.
    assert paper.abs_url == "https://arxiv.org/abs/1111.2011v2"
    assert paper.pdf_url == "https://arxiv.org/pdf/1111.2011v2"


def test_old_format_search_page_with_old_style_ids_and_versions():
    result = page("api-2016-search-au-del_maestro-10of31.xml")
    assert (result.total_results, result.start_index, result.items_per_page) == (31, 0, 10)
    assert [(p.id, p.version) for p in result.papers] == [
        ("1201.4869", 1),
        ("cond-mat/0412498", 1),
        ("cond-mat/0603029", 1),
        ("1005.5383", 1),
        ("1303.6954", 2),
        ("1312.6177", 1),
        ("1412.6529", 2),
        ("cond-mat/0607501", 2),
        ("cond-mat/0702661", 2),
        ("0807.2873", 1),
    ]
    assert [a.name for a in result.papers[7].authors] == ["R. G. Melko", "A. Del Maestro", "A. A. Burkov"]
    first = result.papers[0]
    assert first.title == "A Luttinger Liquid Core Inside Helium-4 Filled Nanopores"
    assert first.categories == ("cond-mat.mes-hall", "cond-mat.other")
    assert first.doi == "10.1142/S021797921244002X"
    assert first.journal_ref == "Int. J. Mod. Phys. B, 26, 1244002 (2012)"
    assert first.comment == "26 pages, 10 figures"


def test_tex_is_kept_as_written():
    papers = page("api-2016-search-au-del_maestro-10of31.xml").papers + page("api-2016-search-andnot-grouping-10of24.xml").papers
    text = " ".join(p.title + " " + p.abstract for p in papers)
    assert "$" in text  # inline math survives untouched


def test_andnot_page_has_v1_to_v3():
    result = page("api-2016-search-andnot-grouping-10of24.xml")
    assert (result.total_results, len(result.papers)) == (24, 10)
    assert {p.version for p in result.papers} == {1, 2, 3}
    assert not any("checkerboard" in p.title.lower() or "pyrochlore" in p.title.lower() for p in result.papers)


def test_last_old_format_response_with_wrapped_title_and_comment():
    result = page("api-2025-10-oldformat-search-cat-cs.RO-wrapped-title-comment.xml")
    assert (result.total_results, len(result.papers)) == (5619, 2)
    paper = result.papers[0]
    assert paper.id == "2510.14968" and paper.version == 1
    assert paper.title == "RDD: Retrieval-Based Demonstration Decomposer for Planner Alignment in Long-Horizon Tasks"
    assert paper.authors == (Author("Mingxuan Yan"), Author("Yuping Wang"), Author("Zechun Liu"), Author("Jiachen Li"))
    assert paper.categories == ("cs.RO", "cs.AI", "cs.CV", "cs.LG", "cs.SY", "eess.SY")
    assert paper.primary_category == "cs.RO"
    assert paper.published == paper.updated == "2025-10-16T17:59:37Z"
    assert paper.comment == (
        "39th Conference on Neural Information Processing Systems (NeurIPS 2025); Project Website: rdd-neurips.github.io"
    )
    assert paper.journal_ref is None and paper.doi is None


def test_error_feed_is_an_error_with_arxivs_message_not_a_paper():
    with pytest.raises(ArxivAPIError, match="incorrect id format for abc"):
        page("api-2026-error-bad-id-abc-http400.xml")


def test_a_paper_titled_error_is_still_a_paper():
    body = fixture_bytes("api-2026-title-is-literally-0-2104.12255v1.xml").replace(b"<title>0</title>", b"<title>Error</title>")
    (paper,) = parse_api_page(body).papers
    assert paper.title == "Error"


def test_empty_result_is_not_an_error():
    result = page("api-2026-empty-result-id-0000.0000.xml")
    assert (result.total_results, result.papers) == (0, [])


def test_idlist_with_one_dropped_id_and_non_ascii_abstract():
    result = page("api-2026-idlist-one-invalid-id-dropped.xml")
    (paper,) = result.papers
    assert paper.id == "1707.08567"
    assert paper.title == "Proceedings of Workshop AEW10: Concepts in Information Theory and Communications"
    assert len(paper.authors) == 34
    assert paper.authors[0].name == "Kees A. Schouhamer Immink"
    assert paper.authors[32].name == "Dirk Wübben"
    assert paper.comment == "44 pages, editors for the proceedings: Yanling Chen and A. J. Han Vinck"
    assert paper.abs_url == "https://arxiv.org/abs/1707.08567v1"


def test_old_style_id_keeps_every_authors_own_affiliation():
    (paper,) = page("api-2026-oldstyle-id-astro-ph-0601001-affiliations.xml").papers
    assert paper.id == "astro-ph/0601001" and paper.version == 1
    assert paper.authors == (
        Author("Andrew Gould", ("Ohio State",)),
        Author("Susan Dorsher", ("Ohio State",)),
        Author("B. Scott Gaudi", ("CfA",)),
        Author("Andrzej Udalski", ("Warsaw University Observatory",)),
    )
    assert paper.affiliations == ["Ohio State", "CfA", "Warsaw University Observatory"]
    assert paper.categories == ("astro-ph",) and paper.primary_category == "astro-ph"
    assert paper.journal_ref == "ActaAstron.56:1-50,2006"
    assert paper.published == "2006-01-02T14:57:58Z"
    assert paper.pdf_url == "https://arxiv.org/pdf/astro-ph/0601001v1"
    assert "Gould & Morgan (2003)" in paper.abstract and "V_max<17.5" in paper.abstract


def test_hundred_entries_with_versions_dois_journal_refs_and_unicode_names():
    result = page("api-2026-search-all-testing-100-entries.xml")
    assert (result.total_results, result.items_per_page, len(result.papers)) == (214881, 100, 100)
    papers = result.papers
    assert sum(1 for p in papers if p.doi) == 32
    assert sum(1 for p in papers if p.journal_ref) == 18
    names = [a.name for p in papers for a in p.authors if not a.name.isascii()]
    assert len(names) == 17 and "Sólrún Einarsdóttir" in names and "Lasse Møldrup" in names
    assert min(p.version for p in papers) == 1 and max(p.version for p in papers) == 9
    assert len({p.id for p in papers}) == 100
    first = papers[0]
    assert (first.id, first.title) == (
        "2202.12139",
        "Testing Deep Learning Models: A First Comparative Study of Multiple Testing Techniques",
    )
    assert first.doi == "10.1109/ICSTW55395.2022.00035"
    assert all(p.published <= p.updated for p in papers)
    assert all(p.primary_category in p.categories for p in papers)


def test_later_page_start_index():
    result = page("api-2026-search-all-testing-start20-latex.xml")
    assert (result.total_results, result.start_index, result.items_per_page, len(result.papers)) == (214881, 20, 10, 10)
    paper = result.papers[0]
    assert paper.id == "2008.01944"
    assert paper.categories == ("q-bio.QM", "cs.IT", "eess.SP", "stat.AP")
    assert "$r>0$" in paper.abstract


def test_cross_lists_keep_their_own_primary_category():
    result = page("api-2026-search-cat-cs.CL-3-entries-crosslist-primary.xml")
    assert [(p.id, p.primary_category, p.categories) for p in result.papers] == [
        ("2609.28471", "cs.CL", ("cs.CL", "cs.LG")),
        ("2609.28449", "cs.SE", ("cs.SE", "cs.AI", "cs.CL")),
        ("2609.28442", "cs.LG", ("cs.LG", "cs.AI", "cs.CL", "cs.SC")),
    ]


def test_title_zero_is_kept():
    (paper,) = page("api-2026-title-is-literally-0-2104.12255v1.xml").papers
    assert paper.title == "0"
    assert paper.authors == (Author("Quan Thoi Minh Nguyen"),)
    assert "$35,000" in paper.abstract
    assert paper.comment is None and paper.doi is None


def test_rss_announcements():
    feed = parse_rss(fixture_bytes("rss2024-multi-cat-cs.LG+cs.AI+cs.CL+stat.ML-new-cross-replace-doi.xml"))
    assert (feed.skipped, feed.removed_categories) == ([], [])
    items = feed.items
    assert [(i.id, i.version, i.announce_type) for i in items] == [
        ("2609.26811", 1, "new"),
        ("2609.26820", 1, "new"),
        ("2205.06398", 2, "cross"),
        ("2009.13987", 3, "replace"),
    ]
    assert items[0].title == "The Drift Contract: Spectral Updates for Depth-Robust Local Learning"
    assert items[0].abstract.startswith("Local learning trains each layer") and "Announce Type" not in items[0].abstract
    assert items[1].authors == ("Naser Mansour", "Sidahmed Benabderrahmane", "Ameer Rahwan")
    assert items[2].categories == ("stat.ME", "stat.AP", "stat.ML")
    assert items[2].doi == "10.1093/bioinformatics/btac431"
    assert {i.announced for i in items} == {"2026-09-24"}


# --- hostile and broken input ---


def test_markup_and_control_characters_are_plain_text():
    assert clean_text("a\x1b[31mred\x1b]8;;http://x\x07 b\u202eevil") == "a[31mred]8;;http://x bevil"
    assert clean_text("[bold]x[/] [@click=app.quit]y[/]") == "[bold]x[/] [@click=app.quit]y[/]"


def test_kittys_image_placeholder_never_comes_through_a_feed_or_a_page():
    """U+10EEEE with its row and column marks is a cell of an image in a Kitty terminal."""
    from reader.core.terminal_graphics import DIACRITICS, PLACEHOLDER
    from reader.fulltext.pdflines import Paragraphs

    cell = PLACEHOLDER + DIACRITICS[0] + DIACRITICS[1]
    assert PLACEHOLDER not in clean_text(f"Title {cell}here")
    builder = Paragraphs()
    builder.page(f"A paragraph with an image{cell} in it.\n")
    blocks = builder.blocks()
    assert blocks and not any(PLACEHOLDER in block.text for block in blocks)


def test_entity_bomb_is_refused_quickly():
    bomb = (
        b'<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol">'
        + b"".join(b'<!ENTITY lol%d "%s">' % (i, (b"&lol%d;" % (i - 1) if i > 1 else b"&lol;") * 10) for i in range(1, 10))
        + b']><feed xmlns="http://www.w3.org/2005/Atom"><title>&lol9;</title></feed>'
    )
    started = time.monotonic()
    with pytest.raises(FeedFormatError, match="refused"):
        parse_api_page(bomb)
    assert time.monotonic() - started < 1.0


def test_external_entity_is_refused():
    xxe = b'<?xml version="1.0"?><!DOCTYPE f [<!ENTITY x SYSTEM "file:///etc/passwd">]><feed xmlns="http://www.w3.org/2005/Atom"><title>&x;</title></feed>'
    with pytest.raises(FeedFormatError, match="refused"):
        parse_api_page(xxe)


@pytest.mark.parametrize(
    "body",
    [
        b'<?xml version="1.0"?><!-- a comment --><?pi first?><!DOCTYPE feed><feed xmlns="http://www.w3.org/2005/Atom"/>',
        '<?xml version="1.0" encoding="UTF-16"?><!DOCTYPE f [<!ENTITY x "y">]><feed xmlns="http://www.w3.org/2005/Atom"/>'.encode("utf-16"),
    ],
)
def test_a_dtd_anywhere_in_the_prolog_and_in_any_encoding_is_refused(body):
    with pytest.raises(FeedFormatError, match="refused"):
        parse_api_page(body)


def test_only_the_feeds_own_entries_are_papers():
    entry = "<entry><id>http://arxiv.org/abs/2601.0000{n}v1</id><title>t{n}</title><updated>2026-01-01T00:00:00Z</updated>{inner}</entry>"
    body = (
        '<feed xmlns="http://www.w3.org/2005/Atom"><opensearch:totalResults xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/">1'
        "</opensearch:totalResults>" + entry.format(n=1, inner="<x>" + entry.format(n=2, inner="") + "</x>") + "</feed>"
    ).encode()
    assert [p.id for p in parse_api_page(body).papers] == ["2601.00001"]


@pytest.mark.parametrize(
    "body, message",
    [
        (b"<!DOCTYPE html><html><body>Oops</body></html>", "HTML page instead of a feed"),
        (b"<feed><entry>", "not valid XML"),
        (b"", "not valid XML"),
        (b'<rss version="2.0"><channel></channel></rss>', "not an Atom feed"),
    ],
)
def test_broken_bodies_are_clear_errors(body, message):
    with pytest.raises(FeedFormatError, match=message):
        parse_api_page(body)


def test_hand_written_error_feed_with_http_200():
    with pytest.raises(ArxivAPIError, match="Invalid query string"):
        parse_api_page(error_feed("Invalid query string: 'x'"))
