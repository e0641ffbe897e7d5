"""Unicode's sub- and superscript forms, the one table both math readers use: TeX math in titles
and abstracts (core/texmath.py) and a full text's MathML (fulltext/mathml.py) raise or lower the
same characters, so a formula reads the same in a card and in its paper.

Only characters most terminal fonts draw: ⱼ (a late addition to Unicode) is left out, so `x_{ij}`
stays as written rather than drawn as a box."""

from __future__ import annotations

SUPERSCRIPTS = dict(
    zip(
        "0123456789+-−=()abcdefghijklmnoprstuvwxyzABDEGHIJKLMNOPRTUVWαβγδεθιφχ′″‴*∗⊤",
        "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁻⁼⁽⁾ᵃᵇᶜᵈᵉᶠᵍʰⁱʲᵏˡᵐⁿᵒᵖʳˢᵗᵘᵛʷˣʸᶻᴬᴮᴰᴱᴳᴴᴵᴶᴷᴸᴹᴺᴼᴾᴿᵀᵁⱽᵂᵅᵝᵞᵟᵋᶿᶥᵠᵡ′″‴**ᵀ",
        strict=True,
    )
)
SUBSCRIPTS = dict(zip("0123456789+-−=()aehiklmnoprstuvxβγρφχ", "₀₁₂₃₄₅₆₇₈₉₊₋₋₌₍₎ₐₑₕᵢₖₗₘₙₒₚᵣₛₜᵤᵥₓᵦᵧᵨᵩᵪ", strict=True))


def superscript(text: str) -> str | None:
    """`text` raised (`n+1` -> `ⁿ⁺¹`), or None when a character of it has no superscript form."""
    return _formed(text, SUPERSCRIPTS)


def subscript(text: str) -> str | None:
    """`text` lowered (`ik` -> `ᵢₖ`), or None when a character of it has no subscript form."""
    return _formed(text, SUBSCRIPTS)


def _formed(text: str, table: dict[str, str]) -> str | None:
    if not text or any(character not in table for character in text):
        return None
    return "".join(table[character] for character in text)
