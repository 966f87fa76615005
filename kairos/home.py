"""A Kairos home: the directory that holds one memory installation.

Layout::

    kairos.toml        settings (store URL, per-file limits); marks the home
    kairos.db          the embedded SQLite event store (default backend)
    logs/YYYY/MM/      the append-only dated logs
    memory/            materialized memory files (derived)
    .kairos.lock       the writers' lock

A directory is a home when it has ``kairos.toml`` or a ``logs/`` folder (a
home whose database was lost is still a home: ``rebuild --from-logs``
restores it).  Writers of one home serialize on an exclusive ``flock`` of
``.kairos.lock`` (:mod:`kairos.engine.locks`), which the kernel releases when
a process dies, so a crashed writer never blocks the next.
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass, field
from typing import Any

from kairos.domain.files import FILES, TOPIC, FileSpec
from kairos.errors import BadInput, NotAHome

CONFIG = "kairos.toml"
DEFAULT_CONFIG = """\
# Kairos home settings.
#
# [store]
# url = "postgresql://kairos@localhost/kairos"   # default: sqlite:///<home>/kairos.db
#
# [limits]                                       # characters per file
# "TOOLS.md" = 3000
#
# [dream]                                        # the nightly distillation
# review = "required"                            # or "auto"
# min_hours = 24                                 # gate: hours since the last dream
# min_sessions = 5                               # gate: sessions ended since
# ttl_days = 180                                 # stale after this long unconfirmed
# max_loss = 0.25                                # lines droppable without a reason
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
"""


@dataclass
class DreamSettings:
    """``[dream]`` in kairos.toml; ``[dream.agents.<agent>]`` overrides ``review``."""

    review: str = "required"  # or "auto": a proposal that passes the guards is approved
    min_hours: float = 24.0  # the double gate: hours since the pair's last dream …
    min_sessions: int = 5  # … and sessions ended since
    ttl_days: int = 180  # MEMORY.md facts unconfirmed for longer are dropped as stale
    max_loss: float = 0.25  # share of lines a proposal may drop without a reason
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


@dataclass
class Settings:
    url: str | None = None
    limits: dict[str, int] = field(default_factory=dict)
    dream: DreamSettings = field(default_factory=DreamSettings)
    search: SearchSettings = field(default_factory=SearchSettings)

    def limit_of(self, spec: FileSpec) -> int:
        """A file's limit in this home: ``[limits]``, else its default."""
        return self.limits.get(spec.name, spec.limit)


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
            raise BadInput(f"{path}: [dream] {key} must be a {expected.__name__}")
        values[key] = value
    settings = DreamSettings(**values)
    if settings.review not in ("auto", "required"):
        raise BadInput(f"{path}: [dream] review must be auto or required")
    if not 0 <= settings.max_loss <= 1:
        raise BadInput(f"{path}: [dream] max_loss must be between 0 and 1")
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
    limits = data.get("limits", {})
    for name, value in limits.items():
        if name not in FILES and not TOPIC.fullmatch(name):
            raise BadInput(f"{path}: unknown file {name!r} in [limits]")
        if not isinstance(value, int) or isinstance(value, bool) or value < 1:
            raise BadInput(f"{path}: limit for {name} must be a positive integer")
    url = data.get("store", {}).get("url")
    return Settings(url=url, limits=dict(limits),
                    dream=_dream_settings(path, data.get("dream", {})),
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


def check_home(home: str) -> None:
    if not os.path.isdir(home):
        raise NotAHome(f"not a Kairos home: {home} does not exist (run `kairos init`)")
    if not is_home(home):
        raise NotAHome(f"not a Kairos home: {home} has no {CONFIG} or logs/ (run `kairos init`)")
