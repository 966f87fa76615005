"""The interfaces the services depend on, and the rows they exchange.

The dream, audit and agent services never touch the store, the read model
or SQL: each gets, in its constructor, the few of these protocols it needs,
built once by :class:`kairos.memory.Memory`.  The write path implements them
(:class:`kairos.engine.engine.Engine` is :class:`Commands`, its store is
:class:`History`, its fresh read model is :class:`Index`), and ``Memory``
itself is :class:`MemoryFiles`.  So the import graph (checked by
import-linter) and the type checker both see every dependency a service has.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from contextlib import AbstractContextManager
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any, Protocol, TypedDict, TypeVar
from uuid import UUID

if TYPE_CHECKING:  # in annotations only: the rows and results load without eventsourcing
    from kairos.domain.events import DomainEvent, MemoryStream, Recorded

T = TypeVar("T")


# -- rows -------------------------------------------------------------------------
class IndexRow(TypedDict):
    """One event in the event index (``memory_index``)."""

    position: int
    event_id: str
    stream_id: str
    version: int
    type: str
    agent_id: str
    user_id: str | None
    file: str | None
    actor: str | None  # the writer, or a dream's reviewer
    session_id: str | None
    recorded_at: str
    text: str | None
    retracted_by: str | None
    log_file: str | None
    log_line: int | None
    ref: str | None  # the dream a decision is about


@dataclass(frozen=True)
class FileRow:
    """A current memory file in the read model (``memory_files``)."""

    agent: str
    user: str | None
    file: str
    content: str
    segments: list[list[Any]]
    version: int
    position: int
    updated_at: str


@dataclass(frozen=True)
class WriteResult:
    """What a write, retraction or session end recorded."""

    event_id: str
    position: int
    type: str
    agent: str
    user: str | None
    file: str | None
    size: int | None = None
    limit: int | None = None
    over_limit: bool = False

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class ReadResult:
    """A memory file as read. ``content`` is None when the file does not exist;
    ``size`` counts its characters but the final newline (what limits count)."""

    agent: str
    user: str | None
    file: str
    content: str | None
    size: int
    limit: int
    hard_limit: bool
    version: int | None = None
    as_of: str | None = None

    @property
    def exists(self) -> bool:
        return self.content is not None

    @property
    def over_limit(self) -> bool:
        return self.size > self.limit

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "exists": self.exists, "over_limit": self.over_limit}


# -- search -----------------------------------------------------------------------------
@dataclass(frozen=True)
class SearchScope:
    """What a search may see: the agent's own files and history, and, with a
    user, that one pair's.  Every query puts it in SQL before it runs.
    ``include_retracted`` is the auditor's view (``kairos search
    --include-retracted``); nothing an agent calls sets it."""

    agent: str
    user: str | None = None
    file: str | None = None
    since: str | None = None
    include_retracted: bool = False


@dataclass(frozen=True)
class Doc:
    """A searchable document: a current line (``key`` < 0, minus its row id)
    or a history entry (``key`` > 0, its event's position)."""

    key: int
    text: str
    file: str | None
    kind: str  # "current" or "history"
    recorded_at: str
    position: int  # of the event that wrote it (a line: that put it in the file)
    event_ids: tuple[str, ...]
    score: float = 0.0  # the ranking's own score (only its order means anything)
    type: str | None = None  # a history entry's event type
    retracted: bool = False


@dataclass(frozen=True)
class SearchHit:
    """One search result.

    ``where`` is ``current`` (a line of a current file), ``topic`` (a line of
    a current topic file) or ``history`` (a raw write or a session's notes,
    whether or not it is still in a file).  ``text`` is the line, or a
    snippet of a long history entry.  ``score`` is the fused reciprocal-rank
    score (higher is better; comparable within one search only).
    ``retracted`` is set only in the auditor's view.
    """

    text: str
    file: str | None
    where: str
    recorded_at: str
    event_ids: tuple[str, ...]
    score: float
    retracted: bool | None = None

    def to_dict(self) -> dict[str, Any]:
        out = {"text": self.text, "file": self.file, "where": self.where,
               "recorded_at": self.recorded_at, "event_ids": list(self.event_ids),
               "score": round(self.score, 6)}
        if self.retracted is not None:
            out["retracted"] = self.retracted
        return out


@dataclass(frozen=True)
class SearchResult:
    """A search's hits, best first, and how they were found: ``mode`` is
    ``hybrid`` (words and meaning) or ``lexical``; ``note`` says why a
    search that should have been hybrid was not, or what it could not use."""

    query: str
    hits: list[SearchHit]
    mode: str
    note: str | None = None

    def __iter__(self) -> Iterator[SearchHit]:
        return iter(self.hits)

    def __len__(self) -> int:
        return len(self.hits)

    def __getitem__(self, i: int) -> SearchHit:
        return self.hits[i]

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"query": self.query, "mode": self.mode,
                               "results": [h.to_dict() for h in self.hits]}
        if self.note:
            out["note"] = self.note
        return out


class EmbedderUnavailable(Exception):
    """An embedder failed (timeout, HTTP error, not installed) or is resting
    after a failure: the caller falls back to lexical search."""


class Embedder(Protocol):
    """Turns texts into unit vectors (float32), one per text, in order.

    ``model`` names the model (the vector cache's key: vectors of different
    models never mix).  :raises EmbedderUnavailable: when it cannot.
    """

    @property
    def model(self) -> str: ...

    def embed(self, texts: list[str]) -> Any: ...  # a (len(texts), dims) float32 array


def text_key(text: str) -> str:
    """What makes two documents the same text for search: case and spacing aside."""
    return " ".join(text.casefold().split())


def first_texts(docs: list[Doc], depth: int) -> list[Doc]:
    """``docs`` (best first) up to their ``depth``-th distinct text (:func:`text_key`)."""
    seen: set[str] = set()
    out: list[Doc] = []
    for d in docs:
        key = text_key(d.text)
        if key not in seen:
            if len(seen) == depth:
                continue
            seen.add(key)
        out.append(d)
    return out


def distinct_texts(docs: Iterable[Doc]) -> int:
    return len({text_key(d.text) for d in docs})


class SearchIndex(Protocol):
    """The search index of the read model, brought up to every acknowledged
    write before each query.  Every method selects within ``scope`` in SQL.

    ``depth`` counts distinct texts (:func:`first_texts`): the documents of
    one text (a line and the write it came from, a fact written again and
    again) all come back but count once, so a repeated text cannot crowd
    the others out of a ranking."""

    def now(self) -> SearchIndex:
        """This index brought up to every acknowledged write once, its
        queries then asking no more: the several queries of one search pay
        for one look at the store, not one each."""
        ...

    def lexical(self, scope: SearchScope, words: list[str], depth: int, *,
                prefix: bool = True) -> list[Doc]:
        """The scope's best documents for the words, best first; each word
        also as a prefix (four letters or more) unless ``prefix`` is False
        (a list of words that already holds their forms)."""
        ...

    def substring(self, scope: SearchScope, words: list[str], depth: int) -> list[Doc]: ...

    def lines(self, scope: SearchScope) -> list[Doc]: ...

    def docs(self, scope: SearchScope, keys: Iterable[int]) -> dict[int, Doc]: ...

    def nearest(self, scope: SearchScope, embedder: Embedder, vector: Any,
                depth: int) -> tuple[list[Doc], int]:
        """The scope's documents closest to ``vector`` (cosine), best first,
        and how many of its documents have no vector yet."""
        ...


# -- protocols ----------------------------------------------------------------------
class Commands(Protocol):
    """Runs a command on a stream: load it, call ``command(stream)``, save,
    under the home's writer lock, reloading and calling again when another
    writer took the version first.  Returns the last event recorded and what
    the command returned; an exception from the command records nothing."""

    def execute(self, agent: str, user: str | None,
                command: Callable[[MemoryStream], T]) -> tuple[Recorded, T]: ...


# Decrypts an event recorded at a position, in a home that encrypts (see
# kairos.engine.engine.DecryptedHistory): what an erasure took stays out.
Decrypter = Callable[["DomainEvent", int], "DomainEvent"]


class Seal(Protocol):
    """How the read model keeps a stream's text at rest in a home that
    encrypts (:class:`kairos.engine.keyring.Sealer`): sealed under a key of
    the stream's, deterministically, and opened on the way out."""

    def seal(self, text: str, stream: UUID) -> str:
        """The text sealed; itself when empty or when the stream has no key."""
        ...

    def open(self, value: str, stream: UUID) -> str | None:
        """A stored value opened (a value that is not sealed, as it is);
        None when its key is gone (erased)."""
        ...

    def digest(self, text: str) -> str:
        """What names a text's embedding: keyed, 32 hex digits."""
        ...


class History(Protocol):
    """The event store, read: the global order and the streams."""

    def read(self, after: int = 0, upto: int | None = None) -> Iterator[Recorded]: ...

    def stream(self, stream_id: UUID, upto_version: int | None = None) -> list[DomainEvent]: ...

    def max_position(self) -> int: ...


class Index(Protocol):
    """The read model, brought up to every acknowledged write before each query."""

    def event(self, event_id: str) -> IndexRow | None: ...

    def events(self, *, agent: str | None = None, user: str | None = None,
               pair_only: bool = False, file: str | None = None,
               types: Iterable[str] | None = None, stream_id: str | None = None,
               until: str | None = None, since: str | None = None, actor: str | None = None,
               session: str | None = None, grep: str | None = None,
               limit: int | None = None) -> list[IndexRow]: ...

    def file(self, agent: str, user: str | None, name: str) -> FileRow | None: ...

    def files_of(self, agent: str, user: str | None) -> list[FileRow]: ...

    def pairs(self) -> list[tuple[str, str]]: ...

    def stream_version_at(self, agent: str, user: str | None, until: str) -> int: ...


class MemoryFiles(Protocol):
    """The memory files as an agent sees them: read, write, retract, search
    (what :class:`kairos.memory.Memory` offers, with its checks)."""

    def read(self, agent: str, file: str, *, user: str | None = None,
             as_of: str | None = None) -> ReadResult: ...

    def write(self, agent: str, file: str, text: str | bytes, *, user: str | None = None,
              mode: str = "append", actor: str = "agent", session: str | None = None,
              idempotency_key: str | None = None) -> WriteResult: ...

    def retract(self, agent: str, file: str, event_ids: list[str], *, reason: str,
                user: str | None = None, actor: str = "user",
                session: str | None = None) -> WriteResult: ...

    def search(self, agent: str, query: str, *, user: str | None = None,
               limit: int = 10) -> SearchResult: ...


class Prompts(Protocol):
    """The system prompt an agent was given (for the audit: what it knew when)."""

    def prompt(self, agent: str, user: str | None, *, as_of: str | None = None) -> str: ...


# A lock for the nightly run: yields whether this process got it (not blocking).
RunLock = Callable[[], AbstractContextManager[bool]]
