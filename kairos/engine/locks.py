"""The one file-lock helper: an exclusive ``flock`` on a file of the home.

Three locks use it: the writers' lock (``.kairos.lock``, blocking: one
writer of a home at a time), the files lock (``memory/.lock``, blocking: one
process writes the materialized files at a time) and the dream lock
(``.kairos-dream.lock``, not blocking: a second nightly run says so and
leaves).  The kernel releases a ``flock`` when its process dies, so a crashed
process never blocks the next.  ``flock`` locks belong to the open file, so
two threads of one process exclude each other as two processes do.
"""

from __future__ import annotations

import fcntl
import os
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager

from kairos.errors import storage_error


@contextmanager
def file_lock(path: str, *, wait: bool = True) -> Iterator[bool]:
    """Hold an exclusive lock on ``path`` (created if missing) for the block.

    Yields True when the lock is held; with ``wait=False``, yields False at
    once when another holder has it (and holds nothing).
    """
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as e:
        raise storage_error(e, path) from e
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX if wait else fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            yield False
            return
        try:
            yield True
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


def writer_lock(home: str) -> AbstractContextManager[bool]:
    """The home's writers' lock (blocking)."""
    return file_lock(os.path.join(home, ".kairos.lock"))


def dream_lock(home: str) -> AbstractContextManager[bool]:
    """The home's nightly-run lock (not blocking: yields whether it is ours)."""
    return file_lock(os.path.join(home, ".kairos-dream.lock"), wait=False)


@contextmanager
def shared_lock_if_present(path: str) -> Iterator[bool]:
    """Hold ``path``'s lock shared, for a moment's consistent look at what
    its holders write — without creating the file, and without write access
    (``flock`` needs neither): a read-only open must leave no trace.  Yields
    False, holding nothing, when the file is absent or cannot be opened
    (then no writer can be running in this home, or none this process can
    see)."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        yield False
        return
    try:
        fcntl.flock(fd, fcntl.LOCK_SH)
        try:
            yield True
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)
