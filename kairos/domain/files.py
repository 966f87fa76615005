"""The five memory files, their scopes and their size limits.

A file is either agent-scoped (shared by all users of the agent) or
pair-scoped (one agent+user pair alone).  Limits count characters of the
whole file as projected.  A hard limit refuses the write; a soft limit
accepts it and flags the file for compression.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from kairos.domain.ids import check_id
from kairos.errors import BadInput

Scope = Literal["agent", "pair"]

# The line MEMORY.md keeps for a topic file a dream moved lines to: it says
# where to read on, and is no fact of its own (search never returns it).
POINTER = re.compile(r"^More in (topics/[a-z0-9][a-z0-9-]*\.md)(?: and the files after it)?\.$")


def pointer(name: str, continued: bool = False) -> str:
    """The pointer line for a topic file (and the files it continues in,
    ``<name>-2.md`` …, when it is full)."""
    return f"More in {name} and the files after it." if continued else f"More in {name}."


@dataclass(frozen=True)
class FileSpec:
    name: str
    scope: Scope
    limit: int
    hard: bool
    purpose: str


# The defaults of the design: identity and profiles are small and hard-capped
# because they are injected into every request; MEMORY.md is soft-capped so a
# write is never lost for being over, and the nightly dream compresses it.
FILES: dict[str, FileSpec] = {
    spec.name: spec
    for spec in (
        FileSpec("SOUL.md", "agent", 2000, True, "identity"),
        FileSpec("ABOUT.md", "agent", 2000, True, "profile"),
        FileSpec("TOOLS.md", "agent", 2000, True, "tool notes"),
        FileSpec("USER.md", "pair", 2000, True, "user profile"),
        FileSpec("MEMORY.md", "pair", 5000, False, "long-term memory"),
    )
}


# Topic files hold what a dream moved out of MEMORY.md, by theme: a pair's
# files like MEMORY.md, soft-limited the same way, named topics/<name>.md.
TOPIC = re.compile(r"topics/[a-z0-9][a-z0-9-]{0,63}\.md")
TOPIC_LIMIT = 5000


def has_versions(name: str) -> bool:
    """Whether a file has dream versions: MEMORY.md, USER.md and topic files,
    the pair files a dream may write."""
    return name in ("MEMORY.md", "USER.md") or TOPIC.fullmatch(name) is not None


def file_spec(name: str | None) -> FileSpec:
    """Return the spec of a memory file (one of the five, or a topic file).

    :raises BadInput: for any other name.
    """
    spec = FILES.get(name or "")
    if spec is None and name and TOPIC.fullmatch(name):
        return FileSpec(name, "pair", TOPIC_LIMIT, False, "topic")
    if spec is None:
        raise BadInput(f"unknown file {name!r}: expected one of {', '.join(FILES)} "
                       "or topics/<name>.md")
    return spec


def check_scope(spec: FileSpec, user: str | None) -> None:
    """Refuse a user for an agent file, and a missing user for a pair file.

    :raises BadInput: naming the file and what is wrong with the scope.
    """
    if spec.scope == "agent" and user is not None:
        raise BadInput(f"{spec.name} belongs to the agent: do not give a user")
    if spec.scope == "pair" and user is None:
        raise BadInput(f"{spec.name} belongs to an agent+user pair: give a user")


def checked_scope(agent: str, user: str | None, file: str | None) -> FileSpec:
    """The spec of ``file`` once the ids and the scope are checked: what every
    read or write of one file checks first, so that no caller can reach
    another pair's file (or build a path from a bad id).

    :raises BadInput: a bad agent or user id, an unknown file, or the wrong scope.
    """
    check_id(agent, "agent")
    if user is not None:
        check_id(user, "user")
    spec = file_spec(file)
    check_scope(spec, user)
    return spec
