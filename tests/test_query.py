"""The query language: parsed and checked like arXiv's, evaluated locally over real papers."""

from __future__ import annotations

import dataclasses

import pytest

from reader.arxiv.parse import parse_api_page
from reader.core.query import lowercase_operators, operator_note, parse, search_text
from reader.core.scan import SearchBlock
from reader.errors import QueryError
from reader.models import Author
from tests.conftest import fixture_bytes


def papers(name):
    return parse_api_page(fixture_bytes(name)).papers


def select(query, items, implicit_and=True):
    matched = SearchBlock({p.id: search_text(p) for p in items}).matching(parse(query, implicit_and=implicit_and))
    return [p.id for p in items if p.id in matched]


def test_andnot_with_grouping_matches_what_arxiv_returned():
    """arXiv's own answer to this query (the fixture) is the reference: each paper it returned
    matches locally, and the author's papers it left out (checkerboard, pyrochlore) do not."""
    query = "au:del_maestro ANDNOT (ti:checkerboard OR ti:Pyrochlore)"
    returned = papers("api-2016-search-andnot-grouping-10of24.xml")
    everything = papers("api-2016-search-au-del_maestro-10of31.xml")
    assert select(query, returned) == [p.id for p in returned]
    excluded = [p.id for p in everything if "checkerboard" in p.title.lower() or "pyrochlore" in p.title.lower()]
    assert excluded, "the author page holds at least one excluded paper"
    assert not set(select(query, everything)) & set(excluded)
    assert set(select("au:del_maestro", everything)) == {p.id for p in everything}


def test_whole_words_case_insensitive_and_phrases():
    items = papers("api-2026-search-all-testing-100-entries.xml")
    assert select("ti:deep", items) == select("ti:DEEP", items)
    deep_learning = select('ti:"deep learning"', items)
    assert "2202.12139" in deep_learning
    assert set(deep_learning) <= set(select("ti:deep AND ti:learning", items))
    # whole words, each with its inflections (as arXiv's search): "test" matches "testing"
    assert "2202.12139" in select("ti:test", items)
    assert select("ti:test", items) == select("ti:testing", items) == select("ti:tests", items)
    assert "2501.17461" not in select("ti:augment", items)  # "AugmenTest" is one word


def test_author_matching_is_per_author_and_accent_insensitive():
    items = papers("api-2026-search-all-testing-100-entries.xml")
    with_accent = select("au:Einarsdóttir", items)
    assert with_accent and with_accent == select("au:einarsdottir", items)
    paper = dataclasses.replace(items[0], authors=(Author("Ada Smith"), Author("Bob Jones")))
    assert select('au:"smith bob"', [paper]) == []
    assert select('au:"ada smith"', [paper]) == [paper.id]
    tex = dataclasses.replace(items[0], authors=(Author('Erwin Schr\\"{o}dinger'),))
    assert select("au:schrodinger", [tex]) == [tex.id]


def test_categories_match_any_category_and_the_archive():
    items = papers("api-2026-search-cat-cs.CL-3-entries-crosslist-primary.xml")
    assert select("cat:cs.CL", items) == [p.id for p in items]
    assert select("cat:cs.SE", items) == ["2609.28449"]
    assert select("cat:cs", items) == [p.id for p in items]
    assert select("cat:cs.CL ANDNOT cat:cs.AI", items) == ["2609.28471"]


def test_or_binds_looser_than_and():
    items = papers("api-2026-search-cat-cs.CL-3-entries-crosslist-primary.xml")
    assert select("cat:cs.SE OR cat:cs.SC AND cat:cs.LG", items) == ["2609.28449", "2609.28442"]
    assert select("(cat:cs.SE OR cat:cs.SC) AND cat:cs.LG", items) == ["2609.28442"]


def test_plain_words_filter_locally_as_and():
    items = papers("api-2026-search-all-testing-100-entries.xml")
    assert select("deep learning", items) == select("all:deep AND all:learning", items)
    with pytest.raises(QueryError, match="need an operator"):
        parse("deep learning")


def test_journal_comment_id_and_dates():
    (paper,) = papers("api-2016-idlist-1111.2011v2-doi-jref-wrapped.xml")
    assert select('jr:"Phys. Rev. B"', [paper]) == [paper.id]
    assert select("co:figures", [paper]) == [paper.id]
    assert select("id:1111.2011", [paper]) == [paper.id]
    assert select("submittedDate:[201111010000 TO 201111302359]", [paper]) == [paper.id]
    assert select("submittedDate:[2012 TO 2013]", [paper]) == []
    assert select("ti:0", papers("api-2026-title-is-literally-0-2104.12255v1.xml")) == ["2104.12255"]


@pytest.mark.parametrize(
    "query, message, position",
    [
        ("", "empty", 0),
        ("ti:(a b)", "not arXiv syntax", 0),
        ("xx:foo", "unknown field 'xx:'", 0),
        ("TI:foo", "unknown field 'TI:'", 0),
        ("(ti:a", "never closed", 0),
        ("ti:a)", "no opening one", 4),
        ("AND ti:a", "AND needs a term on each side", 0),
        ("ti:a OR", "ends where a term was expected", 7),
        ('ti:"open', "quote is never closed", 3),
        ("ti:", "nothing to search for after ti:", 0),
        ("ti:a AND ti:", "nothing to search for after ti:", 9),
        ("submittedDate:[2026 TO soon]", "submittedDate needs dates", 0),
        ("ti:a AND submittedDate:[202613 TO 202701]", "'202613' has no month 13", 9),
        ("submittedDate:[202601011260 TO 2027]", "has no minute 60", 0),
        ("submittedDate:[20260230 TO 2027]", "has no day 30: that month is shorter", 0),
        ("submittedDate:[202701 TO 202601]", "ends before it starts", 0),
        ("ti:---", "no letters or digits", 0),
    ],
)
def test_invalid_queries_point_at_the_problem(query, message, position):
    with pytest.raises(QueryError, match=message) as caught:
        parse(query)
    assert caught.value.position == position


def test_other_scripts_match_as_typed():
    (model,) = papers("api-2016-idlist-1111.2011v2-doi-jref-wrapped.xml")
    paper = dataclasses.replace(
        model, title="量子 计算 with α decay", abstract="Квантовые вычисления на графах", authors=(Author("张伟"), Author("Ødegård Ñúñez"))
    )
    assert select("ti:量子", [paper]) == [paper.id]
    assert select('ti:"量子 计算"', [paper]) == [paper.id]
    assert select('ti:"计算 量子"', [paper]) == []
    assert select("ti:Α", [paper]) == [paper.id]  # capital alpha folds to α
    assert select("квантовые графах", [paper]) == [paper.id]
    assert select("au:张伟 AND au:odegard AND au:nunez", [paper]) == [paper.id]
    assert select("ti:x91cfx", [paper]) == select("ti:量", [paper]) == []  # a whole word, not a character


def test_notes_are_searched_locally_and_refused_for_arxiv():
    items = papers("api-2026-search-cat-cs.CL-3-entries-crosslist-primary.xml")
    notes = {items[1].id: "Read this for the Zürich seminar"}
    searchable = SearchBlock({p.id: search_text(p) for p in items}, notes)
    assert searchable.matching(parse("note:zurich", implicit_and=True)) == {items[1].id}
    assert searchable.matching(parse("seminar", implicit_and=True)) == {items[1].id}
    assert searchable.matching(parse('all:"zurich seminar"', implicit_and=True)) == {items[1].id}
    assert SearchBlock({p.id: search_text(p) for p in items}).matching(parse("note:zurich", implicit_and=True)) == set()
    with pytest.raises(QueryError, match="works in the filter, not in an arXiv query"):
        parse("note:zurich AND cat:cs.CL")


def test_lower_case_operators_are_found_once_each_but_not_in_quotes_or_after_a_field():
    assert lowercase_operators("quantum and monte or carlo And x and y") == ["and", "or", "And"]
    assert lowercase_operators('quantum AND "rock and roll" OR ti:and ANDNOT au:or') == []
    assert lowercase_operators("andnot(ti:a) sandwich oracle") == ["andnot"]
    assert operator_note("quantum and monte") == '"and" is searched as a word: operators are AND, OR, ANDNOT in capitals'
    assert operator_note("a or b and c") == '"or", "and" are searched as words: operators are AND, OR, ANDNOT in capitals'
    assert operator_note("quantum AND monte") is None
    # The query is read as it is written: the word is searched, as arXiv would.
    assert str(parse("quantum and monte", implicit_and=True)) == "(all:quantum AND all:and AND all:monte)"
