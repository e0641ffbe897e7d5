"""Hand-written test feeds: Atom pages in the shape arXiv's API serves (2026 format), built from
Paper records so a sync can be checked against what was served, field for field."""

from __future__ import annotations

from xml.sax.saxutils import escape, quoteattr

from reader.models import Paper


def entry_xml(paper: Paper) -> str:
    authors = "".join(
        "<author><name>{}</name>{}</author>".format(
            escape(a.name), "".join(f"<arxiv:affiliation>{escape(x)}</arxiv:affiliation>" for x in a.affiliations)
        )
        for a in paper.authors
    )
    optional = ""
    if paper.comment is not None:
        optional += f"<arxiv:comment>{escape(paper.comment)}</arxiv:comment>"
    if paper.journal_ref is not None:
        optional += f"<arxiv:journal_ref>{escape(paper.journal_ref)}</arxiv:journal_ref>"
    if paper.doi is not None:
        optional += f"<arxiv:doi>{escape(paper.doi)}</arxiv:doi>"
        optional += f'<link href="https://doi.org/{escape(paper.doi)}" rel="related" title="doi"/>'
    categories = "".join(f'<category term={quoteattr(c)} scheme="http://arxiv.org/schemas/atom"/>' for c in paper.categories)
    vid = f"{paper.id}v{paper.version}"
    return (
        f"<entry><id>http://arxiv.org/abs/{vid}</id><title>{escape(paper.title)}</title>"
        f"<updated>{paper.updated}</updated>"
        f'<link href="https://arxiv.org/abs/{vid}" rel="alternate" type="text/html"/>'
        f'<link href="https://arxiv.org/pdf/{vid}" rel="related" type="application/pdf" title="pdf"/>'
        f"<summary>{escape(paper.abstract)}</summary>{categories}<published>{paper.published}</published>"
        f"{optional}<arxiv:primary_category term={quoteattr(paper.primary_category)}/>{authors}</entry>"
    )


def feed_xml(papers: list[Paper], *, total: int, start: int = 0, per_page: int | None = None) -> bytes:
    entries = "".join(entry_xml(p) for p in papers)
    return (
        "<?xml version='1.0' encoding='UTF-8'?>\n"
        '<feed xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/" xmlns:arxiv="http://arxiv.org/schemas/atom" '
        'xmlns="http://www.w3.org/2005/Atom"><id>https://arxiv.org/api/test</id><title>arXiv Query: test</title>'
        "<updated>2026-12-02T00:00:00Z</updated>"
        f"<opensearch:itemsPerPage>{per_page if per_page is not None else len(papers)}</opensearch:itemsPerPage>"
        f"<opensearch:totalResults>{total}</opensearch:totalResults>"
        f"<opensearch:startIndex>{start}</opensearch:startIndex>{entries}</feed>"
    ).encode()


def error_feed(message: str, slug: str = "bad_query") -> bytes:
    return (
        "<?xml version='1.0' encoding='UTF-8'?>\n"
        '<feed xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/" xmlns="http://www.w3.org/2005/Atom">'
        "<id>https://arxiv.org/</id><title>arXiv Search Results</title><updated>2026-12-02T00:00:00Z</updated>"
        "<opensearch:itemsPerPage>1</opensearch:itemsPerPage><opensearch:totalResults>1</opensearch:totalResults>"
        "<opensearch:startIndex>0</opensearch:startIndex>"
        f"<entry><id>https://arxiv.org/api/errors#{slug}</id><title>Error</title>"
        f"<updated>2026-12-02T00:00:00Z</updated><summary>{escape(message)}</summary>"
        "<author><name>arXiv api core</name></author></entry></feed>"
    ).encode()


def rss_xml(items: list[tuple[Paper, str]]) -> bytes:
    """An rss.arxiv.org announcement feed: (paper, announce type) per item."""
    body = "".join(
        f"<item><title>{escape(p.title)}</title><link>https://arxiv.org/abs/{p.id}</link>"
        f"<description>arXiv:{p.id}v{p.version} Announce Type: {kind} \nAbstract: {escape(p.abstract)}</description>"
        f'<guid isPermaLink="false">oai:arXiv.org:{p.id}v{p.version}</guid>'
        + "".join(f"<category>{c}</category>" for c in p.categories)
        + f"<pubDate>Wed, 02 Dec 2026 00:00:00 -0500</pubDate><arxiv:announce_type>{kind}</arxiv:announce_type>"
        f"<dc:creator>{escape(', '.join(a.name for a in p.authors))}</dc:creator></item>"
        for p, kind in items
    )
    return (
        "<?xml version='1.0' encoding='UTF-8'?>\n"
        '<rss xmlns:arxiv="http://arxiv.org/schemas/atom" xmlns:dc="http://purl.org/dc/elements/1.1/" version="2.0">'
        "<channel><title>test updates on arXiv.org</title><link>http://rss.arxiv.org/rss/test</link>"
        f"<description>test</description>{body}</channel></rss>"
    ).encode()
