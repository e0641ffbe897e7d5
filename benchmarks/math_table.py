"""Formulas of real LaTeXML pages said in Unicode: how many are, how many fall back to their TeX,
and a sample of TeX -> shown by kind (the table in docs/full-text.md's "Math").

    python -m benchmarks.math_table [PAGE.html[.gz] ...]   (default: shared/realdata's pages and tests/fixtures')

Each `<math>` is read by the converter the HTML reader uses (reader/fulltext/mathml.py)."""

from __future__ import annotations

import gzip
import re
import sys
import time
from collections import Counter
from html.parser import HTMLParser
from pathlib import Path

from reader.fulltext.clean import tex
from reader.fulltext.mathml import MathBuilder

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_PAGES = [
    *sorted(Path("/work/shared/realdata/fulltext2/html").glob("*.html")),
    *sorted(Path("/work/shared/realdata/figures").glob("*.html.gz")),
    *sorted((ROOT / "tests" / "fixtures" / "fulltext").glob("*.html")),  # (fixtures/mathml: formulas of the pages above)
]
# Kinds of formula, by what their TeX holds (first match), to sample each.
KINDS = [
    ("matrix", r"\\begin\{(?:[pbvB]?matrix|array)"),
    ("cases", r"\\begin\{cases"),
    ("sum/product with limits", r"\\(?:sum|prod|max|min|lim|arg)"),
    ("integral", r"\\int"),
    ("norm", r"\\\||\\lVert|\\Vert"),
    ("fraction", r"\\frac|\\tfrac|\\dfrac"),
    ("root", r"\\sqrt"),
    ("hat, bar, tilde", r"\\(?:hat|bar|tilde|widehat|widetilde|overline|vec|dot)\b"),
    ("blackboard, calligraphic", r"\\math(?:bb|cal|frak|scr)"),
    ("text in math", r"\\(?:text|mbox|textrm|mathrm)"),
    ("sub and superscript", r"[_^]"),
    ("Greek, operators", r"\\[a-zA-Z]+"),
    ("plain", r""),
]


class Formulas(HTMLParser):
    """(TeX, display, Unicode or None) of each `<math>` of a page."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.found: list[tuple[str, bool, str | None]] = []
        self._builder: MathBuilder | None = None
        self._tex = ""
        self._display = False

    def handle_starttag(self, tag, attrs):
        if self._builder is not None:
            self._builder.start(tag, attrs)
        elif tag == "math":
            values = dict(attrs)
            self._builder, self._tex, self._display = MathBuilder(), tex(values.get("alttext") or ""), values.get("display") == "block"

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        self.handle_endtag(tag)

    def handle_endtag(self, tag):
        if self._builder is None:
            return
        if tag != "math":
            self._builder.end(tag)
            return
        self.found.append((self._tex, self._display, self._builder.unicode()))
        self._builder = None

    def handle_data(self, data):
        if self._builder is not None:
            self._builder.data(data)


def page_text(path: Path) -> str:
    data = path.read_bytes()
    return (gzip.decompress(data) if path.suffix == ".gz" else data).decode("utf-8", "replace")


def cell(text: str) -> str:
    return text.replace("|", "\\|")  # a Markdown table's cell


def kind_of(formula: str) -> str:
    return next(name for name, pattern in KINDS if re.search(pattern, formula))


def main(paths: list[str]) -> None:
    pages = [Path(path) for path in paths] or DEFAULT_PAGES
    started = time.process_time()
    every: list[tuple[str, bool, str | None]] = []
    seen: set[str] = set()
    for page in pages:
        text = page_text(page)
        if text in seen:  # realdata/figures holds some of fulltext2's pages again
            print(f"{page.name}: the same page as one above, not counted again")
            continue
        seen.add(text)
        reader = Formulas()
        reader.feed(text)
        reader.close()
        said = sum(1 for _, _, unicode in reader.found if unicode)
        print(f"{page.name}: {len(reader.found)} formulas, {said} in Unicode, {len(reader.found) - said} as TeX")
        every += reader.found
    seconds = time.process_time() - started
    distinct = {(formula, display): unicode for formula, display, unicode in every if formula}
    said = sum(1 for _, _, unicode in every if unicode)
    scripts = sum(1 for _, _, unicode in every if unicode and re.search(r"[_^]", unicode))
    print(
        f"\nall: {len(every)} formulas ({len(distinct)} distinct), {said} in Unicode ({scripts} of them with a script "
        f"written _{{…}} or ^(…)), {len(every) - said} as TeX; {seconds:.2f} s CPU"
    )
    fallbacks = Counter(kind_of(formula) for (formula, _), unicode in distinct.items() if unicode is None)
    print("falling back, by kind:", ", ".join(f"{kind} {count}" for kind, count in fallbacks.most_common()))
    for display in (False, True):
        print(f"\n{'display' if display else 'inline'}:\n| TeX | shown |\n|---|---|")
        taken: Counter[str] = Counter()
        for (formula, is_display), unicode in distinct.items():
            kind = kind_of(formula)
            if is_display != display or len(formula) > 90 or taken[kind] >= (3 if display else 4):
                continue
            taken[kind] += 1
            shown = unicode if unicode is not None else "(TeX)"
            print(f"| `{cell(formula)}` | {cell(shown)} |")


if __name__ == "__main__":
    main(sys.argv[1:])
