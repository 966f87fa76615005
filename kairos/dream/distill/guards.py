"""The guards every proposal must pass before anything is written.

A draft that fails one is refused with the reason; nothing is published and
nothing is recorded (a draft citing another pair's events must not leave
that pair's words in this pair's history).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kairos.domain.files import FILES, has_versions
from kairos.domain.fold import lines_size
from kairos.dream.distill.base import Context
from kairos.errors import KairosError


class GuardFailed(KairosError):
    """A proposal broke a guard; nothing was written."""

    exit_code = 1


def check(files: dict[str, list[tuple[str, list[str]]]], dropped: list[dict[str, Any]],
          context: Context, max_loss: float, owner_of: Callable[[str], str | None]) -> None:
    """Raise :class:`GuardFailed` naming the first broken guard.

    ``owner_of(event_id)`` says which pair ("agent/user") an event id belongs
    to, or None when no such event exists.
    """
    ours = context.event_times
    for name, lines in files.items():
        if not has_versions(name):
            raise GuardFailed(f"a dream may only write MEMORY.md, USER.md and topics/*.md, "
                              f"not {name}")
        for text, sources in lines:
            if not text.strip() or "\n" in text or "\x00" in text:
                raise GuardFailed(f"{name}: a line must be one non-empty line of text")
            if not sources:
                raise GuardFailed(f"{name}: line {text[:60]!r} cites no event")
            for source in sources:
                if source in ours:
                    continue
                owner = owner_of(source)
                if owner is None:
                    raise GuardFailed(f"{name}: line {text[:60]!r} cites {source}, "
                                      "which does not exist")
                raise GuardFailed(f"{name}: line {text[:60]!r} cites {source}, which belongs "
                                  "to another pair")
        limit = context.limits.get(name) or (FILES[name].limit if name in FILES else 5000)
        if lines_size(lines) > limit:
            raise GuardFailed(f"{name} would be {lines_size(lines)} chars, over its limit of {limit}")
    _check_loss(files, dropped, context, max_loss)


def _check_loss(files: dict[str, list[tuple[str, list[str]]]], dropped: list[dict[str, Any]],
                context: Context, max_loss: float) -> None:
    cited = {s for lines in files.values() for _, sources in lines for s in sources}
    explained = {(d.get("file"), d.get("text")) for d in dropped if d.get("reason")}
    previous = unexplained = 0
    for name in files:
        for line in context.files.get(name, []):
            previous += 1
            if set(line.sources) <= cited or (name, line.text) in explained:
                continue
            unexplained += 1
    if previous and unexplained / previous > max_loss:
        raise GuardFailed(f"the proposal drops {unexplained} of {previous} lines without a "
                          f"reason (more than {max_loss:.0%})")
