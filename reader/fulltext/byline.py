"""A paper's byline as lines to print: one per author, name and affiliations, then e-mails in angle
brackets (html.py reads LaTeXML's `ltx_creator`: its `<br>`-separated lines and its contacts).

LaTeXML gives an author a `ltx_creator`, but bylines written otherwise reach it whole: NeurIPS'
`\\And` is undefined for LaTeXML, which leaves a `\\AND` and each next author's `&Name` as text, and
a list of names (`A^1, B^1,2 and C^2`) with affiliation lines after it is one creator."""

from __future__ import annotations

import re

_EMAIL = re.compile(r"[^\s@]+@[^\s@]+\.[^\s@]+")
_NEXT_AUTHOR = re.compile(r"(?:^|\s)&")  # `&Name` (a tabular's `&`, left as text) starts the next author
_NIPS_AND = re.compile(r"^(?:\\(?:AND|And|and)\s*)+")


def author_lines(lines: list[str], affiliations: list[str], emails: list[str]) -> list[str]:
    """A creator's lines (and its contacts) as the lines to print."""
    people: list[list[str]] = []
    for line in lines:
        for number, piece in enumerate(_NEXT_AUTHOR.split(_NIPS_AND.sub("", line))):
            if number or not people:
                people.append([])
            if piece.strip():
                people[-1].append(piece.strip())
    people = [person for person in people if person]
    if people:
        people[-1] += affiliations + emails
    printed = []
    for name, *rest in people:
        addresses = [line for line in rest if _EMAIL.fullmatch(line)]
        others = [line for line in rest if line not in addresses]
        if "," in name and rest:  # several names on one line: the affiliations follow it, a line each
            printed += [name, *others]
            if addresses:
                printed.append(" ".join(f"<{address}>" for address in addresses))
        else:
            printed.append(" ".join([", ".join([name, *others]), *(f"<{address}>" for address in addresses)]))
    return printed
