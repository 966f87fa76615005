"""The nightly runner: every pair through the double gate, one run per home.

``kairos dream --all`` in cron.  One run per home at a time: the dream
service's run lock (a ``flock`` on ``.kairos-dream.lock`` for an SQLite home,
a PostgreSQL advisory lock for a PostgreSQL home — both released by the
system when the process dies, so a crashed run never blocks the next).  A
second run while one is in progress says so and succeeds.  One pair's
failure does not stop the others.
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field
from typing import Any

from kairos.dream.distill.base import Distiller
from kairos.dream.service import Dreams
from kairos.errors import KairosError
from kairos.progress import SILENT, Progress


@dataclass
class Summary:
    examined: int = 0
    skipped: list[dict[str, Any]] = field(default_factory=list)
    unchanged: list[dict[str, Any]] = field(default_factory=list)
    proposed: list[dict[str, Any]] = field(default_factory=list)
    approved: list[dict[str, Any]] = field(default_factory=list)
    dry_run: list[dict[str, Any]] = field(default_factory=list)
    failed: list[dict[str, Any]] = field(default_factory=list)
    tokens: int = 0
    cost: float = 0.0
    duration: float = 0.0
    already_running: bool = False

    @property
    def exit_code(self) -> int:
        return 1 if self.failed else 0

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def run(dreams: Dreams, pairs: list[tuple[str, str]] | None = None, *,
        distiller: Distiller | None = None, force: bool = False, dry_run: bool = False,
        trigger: str = "cron", progress: Progress = SILENT) -> Summary:
    """Dream for ``pairs`` (every pair of the home when None); ``progress``
    hears of each pair done."""
    try:
        return _run(dreams, pairs, distiller, force, dry_run, trigger, progress)
    finally:
        progress.done()


def _run(dreams: Dreams, pairs: list[tuple[str, str]] | None, distiller: Distiller | None,
         force: bool, dry_run: bool, trigger: str, progress: Progress) -> Summary:
    """The run itself; :func:`run` wraps it so ``progress`` ends on every path."""
    summary = Summary()
    start = time.monotonic()
    with dreams.exclusive_run() as got:
        if not got:
            summary.already_running = True
            return summary
        todo = dreams.pairs() if pairs is None else pairs
        progress.phase("gate and distil", len(todo), "pairs")
        for agent, user in todo:
            summary.examined += 1
            entry: dict[str, Any] = {"agent": agent, "user": user}
            try:
                outcome = dreams.dream(agent, user, distiller=distiller, force=force,
                                       dry_run=dry_run, trigger=trigger)
            except KairosError as e:  # a refused draft or a failed model call still cost its tokens
                spent = getattr(e, "usage", None) or {}
                tokens, cost = int(spent.get("total_tokens") or 0), float(spent.get("cost") or 0.0)
                summary.failed.append({**entry, "error": str(e), "tokens": tokens, "cost": cost})
                summary.tokens += tokens
                summary.cost += cost
            else:
                entry.update(dream_id=outcome.dream_id, files=outcome.files)
                if outcome.reason:
                    entry["reason"] = outcome.reason
                if outcome.proposal is not None:
                    entry["proposal"] = outcome.proposal
                getattr(summary, outcome.status.replace("-", "_")).append(entry)
                summary.tokens += outcome.tokens
                summary.cost += outcome.cost
            progress.advance()
    summary.duration = round(time.monotonic() - start, 3)
    return summary
