"""Very long and very deep queries: a clear error naming the limit, or an answer; never a
RecursionError (issue 9, item 12)."""

from __future__ import annotations

import pytest

from reader.cli import main
from reader.core.query import MAX_DEPTH, MAX_TERMS, And, Or, parse, search_text
from reader.core.scan import SearchBlock
from reader.core.text import words
from reader.errors import QueryError
from reader.store import Store
from tests.helpers.queries import alternating
from tests.sample_papers import sample_papers

NESTED_400 = "(" * 400 + "ti:agents" + ")" * 400
ORS_2000 = " OR ".join(f"ti:w{i}" for i in range(2001))


def block(papers):
    return SearchBlock({p.id: search_text(p) for p in papers})


def test_deep_nesting_is_refused_with_the_limit_named():
    with pytest.raises(QueryError, match=f"at most {MAX_DEPTH} levels") as caught:
        parse(NESTED_400)
    assert caught.value.position == MAX_DEPTH  # the first parenthesis past the limit
    with pytest.raises(QueryError, match=f"at most {MAX_DEPTH} levels"):
        parse(alternating(400), implicit_and=True)


def test_nesting_up_to_the_limit_parses_and_evaluates():
    papers = sample_papers(12)
    agents = {p.id for p in papers if "agents" in words(p.title)}
    assert agents and len(agents) < len(papers)
    # Redundant parentheses cost nothing; real nesting is allowed up to the limit.
    assert block(papers).matching(parse("(" * MAX_DEPTH + "ti:agents" + ")" * MAX_DEPTH)) == agents
    node = parse(alternating(MAX_DEPTH - 1))
    assert block(papers).matching(node) == agents
    assert str(node).count("(") == MAX_DEPTH - 1
    assert hash(node) == hash(parse(alternating(MAX_DEPTH - 1)))


def test_a_thousand_plain_words_are_one_and():
    papers = sample_papers(12)
    target = papers[1]
    vocabulary = words(target.abstract) + words(target.title)
    query = " ".join(vocabulary[i % len(vocabulary)] for i in range(MAX_TERMS))
    node = parse(query, implicit_and=True)
    assert isinstance(node, And) and len(node.required) == MAX_TERMS
    same_text = {p.id for p in papers if p.abstract == target.abstract and p.title.startswith(target.title)}
    assert target.id in same_text
    assert block(papers).matching(node) == same_text
    missing = query.rsplit(" ", 1)[0] + " zebrafish"
    assert block(papers).matching(parse(missing, implicit_and=True)) == set()


def test_a_thousand_ors_evaluate_and_two_thousand_are_refused():
    papers = sample_papers(30)
    wanted = papers[::3]
    query = " OR ".join(f"id:{p.id}" for p in wanted) + " OR " + " OR ".join(f"ti:w{i}" for i in range(MAX_TERMS - len(wanted)))
    node = parse(query)
    assert isinstance(node, Or) and len(node.parts) == MAX_TERMS
    assert block(papers).matching(node) == {p.id for p in wanted}
    with pytest.raises(QueryError, match=f"2,001 terms: at most {MAX_TERMS:,}"):
        parse(ORS_2000)


def test_andnot_chains_flatten_without_changing_meaning():
    papers = sample_papers(12)
    b = block(papers)
    flat = parse("ti:agents ANDNOT ti:testing AND ti:web ANDNOT ti:wild")
    nested = parse("((ti:agents ANDNOT ti:testing) AND ti:web) ANDNOT ti:wild")
    assert flat == nested
    expected = {p.id for p in papers if {"agents", "web"} <= set(words(p.title)) and not {"testing", "wild"} & set(words(p.title))}
    assert b.matching(flat) == expected
    # ANDNOT of a group is not flattened into the chain
    grouped = parse("ti:agents ANDNOT (ti:testing AND ti:wild)")
    assert b.matching(grouped) == {p.id for p in papers if "agents" in words(p.title) and "wild" not in words(p.title)}


@pytest.mark.parametrize(
    "argv, limit",
    [
        (["list", "--query", NESTED_400], f"at most {MAX_DEPTH} levels"),
        (["list", "--query", ORS_2000], f"at most {MAX_TERMS:,}"),
        (["export", "--query", NESTED_400], f"at most {MAX_DEPTH} levels"),
        (["topics", "add", "Deep", NESTED_400], f"at most {MAX_DEPTH} levels"),
        (["topics", "add", "Wide", ORS_2000], f"at most {MAX_TERMS:,}"),
    ],
)
def test_cli_says_which_limit_in_one_line(capsys, data_dir, argv, limit):
    Store(data_dir).save_papers(sample_papers(5))
    code = main(["--data-dir", str(data_dir), *argv])
    out, err = capsys.readouterr()
    assert code == 1
    assert out == ""
    assert err.count("\n") == 1 and err.startswith("reader: error: invalid query") and limit in err
    assert len(err) < 300  # the query itself is not echoed whole
    assert [t.name for t in Store(data_dir).topics() if t.name in ("Deep", "Wide")] == []
