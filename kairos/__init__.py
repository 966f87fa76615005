"""Kairos: an audited, event-sourced memory engine for AI agents.

The public API is :class:`Memory`; errors are in :mod:`kairos.errors`.

``Memory`` and its results are imported on first use (PEP 562): the event
store's libraries (SQLAlchemy, eventsourcing) take most of a second to load,
and ``kairos --version``, ``kairos --help`` or a program that only catches
Kairos errors should not pay for them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from kairos.errors import (
    BadInput,
    Inconsistent,
    KairosError,
    NotAHome,
    NotFound,
    StoreUnavailable,
    VerificationFailed,
)

if TYPE_CHECKING:
    from kairos.memory import Memory, ReadResult, WriteResult

__version__ = "0.1.0"  # the package's version (pyproject.toml reads it from here)

__all__ = [
    "BadInput",
    "Inconsistent",
    "KairosError",
    "Memory",
    "NotAHome",
    "NotFound",
    "ReadResult",
    "StoreUnavailable",
    "VerificationFailed",
    "WriteResult",
]


def __getattr__(name: str) -> Any:
    if name in ("Memory", "ReadResult", "WriteResult"):
        from kairos import memory

        return getattr(memory, name)
    raise AttributeError(f"module 'kairos' has no attribute {name!r}")
