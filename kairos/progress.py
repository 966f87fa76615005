"""Progress of long operations: a port the library reports to, silent by default.

A rebuild, a verification, an export or a night's dream can run for minutes
on a large home.  An operator at a terminal needs to see that it moves and
how fast; a cron job, an agent or a test needs it to print nothing.  So the
library never prints: each long operation takes a :class:`Progress` and
tells it the phase it enters and how far it got, and the caller decides what
to show (the command line draws a line on a terminal, :mod:`kairos.cli.progress`).
The default, :data:`SILENT`, does nothing.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Protocol, TypeVar

T = TypeVar("T")

EVERY = 512  # items between two reports: a call per event would cost more than it shows


class Progress(Protocol):
    """What a long operation reports: phases, each with a count that grows."""

    def phase(self, name: str, total: int | None = None, unit: str = "events") -> None:
        """A new phase starts (the previous one, if any, is over); ``total``
        when it is known beforehand."""

    def advance(self, n: int = 1) -> None:
        """``n`` more items of the current phase are done."""

    def done(self) -> None:
        """The operation is over (called on success and on failure)."""


class Silent:
    """Reports nothing: the default of every long operation."""

    def phase(self, name: str, total: int | None = None, unit: str = "events") -> None:
        pass

    def advance(self, n: int = 1) -> None:
        pass

    def done(self) -> None:
        pass


SILENT = Silent()


def counted(items: Iterable[T], progress: Progress, every: int = EVERY) -> Iterator[T]:
    """``items`` as they come, advancing ``progress`` every ``every`` items
    (and by the remainder at the end)."""
    if progress is SILENT:
        yield from items
        return
    n = 0
    for item in items:
        yield item
        n += 1
        if n == every:
            progress.advance(n)
            n = 0
    if n:
        progress.advance(n)
