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
    written_at: datetime  # when its newest source was recorded
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
    an operation failed, exit status 1."""
