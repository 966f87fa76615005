"""The endpoints of ``kairos serve``: one table, each row a method, a path,
the roles that may call it, and a handler over :class:`~kairos.memory.Memory`.

The table is the one source of the routes, of their checks and of the
OpenAPI document (:mod:`kairos.http.openapi`), so the three cannot drift.
A handler reads its arguments from a :class:`Call` and returns what the
response's JSON body is; :mod:`kairos.http.app` does the rest (the key, the
role, the scope, limits, errors).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from kairos.access.keys import ApiKey
from kairos.errors import BadInput
from kairos.memory import Memory


@dataclass
class Call:
    """One request, parsed: who, and the arguments from path, query and body."""

    key: ApiKey
    path: dict[str, str]
    query: dict[str, str]
    body: dict[str, Any]
    idempotency_key: str | None = None

    def arg(self, name: str, default: Any = None, *, required: bool = False) -> Any:
        """An argument from the path, the body or the query, in that order."""
        for source in (self.path, self.body, self.query):
            if name in source and source[name] is not None:
                return source[name]
        if required:
            raise BadInput(f"missing {name!r}")
        return default

    def text(self, name: str, default: str | None = None, *, required: bool = False
             ) -> str | None:
        value = self.arg(name, default, required=required)
        if value is not None and not isinstance(value, str):
            raise BadInput(f"{name!r} must be a string")
        return value

    def integer(self, name: str, default: int | None = None) -> int | None:
        value = self.arg(name, default)
        if value is None or isinstance(value, int) and not isinstance(value, bool):
            return value
        if isinstance(value, str) and value.lstrip("-").isdigit():
            return int(value)
        raise BadInput(f"{name!r} must be an integer")


Handler = Callable[[Memory, Call], Any]


@dataclass(frozen=True)
class Endpoint:
    method: str
    path: str
    roles: tuple[str, ...]  # besides admin, which may call every endpoint
    handler: Handler
    summary: str
    # Where the scope is: "agent" (the path's agent, and a user argument),
    # "dream" (the dream's pair), or "" (none, or filters the key narrows).
    scope: str = ""
    params: tuple[str, ...] = field(default_factory=tuple)  # documented arguments
    writes: bool = False
    idempotent: bool = False  # honours Idempotency-Key (a write: a retry returns the original)


# -- handlers ---------------------------------------------------------------------------
def _write(m: Memory, c: Call) -> Any:
    return m.write(c.arg("agent"), c.text("file", required=True) or "",
                   c.text("text", required=True) or "", user=c.text("user"),
                   mode=c.text("mode", "append") or "append", actor="agent",
                   session=c.text("session"), idempotency_key=c.idempotency_key).to_dict()


def _read(m: Memory, c: Call) -> Any:
    return m.read(c.arg("agent"), c.text("file", required=True) or "", user=c.text("user"),
                  as_of=c.text("as_of"), version=c.integer("version")).to_dict()


def _retract(m: Memory, c: Call) -> Any:
    ids = c.arg("event_ids", required=True)
    if not isinstance(ids, list) or not all(isinstance(i, str) for i in ids):
        raise BadInput("'event_ids' must be a list of event ids")
    return m.retract(c.arg("agent"), c.text("file", required=True) or "", ids,
                     reason=c.text("reason", required=True) or "", user=c.text("user"),
                     actor="agent", session=c.text("session")).to_dict()


def _search(m: Memory, c: Call) -> Any:
    return m.search(c.arg("agent"), c.text("q", required=True) or "", user=c.text("user"),
                    limit=c.integer("limit", 10) or 10, file=c.text("file"),
                    since=c.text("since")).to_dict()


def _context(m: Memory, c: Call) -> Any:
    kw: dict[str, Any] = {}
    if c.text("strategy"):
        kw["strategy"] = c.text("strategy")
    return m.contexts.assemble(c.arg("agent"), c.text("user"), **kw).to_dict()


def _tools(m: Memory, c: Call) -> Any:
    from kairos.agent.tools import MEMORY_TOOLS

    return {"tools": MEMORY_TOOLS}


def _end_session(m: Memory, c: Call) -> Any:
    return m.end_session(c.arg("agent"), c.text("user", required=True) or "",
                         session=c.text("session"), notes=c.text("notes"),
                         actor="agent").to_dict()


def _history(m: Memory, c: Call) -> Any:
    return {"events": m.history(c.arg("agent"), user=c.text("user"), file=c.text("file"))}


def _dreams(m: Memory, c: Call) -> Any:
    pending = c.text("status") == "pending"
    return {"dreams": m.dreams.list(pending=pending, agent=c.text("agent"),
                                    user=c.text("user"))}


def _dream(m: Memory, c: Call) -> Any:
    return m.dreams.show(c.arg("dream_id"))


def _reviewer(c: Call) -> str:
    """Who decides, as the audit records it: the key (its issuer, role and
    scope are in its KeyIssued event), never a name the request claims."""
    return f"key-{c.key.key_id}"


def _approve(m: Memory, c: Call) -> Any:
    return m.dreams.approve(c.arg("dream_id"), _reviewer(c))


def _reject(m: Memory, c: Call) -> Any:
    return m.dreams.reject(c.arg("dream_id"), _reviewer(c), c.text("reason", required=True) or "")


def _rollback(m: Memory, c: Call) -> Any:
    to = c.integer("to")
    if to is None:
        raise BadInput("missing 'to'")
    return m.dreams.rollback(c.arg("agent"), c.text("user", required=True) or "",
                             c.text("file", required=True) or "", to,
                             c.text("reason", required=True) or "")


def _audit(m: Memory, c: Call) -> Any:
    return {"events": m.audit.query(
        agent=c.text("agent"), user=c.text("user"), file=c.text("file"), type=c.text("type"),
        actor=c.text("actor"), session=c.text("session"), since=c.text("since"),
        until=c.text("until"), limit=c.integer("limit"))}


def _trace(m: Memory, c: Call) -> Any:
    return {"lines": m.audit.trace(c.arg("agent"), c.text("user"),
                                   c.text("file", required=True) or "",
                                   version=c.integer("version"), as_of=c.text("as_of"))}


def _diff(m: Memory, c: Call) -> Any:
    old, new = c.integer("old"), c.integer("new")
    if old is None or new is None:
        raise BadInput("give 'old' and 'new' versions")
    return m.audit.diff(c.arg("agent"), c.text("user", required=True) or "",
                        c.text("file", required=True) or "", old, new)


def _export(m: Memory, c: Call) -> Any:
    import json
    import os
    import tempfile

    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "bundle")
        summary = m.audit.export(c.arg("agent"), c.text("user", required=True) or "", out,
                                 since=c.text("since"), until=c.text("until"))
        files = {}
        for root, _, names in os.walk(out):
            for name in names:
                path = os.path.join(root, name)
                with open(path, encoding="utf-8") as f:
                    text = f.read()
                rel = os.path.relpath(path, out)
                files[rel] = json.loads(text) if name.endswith(".json") else text
    return {"summary": summary, "files": files}


def _verify(m: Memory, c: Call) -> Any:
    return m.verify().to_dict()


AGENT = ("agent",)
REVIEW = ("reviewer",)
AUDIT = ("auditor",)

ENDPOINTS: tuple[Endpoint, ...] = (
    Endpoint("POST", "/v1/agents/{agent}/write", AGENT, _write,
             "Write to a memory file (append or replace); Idempotency-Key makes a retry "
             "return the original event", "agent", ("file", "text", "user", "mode", "session"),
             writes=True),
    Endpoint("GET", "/v1/agents/{agent}/read", AGENT + REVIEW + AUDIT, _read,
             "Read a memory file, now, as of a time, or as a version showed it", "agent",
             ("file", "user", "as_of", "version")),
    Endpoint("POST", "/v1/agents/{agent}/retract", AGENT, _retract,
             "Retract writes: their words leave every file", "agent",
             ("file", "event_ids", "reason", "user", "session"), writes=True),
    Endpoint("GET", "/v1/agents/{agent}/search", AGENT + AUDIT, _search,
             "Search the agent's files and history (and the user's)", "agent",
             ("q", "user", "limit", "file", "since")),
    Endpoint("GET", "/v1/agents/{agent}/context", AGENT, _context,
             "The assembled context (prompt and tools) for the agent and user", "agent",
             ("user", "strategy")),
    Endpoint("GET", "/v1/agents/{agent}/tools", AGENT, _tools,
             "The memory tools' schemas", "agent"),
    Endpoint("POST", "/v1/agents/{agent}/sessions/end", AGENT, _end_session,
             "Record that a session with the user ended", "agent",
             ("user", "session", "notes"), writes=True),
    Endpoint("GET", "/v1/agents/{agent}/history", AGENT + AUDIT, _history,
             "The events of the agent's own stream, or of one pair", "agent", ("user", "file")),
    Endpoint("GET", "/v1/dreams", REVIEW + AUDIT, _dreams,
             "Dream proposals, newest last", "", ("agent", "user", "status")),
    Endpoint("GET", "/v1/dreams/{dream_id}", REVIEW + AUDIT, _dream,
             "One proposal: its diff, sources and report", "dream"),
    Endpoint("POST", "/v1/dreams/{dream_id}/approve", REVIEW, _approve,
             "Approve a proposal: it becomes the files' next version (the key is the reviewer)",
             "dream", writes=True),
    Endpoint("POST", "/v1/dreams/{dream_id}/reject", REVIEW, _reject,
             "Reject a proposal (the key is the reviewer)", "dream", ("reason",), writes=True),
    Endpoint("POST", "/v1/agents/{agent}/rollback", REVIEW, _rollback,
             "Set a file back to a published version", "agent", ("user", "file", "to", "reason"),
             writes=True),
    Endpoint("GET", "/v1/audit", AUDIT, _audit,
             "Events matching every filter, in global order", "",
             ("agent", "user", "file", "type", "actor", "session", "since", "until", "limit")),
    Endpoint("GET", "/v1/agents/{agent}/trace", AUDIT, _trace,
             "Where each line of a file came from", "agent", ("user", "file", "version", "as_of")),
    Endpoint("GET", "/v1/agents/{agent}/diff", AUDIT, _diff,
             "The difference between two versions of a file", "agent",
             ("user", "file", "old", "new")),
    Endpoint("GET", "/v1/agents/{agent}/export", AUDIT, _export,
             "An auditor's bundle of one pair, its events verifiable alone", "agent",
             ("user", "since", "until")),
    Endpoint("POST", "/v1/verify", AUDIT, _verify,
             "Verify every hash chain, the logs and the read side"),
)

__all__ = ["ENDPOINTS", "Call", "Endpoint"]
