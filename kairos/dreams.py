"""The dream: distil a pair's memory into a new, reviewable version.

A dream reads the pair's stream, runs a distiller over the current lines and
the events since the last published cutoff, checks the draft against the
guards, and records a ``DreamProposed`` event.  Approval (by a reviewer, or
by the ``auto`` review policy in the same transaction) records
``DreamApproved`` with each file's new content: the proposal's lines plus
every raw write made after its cutoff, replayed on top — so a write made
between proposal and approval is never hidden.  Rollbacks record
``VersionRolledBack``.  Nothing here changes or removes an earlier event.

The distiller runs without the home's writer lock (an LLM may take minutes);
only the recording of the result takes it.
"""

from __future__ import annotations

import builtins
import difflib
import re
from dataclasses import asdict, dataclass, field
from datetime import datetime
from typing import Any

from kairos import clock
from kairos.distill.base import Context, Distiller, DistillerFailed, Line, Signal, Source
from kairos.distill.guards import GuardFailed, Verdict, allowed_file, check
from kairos.distill.rules import RulesDistiller
from kairos.distill.when import timezone_in
from kairos.domain import ACTORS, MemoryStream
from kairos.errors import BadInput, NotFound
from kairos.files import check_scope, file_spec
from kairos.hashing import format_time
from kairos.ids import check_id
from kairos.projections.fold import fold, render, size
from kairos.projections.versions import (
    active_version,
    line_segments,
    replay,
    versions,
)

DECISIONS = ("DreamApproved", "DreamRejected")
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


def _lines(segments: list[list[Any]], times: dict[str, datetime]) -> list[Line]:
    out = []
    for seg in segments:
        sources = tuple(seg[2]) if len(seg) > 2 else (seg[0],)
        stamps = [times[s] for s in sources if s in times]
        for text in seg[1].split("\n"):
            if text.strip():
                out.append(Line(text, sources, max(stamps), min(stamps)))
    return out


class Dreams:
    def __init__(self, memory: Any):
        self.mem = memory
        self.settings = memory.settings.dream
        self.before_record: Any = None  # test-only hook: a crash right before recording

    # -- reading the pair ----------------------------------------------------------
    def _events(self, agent: str, user: str) -> list[Any]:
        events: list[Any] = self.mem.engine.store.stream(MemoryStream.stream_id(agent, user))
        return events

    def _pair(self, agent: str, user: str) -> None:
        check_id(agent, "agent")
        check_id(user, "user")

    def context(self, agent: str, user: str, events: list[Any], now: datetime) -> Context:
        times = {e.event_id: e.timestamp for e in events}
        files = {name: _lines(segs, times) for name, segs in sorted(fold(events).items())
                 if allowed_file(name) and segs}
        last_cutoff = 0
        props = {e.event_id: e for e in events if type(e).__name__ == "DreamProposed"}
        for e in events:
            if type(e).__name__ == "DreamApproved":
                last_cutoff = props[e.dream_id].cutoff
        signals = [Signal(e.event_id, type(e).__name__, e.timestamp, getattr(e, "file", None),
                          getattr(e, "text", None) or getattr(e, "notes", None)
                          or getattr(e, "reason", None), tuple(getattr(e, "retracts", ())))
                   for e in events if e.originator_version > last_cutoff
                   and type(e).__name__ in ("MemoryWritten", "MemoryRetracted", "SessionEnded")]
        limits = {name: self.mem.limit_of(file_spec(name)) for name in ("MEMORY.md", "USER.md")}
        retracted = frozenset(r for e in events if type(e).__name__ == "MemoryRetracted"
                              for r in e.retracts)
        sources = {}
        for e in events:
            kind = type(e).__name__
            text = getattr(e, "text", None) if kind == "MemoryWritten" else getattr(e, "notes", None)
            if kind in ("MemoryWritten", "SessionEnded") and text and e.event_id not in retracted:
                sources[e.event_id] = Source(e.event_id, kind, e.timestamp, getattr(e, "file", None),
                                             text, e.originator_version)
        written = sorted({s.file for s in sources.values() if s.file and allowed_file(s.file)})
        raw = {name: [seg[0] for seg in replay([], events, name, 0)] for name in written}
        profile = [ln.text for ln in files.get("USER.md", [])]
        tz = next((t for t in map(timezone_in, reversed(profile)) if t), None) \
            or self.mem.settings.timezone_of(user)
        names = {user.lower()} | {m.group(1).lower() for m in map(NAME_LINE.match, profile) if m}
        return Context(agent, user, now, events[-1].originator_version, files, signals, times,
                       limits, self.settings.ttl_days, sources, raw, retracted, tz,
                       frozenset(names))

    def gate(self, events: list[Any], now: datetime) -> str | None:
        """Why the pair should not dream now (None: it passes the double gate)."""
        last = max((e.timestamp for e in events if type(e).__name__ == "DreamProposed"),
                   default=None)
        sessions = sum(1 for e in events if type(e).__name__ == "SessionEnded"
                       and (last is None or e.timestamp > last))
        if last is not None:
            hours = (now - last).total_seconds() / 3600
            if hours < self.settings.min_hours:
                return f"last dream {hours:.1f} h ago, under {self.settings.min_hours:g} h"
        if sessions < self.settings.min_sessions:
            return f"{sessions} sessions since the last dream, under {self.settings.min_sessions}"
        return None

    def distiller(self, name: str | None = None, **options: Any) -> Distiller:
        name = name or self.settings.distiller
        if name == "rules":
            return RulesDistiller()
        if name == "llm":
            from kairos.distill.llm import LLMDistiller

            model = options.get("model") or self.settings.model
            if not model:
                raise BadInput("the llm distiller needs a model: --model or [dream] model")
            return LLMDistiller(model, api_base=options.get("api_base") or self.settings.api_base,
                                timeout=options.get("timeout") or self.settings.timeout,
                                retries=options.get("retries", self.settings.retries))
        raise BadInput(f"unknown distiller {name!r}: use rules or llm")

    # -- dreaming --------------------------------------------------------------------
    def dream(self, agent: str, user: str, *, distiller: Distiller | None = None,
              force: bool = False, dry_run: bool = False, trigger: str = "cli") -> Outcome:
        """Dream for one pair.

        :raises NotFound: when the pair has no events.
        :raises GuardFailed: when the draft breaks a guard (nothing written).
        :raises DistillerFailed: when the distiller gives no usable draft.
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
        proposal: dict[str, Any] = {
            "files": {name: {"base": active_version(events, name),
                             "lines": [[t, s] for t, s in lines]}
                      for name, lines in sorted(files.items())},
            "cutoff": context.cutoff, "dropped": draft.dropped, "report": report,
            "distiller": distiller.name, "model": draft.model, "usage": usage,
            "trigger": trigger,
        }
        if dry_run:
            return Outcome(agent, user, "dry-run", reason=hold, files=sorted(files), tokens=tokens,
                           cost=cost, proposal=proposal)
        auto = auto_policy and hold is None

        def command(stream: MemoryStream) -> str:
            fresh = self._events(agent, user)
            for name, f in proposal["files"].items():
                if active_version(fresh, name) != f["base"]:
                    raise BadInput(f"{name} changed version while dreaming: dream again")
            dream_id = stream.propose(now, **proposal)
            if auto:
                self._publish(stream, fresh, dream_id, files, context.cutoff,
                              "policy:auto", "auto")
            return dream_id

        if self.before_record is not None:
            self.before_record()
        _, dream_id = self.mem._commit(agent, user, command)
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

        def command(stream: MemoryStream) -> None:
            stream.refuse(reason, distiller, model, spent, clock.now())

        self.mem._commit(agent, user, command)

    def _owner_of(self, event_id: str) -> str | None:
        row = self.mem.engine.readmodel.event(event_id)
        return None if row is None else f"{row['agent_id']}/{row['user_id']}"

    def _publish(self, stream: MemoryStream, events: list[Any], dream_id: str,
                 files: dict[str, Any], cutoff: int, reviewer: str, policy: str) -> None:
        numbers = {name: max(v.number for v in versions(events, name)) + 1 for name in files}
        contents = {name: replay(line_segments(dream_id, [(t, s) for t, s in lines]), events,
                                 name, cutoff) for name, lines in files.items()}
        stream.approve(dream_id, reviewer, policy, numbers, contents, clock.now())

    # -- the review gate ------------------------------------------------------------------
    def _proposal(self, dream_id: str) -> tuple[str, str, Any, list[Any]]:
        row = self.mem.engine.readmodel.event(dream_id)
        if row is None or row["type"] != "DreamProposed":
            raise NotFound(f"no dream {dream_id}")
        agent, user = row["agent_id"], row["user_id"]
        events = self._events(agent, user)
        proposal = next(e for e in events if e.event_id == dream_id)
        return agent, user, proposal, events

    @staticmethod
    def _decision(events: list[Any], dream_id: str) -> Any | None:
        return next((e for e in events if type(e).__name__ in DECISIONS
                     and e.dream_id == dream_id), None)

    def approve(self, dream_id: str, reviewer: str) -> dict[str, Any]:
        """Publish a pending proposal.

        :raises BadInput: when it was decided already, or a file's version
            moved since it was proposed (dream again).
        """
        check_id(reviewer, "reviewer")
        agent, user, _, _ = self._proposal(dream_id)
        published: dict[str, int] = {}

        def command(stream: MemoryStream) -> None:
            events = self._events(agent, user)
            proposal = next(e for e in events if e.event_id == dream_id)
            self._undecided(events, dream_id)
            for name, f in proposal.files.items():
                current = active_version(events, name)
                if current != f["base"]:
                    raise BadInput(f"dream {dream_id} was proposed on version {f['base']} of "
                                   f"{name}, but version {current} is current now: dream again")
            files = {name: f["lines"] for name, f in proposal.files.items()}
            self._publish(stream, events, dream_id, files, proposal.cutoff, reviewer, "review")
            published.update(stream.pending_events[-1].versions)  # type: ignore[attr-defined]

        self.mem._commit(agent, user, command)
        return {"dream_id": dream_id, "agent": agent, "user": user, "versions": published}

    def reject(self, dream_id: str, reviewer: str, reason: str) -> dict[str, Any]:
        check_id(reviewer, "reviewer")
        if not reason.strip():
            raise BadInput("give a reason")
        agent, user, _, _ = self._proposal(dream_id)

        def command(stream: MemoryStream) -> None:
            self._undecided(self._events(agent, user), dream_id)
            stream.reject(dream_id, reviewer, reason, clock.now())

        self.mem._commit(agent, user, command)
        return {"dream_id": dream_id, "agent": agent, "user": user, "status": "rejected"}

    def _undecided(self, events: list[Any], dream_id: str) -> None:
        decision = self._decision(events, dream_id)
        if decision is not None:
            verb = "approved" if type(decision).__name__ == "DreamApproved" else "rejected"
            raise BadInput(f"dream {dream_id} was already {verb} by {decision.reviewer}")

    # -- versions ------------------------------------------------------------------------
    def _versioned_file(self, agent: str, user: str, file: str) -> str:
        self._pair(agent, user)
        spec = file_spec(file)
        check_scope(spec, user)
        if not allowed_file(spec.name):
            raise BadInput(f"{spec.name} has no dream versions (only MEMORY.md, USER.md, topics)")
        return spec.name

    def versions(self, agent: str, user: str, file: str) -> list[dict[str, Any]]:
        name = self._versioned_file(agent, user, file)
        events = self._events(agent, user)
        active = active_version(events, name)
        approvals = {e.dream_id: e for e in events if type(e).__name__ == "DreamApproved"}
        rows = []
        for v in versions(events, name):
            text = self._version_text(events, name, v.number)
            rows.append({"version": v.number, "dream_id": v.dream_id,
                         "approved_at": format_time(v.approved_at) if v.approved_at else None,
                         "reviewer": v.reviewer,
                         "policy": approvals[v.dream_id].policy if v.dream_id else None,
                         "cutoff": v.cutoff, "lines": len(text.splitlines()), "size": size(text),
                         "active": v.number == active,
                         "set_aside": v.number > active})
        return rows

    def _version_text(self, events: list[Any], name: str, number: int) -> str:
        if number == 0:
            return render(replay([], events, name, 0))
        for e in events:
            if type(e).__name__ == "DreamApproved" and e.versions.get(name) == number:
                return render(e.contents[name])
        raise NotFound(f"no version {number} of {name}")

    def read_version(self, agent: str, user: str | None, file: str, number: int) -> str | None:
        """The text a version showed when published (0: the plain fold of raw writes)."""
        if user is None:
            if number != 0:
                raise NotFound(f"{file} is an agent file: it has only version 0")
            events = self.mem.engine.store.stream(MemoryStream.stream_id(agent, None))
            return render(replay([], events, file, 0)) or None
        name = self._versioned_file(agent, user, file)
        return self._version_text(self._events(agent, user), name, number) or None

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

        def command(stream: MemoryStream) -> None:
            events = self._events(agent, user)
            numbers = [v.number for v in versions(events, name)]
            if to not in numbers:
                raise BadInput(f"no version {to} of {name}: versions are {numbers[0]}..{numbers[-1]}")
            if to == active_version(events, name):
                raise BadInput(f"{name} is at version {to} already")
            from kairos.projections.versions import content_of

            stream.roll_back(name, to, actor, reason, content_of(events, name, to), clock.now())

        rec, _ = self.mem._commit(agent, user, command)
        return {"agent": agent, "user": user, "file": name, "version": to,
                "event_id": rec.event.event_id, "position": rec.position}

    # -- listing and showing ---------------------------------------------------------------
    def list(self, *, pending: bool = False, agent: str | None = None,
             user: str | None = None) -> list[dict[str, Any]]:
        rows = self.mem.engine.readmodel.events(
            agent=agent, user=user, types=("DreamProposed", *DECISIONS))
        decided = {r["ref"]: r for r in rows if r["type"] in DECISIONS}
        out = []
        for r in rows:
            if r["type"] != "DreamProposed":
                continue
            d = decided.get(r["event_id"])
            status = "pending" if d is None else (
                "approved" if d["type"] == "DreamApproved" else "rejected")
            if pending and status != "pending":
                continue
            out.append({"dream_id": r["event_id"], "agent": r["agent_id"], "user": r["user_id"],
                        "proposed_at": r["recorded_at"], "status": status,
                        "decided_by": d["actor"] if d else None, "summary": r["text"]})
        return out

    def show(self, dream_id: str) -> dict[str, Any]:
        agent, user, p, events = self._proposal(dream_id)
        decision = self._decision(events, dream_id)
        texts = {e.event_id: (format_time(e.timestamp), type(e).__name__,
                              getattr(e, "text", None) or getattr(e, "notes", None))
                 for e in events}
        files = {}
        for name, f in sorted(p.files.items()):
            current = self.mem.read(agent, name, user=user).content or ""
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
                "status": "pending" if decision is None else type(decision).__name__[5:].lower(),
                "decided_by": getattr(decision, "reviewer", None),
                "distiller": p.distiller, "model": p.model, "usage": p.usage,
                "trigger": p.trigger, "cutoff": p.cutoff, "files": files,
                "dropped": p.dropped, "report": p.report}

    def pairs(self) -> builtins.list[tuple[str, str]]:
        pairs: builtins.list[tuple[str, str]] = self.mem.engine.readmodel.pairs()
        return pairs

    def stats(self) -> dict[str, Any]:
        now = clock.now()
        counts: dict[tuple[str, str], int] = {}
        for r in self.list(pending=True):
            counts[(r["agent"], r["user"])] = counts.get((r["agent"], r["user"]), 0) + 1
        rows: builtins.list[dict[str, Any]] = []
        for agent, user in self.pairs():
            events = self._events(agent, user)
            context = self.context(agent, user, events, now)
            last = max((e.timestamp for e in events if type(e).__name__ == "DreamProposed"),
                       default=None)
            sessions = sum(1 for e in events if type(e).__name__ == "SessionEnded"
                           and (last is None or e.timestamp > last))
            plan = RulesDistiller().distil(context).report
            spent = [e.usage for e in events if type(e).__name__ in ("DreamProposed", "DreamRefused")]
            sizes = {name: self.mem.read(agent, name, user=user).size
                     for name in ("MEMORY.md", "USER.md")}
            rows.append({"agent": agent, "user": user,
                         "memory": [sizes["MEMORY.md"], context.limits["MEMORY.md"]],
                         "user_md": [sizes["USER.md"], context.limits["USER.md"]],
                         "sessions_since_dream": sessions,
                         "hours_since_dream": None if last is None else
                         round((now - last).total_seconds() / 3600, 1),
                         "duplicates": plan["consolidate"]["merged"],
                         "past": plan["consolidate"]["past"],
                         "refused": sum(1 for e in events if type(e).__name__ == "DreamRefused"),
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
