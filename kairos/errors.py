"""Errors raised by the Kairos library: every one a :class:`KairosError`.

Each error carries the process exit code the command line gives it, so the
CLI turns any library error into a one-line message and the right status
without knowing the details.  One rule everywhere:

* **2** — bad input or usage: the caller asked for something invalid or that
  does not exist (an unknown id, version or dream); nothing was written;
* **1** — a check failed (verification, a checkpoint, a guard) or an
  operation failed (the store unreachable, a distiller's answer unusable);
* **0** — ok.
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


class NotFound(BadInput):
    """The thing asked for does not exist (an event id, a version, a dream)."""


class MemoryClosed(BadInput):
    """The :class:`~kairos.memory.Memory` was closed: open another."""


class VerificationFailed(KairosError):
    """History does not verify: a hash chain, a log entry or a checkpoint is off."""


class StoreUnavailable(KairosError):
    """The event store cannot be reached or opened."""


class Inconsistent(KairosError):
    """The store and the logs disagree in a way that needs an operator.

    For example the store is empty while the logs hold events (the database
    was lost: run ``kairos rebuild --from-logs``).
    """


class TooManyWriters(KairosError):
    """A command lost the race for its stream's next version too many times."""


class ReadSideFailed(KairosError):
    """The background follower failed to bring the read side up to date."""


class FollowerStopped(KairosError):
    """The follower was stopped and does not restart."""
