"""Errors raised by the Kairos library.

Each error carries the process exit code the command line gives it, so the
CLI can turn any library error into a one-line message and the right status
without knowing the details: 2 for bad input (nothing was written), 1 for
"not found" and for failed verification.
"""

from __future__ import annotations


class KairosError(Exception):
    """Base class of every error Kairos raises on purpose."""

    exit_code = 1


class BadInput(KairosError):
    """The caller asked for something invalid; nothing was written."""

    exit_code = 2


class NotAHome(BadInput):
    """The directory given as the home holds no Kairos home."""


class NotFound(KairosError):
    """The thing asked for does not exist (an event id, a version, a dream)."""

    exit_code = 1


class VerificationFailed(KairosError):
    """History does not verify: a hash chain, a log entry or a checkpoint is off."""

    exit_code = 1


class StoreUnavailable(KairosError):
    """The event store cannot be reached or opened."""

    exit_code = 1


class Inconsistent(KairosError):
    """The store and the logs disagree in a way that needs an operator.

    For example the store is empty while the logs hold events (the database
    was lost: run ``kairos rebuild --from-logs``).
    """

    exit_code = 1
