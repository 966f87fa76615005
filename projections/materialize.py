"""Materialized memory files in the home, for people and tools that read files.

``memory/<agent>/SOUL.md`` and ``memory/<agent>/users/<user>/MEMORY.md``.
Each file is replaced atomically (write a temporary file, fsync, rename), so
a reader sees the old text or the new, never half of one; a file whose text
became empty is removed (an absent file and an empty one are the same thing).
These files are a convenience: the read model is what Kairos itself reads.
"""

from __future__ import annotations

import os


def file_path(home: str, agent: str, user: str | None, name: str) -> str:
    base = os.path.join(home, "memory", agent)
    if user is not None:
        base = os.path.join(base, "users", user)
    return os.path.join(base, name)


def write_file(path: str, content: str) -> None:
    """Atomically set ``path`` to ``content``; remove it when ``content`` is empty.

    Callers hold the home's writer lock, so one fixed temporary name per file
    is enough.  The file is not fsynced: it is derived, and ``kairos rebuild``
    re-derives it after a power cut; the event store and the logs are what
    must be durable, and they are.
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
