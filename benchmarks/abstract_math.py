"""Math in titles and abstracts as Unicode (reader/core/texmath.py): how many of the recorded
fixtures' math spans convert whole and how many keep some TeX, a table of TeX -> shown, what a
card's and a whole abstract's conversion costs (CPU time: the machine may be shared), and the
slowest hostile inputs.

    python -m benchmarks.abstract_math [--table N]
"""

from __future__ import annotations

import argparse
import re
import statistics
import time
from pathlib import Path

from reader.arxiv.parse import parse_api_page
from reader.core import texmath
from reader.errors import ReaderError
from reader.search_index.rows import CARD_ABSTRACT_CHARS

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = [ROOT / "tests" / "fixtures" / "arxiv", Path("/work/shared/fixtures/arxiv")]
SPAN = re.compile(r"(?<!\\)\$[^$]+(?<!\\)\$")

HOSTILE = {
    "2,000 braces deep": "$" + "{" * 2000 + "x" + "}" * 2000 + "$",
    f"{texmath.MAX_DEPTH} fractions deep": "$" + r"\frac{" * texmath.MAX_DEPTH + "x" + "}{y}" * texmath.MAX_DEPTH + "$",
    "a span of 290 scripts (over the span limit)": "$" + "x^" * 290 + "x$",
    "a span of 149 scripts (at the limit)": "$" + "x^" * 149 + "x$",
    "a span of 49 \\left(": "$" + r"\left(" * 49 + "$",
    "42 unknown macros": "$" + r"\foo{a}" * 42 + "$",
    "a card's 500 characters of distinct short spans": "".join(f"$x^{{a_{i}}}$" for i in range(45))[:500],
    "3,300 spans of $x_i$": "$x_i$ " * 3300,
    "1,200 distinct spans (over the size limit)": " ".join(f"$x_{{{i}}}+\\alpha^{i}$" for i in range(1200)),
    "30 unbalanced spans": ("$\\frac{a}{" + "b" * 500 + "$ ") * 30,
}


def fixture_texts() -> list[str]:
    """The distinct titles and abstracts of every recorded API response."""
    texts: dict[str, None] = {}
    for folder in FIXTURES:
        for path in sorted(folder.glob("api-*.xml")) if folder.is_dir() else []:
            try:
                papers = parse_api_page(path.read_bytes()).papers
            except ReaderError:
                continue
            for paper in papers:
                texts.setdefault(paper.title)
                texts.setdefault(paper.abstract)
    return list(texts)


def fresh(text: str, runs: int = 3) -> tuple[texmath.Converted, float]:
    """Converted with the caches emptied (the first drawing of a card), and the seconds it took
    (the least of `runs`: the machine is shared)."""
    best = float("inf")
    for _ in range(runs):
        texmath.convert.cache_clear()
        texmath._math.cache_clear()
        start = time.process_time()
        converted = texmath.convert(text)
        best = min(best, time.process_time() - start)
    return converted, best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--table", type=int, default=30, help="rows of TeX -> shown to print")
    args = parser.parse_args()
    texts = fixture_texts()
    texmath.tex_to_unicode("$\\alpha$")  # pylatexenc's tables built once per process, not per text
    spans = list(dict.fromkeys(match.group(0) for text in texts for match in SPAN.finditer(text)))
    whole = [span for span in spans if not fresh(span)[0].kept]
    with_math = [text for text in texts if "$" in text]
    print(f"fixtures: {len(texts)} distinct titles and abstracts, {len(with_math)} with math, {len(spans)} distinct math spans")
    print(f"  converted whole: {len(whole)}; keeping some TeX: {len(spans) - len(whole)}")
    for span in spans:
        if span not in whole:
            print(f"    kept: {span}  ->  {texmath.convert(span).text}")
    print(f"\nTeX -> shown ({min(args.table, len(spans))} of them, the longest first):")
    for span in sorted(spans, key=len, reverse=True)[: args.table]:
        print(f"  | `{span}` | {texmath.tex_to_unicode(span)} |")
    for label, cut in (("a card's abstract", CARD_ABSTRACT_CHARS), ("a whole abstract", None)):
        times = [fresh(text[:cut])[1] * 1000 for text in with_math]
        print(
            f"\n{label} with math, converted once: median {statistics.median(times):.2f} ms, max {max(times):.2f} ms ({len(times)} texts)"
        )
    cards = [text[:CARD_ABSTRACT_CHARS] for text in with_math]
    total = float("inf")
    for _ in range(3):  # the least of three: the machine is shared
        texmath.convert.cache_clear()
        texmath._math.cache_clear()
        start = time.process_time()
        for text in cards:
            texmath.convert(text)
        total = min(total, time.process_time() - start)
    print(f"all {len(cards)} cards with math, converted as a list's fetch would: {total * 1000:.1f} ms")
    plain = [text for text in texts if "$" not in text and "\\" not in text]
    times = [fresh(text)[1] * 1000 for text in plain]
    print(f"one without math: max {max(times):.3f} ms ({len(times)} texts)")
    print("\nhostile inputs (each converted once, caches emptied):")
    for label, text in HOSTILE.items():
        converted, seconds = fresh(text)
        print(f"  {label:45} {len(text):6} chars  {seconds * 1000:7.1f} ms  kept as TeX: {len(converted.kept)}")


if __name__ == "__main__":
    main()
