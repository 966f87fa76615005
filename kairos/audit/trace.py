"""Audit: who wrote what, when and why; what an agent knew at a moment; where
each line of a file came from; what changed between two versions.

Everything here reads: the event index for queries (it is indexed by pair and
time), the history (the store) for exact as-of folds and versions.  Nothing
is written.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable
from itertools import takewhile
from typing import Any

from kairos.audit.export import export
from kairos.domain.events import (
    SYSTEM_AGENT,
    DomainEvent,
    DreamApproved,
    DreamProposed,
    MemoryStream,
    SubjectErased,
)
from kairos.domain.files import check_scope, file_spec, has_versions
from kairos.domain.fold import Segments, fold, render
from kairos.domain.hashing import format_time
from kairos.domain.ids import check_id
from kairos.domain.inputs import when_text
from kairos.domain.versions import approvals, proposals, published
from kairos.errors import BadInput, NotFound
from kairos.ports import Decrypter, History, Index, MemoryFiles, Prompts
from kairos.progress import SILENT, Progress

COLUMNS = ("position", "event_id", "recorded_at", "type", "actor", "agent_id", "user_id",
           "file", "session_id", "text", "log_file", "log_line")


def _dream_summary(approval: DreamApproved, proposal: DreamProposed, name: str
                   ) -> dict[str, Any]:
    return {"dream_id": approval.dream_id, "version": approval.versions.get(name),
            "approved_at": format_time(approval.timestamp), "reviewer": approval.reviewer,
            "policy": approval.policy, "distiller": proposal.distiller, "model": proposal.model,
            "proposed_at": format_time(proposal.timestamp)}


class Audit:
    """The auditor's questions, over the index, the history and the files."""

    def __init__(self, index: Index, history: History, files: MemoryFiles, prompts: Prompts,
                 home: str, stored: History | None = None,
                 decrypter: Callable[[], Decrypter] | None = None):
        self.index = index
        self.history = history
        # In a home that encrypts: the events as stored (encrypted: what a
        # bundle's hashes are computed over), and how to decrypt them.
        self.stored = stored or history
        self.decrypter = decrypter
        self.files = files
        self.prompts = prompts
        self.home = home

    def export(self, agent: str, user: str, out: str, *, since: str | None = None,
               until: str | None = None, progress: Progress = SILENT) -> dict[str, Any]:
        """Write an auditor's bundle of the pair to ``out``
        (:func:`kairos.audit.export.export`)."""
        try:
            return export(self.stored, self.home, agent, user, out, since=since, until=until,
                          progress=progress,
                          decrypt=self.decrypter() if self.decrypter is not None else None)
        finally:
            progress.done()

    def query(self, *, agent: str | None = None, user: str | None = None,
              file: str | None = None, actor: str | None = None, type: str | None = None,
              session: str | None = None, since: str | None = None, until: str | None = None,
              grep: str | None = None, limit: int | None = None) -> list[dict[str, Any]]:
        """Events matching every filter given, in global order.

        :raises BadInput: a bad id, file name or date.
        """
        for value, what in ((agent, "agent"), (user, "user"), (session, "session")):
            if value is not None and not (what == "agent" and value == SYSTEM_AGENT):
                check_id(value, what)
        if file is not None:
            file = file_spec(file).name
        rows = self.index.events(
            agent=agent, user=user, file=file, actor=actor, types=[type] if type else None,
            session=session, since=when_text(since, since=True), until=when_text(until), grep=grep,
            limit=limit)
        return [{k: r[k] for k in COLUMNS} for r in rows]  # type: ignore[literal-required]

    def context_at(self, agent: str, user: str, as_of: str) -> dict[str, Any]:
        """What the agent had in its context at ``as_of``: the injected files
        (SOUL, ABOUT, TOOLS — the Hybrid v2 prompt) and the on-demand ones."""
        prompt = self.prompts.prompt(agent, user, as_of=as_of)
        on_demand = {name: self.files.read(agent, name, user=user, as_of=as_of).content
                     for name in ("USER.md", "MEMORY.md")}
        return {"agent": agent, "user": user, "as_of": when_text(as_of), "prompt": prompt,
                "on_demand": on_demand}

    def _events(self, agent: str, user: str | None) -> list[DomainEvent]:
        return self.history.stream(MemoryStream.stream_id(agent, user))

    def trace(self, agent: str, user: str | None, file: str, *, line: int | None = None,
              grep: str | None = None, version: int | None = None,
              as_of: str | None = None) -> list[dict[str, Any]]:
        """For each line of a file (now, as of a moment, or as a version
        published it), the dreams it came through and the raw events under
        it, with their place in the dated logs; then (for the file now) the
        lines published dreams dropped, superseded or moved: the version
        they left in, why, and what replaced them.

        :raises BadInput: bad ids, file or date.  :raises NotFound: no such version.
        """
        check_id(agent, "agent")
        if user is not None:
            check_id(user, "user")
        spec = file_spec(file)
        check_scope(spec, user)
        events = self._events(agent, user)
        segments = self._segments(events, spec.name, version, as_of)
        approved = approvals(events)
        props = proposals(events)
        by_id = {e.event_id: e for e in events}
        out: list[dict[str, Any]] = []
        number = 0
        for seg in segments:
            sources = list(seg[2]) if len(seg) > 2 else [seg[0]]
            dream_id = seg[0].split("#")[0] if len(seg) > 2 else None
            for text in seg[1].split("\n"):
                number += 1
                if (line is not None and number != line) or (
                        grep is not None and grep.lower() not in text.lower()):
                    continue
                via = [_dream_summary(a, props[a.dream_id], spec.name) for a in approved
                       if spec.name in a.contents and any(
                           len(s) > 2 and set(s[2]) & set(sources) for s in a.contents[spec.name])]
                dream = next((v for v in via if v["dream_id"] == dream_id), None)
                out.append({"line": number, "text": text, "status": "current", "dream": dream,
                            "via": via,
                            "sources": [self._source(by_id.get(s), s) for s in sources]})
        if line is None and version is None and as_of is None:
            out.extend(self._left(spec.name, grep, approved, props, by_id))
        if line is None and grep is None:
            out.extend(_erasures(events, spec.name))
        return out

    def _left(self, name: str, grep: str | None, approved: list[DreamApproved],
              props: dict[str, DreamProposed], by_id: dict[str, DomainEvent]
              ) -> list[dict[str, Any]]:
        """Lines a published dream dropped from the file: in which version they
        left, why, and what replaced them (or where they moved)."""
        out: list[dict[str, Any]] = []
        for approval in approved:
            proposal = props[approval.dream_id]
            for entry in proposal.dropped:
                text = str(entry.get("text") or "")
                if entry.get("file") != name or (grep is not None and grep.lower() not in text.lower()):
                    continue
                reason = str(entry.get("reason") or "")
                by = entry.get("by") or (reason.split(":", 1)[1].strip() if reason.startswith(
                    ("superseded by:", "merged into:", "duplicate of:")) else None)
                out.append({"line": None, "text": text, "status": "left",
                            "left": {**_dream_summary(approval, proposal, name), "reason": reason,
                                     "kind": entry.get("kind") or reason.split(":")[0],
                                     "replaced_by": by if not entry.get("to") else None,
                                     "moved_to": entry.get("to")},
                            "dream": None, "via": [],
                            "sources": [self._source(by_id.get(s), s)
                                        for s in entry.get("sources", [])]})
        return out

    @staticmethod
    def _segments(events: list[DomainEvent], name: str, version: int | None,
                  as_of: str | None) -> Segments:
        if version is not None:
            try:
                return published(events, name, version)
            except KeyError:
                raise NotFound(f"no version {version} of {name}") from None
        if as_of is not None:
            until = when_text(as_of) or ""
            # As of a moment: the longest prefix recorded at or before it (see
            # Index.stream_version_at), so a clock step back cannot slip in a
            # later write.
            recorded = takewhile(lambda e: format_time(e.timestamp) <= until, events)
            return fold(list(recorded)).get(name, [])
        return fold(events).get(name, [])

    def _source(self, event: DomainEvent | None, event_id: str) -> dict[str, Any]:
        row = self.index.event(event_id)
        return {"event_id": event_id, "type": event.kind.value if event else None,
                "time": format_time(event.timestamp) if event else None,
                "actor": getattr(event, "actor", None), "session": getattr(event, "session", None),
                "text": getattr(event, "text", None) or getattr(event, "notes", None),
                "retracted_by": row["retracted_by"] if row else None,
                "log": f"{row['log_file']}:{row['log_line']}" if row and row["log_file"]
                else None}

    def diff(self, agent: str, user: str, file: str, old: int, new: int) -> dict[str, Any]:
        """The unified diff between two versions, with the report of the dream
        that made the newer one.

        :raises BadInput: bad ids or file.  :raises NotFound: no such version.
        """
        check_id(agent, "agent")
        check_id(user, "user")
        spec = file_spec(file)
        check_scope(spec, user)
        name = spec.name
        if not has_versions(name):
            raise BadInput(f"{name} has no dream versions (only MEMORY.md, USER.md, topics)")
        events = self._events(agent, user)
        texts = []
        for number in (old, new):
            try:
                texts.append(render(published(events, name, number)))
            except KeyError:
                raise NotFound(f"no version {number} of {name}") from None
        text = "".join(difflib.unified_diff(texts[0].splitlines(keepends=True),
                                            texts[1].splitlines(keepends=True),
                                            f"{name} version {old}", f"{name} version {new}"))
        explained = None
        if new > 0:
            approval = next(a for a in approvals(events) if a.versions.get(name) == new)
            p = proposals(events)[approval.dream_id]
            explained = {"dream_id": approval.dream_id, "reviewer": approval.reviewer,
                         "approved_at": format_time(approval.timestamp),
                         "distiller": p.distiller, "report": p.report,
                         "dropped": [d for d in p.dropped if d.get("file") == name]}
        return {"file": name, "from": old, "to": new, "diff": text, "dream": explained}


def _erasures(events: list[DomainEvent], name: str) -> list[dict[str, Any]]:
    """The erasures of the pair that emptied this file: when, by whom, why
    and how much (its lines before them are gone for good, unreadable even
    in the history)."""
    return [{"line": None, "text": None, "status": "erased", "dream": None, "via": [],
             "sources": [],
             "erased": {"event_id": e.event_id, "time": format_time(e.timestamp), "by": e.by,
                        "reason": e.reason, "events": e.events, "files": e.files}}
            for e in events if isinstance(e, SubjectErased) and name in e.files]


__all__ = ["COLUMNS", "Audit"]
