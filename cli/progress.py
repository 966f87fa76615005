"""Progress on a terminal: one line on standard error, redrawn in place.

The library reports phases and counts to a :class:`kairos.progress.Progress`
and never prints.  Here they are drawn for a person at a terminal — the
phase, the count (of its total), the rate and the time spent — and each
phase's last state stays on screen when the next begins.  When standard
error is not a terminal (cron, a pipe, an agent shelling out) nothing is
drawn at all: logs get results, never carriage returns; standard output,
where ``--json`` prints its one document, is never touched.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable
from typing import TextIO

from kairos.progress import SILENT, Progress

INTERVAL = 0.1  # seconds between two redraws: a terminal need not see every event


class TerminalProgress:
    """Draws ``title: phase: count/total unit (pct), rate/s, seconds`` on ``stream``."""

    def __init__(self, stream: TextIO, title: str, *,
                 clock: Callable[[], float] = time.monotonic, interval: float = INTERVAL):
        self.stream, self.title, self.clock, self.interval = stream, title, clock, interval
        self.name: str | None = None
        self.total: int | None = None
        self.unit = "events"
        self.count = 0
        self.start = self.drawn = 0.0

    def phase(self, name: str, total: int | None = None, unit: str = "events") -> None:
        self._end()
        self.name, self.total, self.unit, self.count = name, total, unit, 0
        self.start = self.clock()
        self._draw(self.start)

    def advance(self, n: int = 1) -> None:
        self.count += n
        now = self.clock()
        if now - self.drawn >= self.interval:
            self._draw(now)

    def done(self) -> None:
        self._end()

    def line(self, now: float) -> str:
        elapsed = now - self.start
        text = f"{self.title}: {self.name}"
        if self.count or self.total:
            text += f": {self.count:,}" + (f"/{self.total:,}" if self.total else "") + f" {self.unit}"
            if self.total:
                text += f" ({min(100, 100 * self.count // self.total)}%)"
            if self.count and elapsed > 0:
                text += f", {self.count / elapsed:,.0f}/s"
        return text + f", {elapsed:.1f} s"

    def _draw(self, now: float, final: bool = False) -> None:
        self.drawn = now
        self.stream.write("\r" + self.line(now) + "\x1b[K" + ("\n" if final else ""))
        self.stream.flush()

    def _end(self) -> None:
        if self.name is not None:
            self._draw(self.clock(), final=True)
            self.name = None


def progress_for(title: str, stream: TextIO | None = None) -> Progress:
    """A terminal renderer when ``stream`` (standard error) is a terminal,
    else the silent default."""
    stream = sys.stderr if stream is None else stream
    if not stream.isatty() or os.environ.get("TERM") == "dumb":
        return SILENT
    return TerminalProgress(stream, title)
