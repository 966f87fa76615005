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

import errno
import functools
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar


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


class AccessDenied(KairosError):
    """The server refused the request's key (401) or its scope (403)."""


class VerificationFailed(KairosError):
    """History does not verify: a hash chain, a log entry or a checkpoint is off."""


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


class StorageFailed(KairosError):
    """Storage refused an operation: the disk is full or read-only, permission
    is missing, or the database cannot be reached.  The message names the
    path or URL and the cause; nothing acknowledged was lost, and the home
    works again once the cause is removed."""


class StorageFull(StorageFailed):
    """No space left on the device (ENOSPC, SQLite "database or disk is full")."""


class StorageReadOnly(StorageFailed):
    """The file system or database is read-only (EROFS, SQLite readonly)."""


class StoragePermission(StorageFailed):
    """Permission denied (EACCES, EPERM)."""


class StoreUnavailable(StorageFailed):
    """The event store cannot be reached or opened (PostgreSQL down, the
    SQLite file missing or unreadable)."""


class WriteIncomplete(KairosError):
    """The event WAS saved in the store, but its log entry could not be
    appended.  The next write or open completes the log; a retry with the
    same idempotency key returns this event instead of writing it twice."""

    def __init__(self, message: str, event_id: str, position: int):
        super().__init__(message)
        self.event_id = event_id
        self.position = position


class ClockOutOfRange(KairosError):
    """The system clock reads a time outside 1970–9999: nothing is written."""


class MissingExtra(BadInput):
    """A feature needs an optional extra that is not installed."""


# -- translation at the adapter boundary ------------------------------------------
# Each adapter (store, read model, logs, files, locks) turns what its storage
# raised into one of the errors above, naming its path or URL; nothing below
# the facade lets a raw OSError or driver error out.
_FULL = ("database or disk is full", "no space left", "disk full", "could not extend file")
_READ_ONLY = ("readonly database", "read-only file system", "read only file system",
              "read-only transaction")
_PERMISSION = ("permission denied", "operation not permitted", "unable to open database file")
_CAUSES = {
    errno.ENOSPC: (StorageFull, "no space left on the device"),
    errno.EDQUOT: (StorageFull, "disk quota exceeded"),
    errno.EROFS: (StorageReadOnly, "the file system is read-only"),
    errno.EACCES: (StoragePermission, "permission denied"),
    errno.EPERM: (StoragePermission, "operation not permitted"),
}


def a_kind(kind: str) -> str:
    """A kind named in a message with its article: "a string", "an integer"."""
    return f"{'an' if kind[:1] in 'aeiou' else 'a'} {kind}"


def one_line(e: BaseException) -> str:
    """An exception's message on one line (driver messages span several)."""
    return " ".join(str(e).split()) or type(e).__name__


def storage_error(e: BaseException, where: str) -> KairosError:
    """The Kairos error for what storage at ``where`` (a path or a URL without
    its password) raised: an OSError by its errno, a database error by its
    message, anything else as the store being unavailable."""
    if isinstance(e, KairosError):
        return e
    if isinstance(e, OSError) and e.errno in _CAUSES:
        cls, cause = _CAUSES[e.errno]
        path = e.filename or where
        return cls(f"cannot write {path}: {cause}" if cls is not StoragePermission
                   else f"cannot access {path}: {cause}")
    text = one_line(e)
    low = text.lower()
    if any(s in low for s in _FULL):
        return StorageFull(f"cannot write {where}: the disk is full ({text})")
    if any(s in low for s in _READ_ONLY):
        return StorageReadOnly(f"cannot write {where}: it is read-only ({text})")
    if "unable to open database file" in low:
        return StoragePermission(f"cannot open {where}: missing, or no permission ({text})")
    if any(s in low for s in _PERMISSION):
        return StoragePermission(f"cannot access {where}: {text}")
    if isinstance(e, OSError):
        return StorageFailed(f"{e.filename or where}: {text}")
    return StoreUnavailable(f"the event store at {where} is unreachable or failed: {text}")


@contextmanager
def on_disk(where: str = "the home") -> Iterator[None]:
    """Turn an OSError raised in the block into a :class:`StorageFailed`
    naming the file (or ``where``) and the cause."""
    try:
        yield
    except OSError as e:
        raise storage_error(e, where) from e


F = TypeVar("F", bound=Callable[..., Any])


def disk_errors(fn: F) -> F:
    """A function whose OSErrors become :class:`StorageFailed` naming the
    file (else the folder of the adapter it is a method of: its ``root``)."""
    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except OSError as e:
            where = getattr(args[0], "root", None) if args else None
            raise storage_error(e, where if isinstance(where, str) else "the home") from e
    return wrapper  # type: ignore[return-value]
