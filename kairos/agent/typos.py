"""Query words typed wrong: the pair's own word a misspelt one meant.

An agent types "vegitarian", "dentsit", "Zahnartz" as people do, and a word
the index does not hold finds nothing.  When a query word found nothing in
any of its forms, the search asks here for the words of the pair's current
lines it is one slip away from (two, for a long word), and looks for those.

Only the slips that typing makes count, so that a word is not taken for
another word that merely looks like it ("horse" is not "house"):

* two letters side by side swapped ("dentsit", "recieve");
* a letter left out or typed twice ("adress", "tommorrow");
* a letter typed for a neighbour on the keyboard ("gpod": good), or one
  vowel for another ("vegitarian", "seperate"), which spelling by ear does;
* a letter too, next to a key it was meant beside ("appoinrment").

A word of six letters or more is also compared with the beginnings of the
pair's longer words, for a compound whose first part was mistyped
("Zahnartz" → Zahnarztpraxis).

A word of five letters may have one slip, of eight or more two; shorter
words have too many neighbours to guess at ("cat", "car", "bat").  The
candidates are the pair's own words, so a correction can only find what
the pair holds — and only words its search may see: the caller reads them
from the lines it may return.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

MIN_LENGTH = 5  # shorter words are one slip from too many others
LONG = 8  # from this length two slips are allowed
PREFIX_FROM = 6  # from this length a slip may be in the beginning of a longer word
MEANT = 3  # at most this many words a slip may have meant (see meant())
VOWELS = frozenset("aeiouyäöü")
# Letters beside each other on a QWERTY / QWERTZ keyboard (y and z swap places).
ROWS = ("1234567890", "qwertyuiopü", "asdfghjklöä", "zxcvbnm", "yxcvbnm")
_NEAR: dict[str, set[str]] = {}
for _row in ROWS:
    for _i, _c in enumerate(_row):
        _NEAR.setdefault(_c, set()).update(_row[max(0, _i - 1):_i] + _row[_i + 1:_i + 2])
for _upper, _lower in (("qwertyuiop", "asdfghjkl"), ("asdfghjkl", "zxcvbnm"),
                       ("asdfghjkl", "yxcvbnm")):
    for _i, _c in enumerate(_upper):  # a key and the keys below it, left and right
        for _d in _lower[max(0, _i - 1):_i + 1]:
            _NEAR.setdefault(_c, set()).add(_d)
            _NEAR.setdefault(_d, set()).add(_c)


def slip(a: str, b: str) -> bool:
    """Whether typing ``b`` may have given ``a``: one letter for another
    beside it on the keyboard, or a vowel for a vowel."""
    return b in _NEAR.get(a, ()) or (a in VOWELS and b in VOWELS)


def distance(typed: str, word: str, limit: int) -> int:
    """How many slips make ``typed`` of ``word``: an edit distance in which
    an adjacent swap is one edit and a letter left out is one, but a letter
    typed for another is one only as a slip (:func:`slip`) and a letter too
    only beside its double or a key next to it; any other costs two.
    ``limit + 1`` as soon as it is more than ``limit``."""
    if abs(len(typed) - len(word)) > limit:
        return limit + 1
    previous2: list[int] = []
    previous = list(range(len(word) + 1))
    for i, a in enumerate(typed, 1):
        extra = 1 if _stray(typed, i - 1) else 2
        row = [previous[0] + extra] + [0] * len(word)
        for j, b in enumerate(word, 1):
            if a == b:
                cost = previous[j - 1]
            else:
                cost = min(previous[j] + extra, row[j - 1] + 1,
                           previous[j - 1] + (1 if slip(a, b) else 2))
                if i > 1 and j > 1 and a == word[j - 2] and typed[i - 2] == b:
                    cost = min(cost, previous2[j - 2] + 1)
            row[j] = cost
        # (a swap reaches back two rows: stop only when neither can come back)
        if min(row) > limit and min(previous) >= limit:
            return limit + 1
        previous2, previous = previous, row
    return min(previous[-1], limit + 1)


def _stray(typed: str, i: int) -> bool:
    """Whether the letter at ``i`` is one a finger adds: the one beside it
    again, or a key next to the one beside it (at the word's end, only the
    one before it again: an ending there makes another word)."""
    a = typed[i]
    if i == len(typed) - 1:  # at the end only a letter doubled: "Lehrer" is no "Lehre" mistyped
        return i > 0 and typed[i - 1] == a
    return any(n == a or a in _NEAR.get(n, ()) for n in typed[max(0, i - 1):i] + typed[i + 1:i + 2])


def meant(typed: str, words: Mapping[str, int]) -> list[str]:
    """The words of ``words`` (each with how many lines hold it), or their
    beginnings, that ``typed`` is fewest slips from, at most :data:`MEANT`:
    whole words first, then the commonest; none for a short word, a number,
    or one that is itself there."""
    if len(typed) < MIN_LENGTH or not typed.isalpha() or typed in words:
        return []
    limit = 2 if len(typed) >= LONG else 1
    best: dict[str, int] = {}
    count: dict[str, int] = {}
    first, second = typed[0], typed[1]
    letters = set(typed)
    for word in words:
        # Cheap refusals first: a slip leaves the first letter (or swaps,
        # drops, adds or slips it), and each slip brings one letter at most.
        if len(word) < MIN_LENGTH - 1 or not (
                word[0] in (first, second) or word[1] == first or slip(first, word[0])
        ) or len(letters.difference(word)) > limit:
            continue
        # A longer word's beginning too: "Zahnartz" is "Zahnarzt" of
        # "Zahnarztpraxis" mistyped (the search then finds it by prefix).
        heads = [word] if len(word) <= len(typed) + limit else [
            word[:n] for n in range(len(typed) - limit, len(typed) + limit + 1)
        ] if len(typed) >= PREFIX_FROM else []
        for head in heads:
            if len(letters.symmetric_difference(head)) > 2 * limit:
                continue
            d = distance(typed, head, limit)
            if d <= limit and d <= best.get(head, d):
                best[head] = d
                count[head] = count.get(head, 0) + words[word]
    if not best:
        return []
    fewest = min(best.values())
    # A whole word before a beginning, one of the typed length before others.
    return sorted((w for w, d in best.items() if d == fewest),
                  key=lambda w: (w not in words, abs(len(w) - len(typed)), -count[w], w))[:MEANT]


def vocabulary(texts: Iterable[tuple[str, ...]]) -> dict[str, int]:
    """Each word of the texts (their words, as tuples) with the number of
    texts holding it."""
    out: dict[str, int] = {}
    for words in texts:
        for w in set(words):
            out[w] = out.get(w, 0) + 1
    return out


__all__ = ["distance", "meant", "slip", "vocabulary"]
