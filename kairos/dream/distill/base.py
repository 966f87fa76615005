"""What a distiller sees and what it returns."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Protocol

from kairos.errors import KairosError


@dataclass(frozen=True)
class Line:
    """One line of a current file, with the events it came from."""

    text: str
    sources: tuple[str, ...]
    first_at: datetime  # when its oldest source was recorded


@dataclass(frozen=True)
class Signal:
    """An event since the last dream's cutoff, as the distiller sees it."""

    event_id: str
    type: str
    time: datetime
    file: str | None
    text: str | None
    retracts: tuple[str, ...] = ()


@dataclass(frozen=True)
class Source:
    """A live (not retracted) write or session note of the pair: what a line
    may cite, and what the rules derive the files from each night."""

    event_id: str
    type: str
    time: datetime
    file: str | None
    text: str
    version: int  # its place in the pair's stream


@dataclass(frozen=True)
class Context:
    agent: str
    user: str
    now: datetime
    cutoff: int  # the stream version the dream distils up to
    files: dict[str, list[Line]]  # MEMORY.md, USER.md and topic files, current lines
    signals: list[Signal]  # writes, retractions and sessions since the last cutoff
    event_times: dict[str, datetime]  # every event id of this pair's stream -> time
    limits: dict[str, int]
    ttl_days: int
    # What the rules derive from and the guards check against (optional, so a
    # test can build a small context by hand):
    sources: dict[str, Source] = field(default_factory=dict)  # live writes and notes by id
    raw: dict[str, list[str]] = field(default_factory=dict)  # file -> raw writes in it, in order
    retracted: frozenset[str] = frozenset()  # every retracted event id of the pair
    timezone: str | None = None  # the user's IANA timezone (None: UTC)
    names: frozenset[str] = frozenset()  # the user's own names ("mia"), lower case


@dataclass
class Draft:
    """A distiller's answer: lines per file as (text, sources)."""

    files: dict[str, list[tuple[str, list[str]]]]
    dropped: list[dict[str, Any]] = field(default_factory=list)
    report: dict[str, Any] = field(default_factory=dict)
    model: str | None = None
    usage: dict[str, Any] = field(default_factory=lambda: {
        "prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0, "cost": 0.0})


class Distiller(Protocol):
    name: str

    def distil(self, context: Context) -> Draft: ...


class DistillerFailed(KairosError):
    """The distiller could not produce a usable draft (bad output, timeout…):
    an operation failed, exit status 1.

    ``usage`` holds what the model call cost when it answered (a malformed
    answer still costs its tokens), else zeros.
    """

    def __init__(self, message: str, *, usage: dict[str, Any] | None = None, model: str | None = None):
        super().__init__(message)
        self.usage: dict[str, Any] = dict(usage or {})
        self.model = model
        self.distiller: str | None = None
