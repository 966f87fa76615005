"""SQLite database files opened without writing anything to them.

Apart from :mod:`kairos.engine.sqlite` (which loads the event store's
library) so that a plain read (:mod:`kairos.engine.quickread`) can open the
home's database with the standard library's ``sqlite3`` alone, with the very
URI the full read-only open uses.
"""

from __future__ import annotations

import os
import urllib.parse

from kairos.errors import StorageReadOnly

# A WAL index (-shm) grows in 32 KiB regions: a shorter one is not in use
# (what a read-only open that could not extend it leaves on a full disk).
SHM_REGION = 32768


def wal_is_empty(path: str) -> bool:
    """No write-ahead log with content beside the database, and no WAL index
    in use: the whole database is in its main file."""
    def size(p: str) -> int:
        return os.path.getsize(p) if os.path.exists(p) else 0
    return size(path + "-wal") == 0 and size(path + "-shm") < SHM_REGION


def read_only_uri(path: str, *, immutable: bool = False) -> str:
    """An SQLite URI that opens the store at ``path`` without writing anything.

    A WAL database opened read-only needs its ``-shm`` file (the WAL index),
    or the right to create it.  So:

    * ``mode=ro`` when this process may write the directory or the ``-shm``
      exists: a home being written meanwhile is read consistently (the usual
      case, and ``verify`` under load);
    * ``immutable=1`` when it may not and there is no ``-shm`` (a copy for an
      auditor, a read-only mount): the whole database is in the main file,
      since no writer has it open (a writer would have made a ``-shm``);
    * neither, when a non-empty ``-wal`` is there without a ``-shm`` in a
      directory this process cannot write: its last writes are in the WAL
      and cannot be read without a WAL index, so refuse, saying why.

    ``immutable``: the second try of a caller whose ``mode=ro`` open failed
    while there was no usable ``-shm`` (it could not be made: a full disk) —
    see :func:`wal_is_empty`.

    :raises StorageReadOnly: in that last case.
    """
    directory = os.path.dirname(path) or "."
    wal, shm = path + "-wal", path + "-shm"
    quoted = urllib.parse.quote(path)
    if not immutable and (os.access(directory, os.W_OK) or os.path.exists(shm)):
        return f"file:{quoted}?mode=ro"
    if os.path.exists(wal) and os.path.getsize(wal) > 0:
        raise StorageReadOnly(
            f"cannot read {path} read-only: its last writes are in {wal}, which needs {shm} "
            "(absent) to be read, and the directory is not writable: copy the home with its "
            "-wal and -shm files, or open it once with write access")
    return f"file:{quoted}?immutable=1"
