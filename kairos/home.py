"""A Kairos home: the directory that holds one memory installation.

Layout::

    kairos.toml        settings (store URL, per-file limits); marks the home
    kairos.db          the embedded SQLite event store (default backend)
    logs/YYYY/MM/      the append-only dated logs
    memory/            materialized memory files (derived)
    keys/              data keys, wrapped by the master key (a home that encrypts)
    .kairos.lock       the writers' lock

A directory is a home when it has ``kairos.toml`` or a ``logs/`` folder (a
home whose database was lost is still a home: ``rebuild --from-logs``
restores it).  Writers of one home serialize on an exclusive ``flock`` of
``.kairos.lock`` (:mod:`kairos.engine.locks`), which the kernel releases when
a process dies, so a crashed writer never blocks the next.
"""

from __future__ import annotations

import os
import re
import tomllib
from dataclasses import dataclass, field
from typing import Any

from kairos.domain.files import FILES, TOPIC, FileSpec
from kairos.errors import BadInput, NotAHome, a_kind

CONFIG = "kairos.toml"
KEYS = "keys"  # the wrapped data keys of a home that encrypts (kairos.engine.keyring)
DEFAULT_CONFIG = """\
# Kairos home settings.
#
# [store]
# url = "postgresql://kairos@localhost/kairos"   # default: sqlite:///<home>/kairos.db
#
# [limits]                                       # characters per file
# "TOOLS.md" = 3000
# max_write = 65536                              # bytes of one write's text
# ceiling_factor = 4                             # a soft-limited file holds at most 4x its limit
#
# [dream]                                        # the nightly distillation
# review = "required"                            # or "auto"
# min_hours = 24                                 # gate: hours since the last dream
# min_sessions = 5                               # gate: sessions ended since
# ttl_days = 30                                  # a time-bound fact over this long moves to topics/archive.md
# max_loss = 0.25                                # share of facts a draft may lose: more is refused
# review_hold = 0.10                             # auto review: dropping more than this waits for a human
# distiller = "rules"                            # or "llm" (pip install kairos-memory[llm])
# model = "openai/qwen2.5-7b-instruct"           # any model litellm supports
# api_base = "http://127.0.0.1:8000/v1"
#
# [dream.agents.ada]
# review = "auto"
#
# [search]                                       # memory search
# embeddings = "auto"                            # wordllama if installed (kairos-memory[search]),
#                                                # "off", or a litellm model, e.g.
#                                                # "openai/text-embedding-3-small"
# api_base = "http://127.0.0.1:11434"            # for a litellm model; its key from the env
# timeout = 10                                   # seconds per embedding request
# retry_after = 60                               # seconds to rest a failed embedder
# min_similarity = 0.25                          # cosine below which a semantic hit is dropped
#
# [privacy]                                      # encryption at rest, erasure
# encrypt = true                                 # memory text encrypted per agent+user pair
# key_file = "/etc/kairos/master.key"            # the master key (outside the home), or
# key_command = "vault kv get -field=key kairos" # a command that prints it, or KAIROS_MASTER_KEY
#
# [serve]                                        # kairos serve (docs/serve.md)
# cors_origins = ["https://app.example.com"]     # browsers' origins allowed (default: none)
# max_body = 1048576                             # bytes a request body may hold
#
# [users.mia]                                    # per user
# timezone = "Europe/Berlin"                     # relative time is read in it (default UTC)
"""


@dataclass
class DreamSettings:
    """``[dream]`` in kairos.toml; ``[dream.agents.<agent>]`` overrides ``review``."""

    review: str = "required"  # or "auto": a proposal that passes the guards is approved
    min_hours: float = 24.0  # the double gate: hours since the pair's last dream …
    min_sessions: int = 5  # … and sessions ended since
    # A time-bound fact (a dated plan, trip, appointment; "currently …") whose time
    # has been over this long moves to topics/archive.md; durable facts never age out.
    ttl_days: int = 30
    # Share of the facts the current files cite that a draft may lose (no line still says
    # them, no checkable reason drops them); a draft that loses more is refused.
    max_loss: float = 0.25
    # Under review = "auto", a proposal that drops or supersedes more than this share of the
    # current lines, or loses any fact, waits for a human instead (status "proposed").
    review_hold: float = 0.10
    distiller: str = "rules"
    model: str | None = None
    api_base: str | None = None
    timeout: float = 120.0
    retries: int = 2
    agents: dict[str, dict[str, Any]] = field(default_factory=dict)

    def review_for(self, agent: str) -> str:
        return str(self.agents.get(agent, {}).get("review", self.review))


# The cosine below which a semantic hit is not a hit: without a floor a
# query about nothing the pair holds gets its nearest, unrelated lines.
# Chosen for the embedded default (wordllama) on the recall data set
# (docs/benchmarks.md): hybrid recall@5 0.880 with no floor, 0.821 at 0.25
# (paraphrases lose most), 0.799 at 0.30; queries about nothing there reach
# 0.15-0.38 against their nearest line.  Another model may want another.
MIN_SIMILARITY = 0.25


@dataclass
class SearchSettings:
    """``[search]`` in kairos.toml (see :mod:`kairos.projections.embedders`)."""

    embeddings: str = "auto"  # "auto", "off", "wordllama", or a litellm model
    api_base: str | None = None
    timeout: float = 10.0
    retry_after: float = 60.0
    # Semantic hits below this cosine are dropped (see kairos.agent.search).
    min_similarity: float = MIN_SIMILARITY


# One write's text is bounded (64 KiB of UTF-8): a memory line is a fact, and
# an unbounded one makes every later read of its file slow.
MAX_WRITE = 65536
# A soft-limited file (MEMORY.md, topics) accepts writes past its limit, and
# flags itself for compression, up to this many times the limit: a ceiling
# that a forgotten dream or a runaway agent cannot push past.
CEILING_FACTOR = 4
LIMIT_SETTINGS = ("max_write", "ceiling_factor")


@dataclass
class UserSettings:
    """``[users.<user>]`` in kairos.toml."""

    timezone: str | None = None  # an IANA name; a "timezone:" line in USER.md wins


@dataclass
class PrivacySettings:
    """``[privacy]`` in kairos.toml (see :mod:`kairos.engine.keyring`)."""

    encrypt: bool = False
    key_file: str | None = None
    key_command: str | None = None


@dataclass
class ServeSettings:
    """``[serve]`` in kairos.toml (see :mod:`kairos.http.app`): CORS is off
    unless origins are named."""

    cors_origins: list[str] = field(default_factory=list)
    max_body: int = 1 << 20


@dataclass
class Settings:
    url: str | None = None
    limits: dict[str, int] = field(default_factory=dict)
    dream: DreamSettings = field(default_factory=DreamSettings)
    search: SearchSettings = field(default_factory=SearchSettings)
    max_write: int = MAX_WRITE
    ceiling_factor: int = CEILING_FACTOR
    entry_key_file: str | None = None  # [audit] entry_key_file: the log entries' MAC key
    users: dict[str, UserSettings] = field(default_factory=dict)
    privacy: PrivacySettings = field(default_factory=PrivacySettings)
    serve: ServeSettings = field(default_factory=ServeSettings)

    def timezone_of(self, user: str) -> str | None:
        found = self.users.get(user)
        return found.timezone if found else None

    def limit_of(self, spec: FileSpec) -> int:
        """A file's limit in this home: ``[limits]``, else its default."""
        return self.limits.get(spec.name, spec.limit)

    def ceiling_of(self, spec: FileSpec) -> int | None:
        """The most a soft-limited file may hold (None for a hard limit: the
        limit itself is the ceiling)."""
        return None if spec.hard else self.limit_of(spec) * self.ceiling_factor


def _user_settings(path: str, data: Any) -> dict[str, UserSettings]:
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

    if not isinstance(data, dict) or not all(isinstance(v, dict) for v in data.values()):
        raise BadInput(f"{path}: [users] must hold one table per user, e.g. [users.mia]")
    out = {}
    for user, table in data.items():
        if set(table) - {"timezone"}:
            raise BadInput(f"{path}: [users.{user}] takes timezone only")
        tz = table.get("timezone")
        if tz is not None:
            try:
                ZoneInfo(str(tz))
            except (ZoneInfoNotFoundError, ValueError):
                raise BadInput(f"{path}: [users.{user}] timezone {tz!r} is not an IANA timezone "
                               "(e.g. Europe/Berlin)") from None
        out[user] = UserSettings(timezone=tz)
    return out


def _dream_settings(path: str, data: dict[str, Any]) -> DreamSettings:
    defaults = DreamSettings()
    values: dict[str, Any] = {}
    for key, value in data.items():
        if key == "agents":
            if not isinstance(value, dict) or not all(isinstance(v, dict) for v in value.values()):
                raise BadInput(f"{path}: [dream.agents] must hold one table per agent")
            for agent, table in value.items():
                if set(table) - {"review"} or table.get("review", "auto") not in ("auto", "required"):
                    raise BadInput(f"{path}: [dream.agents.{agent}] takes review = auto|required")
            values[key] = value
            continue
        if not hasattr(defaults, key):
            raise BadInput(f"{path}: unknown setting {key!r} in [dream]")
        expected = type(getattr(defaults, key))
        if expected is float and isinstance(value, int) and not isinstance(value, bool):
            value = float(value)
        if getattr(defaults, key) is not None and not isinstance(value, expected):
            raise BadInput(f"{path}: [dream] {key} must be {a_kind(expected.__name__)}")
        values[key] = value
    settings = DreamSettings(**values)
    if settings.review not in ("auto", "required"):
        raise BadInput(f"{path}: [dream] review must be auto or required")
    for key in ("max_loss", "review_hold"):
        if not 0 <= getattr(settings, key) <= 1:
            raise BadInput(f"{path}: [dream] {key} must be between 0 and 1")
    return settings


def _search_settings(path: str, data: dict[str, Any]) -> SearchSettings:
    defaults = SearchSettings()
    values: dict[str, Any] = {}
    for key, value in data.items():
        if not hasattr(defaults, key):
            raise BadInput(f"{path}: unknown setting {key!r} in [search]")
        expected = float if key in ("timeout", "retry_after", "min_similarity") else str
        if expected is float and isinstance(value, int) and not isinstance(value, bool):
            value = float(value)
        if key == "min_similarity":
            if not isinstance(value, float) or not -1 <= value <= 1:
                raise BadInput(f"{path}: [search] min_similarity must be a cosine, "
                               "between -1 and 1")
        elif not isinstance(value, expected) or (isinstance(value, float) and value <= 0):
            raise BadInput(f"{path}: [search] {key} must be a "
                           f"{'positive number' if expected is float else 'string'}")
        values[key] = value
    return SearchSettings(**values)


def _privacy_settings(path: str, data: Any) -> PrivacySettings:
    if not isinstance(data, dict) or set(data) - {"encrypt", "key_file", "key_command"}:
        raise BadInput(f"{path}: [privacy] takes encrypt, key_file and key_command")
    if not isinstance(data.get("encrypt", False), bool):
        raise BadInput(f"{path}: [privacy] encrypt must be true or false")
    for key in ("key_file", "key_command"):
        if not isinstance(data.get(key, ""), str):
            raise BadInput(f"{path}: [privacy] {key} must be a string")
    return PrivacySettings(encrypt=data.get("encrypt", False), key_file=data.get("key_file"),
                           key_command=data.get("key_command"))


def _serve_settings(path: str, data: Any) -> ServeSettings:
    if not isinstance(data, dict) or set(data) - {"cors_origins", "max_body"}:
        raise BadInput(f"{path}: [serve] takes cors_origins and max_body")
    origins = data.get("cors_origins", [])
    if not isinstance(origins, list) or not all(
            isinstance(o, str) and re.fullmatch(r"https?://[^/\s*]+", o) for o in origins):
        raise BadInput(f"{path}: [serve] cors_origins must be a list of origins such as "
                       "\"https://app.example.com\" (scheme and host, no path, no *)")
    size = data.get("max_body", 1 << 20)
    if not isinstance(size, int) or isinstance(size, bool) or not 1024 <= size <= 1 << 26:
        raise BadInput(f"{path}: [serve] max_body must be a number of bytes from 1024 to 67108864")
    return ServeSettings(cors_origins=list(origins), max_body=size)


def is_home(path: str) -> bool:
    return os.path.isfile(os.path.join(path, CONFIG)) or os.path.isdir(os.path.join(path, "logs"))


def resolve_home(home: str | None) -> str:
    """The home directory: the argument, else ``KAIROS_HOME``, else the current one."""
    return os.path.abspath(home or os.environ.get("KAIROS_HOME") or os.getcwd())


def load_settings(home: str) -> Settings:
    path = os.path.join(home, CONFIG)
    if not os.path.exists(path):
        return Settings()
    try:
        with open(path, "rb") as f:
            data: dict[str, Any] = tomllib.load(f)
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
        raise BadInput(f"{path}: {e}") from None
    limits = dict(data.get("limits", {}))
    extra = {name: limits.pop(name) for name in LIMIT_SETTINGS if name in limits}
    for name, value in extra.items():
        if not isinstance(value, int) or isinstance(value, bool) or value < 1:
            raise BadInput(f"{path}: [limits] {name} must be a positive integer")
    for name, value in limits.items():
        if name not in FILES and not TOPIC.fullmatch(name):
            raise BadInput(f"{path}: unknown file {name!r} in [limits]")
        if not isinstance(value, int) or isinstance(value, bool) or value < 1:
            raise BadInput(f"{path}: limit for {name} must be a positive integer")
    url = data.get("store", {}).get("url")
    audit = data.get("audit", {})
    if not isinstance(audit, dict) or set(audit) - {"entry_key_file"} or not isinstance(
            audit.get("entry_key_file", ""), str):
        raise BadInput(f"{path}: [audit] takes entry_key_file = \"PATH\"")
    return Settings(url=url, limits=limits,
                    dream=_dream_settings(path, data.get("dream", {})), **extra,
                    entry_key_file=audit.get("entry_key_file"),
                    users=_user_settings(path, data.get("users", {})),
                    privacy=_privacy_settings(path, data.get("privacy", {})),
                    serve=_serve_settings(path, data.get("serve", {})),
                    search=_search_settings(path, data.get("search", {})))


def store_url(home: str, db: str | None, settings: Settings) -> str:
    """The store URL: ``--db``, else ``KAIROS_DATABASE_URL``, else the home's
    settings, else the SQLite file in the home.  A bare path means SQLite."""
    url = db or os.environ.get("KAIROS_DATABASE_URL") or settings.url
    if not url:
        return "sqlite:///" + os.path.join(home, "kairos.db")
    if "://" not in url:
        return "sqlite:///" + os.path.abspath(url)
    return url


def write_durably(path: str, data: bytes) -> None:
    """Set ``path`` to ``data`` atomically and durably: a temporary file
    beside it, fsynced, renamed over it, and the folder fsynced — after a
    crash the file is whole, old or new, never half written or missing
    once this returns."""
    directory = os.path.dirname(path)
    os.makedirs(directory, exist_ok=True)
    tmp = os.path.join(directory, f".tmp-{os.path.basename(path)}.{os.getpid()}")
    try:
        with open(tmp, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    fsync_dir(directory)


def fsync_dir(path: str) -> None:
    """Make a folder's entries (a file made, renamed or removed) durable."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


ENTRY_KEY_ENV = "KAIROS_ENTRY_KEY"


def load_entry_key(home: str, settings: Settings) -> bytes | None:
    """The log entries' MAC key: the file ``KAIROS_ENTRY_KEY`` names, else
    ``[audit] entry_key_file``, else None (entries are not authenticated).

    The file holds the key in hex (``kairos keygen --entry-key`` writes 32
    random bytes).  It must live outside the home: whoever can write the
    logs must not be able to read it.
    :raises BadInput: the file is missing, unreadable, too short, or in the home.
    """
    path = os.environ.get(ENTRY_KEY_ENV) or settings.entry_key_file
    if not path:
        return None
    path = os.path.abspath(os.path.expanduser(path))
    if os.path.commonpath([path, home]) == home:
        raise BadInput(f"the entry key {path} is inside the home: keep it outside, where "
                       "those who can write the logs cannot read it")
    try:
        with open(path, encoding="ascii") as f:
            key = bytes.fromhex(f.read().strip())
    except (OSError, ValueError, UnicodeDecodeError) as e:
        raise BadInput(f"cannot load the entry key {path}: {e}") from None
    if len(key) < 16:
        raise BadInput(f"the entry key {path} is too short: use 32 random bytes in hex")
    return key


def check_home(home: str) -> None:
    if not os.path.isdir(home):
        raise NotAHome(f"not a Kairos home: {home} does not exist (run `kairos init`)")
    if not is_home(home):
        raise NotAHome(f"not a Kairos home: {home} has no {CONFIG} or logs/ (run `kairos init`)")


DAY_FILE = re.compile(r"(\d{4})-(\d{2})-(\d{2})\.md")  # logs/YYYY/MM/YYYY-MM-DD.md


def day_files(root: str) -> list[tuple[str, str]]:
    """Every day file under a home's ``logs`` folder as (day, path), oldest
    first: ``YYYY/MM/YYYY-MM-DD.md``, anything else there left alone."""
    found: list[tuple[str, str]] = []
    if not os.path.isdir(root):
        return found
    for year in sorted(os.listdir(root)):
        ydir = os.path.join(root, year)
        if not (year.isdigit() and os.path.isdir(ydir)):
            continue
        for month in sorted(os.listdir(ydir)):
            mdir = os.path.join(ydir, month)
            if not (month.isdigit() and os.path.isdir(mdir)):
                continue
            for name in sorted(os.listdir(mdir)):
                m = DAY_FILE.fullmatch(name)
                if m and m.group(1) == year and m.group(2) == month:
                    found.append((name[:-3], os.path.join(mdir, name)))
    return found
