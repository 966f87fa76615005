"""API keys of ``kairos serve``: issued and revoked as events, checked by digest.

A key is ``kk_<key id>_<secret>``.  Issuing one records a ``KeyIssued``
event in the system stream — its id, role, scope, expiry, who issued it and
a SHA-256 digest of the secret, never the secret — and revoking one records
a ``KeyRevoked``.  So the audit shows who could do what, and when, like any
other change (``kairos audit --type KeyIssued``), and the set of live keys
is a fold of those events, like every projection here.

The secret is 32 random bytes: a digest without salt or stretching is
enough (there is nothing to guess), and lets the server find a key by its
id and compare digests in constant time (:func:`hmac.compare_digest`).

Roles: ``agent`` (one agent's memory tools, and with ``--user`` that one
user's), ``reviewer`` (dreams and rollbacks), ``auditor`` (read-only
audit: history, trace, diff, export, verify) and ``admin`` (everything).
A reviewer or auditor key may be bound to one agent too.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import threading
import time
from dataclasses import asdict, dataclass
from typing import Any

from kairos import clock
from kairos.domain.events import SYSTEM_AGENT, KeyIssued, KeyRevoked, MemoryStream
from kairos.domain.hashing import format_time
from kairos.domain.ids import check_id
from kairos.domain.inputs import parse_when
from kairos.errors import BadInput, NotFound
from kairos.ports import Commands, History

ROLES = ("agent", "reviewer", "auditor", "admin")
PREFIX = "kk_"
RELOAD_SECONDS = 1.0  # a key issued or revoked by another process counts here within this
# An unknown key id reads the keys again at most this often: a key issued a
# moment ago elsewhere works within this, and a flood of made-up ids costs
# the store four reads a second.
UNKNOWN_RELOAD_SECONDS = 0.25


def digest(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class ApiKey:
    """A key as its events made it (never its secret)."""

    key_id: str
    role: str
    agent: str | None  # the one agent it reaches, or None: any
    user: str | None  # the one user it reaches, or None: any
    expires: str | None
    issued_at: str
    issued_by: str
    digest: str
    revoked_at: str | None = None
    revoked_by: str | None = None

    def live(self, now: str) -> bool:
        return self.revoked_at is None and (self.expires is None or now < self.expires)

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        del out["digest"]
        return out


class Keys:
    """The API keys of one home."""

    def __init__(self, commands: Commands, history: History):
        self.commands = commands
        self.history = history
        self._keys: dict[str, ApiKey] = {}
        self._loaded = -1.0
        self._lock = threading.Lock()

    def create(self, role: str, *, by: str, agent: str | None = None, user: str | None = None,
               expires: str | None = None) -> tuple[str, ApiKey]:
        """Issue a key; return it (shown once, never stored) and its record.

        :raises BadInput: an unknown role, an agent key without an agent, a
            bad id, or an expiry that is not a future ISO time.
        """
        if role not in ROLES:
            raise BadInput(f"unknown role {role!r}: use one of {', '.join(ROLES)}")
        if role == "agent" and agent is None:
            raise BadInput("an agent key needs --agent: the agent whose memory it reaches")
        if role == "admin" and (agent is not None or user is not None):
            raise BadInput("an admin key reaches every agent and user: give no --agent or --user")
        for value, what in ((agent, "agent"), (user, "user")):
            if value is not None:
                check_id(value, what)
        _check_by(by)
        until = None
        if expires is not None:
            until = format_time(parse_when(expires))
            if until <= format_time(clock.now()):
                raise BadInput(f"--expires {expires} is not in the future")
        key_id, secret = secrets.token_hex(6), secrets.token_urlsafe(32)
        rec, _ = self.commands.execute(SYSTEM_AGENT, None, lambda s: s.issue_key(
            key_id, role, agent, user, until, digest(secret), by, clock.now()))
        self._loaded = -1.0
        return f"{PREFIX}{key_id}_{secret}", self._record_of(rec.event)

    def revoke(self, key_id: str, *, by: str, reason: str) -> ApiKey:
        """:raises NotFound: no such key.  :raises BadInput: revoked already."""
        _check_by(by)
        if not reason.strip():
            raise BadInput("give a reason")
        key = self._reload(force=True).get(key_id)
        if key is None:
            raise NotFound(f"no key {key_id!r}")
        if key.revoked_at is not None:
            raise BadInput(f"key {key_id} was revoked at {key.revoked_at} already")
        self.commands.execute(SYSTEM_AGENT, None,
                              lambda s: s.revoke_key(key_id, by, reason, clock.now()))
        return self._reload(force=True)[key_id]

    def list(self) -> list[ApiKey]:
        return sorted(self._reload(force=True).values(), key=lambda k: k.issued_at)

    def authenticate(self, token: str) -> ApiKey | None:
        """The live key a token is, or None (malformed, unknown, wrong secret,
        revoked or expired): the comparison takes the same time whichever."""
        if not token.startswith(PREFIX) or token.count("_") < 2:
            return None
        key_id, secret = token[len(PREFIX):].split("_", 1)
        keys = self._reload()
        key = keys.get(key_id)
        if key is None and time.monotonic() - self._loaded > UNKNOWN_RELOAD_SECONDS:
            key = self._reload(force=True).get(key_id)  # issued a moment ago elsewhere
        wanted = key.digest if key is not None else "0" * 64
        if not hmac.compare_digest(wanted, digest(secret)) or key is None:
            return None
        return key if key.live(format_time(clock.now())) else None

    # -- the fold ----------------------------------------------------------------------
    def _reload(self, *, force: bool = False) -> dict[str, ApiKey]:
        with self._lock:
            if force or time.monotonic() - self._loaded > RELOAD_SECONDS:
                keys: dict[str, ApiKey] = {}
                for e in self.history.stream(MemoryStream.stream_id(SYSTEM_AGENT, None)):
                    if isinstance(e, KeyIssued):
                        keys[e.key_id] = self._record_of(e)
                    elif isinstance(e, KeyRevoked) and e.key_id in keys:
                        k = keys[e.key_id]
                        keys[e.key_id] = ApiKey(**{**asdict(k), "revoked_at":
                                                   format_time(e.timestamp), "revoked_by": e.by})
                self._keys, self._loaded = keys, time.monotonic()
            return self._keys

    @staticmethod
    def _record_of(e: Any) -> ApiKey:
        return ApiKey(e.key_id, e.role, e.scope_agent, e.scope_user, e.expires,
                      format_time(e.timestamp), e.by, e.digest)


def _check_by(by: str) -> None:
    if not by.strip() or any(not c.isprintable() for c in by) or len(by) > 128:
        raise BadInput("by must be a name on one line, at most 128 characters")


__all__ = ["PREFIX", "ROLES", "ApiKey", "Keys"]
