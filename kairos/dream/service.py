"""The dream: distil a pair's memory into a new, reviewable version.

A dream reads the pair's stream, runs a distiller over the current lines and
the events since the last published cutoff, checks the draft against the
guards, and records a ``DreamProposed`` event.  Approval (by a reviewer, or
by the ``auto`` review policy in the same transaction) records
``DreamApproved`` with each file's new content: the proposal's lines plus
every raw write made after its cutoff, replayed on top — so a write made
between proposal and approval is never hidden.  Rollbacks record
``VersionRolledBack``.  Nothing here changes or removes an earlier event.

The rules (approve or reject a pending proposal once, never a stale one;
roll back to a version that exists and is not showing) are the aggregate's
(:class:`~kairos.domain.events.MemoryStream`): this service finds the pair a
dream belongs to, loads the history a command needs, and runs the command
through :class:`~kairos.ports.Commands` — get, command, save.

The distiller runs without the home's writer lock (an LLM may take minutes);
only the recording of the result takes it.
"""

from __future__ import annotations

import builtins
import difflib
import re
from contextlib import AbstractContextManager
from dataclasses import asdict, dataclass, field
from datetime import datetime
from typing import Any

from kairos import clock, faults
from kairos.domain.events import (
    DomainEvent,
    DreamApproved,
    DreamProposed,
    DreamRefused,
    DreamRejected,
    MemoryRetracted,
    MemoryStream,
    MemoryWritten,
    ProposedFile,
    SessionEnded,
)
from kairos.domain.files import check_scope, file_spec, has_versions
from kairos.domain.fold import Segments, fold, render, size
from kairos.domain.hashing import format_time
from kairos.domain.ids import check_id
from kairos.domain.kinds import ACTORS, EventType
from kairos.domain.versions import active_version, approvals, proposals, published, replay, versions
from kairos.dream.distill.base import Context, Distiller, DistillerFailed, Line, Signal, Source
from kairos.dream.distill.guards import GuardFailed, Verdict, check
from kairos.dream.distill.rules import RulesDistiller
from kairos.dream.distill.when import timezone_in
from kairos.errors import BadInput, NotFound
from kairos.home import Settings
from kairos.ports import Commands, History, Index, RunLock

# What the distiller sees of the events since the last cutoff.
SIGNALS = frozenset({EventType.WRITTEN, EventType.RETRACTED, EventType.SESSION_ENDED})
# "Name: Mia Schneider" in USER.md: the user's own first name ("Mia" is "I" is "Name:").
NAME_LINE = re.compile(r"^\s*(?:full |first )?name\s*:\s*([A-ZÄÖÜ][\w'-]+)", re.I)


@dataclass
class Outcome:
    """What a dream did for one pair."""

    agent: str
    user: str
    status: str  # proposed | approved | skipped | unchanged | failed | dry-run
    dream_id: str | None = None
    reason: str | None = None
    files: list[str] = field(default_factory=list)
    tokens: int = 0
    cost: float = 0.0
    proposal: dict[str, Any] | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _lines(segments: Segments, times: dict[str, datetime]) -> list[Line]:
    out = []
    for seg in segments:
        sources = tuple(seg[2]) if len(seg) > 2 else (seg[0],)
        stamps = [times[s] for s in sources if s in times]
        for text in seg[1].split("\n"):
            if text.strip():
                out.append(Line(text, sources, min(stamps)))
    return out


def _signal(e: DomainEvent) -> Signal:
    return Signal(e.event_id, e.kind.value, e.timestamp, getattr(e, "file", None),
                  getattr(e, "text", None) or getattr(e, "notes", None)
                  or getattr(e, "reason", None), tuple(getattr(e, "retracts", ())))


class Dreams:
    """Dreams, review, versions and rollbacks of a home's pairs."""

    def __init__(self, commands: Commands, history: History, index: Index, settings: Settings,
                 run_lock: RunLock):
        self.commands = commands
        self.history = history
        self.index = index
        self.limits = settings
        self.settings = settings.dream
        self.run_lock = run_lock

    # -- reading the pair ----------------------------------------------------------
    def _events(self, agent: str, user: str | None, upto: int | None = None
                ) -> list[DomainEvent]:
        return self.history.stream(MemoryStream.stream_id(agent, user), upto_version=upto)

    def _history_of(self, stream: MemoryStream) -> list[DomainEvent]:
        """A stream's events up to the version it was loaded at (in a command)."""
        return self.history.stream(stream.id, upto_version=stream.version)

    @staticmethod
    def _pair(agent: str, user: str) -> None:
        check_id(agent, "agent")
        check_id(user, "user")

    def context(self, agent: str, user: str, events: list[DomainEvent], now: datetime) -> Context:
        times = {e.event_id: e.timestamp for e in events}
        files = {name: _lines(segs, times) for name, segs in sorted(fold(events).items())
                 if has_versions(name) and segs}
        props = proposals(events)
        approved = approvals(events)
        last_cutoff = props[approved[-1].dream_id].cutoff if approved else 0
        signals = [_signal(e) for e in events
                   if e.originator_version > last_cutoff and e.kind in SIGNALS]
        limits = {name: self.limits.limit_of(file_spec(name)) for name in ("MEMORY.md", "USER.md")}
        retracted = frozenset(r for e in events if isinstance(e, MemoryRetracted) for r in e.retracts)
        sources = {}
        for e in events:
            if not isinstance(e, (MemoryWritten, SessionEnded)) or e.event_id in retracted:
                continue
            text = e.text if isinstance(e, MemoryWritten) else e.notes
            if text:
                sources[e.event_id] = Source(e.event_id, e.kind.value, e.timestamp,
                                             getattr(e, "file", None), text, e.originator_version)
        written = sorted({s.file for s in sources.values() if s.file and has_versions(s.file)})
        raw = {name: [seg[0] for seg in replay([], events, name, 0)] for name in written}
        profile = [ln.text for ln in files.get("USER.md", [])]
        tz = next((t for t in map(timezone_in, reversed(profile)) if t), None) \
            or self.limits.timezone_of(user)
        names = {user.lower()} | {m.group(1).lower() for m in map(NAME_LINE.match, profile) if m}
        return Context(agent, user, now, events[-1].originator_version, files, signals, times,
                       limits, self.settings.ttl_days, sources, raw, retracted, tz,
                       frozenset(names))

    @staticmethod
    def _since_last(events: list[DomainEvent]) -> tuple[datetime | None, int]:
        """When the pair last dreamt, and how many sessions ended since."""
        last = max((e.timestamp for e in events if e.kind is EventType.PROPOSED), default=None)
        sessions = sum(1 for e in events if e.kind is EventType.SESSION_ENDED
                       and (last is None or e.timestamp > last))
        return last, sessions

    def gate(self, events: list[DomainEvent], now: datetime) -> str | None:
        """Why the pair should not dream now (None: it passes the double gate)."""
        last, sessions = self._since_last(events)
        if last is not None:
            hours = (now - last).total_seconds() / 3600
            if hours < self.settings.min_hours:
                return f"last dream {hours:.1f} h ago, under {self.settings.min_hours:g} h"
        if sessions < self.settings.min_sessions:
            return f"{sessions} sessions since the last dream, under {self.settings.min_sessions}"
        return None

    def distiller(self, name: str | None = None, *, model: str | None = None,
                  api_base: str | None = None, timeout: float | None = None,
                  retries: int | None = None) -> Distiller:
        name = name or self.settings.distiller
        if name == "rules":
            return RulesDistiller()
        if name == "llm":
            from kairos.dream.distill.llm import LLMDistiller

            model = model or self.settings.model
            if not model:
                raise BadInput("the llm distiller needs a model: --model or [dream] model")
            return LLMDistiller(model, api_base=api_base or self.settings.api_base,
                                timeout=timeout or self.settings.timeout,
                                retries=self.settings.retries if retries is None else retries)
        raise BadInput(f"unknown distiller {name!r}: use rules or llm")

    def exclusive_run(self) -> AbstractContextManager[bool]:
        """The home's nightly-run lock: yields whether this process got it."""
        return self.run_lock()

    # -- dreaming --------------------------------------------------------------------
    def dream(self, agent: str, user: str, *, distiller: Distiller | None = None,
              force: bool = False, dry_run: bool = False, trigger: str = "cli") -> Outcome:
        """Dream for one pair.

        :raises NotFound: when the pair has no events.
        :raises GuardFailed: when the draft breaks a guard (only a DreamRefused record is written).
        :raises DistillerFailed: when the distiller gives no usable draft.
        :raises BadInput: when a file's version moved while dreaming.
        """
        self._pair(agent, user)
        events = self._events(agent, user)
        if not events:
            raise NotFound(f"no memory for {agent}/{user}")
        now = clock.now()
        if not force:
            reason = self.gate(events, now)
            if reason:
                return Outcome(agent, user, "skipped", reason=reason)
        distiller = distiller or self.distiller()
        context = self.context(agent, user, events, now)
        try:
            draft = distiller.distil(context)
        except DistillerFailed as e:
            e.distiller = distiller.name
            if not dry_run:
                self._refused(agent, user, f"distiller failed: {e}"[:300], distiller.name,
                              e.model or getattr(distiller, "model", None), e.usage)
            raise
        files = {name: [(str(t), list(s)) for t, s in lines] for name, lines in draft.files.items()
                 if [(ln.text, list(ln.sources)) for ln in context.files.get(name, [])]
                 != [(t, list(s)) for t, s in lines]}
        usage = dict(draft.usage)
        tokens, cost = int(usage.get("total_tokens") or 0), float(usage.get("cost") or 0.0)
        if not files:
            return Outcome(agent, user, "unchanged", reason="nothing to change",
                           tokens=tokens, cost=cost)
        try:
            verdict = check(files, draft.dropped, context, self.settings.max_loss, self._owner_of,
                            draft.report)
        except GuardFailed as e:
            e.usage, e.distiller, e.model = usage, distiller.name, draft.model
            if not dry_run:
                self._refused(agent, user, e.record(), distiller.name, draft.model, usage)
            raise
        auto_policy = self.settings.review_for(agent) == "auto"
        hold = self._hold(verdict) if auto_policy else None
        report = dict(draft.report)
        if hold:
            report["held"] = hold
        proposed: dict[str, ProposedFile] = {
            name: {"base": active_version(events, name), "lines": [[t, s] for t, s in lines]}
            for name, lines in sorted(files.items())}
        proposal: dict[str, Any] = {
            "files": proposed, "cutoff": context.cutoff, "dropped": draft.dropped,
            "report": report, "distiller": distiller.name, "model": draft.model,
            "usage": usage, "trigger": trigger,
        }
        if dry_run:
            return Outcome(agent, user, "dry-run", reason=hold, files=sorted(files), tokens=tokens,
                           cost=cost, proposal=proposal)
        auto = auto_policy and hold is None

        def command(stream: MemoryStream) -> str:
            history = self._history_of(stream)
            dream_id = stream.propose(now, **proposal)
            if auto:
                stream.approve(dream_id, "policy:auto", "auto", history, clock.now())
            return dream_id

        faults.point("before-dream-record")
        _, dream_id = self.commands.execute(agent, user, command)
        return Outcome(agent, user, "approved" if auto else "proposed", dream_id=dream_id,
                       reason=hold, files=sorted(files), tokens=tokens, cost=cost)

    def _hold(self, verdict: Verdict) -> str | None:
        """Why a proposal that passed the guards should still wait for a human."""
        if verdict.lost:
            return f"it loses {len(verdict.lost)} of {verdict.facts} facts"
        if verdict.unchecked:
            return f"{len(verdict.unchecked)} dropped lines have no checkable reason"
        share = self.settings.review_hold
        if verdict.lines and verdict.dropped / verdict.lines > share:
            return (f"it drops or supersedes {verdict.dropped} of {verdict.lines} lines, "
                    f"more than {share:.0%}")
        return None

    def _refused(self, agent: str, user: str, reason: str, distiller: str, model: str | None,
                 usage: dict[str, Any]) -> None:
        """Record a refused draft: its rule and cost, never its words."""
        spent = {k: usage.get(k, 0) for k in ("prompt_tokens", "completion_tokens", "total_tokens",
                                             "cost")}
        self.commands.execute(agent, user, lambda stream: stream.refuse(
            reason, distiller, model, spent, clock.now()))

    def _owner_of(self, event_id: str) -> str | None:
        row = self.index.event(event_id)
        return None if row is None else f"{row['agent_id']}/{row['user_id']}"

    # -- the review gate ------------------------------------------------------------------
    def _pair_of(self, dream_id: str) -> tuple[str, str]:
        """The pair a dream belongs to.  :raises NotFound: no such dream."""
        row = self.index.event(dream_id)
        if row is None or row["type"] != EventType.PROPOSED or row["user_id"] is None:
            raise NotFound(f"no dream {dream_id}")
        return row["agent_id"], row["user_id"]

    def approve(self, dream_id: str, reviewer: str) -> dict[str, Any]:
        """Publish a pending proposal.

        :raises NotFound: no such dream.
        :raises BadInput: when it was decided already, or a file's version
            moved since it was proposed (dream again).
        """
        check_id(reviewer, "reviewer")
        agent, user = self._pair_of(dream_id)

        def command(stream: MemoryStream) -> dict[str, int]:
            return stream.approve(dream_id, reviewer, "review", self._history_of(stream),
                                  clock.now())

        _, published_versions = self.commands.execute(agent, user, command)
        return {"dream_id": dream_id, "agent": agent, "user": user,
                "versions": published_versions}

    def reject(self, dream_id: str, reviewer: str, reason: str) -> dict[str, Any]:
        """Refuse a pending proposal.

        :raises NotFound: no such dream.  :raises BadInput: decided already, or no reason.
        """
        check_id(reviewer, "reviewer")
        if not reason.strip():
            raise BadInput("give a reason")
        agent, user = self._pair_of(dream_id)
        self.commands.execute(agent, user, lambda stream: stream.reject(
            dream_id, reviewer, reason, clock.now()))
        return {"dream_id": dream_id, "agent": agent, "user": user, "status": "rejected"}

    # -- versions ------------------------------------------------------------------------
    def _versioned_file(self, agent: str, user: str, file: str) -> str:
        self._pair(agent, user)
        spec = file_spec(file)
        check_scope(spec, user)
        if not has_versions(spec.name):
            raise BadInput(f"{spec.name} has no dream versions (only MEMORY.md, USER.md, topics)")
        return spec.name

    def versions(self, agent: str, user: str, file: str) -> list[dict[str, Any]]:
        name = self._versioned_file(agent, user, file)
        events = self._events(agent, user)
        active = active_version(events, name)
        by_dream = {e.dream_id: e for e in approvals(events)}
        rows = []
        for v in versions(events, name):
            text = render(published(events, name, v.number))
            rows.append({"version": v.number, "dream_id": v.dream_id,
                         "approved_at": format_time(v.approved_at) if v.approved_at else None,
                         "reviewer": v.reviewer,
                         "policy": by_dream[v.dream_id].policy if v.dream_id else None,
                         "cutoff": v.cutoff, "lines": len(text.splitlines()), "size": size(text),
                         "active": v.number == active,
                         "set_aside": v.number > active})
        return rows

    def read_version(self, agent: str, user: str | None, file: str, number: int) -> str | None:
        """The text a version showed when published (0: the plain fold of raw writes).

        :raises NotFound: no such version.
        """
        if user is None:
            if number != 0:
                raise NotFound(f"{file} is an agent file: it has only version 0")
            return render(published(self._events(agent, None), file, 0)) or None
        name = self._versioned_file(agent, user, file)
        try:
            return render(published(self._events(agent, user), name, number)) or None
        except KeyError:
            raise NotFound(f"no version {number} of {name}") from None

    def rollback(self, agent: str, user: str, file: str, to: int, reason: str,
                 actor: str = "user") -> dict[str, Any]:
        """Set a file to version ``to`` plus every raw write after its cutoff.

        :raises BadInput: no such version, already there, or no reason.
        """
        name = self._versioned_file(agent, user, file)
        if not reason.strip():
            raise BadInput("give a reason")
        if actor not in ACTORS:
            raise BadInput(f"unknown actor {actor!r}")
        rec, _ = self.commands.execute(agent, user, lambda stream: stream.roll_back(
            name, to, actor, reason, self._history_of(stream), clock.now()))
        return {"agent": agent, "user": user, "file": name, "version": to,
                "event_id": rec.event.event_id, "position": rec.position}

    # -- listing and showing ---------------------------------------------------------------
    def list(self, *, pending: bool = False, agent: str | None = None,
             user: str | None = None) -> builtins.list[dict[str, Any]]:
        rows = self.index.events(agent=agent, user=user, types=(
            EventType.PROPOSED, EventType.APPROVED, EventType.REJECTED))
        decided = {r["ref"]: r for r in rows if r["type"] != EventType.PROPOSED}
        out = []
        for r in rows:
            if r["type"] != EventType.PROPOSED:
                continue
            d = decided.get(r["event_id"])
            status = "pending" if d is None else (
                "approved" if d["type"] == EventType.APPROVED else "rejected")
            if pending and status != "pending":
                continue
            out.append({"dream_id": r["event_id"], "agent": r["agent_id"], "user": r["user_id"],
                        "proposed_at": r["recorded_at"], "status": status,
                        "decided_by": d["actor"] if d else None, "summary": r["text"]})
        return out

    def latest(self, agent: str, user: str) -> str:
        """The id of a pair's latest proposal.  :raises NotFound: it has none."""
        rows = self.list(agent=agent, user=user)
        if not rows:
            raise NotFound(f"no dream for {agent}/{user}")
        return str(rows[-1]["dream_id"])

    def show(self, dream_id: str) -> dict[str, Any]:
        """A proposal with each file's diff against the current text, where
        each line came from, and the distiller's report.  :raises NotFound:"""
        agent, user = self._pair_of(dream_id)
        events = self._events(agent, user)
        p = proposals(events)[dream_id]
        decisions: list[DreamApproved | DreamRejected] = [
            e for e in events if isinstance(e, (DreamApproved, DreamRejected))]
        decision = next((e for e in decisions if e.dream_id == dream_id), None)
        texts = {e.event_id: (format_time(e.timestamp), e.kind.value,
                              getattr(e, "text", None) or getattr(e, "notes", None))
                 for e in events}
        files = {}
        for name, f in sorted(p.files.items()):
            row = self.index.file(agent, user, name)
            current = row.content if row else ""
            proposed = "".join(t + "\n" for t, _ in f["lines"])
            diff = "".join(difflib.unified_diff(
                current.splitlines(keepends=True), proposed.splitlines(keepends=True),
                f"{name} (current)", f"{name} (proposed)"))
            old = set(current.splitlines())
            provenance = [{"text": t, "added": t not in old,
                           "sources": [{"event_id": s, "time": texts[s][0], "type": texts[s][1],
                                        "text": texts[s][2]} for s in srcs if s in texts]}
                          for t, srcs in f["lines"]]
            files[name] = {"base": f["base"], "current_version": active_version(events, name),
                           "diff": diff, "lines": provenance}
        return {"dream_id": dream_id, "agent": agent, "user": user,
                "proposed_at": format_time(p.timestamp),
                "status": "pending" if decision is None else decision.kind.value[5:].lower(),
                "decided_by": decision.reviewer if decision else None,
                "distiller": p.distiller, "model": p.model, "usage": p.usage,
                "trigger": p.trigger, "cutoff": p.cutoff, "files": files,
                "dropped": p.dropped, "report": p.report}

    def pairs(self) -> builtins.list[tuple[str, str]]:
        return self.index.pairs()

    def stats(self) -> dict[str, Any]:
        now = clock.now()
        counts: dict[tuple[str, str], int] = {}
        for r in self.list(pending=True):
            counts[(r["agent"], r["user"])] = counts.get((r["agent"], r["user"]), 0) + 1
        rows: builtins.list[dict[str, Any]] = []
        for agent, user in self.pairs():
            events = self._events(agent, user)
            context = self.context(agent, user, events, now)
            last, sessions = self._since_last(events)
            plan = RulesDistiller().distil(context).report
            spent = [e.usage for e in events if isinstance(e, (DreamProposed, DreamRefused))]
            sizes = {}
            for name in ("MEMORY.md", "USER.md"):
                row = self.index.file(agent, user, name)
                sizes[name] = size(row.content if row else "")
            rows.append({"agent": agent, "user": user,
                         "memory": [sizes["MEMORY.md"], context.limits["MEMORY.md"]],
                         "user_md": [sizes["USER.md"], context.limits["USER.md"]],
                         "sessions_since_dream": sessions,
                         "hours_since_dream": None if last is None else
                         round((now - last).total_seconds() / 3600, 1),
                         "duplicates": plan["consolidate"]["merged"],
                         "past": plan["consolidate"]["past"],
                         "refused": sum(1 for e in events if e.kind is EventType.REFUSED),
                         "tokens": sum(int(u.get("total_tokens") or 0) for u in spent),
                         "cost": round(sum(float(u.get("cost") or 0.0) for u in spent), 6),
                         "pending": counts.get((agent, user), 0)})
        totals = {"pairs": len(rows), "pending": sum(r["pending"] for r in rows),
                  "over_limit": sum(1 for r in rows if r["memory"][0] > r["memory"][1]),
                  "duplicates": sum(r["duplicates"] for r in rows),
                  "past": sum(r["past"] for r in rows),
                  "refused": sum(r["refused"] for r in rows),
                  "tokens": sum(r["tokens"] for r in rows),
                  "cost": round(sum(r["cost"] for r in rows), 6),
                  "pairs_with_pending": len(counts)}
        return {"pairs": rows, "totals": totals}


__all__ = ["Dreams", "GuardFailed", "Outcome"]
