"""Materialized memory files in the home, for people and tools that read files.

``memory/<agent>/SOUL.md`` and ``memory/<agent>/users/<user>/MEMORY.md``.
Each file is replaced atomically (write a temporary file, rename), so a
reader sees the old text or the new, never half of one; a file whose text
became empty is removed (an absent file and an empty one are the same thing).

These files are a convenience: the read model is what Kairos itself reads.
A home that encrypts (``[privacy] encrypt = true``) keeps none: they would
be its memory in clear beside the encrypted events (``enabled=False``: every
flush removes what an earlier, unencrypted life of the home left).
So the files are written *after* a write returns, by a background thread,
and tracked by a position of their own (``memory/.position``): every file
changed by an event at or below it is on disk.  A process that dies before its files are written leaves the
position behind, and the next open (or any later flush, by any process)
writes what is missing from the read model.  ``Memory.close`` and
``Memory.flush`` return only once the files are current.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from typing import Protocol

from kairos.errors import disk_errors

POSITION = ".position"


class ChangedFiles(Protocol):
    """What the materializer reads of the read model."""

    def changed_files(self, after: int) -> tuple[int, list[tuple[str, str | None, str, str]]]:
        ...


def file_path(home: str, agent: str, user: str | None, name: str) -> str:
    base = os.path.join(home, "memory", agent)
    if user is not None:
        base = os.path.join(base, "users", user)
    return os.path.join(base, name)


def write_file(path: str, content: str) -> None:
    """Atomically set ``path`` to ``content``; remove it when ``content`` is empty.

    Callers hold the files lock (:meth:`Materializer.locked`), so one fixed
    temporary name per file is enough.  The file is not fsynced: it is
    derived, and the files position or ``kairos rebuild`` re-derives it; the
    event store and the logs are what must be durable, and they are.
    """
    if not content:
        if os.path.exists(path):
            os.unlink(path)
        return
    directory, name = os.path.split(path)
    tmp = os.path.join(directory, f".tmp-{name}")
    try:
        f = open(tmp, "wb")
    except FileNotFoundError:
        os.makedirs(directory, exist_ok=True)
        f = open(tmp, "wb")
    with f:
        f.write(content.encode("utf-8"))
    os.replace(tmp, path)


def read_file(path: str) -> str | None:
    try:
        with open(path, "rb") as f:
            return f.read().decode("utf-8")
    except FileNotFoundError:
        return None


def existing_files(home: str) -> list[str]:
    """Every materialized file under ``memory/``, as paths relative to the home."""
    root = os.path.join(home, "memory")
    found = []
    for dirpath, _dirs, names in os.walk(root):
        for name in names:
            if name.endswith(".md") and not name.startswith(".tmp-"):
                found.append(os.path.relpath(os.path.join(dirpath, name), home))
    return sorted(found)


class Materializer:
    """Keeps ``memory/`` in step with the read model.

    Every flush, in any process, takes the files lock, reads the read model's
    position and every file changed after the files position, writes them,
    and moves the position: the newest text always lands last, whichever
    process writes it.  The engine's background thread
    (:class:`kairos.engine.follower.Follower`) flushes shortly after each write.
    """

    def __init__(self, home: str, readmodel: ChangedFiles,
                 file_lock: Callable[[str], AbstractContextManager[bool]], *,
                 enabled: bool = True):
        self.home = home
        self.enabled = enabled  # False: no file is kept (a home that encrypts)
        self.root = os.path.join(home, "memory")
        self.readmodel = readmodel
        self._file_lock = file_lock  # kairos.engine.locks.file_lock
        self._mutex = threading.Lock()

    # -- the files position ----------------------------------------------------
    @disk_errors
    def position(self) -> int:
        try:
            with open(os.path.join(self.root, POSITION), "rb") as f:
                return int(f.read().strip() or 0)
        except (FileNotFoundError, ValueError):
            return 0

    @disk_errors
    def set_position(self, position: int) -> None:
        write_file(os.path.join(self.root, POSITION), f"{position}\n")

    @contextmanager
    def locked(self) -> Iterator[None]:
        """Hold the files lock (this process's mutex and a ``flock`` shared
        with every other process writing this home's files)."""
        with self._mutex:
            os.makedirs(self.root, exist_ok=True)
            with self._file_lock(os.path.join(self.root, ".lock")):
                yield

    # -- writing -----------------------------------------------------------------
    @disk_errors
    def flush(self) -> int:
        """Write every file changed since the files position; return how many."""
        with self.locked():
            done = self.position()
            upto, rows = self.readmodel.changed_files(done)
            if upto < done:  # the read model was rebuilt behind the files: redo all
                upto, rows = self.readmodel.changed_files(0)
            for agent, user, name, content in rows:
                write_file(file_path(self.home, agent, user, name),
                           content if self.enabled else "")
            if upto != done:
                self.set_position(upto)
            return len(rows)
