"""Kairos: an audited, event-sourced memory engine for AI agents.

The public API is :class:`Memory`; errors are in :mod:`kairos.errors`.
"""

from kairos.errors import (
    BadInput,
    Inconsistent,
    KairosError,
    NotAHome,
    NotFound,
    StoreUnavailable,
    VerificationFailed,
)
from kairos.memory import Memory, ReadResult, WriteResult

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
