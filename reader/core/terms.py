"""Terms of a paper's text for ranking and for rising words: single words and two-word phrases,
without stop words. Text comes as folded words separated by spaces (see core/text.py)."""

from __future__ import annotations

from collections.abc import Iterator
from itertools import pairwise

# Function words, and the words every abstract uses whatever its subject: as a term they say
# nothing about what a paper is about, so they neither explain a ranking nor rise. (`use` and
# `state` stay: `tool use`, `state space`.)
STOP_WORDS = frozenset(
    [
        "a", "about", "above", "across", "after", "again", "against", "all", "almost", "along",
        "already", "also", "although", "always", "am", "among", "an", "and", "another", "any", "are",
        "around", "as", "at", "be", "because", "been", "before", "being", "below", "between", "both",
        "but", "by", "can", "cannot", "could", "did", "do", "does", "doing", "done", "down", "due",
        "during", "each", "either", "else", "enough", "etc", "even", "ever", "every", "few", "for",
        "from", "further", "given", "had", "has", "have", "having", "he", "her", "here", "hers", "how",
        "however", "i", "if", "in", "into", "is", "it", "its", "itself", "just", "least", "less", "let",
        "like", "made", "make", "makes", "many", "may", "me", "might", "more", "most", "much", "must",
        "my", "neither", "no", "nor", "not", "now", "of", "off", "often", "on", "once", "one", "only",
        "onto", "or", "other", "others", "our", "ours", "out", "over", "own", "per", "rather", "same",
        "several", "she", "should", "since", "so", "some", "such", "than", "that", "the", "their",
        "theirs", "them", "then", "there", "therefore", "these", "they", "this", "those", "though",
        "through", "thus", "to", "too", "toward", "towards", "two", "under", "until", "up", "upon",
        "us", "used", "uses", "using", "very", "via", "was", "we", "well", "were", "what", "when",
        "where", "whether", "which", "while", "who", "whom", "whose", "why", "will", "with", "within",
        "without", "would", "yet", "you", "your", "approach", "approaches", "based", "demonstrate",
        "demonstrates", "existing", "experiment", "experiments", "experimental", "find", "findings",
        "first", "furthermore", "introduce", "introduces", "method", "methods", "moreover", "new",
        "novel", "paper", "present", "presents", "problem", "problems", "propose", "proposed",
        "proposes", "provide", "provides", "recent", "result", "results", "show", "shows", "shown",
        "significantly", "study", "studies", "success", "successfully", "task", "tasks", "three",
        "various", "work", "works"
    ]
)


# Verbs and adjectives abstracts use whatever their subject ("we employ", "improves", "effective"):
# not stop words for ranking (the For you model learned with them), but no term that rises is made
# of them. `large`, `low` and the like stay: `large language models`, `low rank`.
FILLER_WORDS = frozenset(
    [
        "achieve", "achieved", "achieves", "achieving", "address", "addressed", "addresses", "addressing",
        "allow", "allowed", "allowing", "allows", "analyse", "analysed", "analyses", "analyze", "analyzed",
        "analyzes", "analyzing", "apply", "applied", "applies", "applying", "better", "best", "called",
        "capture", "captured", "captures", "capturing", "challenging", "compare", "compared", "compares",
        "comparing", "competitive", "comprehensive", "consider", "considered", "considering", "considers",
        "critical", "crucial", "current", "currently", "demonstrated", "demonstrating", "describe",
        "described", "describes", "design", "designed", "develop", "developed", "developing", "develops",
        "different", "diverse", "effective", "effectively", "employ", "employed", "employing", "employs",
        "enable", "enabled", "enables", "enabling", "enhance", "enhanced", "enhances", "enhancing", "ensure",
        "ensures", "ensuring", "establish", "established", "evaluate", "evaluated", "evaluates",
        "evaluating", "explore", "explored", "explores", "exploring", "extensive", "extensively", "gain",
        "gains", "highlight", "highlights", "important", "improve", "improved", "improvement",
        "improvements", "improves", "improving", "include", "included", "includes", "including",
        "increase", "increased", "increases", "increasing", "investigate", "investigated", "investigates",
        "investigating", "key", "leverage", "leveraged", "leverages", "leveraging", "obtain", "obtained",
        "obtaining", "obtains", "offer", "offered", "offering", "offers", "outperform", "outperformed",
        "outperforming", "outperforms", "overall", "particular", "particularly", "perform", "performed",
        "performing", "performs", "potential", "practical", "previous", "previously", "prior", "promising",
        "reduce", "reduced", "reduces", "reducing", "remain", "remains", "require", "required",
        "requires", "requiring", "reveal", "revealed", "reveals", "significant", "simple", "specific",
        "strong", "substantial", "substantially", "suggest", "suggests", "superior", "utilize", "utilized",
        "utilizes", "utilizing", "yield", "yields",
    ]
)


def is_stop(word: str) -> bool:
    """Stop words, single characters and bare numbers (years, section and table numbers)."""
    return word in STOP_WORDS or len(word) < 2 or word.isdigit()


def carries_subject(term: str) -> bool:
    """Whether a term says what papers are about: no word of it is filler (`employ`, `improves`)."""
    return not any(word in FILLER_WORDS for word in term.split())


def terms(words: str) -> Iterator[str]:
    """Each word that is not a stop word, then each pair of adjacent such words (`reward shaping`),
    as often as they occur."""
    kept = [None if is_stop(word) else word for word in words.split()]
    for word in kept:
        if word is not None:
            yield word
    for first, second in pairwise(kept):
        if first is not None and second is not None:
            yield f"{first} {second}"


class Distinct:
    """Picks terms so that none lies inside another (`reward` and `reward shaping`, `bug` and
    `bugs`): a list of terms should not say the same thing twice. Two phrases sharing a word
    (`reward shaping`, `reward model`) are both kept."""

    def __init__(self) -> None:
        self.chosen: list[str] = []
        self._terms: set[tuple[str, ...]] = set()  # chosen terms, as singular words
        self._words: set[str] = set()  # every word of a chosen term
        self._singles: set[str] = set()  # chosen single words

    def add(self, term: str) -> bool:
        """Choose `term` unless it repeats a chosen one; True when chosen."""
        words = tuple(_singular(word) for word in term.split())
        if len(words) == 1:
            repeats = words[0] in self._words
        else:
            repeats = words in self._terms or any(word in self._singles for word in words)
        if repeats:
            return False
        self.chosen.append(term)
        self._terms.add(words)
        self._words.update(words)
        if len(words) == 1:
            self._singles.add(words[0])
        return True


def _singular(word: str) -> str:
    """A plural's crude singular (`models` -> `model`; `process`, `bias` stay), enough to tell
    that two terms say the same thing."""
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")) else word
