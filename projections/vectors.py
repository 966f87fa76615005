"""Embeddings in the read model: the vector cache, the background job that
fills it, and cosine scoring of a pair's vectors.

Vectors are stored once per model and text (``memory_vectors``, keyed by
the model and the text's sha256), float32, so a text that comes back — a
line kept by a dream, a rebuild, the same note twice — is never embedded
again.  The cache is not part of what a rebuild drops.

Embedding is never on the write path.  :meth:`Vectors.catch_up` runs after
the follower's round (and before a rebuild returns): it embeds the
documents written since the model's position (``vec:<model hash>`` in
``memory_positions``) that have no vector yet, in batches, and moves the
position.  An embedder that fails (a timeout, an HTTP error) raises
:class:`~kairos.ports.EmbedderUnavailable`: the job stops and tries again
in a later round; nothing else waits for it.

Scoring is numpy: a pair's vectors (10,000 × 256 float32 is 10 MB) are
held in a per-process cache of matrices, extended with what was written
since, and multiplied by the query's vector.  :class:`Nearest` is the one
interface a vector extension (sqlite-vec, pgvector) would implement instead.
"""

from __future__ import annotations

import hashlib
import logging
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from sqlalchemy import Engine, and_, select, text

from kairos.ports import (
    Doc,
    Embedder,
    EmbedderUnavailable,
    SearchScope,
    distinct_texts,
    first_texts,
)
from kairos.projections.lines import stream_of
from kairos.projections.schema import lines_table, positions, vectors_table
from kairos.projections.search import SearchQueries, applied

log = logging.getLogger("kairos")
PAGE = 512  # documents read, checked against the cache and embedded per step
EMBED_NOW = 512  # a search embeds at most this many of its pair's missing documents itself
SCOPES_CACHED = 16  # pairs whose matrices a process keeps


def digest(text_: str) -> str:
    return hashlib.sha256(text_.encode("utf-8")).hexdigest()[:32]


def position_name(model: str) -> str:
    return "vec:" + hashlib.sha256(model.encode("utf-8")).hexdigest()[:24]


def to_bytes(vector: Any) -> bytes:
    import numpy as np

    return bytes(np.asarray(vector, dtype=np.float32).tobytes())


class Vectors:
    """The vector cache of one read model."""

    def __init__(self, engine: Engine, queries: SearchQueries, *, read_only: bool = False,
                 digest: Callable[[str], str] = digest):
        self.engine = engine
        self.queries = queries
        # What names a text's vector: keyed in a home that encrypts
        # (:meth:`kairos.ports.Seal.digest`), so a copy of the database
        # cannot confirm a guessed text by its digest.
        self.digest = digest
        self.read_only = read_only  # vectors made are kept in memory only
        self._matrices: OrderedDict[tuple[SearchScope, str], _Matrix] = OrderedDict()
        self._lock = threading.Lock()

    # -- the cache ----------------------------------------------------------------------
    def get(self, model: str, digests: Iterable[str]) -> dict[str, Any]:
        import numpy as np

        wanted = list(dict.fromkeys(digests))
        out: dict[str, Any] = {}
        t = vectors_table.c
        with self.engine.connect() as conn:
            for i in range(0, len(wanted), 500):
                for r in conn.execute(select(t.digest, t.vector).where(
                        (t.model == model) & t.digest.in_(wanted[i:i + 500]))):
                    out[r.digest] = np.frombuffer(r.vector, dtype=np.float32)
        return out

    def put(self, model: str, items: dict[str, Any]) -> None:
        """Store vectors (by digest); one another thread or process stored
        meanwhile is left as it is (the same text gives the same vector).
        A read-only open stores nothing: a search there still embeds what
        it lacks and keeps it in this process's matrices."""
        if not items or self.read_only:
            return
        if self.engine.dialect.name == "sqlite":
            from sqlalchemy.dialects.sqlite import insert as upsert
        else:
            from sqlalchemy.dialects.postgresql import insert as upsert  # type: ignore[assignment]
        rows = [{"model": model, "digest": d, "vector": to_bytes(v)} for d, v in items.items()]
        with self.engine.begin() as conn:
            conn.execute(upsert(vectors_table).on_conflict_do_nothing(), rows)

    def embed_missing(self, embedder: Embedder, texts: Sequence[str],
                      batch: int = 64) -> tuple[dict[str, Any], int]:
        """Vectors for texts, from the cache or the embedder (stored as made),
        and how many the embedder made.

        :raises EmbedderUnavailable: the embedder failed (what was made before
            it did is stored).
        """
        by_digest = {self.digest(t): t for t in texts}
        found = self.get(embedder.model, by_digest)
        missing = [d for d in by_digest if d not in found]
        for i in range(0, len(missing), batch):
            chunk = missing[i:i + batch]
            made = embedder.embed([by_digest[d] for d in chunk])
            fresh = dict(zip(chunk, made, strict=True))
            self.put(embedder.model, fresh)
            found.update(fresh)
        return found, len(missing)

    # -- the background job -------------------------------------------------------------------
    def position(self, model: str) -> int:
        with self.engine.connect() as conn:
            value = conn.scalar(select(positions.c.position).where(
                positions.c.name == position_name(model)))
        return int(value or 0)

    def set_position(self, model: str, to: int) -> None:
        name = position_name(model)
        with self.engine.begin() as conn:
            moved = conn.execute(positions.update().where(positions.c.name == name)
                                 .values(position=to)).rowcount
            if not moved:
                conn.execute(positions.insert().values(name=name, position=to))

    def kept_positions(self) -> dict[str, int]:
        """Every model's position (kept across a rebuild by the caller)."""
        with self.engine.connect() as conn:
            rows = conn.execute(select(positions.c.name, positions.c.position).where(
                positions.c.name.like("vec:%"))).all()
        return {r.name: int(r.position) for r in rows}

    def restore_positions(self, kept: dict[str, int], upto: int) -> None:
        """After a rebuild: the documents derived again are the same texts as
        before, so what was embedded up to a position still is."""
        with self.engine.begin() as conn:
            for name, pos in kept.items():
                conn.execute(positions.delete().where(positions.c.name == name))
                conn.execute(positions.insert().values(name=name, position=min(pos, upto)))

    def clear(self, digest: Callable[[str], str]) -> int:
        """Forget every vector, and name them by ``digest`` from now on (a
        rotated master key, which keys the digests): the background job
        embeds everything again.  Returns how many were dropped."""
        with self._lock, self.engine.begin() as conn:
            dropped = conn.execute(vectors_table.delete()).rowcount
            conn.execute(positions.delete().where(positions.c.name.like("vec:%")))
            self._matrices.clear()
            self.digest = digest
        return int(dropped)

    def catch_up(self, embedder: Embedder, upto: int,
                 stop: Callable[[], bool] = lambda: False) -> int:
        """Embed every document written after the model's position, up to
        ``upto``, that has no vector yet; return how many were embedded.

        :raises EmbedderUnavailable: the embedder failed (the position stays
            where the last complete step left it).
        """
        at = self.position(embedder.model)
        made = 0
        while at < upto and not stop():
            with self.engine.connect() as conn:
                rows = conn.execute(text(
                    "SELECT position, text, stream_id FROM memory_index WHERE position > :at "
                    "AND position <= :upto AND type IN ('MemoryWritten', 'SessionEnded') "
                    "AND text IS NOT NULL AND retracted_by IS NULL "
                    "ORDER BY position LIMIT :page"),
                    {"at": at, "upto": upto, "page": PAGE}).all()
                last = int(rows[-1].position) if len(rows) == PAGE else upto
                lines = conn.execute(select(lines_table.c.text, lines_table.c.scope).where(
                    and_(lines_table.c.position > at, lines_table.c.position <= last))).all()
            texts = [r[1] for r in rows] + [r[0] for r in lines]
            sealing = self.queries.sealing
            if sealing is not None:  # a sealed read model: its texts opened
                opened = [sealing.open(r[1], stream_of(r[2])) for r in rows] + [
                    sealing.open(r[0], stream_of(r[1])) for r in lines]
                texts = [t for t in opened if t is not None]
            made += self.embed_missing(embedder, texts)[1]
            self.set_position(embedder.model, last)
            at = last
        return made

    # -- scoring ------------------------------------------------------------------------------
    def nearest(self, scope: SearchScope, embedder: Embedder, vector: Any,
                depth: int) -> tuple[list[Doc], int]:
        """See :meth:`kairos.ports.SearchIndex.nearest`."""
        import numpy as np

        with self._lock:
            key = (scope, embedder.model)
            matrix = self._matrices.pop(key, None) or _Matrix()
            self._matrices[key] = matrix
            while len(self._matrices) > SCOPES_CACHED:
                self._matrices.popitem(last=False)
        with matrix.lock:
            # Nothing was applied since this scope was last scored, and no
            # rebuild made the tables again: its history and lines are as
            # they were (no query for either, no vector to look up).
            seen = self._applied()
            if seen[1] != matrix.seen[1]:  # rebuilt: history rows may say otherwise now
                matrix.reset()
            if seen != matrix.seen:
                news = self.queries.history(scope, after=matrix.upto)
                if news:
                    matrix.upto = max(d.position for d in news)
                matrix.pending.extend(news)
                lines = self.queries.lines(scope)
                matrix.set_lines(lines, [self.digest(d.text) for d in lines])
                matrix.seen = seen
            if matrix.missing:
                self._complete(matrix, embedder)
            keys = list(matrix.keys)
            history = matrix.stacked() if keys else None
            line_keys, line_array, missing = matrix.line_keys, matrix.line_array, matrix.missing
        query = np.asarray(vector, dtype=np.float32)
        # einsum, not ``@``: a matrix-vector product through a threaded BLAS
        # costs 4-8 times more on a busy 2-core machine (6-13 ms against
        # 1.3 ms for 10,000 x 256), its threads fighting the process's own.
        parts = [np.einsum("ij,j->i", history, query)] if history is not None else []
        if line_keys:
            keys += line_keys
            parts.append(np.einsum("ij,j->i", line_array, query))
        if not keys:
            return [], missing
        scores = np.concatenate(parts)  # the scores, not the matrix: no copy of 10 MB
        top = min(len(scores), 10 * depth)  # the best, found without sorting them all
        best = np.argpartition(-scores, top - 1)[:top] if top < len(scores) else np.arange(top)
        order = best[np.argsort(-scores[best], kind="stable")]
        out: list[Doc] = []
        for start in range(0, len(order), depth):  # best first until enough pass the scope
            picked = {keys[i]: float(scores[i]) for i in order[start:start + depth]}
            found = self.queries.docs(scope, picked, picked)
            out += [found[k] for k in picked if k in found]
            if distinct_texts(out) >= depth or start >= 8 * depth:
                break
        return first_texts(out, depth), missing

    def _complete(self, matrix: _Matrix, embedder: Embedder) -> None:
        """Give a scope's matrix the vectors it lacks: from the cache, or
        made now when there are few (:data:`EMBED_NOW`); history that has
        one joins the matrix, and the lines are stacked again."""
        import numpy as np

        lines = matrix.lines
        wanted = [(d, h) for d, h in [*((d, self.digest(d.text)) for d in matrix.pending),
                                      *zip(lines, matrix.line_digests, strict=True)]
                  if h not in matrix.known]
        vectors = self.get(embedder.model, (h for _, h in wanted))
        absent = [d for d, h in wanted if h not in vectors]
        if absent and len(absent) <= EMBED_NOW:
            try:
                vectors.update(self.embed_missing(embedder, [d.text for d in absent])[0])
            except EmbedderUnavailable:
                pass
        matrix.known.update(vectors)
        still: list[Doc] = []
        for d in matrix.pending:
            v = matrix.known.get(self.digest(d.text))  # a line may have the same text
            if v is None:
                still.append(d)
            else:
                matrix.add(d.key, v)
        matrix.pending = still
        held = [(d.key, h) for d, h in zip(lines, matrix.line_digests, strict=True)
                if h in matrix.known]
        matrix.line_keys = [k for k, _ in held]
        matrix.line_array = np.stack([matrix.known[h] for _, h in held]) if held else None
        matrix.known = {h: matrix.known[h] for _, h in held}  # history's are in the matrix
        matrix.missing = len(still) + len(lines) - len(held)

    def _applied(self) -> tuple[int, int]:
        with self.engine.connect() as conn:
            return applied(conn)


class _Matrix:
    """A scope's history vectors, grown as it is written."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.reset()

    def reset(self) -> None:
        """Forget everything but the lock (the read model was rebuilt)."""
        self.upto = 0
        self.seen = (-1, -1)  # the read model's position and generation when last read
        self.lines: list[Doc] = []
        self.line_digests: list[str] = []
        self.line_keys: list[int] = []  # the lines that have a vector, and the vectors
        self.line_array: Any = None
        self.known: dict[str, Any] = {}  # vectors of the lines, and of history not yet added
        self.keys: list[int] = []
        self.pending: list[Doc] = []
        self.missing = 0  # documents without a vector (looked for again at each search)
        self._array: Any = None

    def set_lines(self, lines: list[Doc], digests: list[str]) -> None:
        """The scope's current lines changed: their vectors are looked up again."""
        self.lines = lines
        self.line_digests = digests
        self.line_keys, self.line_array = [], None  # stacked again by the next search
        self.missing = len(lines) + len(self.pending)

    def add(self, key: int, vector: Any) -> None:
        """Append a row (the array grows by doubling, so a pair's matrix is
        copied O(log n) times, not on every write)."""
        import numpy as np

        n = len(self.keys)
        if self._array is None:
            self._array = np.empty((64, len(vector)), dtype=np.float32)
        elif n == len(self._array):
            grown = np.empty((2 * n, self._array.shape[1]), dtype=np.float32)
            grown[:n] = self._array
            self._array = grown
        self._array[n] = vector
        self.keys.append(key)

    def stacked(self) -> Any:
        return self._array[:len(self.keys)]


__all__ = ["Vectors", "digest", "position_name"]
