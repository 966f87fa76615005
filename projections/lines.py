"""A file's current lines as the search index holds them (``memory_lines``),
and when each one entered its file.

A line's time is that of the event that put it in the file.  An event that
rewrites a file (a replace, a retraction, a dream's approval, a rollback)
leaves every line whose text the file already held with the time it had:
rewriting "Sam likes tea." into a new version of the file does not make it
news.  The rule is applied event by event — by the read side as writes come
(:meth:`kairos.projections.indexer.Indexer.plan`, whatever its batches) and
by a rebuild (:meth:`~kairos.projections.indexer.Indexer.load`) alike — so
the rows are a function of the events: a rebuild derives the rows the
writes left (``tests/test_search_terms.py``).

A line is *shared* when it is the whole text of the append that put it in
its file (a write of one line, the usual write): the full-text index then
holds its words once, as that write's history entry, and a search finds the
line through it (:mod:`kairos.projections.search`): each write otherwise
indexed the same words twice.  A rewrite that keeps the line's text keeps
its position, so the mark stays with it.  The history entry outlives the
line: it leaves the index only by an erasure, which empties the pair's files
first.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator, Sequence
from typing import Any
from uuid import UUID

from kairos.domain.ids import agent_stream_id, pair_stream_id

# text, sources (event ids), position and time it entered, shared (1) or not (0)
Line = tuple[str, str, int, str, int]
LineRow = tuple[str, str, str, str, str, str, int, str, int]  # readmodel.LINE_COLUMNS order


@functools.lru_cache(maxsize=4096)
def stream_of(key: str) -> UUID:
    """A stream id from its text: dashed (an index row's) or hex (a line's scope)."""
    return UUID(key)


@functools.lru_cache(maxsize=4096)
def file_stream(agent: str, user: str | None) -> UUID:
    """The stream of an agent's own files (``user`` None or '') or of a pair's."""
    return agent_stream_id(agent) if not user else pair_stream_id(agent, user)


def scope_token(agent: str, user: str | None) -> str:
    """The scope of the agent's own stream (``user`` None or '') or a
    pair's: the stream id in hex (``memory_lines.scope``, which tags a
    line's words in the full-text index)."""
    return (agent_stream_id(agent) if not user else pair_stream_id(agent, user)).hex


def segment_lines(segment: Sequence[Any]) -> Iterator[tuple[str, str]]:
    """A segment's non-blank lines, each with the event ids it came from."""
    sources = " ".join(segment[2]) if len(segment) > 2 else str(segment[0])
    for line in str(segment[1]).split("\n"):
        if line.strip():
            yield line, sources


def appended(segment: Sequence[Any], position: int, at: str) -> list[Line]:
    """The lines an append adds: all new, at the append's time; shared
    with the append's history entry when the line is its whole text."""
    found = list(segment_lines(segment))
    shared = int(len(found) == 1 and found[0][0] == segment[1])
    return [(text, sources, position, at, shared) for text, sources in found]


def rewritten(before: Sequence[Line], segments: Sequence[Sequence[Any]], position: int,
              at: str) -> list[Line]:
    """A file's lines after an event that rewrote it: a line whose text was
    there before keeps its time (of several lines of one text, the first
    takes the earliest time, and so on: ``before``'s order does not
    matter); the others take the event's."""
    kept: dict[str, list[tuple[int, str, int]]] = {}
    # Ordered by every field but the text, so that lines of one text and one
    # time come in the same order whichever way ``before`` was read.
    for text, _, pos, when, shared in sorted(before, key=lambda line: line[2:]):
        kept.setdefault(text, []).append((pos, when, shared))
    out: list[Line] = []
    for segment in segments:
        for text, sources in segment_lines(segment):
            earlier = kept.get(text)
            # A line kept keeps its mark too: its text is still the whole
            # text of the append at its position.
            pos, when, shared = earlier.pop(0) if earlier else (position, at, 0)
            out.append((text, sources, pos, when, shared))
    return out


def rows(agent: str, user: str, name: str, lines: Sequence[Line]) -> list[LineRow]:
    """The ``memory_lines`` rows of a file's lines."""
    scope = scope_token(agent, user)
    return [(agent, user, name, scope, text, sources, pos, when, shared)
            for text, sources, pos, when, shared in lines]


__all__ = ["Line", "LineRow", "appended", "file_stream", "rewritten", "rows", "scope_token",
           "segment_lines", "stream_of"]
