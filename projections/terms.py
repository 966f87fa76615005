"""The words of the full-text index on SQLite, each marked with its scope.

FTS5 keeps one posting list per term for the whole home.  Scoping a query
by a second column (a token per stream, matched with AND) still walks every
pair's postings of the query's terms, and a prefix query ("zahnarzt"*)
merges the postings of every matching term, home-wide, before anything is
filtered: a search for one pair cost what the home's size cost (15 ms
median, 130 ms p99 for a pair of 10,000 events in a home of 1,000,000).
Here every indexed word carries its scope's tag ("kwtzr" + "meeting" →
"kwtzrmeeting"), so a scope's terms are its own, next to each other in
the term dictionary: a query, prefix queries included, reads only its own
postings, and costs what the pair's size costs, whatever the home's.

The tag is five consonants drawn from the stream id.  Consonants, and not
"y", because the porter stemmer measures a word by its runs of vowels and
consonants from the start: a consonant prefix only lengthens the first run,
so a tagged word stems as the word does ("kwtzrmeetings" → "kwtzrmeet").
(Words of one or two letters, which the stemmer leaves alone, are stemmed
once tagged: "is" and "i" meet.  Both sides are tagged alike, so a query
finds what it found untagged, give or take such a word.)  Two scopes may
share a tag (one chance in 3.2 million for two given streams): a query then
reads a few more postings, never another pair's text, because every query
also selects its pair in SQL.

The text is NFKC-normalized and case-folded first (as the query's words
are: "Straße" and "strasse" meet), and CJK runs, which have no spaces
between words, are indexed as overlapping character pairs (bigrams), so
that "歯医者" is found in "歯医者の予約は…".
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from functools import lru_cache

from kairos.domain.encrypted import SEALED

RULES = 2  # raised whenever tokens() or tag() would make other words of the same text
TAG_LETTERS = "bcdfghjklmnpqrstvwxz"  # no vowels, no y: see the module's docstring
TAG_LENGTH = 5
TOKEN = re.compile(r"[^\W_]+")  # letters and digits: unicode61's token characters (L*, N*)
CJK_RUN = re.compile(r"([\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]+)")
PREFIX_MIN = 4  # a query word this long also matches as a prefix ("zahnarzt" → Zahnarzttermin)


@lru_cache(maxsize=65536)
def tag(stream_id: str) -> str:
    """The tag of a stream (its id, with or without dashes)."""
    n = int(stream_id.replace("-", ""), 16)
    letters = []
    for _ in range(TAG_LENGTH):
        n, r = divmod(n, len(TAG_LETTERS))
        letters.append(TAG_LETTERS[r])
    return "".join(letters)


def tokens(text: str) -> list[str]:
    """The words of a text as the index holds them, untagged: NFKC,
    case-folded, CJK runs cut into bigrams."""
    if text.isascii():
        return TOKEN.findall(text.lower())
    out: list[str] = []
    for token in TOKEN.findall(_folded(text)):
        if not CJK_RUN.search(token):
            out.append(token)
            continue
        for n, part in enumerate(CJK_RUN.split(token)):
            if n % 2 == 0:  # between CJK runs
                if part:
                    out.append(part)
            elif len(part) < 3:
                out.append(part)
            else:
                out += [part[i:i + 2] for i in range(len(part) - 1)]
    return out


def _folded(text: str) -> str:
    """NFKC, case-folded, combining marks dropped (as ``remove_diacritics``
    would): case-folding can make marks ("İ" → "i" and U+0307) that would
    otherwise split a word in two ("İstanbul" → "i", "stanbul")."""
    folded = unicodedata.normalize("NFKD", unicodedata.normalize("NFKC", text).casefold())
    return unicodedata.normalize("NFC", "".join(c for c in folded
                                                 if not unicodedata.combining(c)))


def index_text(text: str | None, stream_id: str) -> str | None:
    """What the full-text index is given for a text of a stream: its words,
    tagged (the SQL function ``kairos_terms``, which the index's triggers
    and a rebuild's bulk fill call)."""
    if text is None:
        return None
    if text.startswith(SEALED):  # a sealed read model's: its words are never on disk
        return ""
    return _tagged(text, tag(stream_id))


@lru_cache(maxsize=128)
def _tagged(text: str, t: str) -> str:
    """A text's words, tagged; kept for a while, because a write of several
    lines indexes each of them soon after the whole (its history entry, then
    the lines it put in its file), and a deleted line is indexed again to
    leave the index."""
    words = tokens(text)
    return t + (" " + t).join(words) if words else ""


def match(words: Sequence[str], stream_ids: Sequence[str], *, prefix: bool = True) -> str | None:
    """The FTS5 query for the words, in each of the streams: a word as a
    term and, four letters or more (unless ``prefix`` is False), as a prefix; a CJK word's bigrams, each
    a term; a word the index splits ("e_mail") as a phrase.  None when no
    word has anything to look for."""
    terms: list[str] = []
    for stream_id in stream_ids:
        t = tag(stream_id)
        for word in words:
            parts = tokens(word)
            if not parts:
                continue
            if CJK_RUN.search(word):  # a lone CJK character: found in the bigrams it begins
                terms += [f'"{t}{p}"' + ("*" if len(p) == 1 and CJK_RUN.fullmatch(p) else "")
                          for p in parts]
                continue
            phrase = " ".join(t + p for p in parts)
            terms.append(f'"{phrase}"')
            if prefix and len(parts) == 1 and len(word) >= PREFIX_MIN:
                terms.append(f'"{phrase}"*')
    return " OR ".join(dict.fromkeys(terms)) or None


def plain(text: str) -> str:
    """A query fragment as the index spells it: folded, without diacritics
    (``remove_diacritics 2``), to compare with the index's own terms."""
    return _folded(text)


def version() -> int:
    """What made the index's words: :data:`RULES` and the Unicode version
    of Python's tables (NFKC, case folding and letters differ across
    Python versions).  The read model re-indexes when it changes."""
    major, minor, _ = (int(n) for n in unicodedata.unidata_version.split("."))
    return RULES * 1_000_000 + major * 1_000 + minor


def term_ranges(stream_id: str) -> list[tuple[str, str]]:
    """The ranges of a stream's words in the index's term dictionary,
    numbers left out (a substring of a word is never looked for in them)."""
    t = tag(stream_id)
    return [(t + "a", t + "{"), (t + "\x80", t + chr(0x10FFFF))]


__all__ = ["index_text", "match", "plain", "tag", "term_ranges", "tokens", "version"]
