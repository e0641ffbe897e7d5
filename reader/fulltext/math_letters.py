"""A MathML token's letters as a reader would write them: mathematical italic and bold letters
(𝑥, 𝐱, 𝜶) as plain ones, double-struck, script and fraktur ones (𝔼, ℝ, 𝒮, 𝔉) kept, as what
they say differs; a `mathvariant` naming one of those styles applied (fulltext/mathml.py)."""

from __future__ import annotations

import re
import unicodedata

_STYLES = {"double-struck": "DOUBLE-STRUCK", "script": "SCRIPT", "bold-script": "SCRIPT", "fraktur": "FRAKTUR", "bold-fraktur": "FRAKTUR"}
_KEPT_STYLES = ("DOUBLE-STRUCK", "SCRIPT", "FRAKTUR", "BLACK-LETTER")  # what a letter's style says (𝔼 ℝ 𝒮 𝔉)
_STYLE_WORDS = re.compile(r"^(?:(?:BOLD|ITALIC|SANS-SERIF|MONOSPACE) )+")


def _plain_letter(character: str) -> str:
    """A mathematical italic or bold letter, digit or Greek letter (𝑥, ℎ, 𝐱, 𝜶) as its plain
    character; double-struck, script and fraktur ones (𝔼, ℝ, 𝒮, 𝔉) kept, as what they say differs."""
    if character.isascii():
        return character
    if character == "ℎ":  # Planck's constant stands where the italic h would be
        return "h"
    name = unicodedata.name(character, "")
    if not name.startswith("MATHEMATICAL ") or any(style in name for style in _KEPT_STYLES):
        return character
    rest = _STYLE_WORDS.sub("", name[len("MATHEMATICAL ") :])
    case, _, letter = rest.partition(" ")
    if case in ("CAPITAL", "SMALL") and len(letter) == 1:
        return letter if case == "CAPITAL" else letter.lower()
    for candidate in (rest, f"GREEK {case} LETTER {letter}", f"GREEK {rest}", f"LATIN {case} LETTER {letter}"):
        try:
            return unicodedata.lookup(candidate)
        except KeyError:
            continue
    return character


def styled(text: str, variant: str) -> str:
    """A token's letters in the style its `mathvariant` names, when that style says something
    (`\\mathbb{R}` written `<mi mathvariant="double-struck">R</mi>`); other styles as plain letters."""
    style = _STYLES.get(variant)
    if style is None:
        return "".join(_plain_letter(character) for character in text)
    out = []
    for character in text:
        if not (character.isascii() and character.isalpha()):
            out.append(character)
            continue
        case = "CAPITAL" if character.isupper() else "SMALL"
        found = None
        for name in (f"MATHEMATICAL {style} {case} {character.upper()}", f"{style} {case} {character.upper()}"):
            try:
                found = unicodedata.lookup(name)
                break
            except KeyError:
                continue
        if found is None and style == "FRAKTUR":
            found = {"C": "ℭ", "H": "ℌ", "I": "ℑ", "R": "ℜ", "Z": "ℨ"}.get(character)
        out.append(found or character)
    return "".join(out)
