"""Fixtures: a temp home per test, and every store test run on both backends.

PostgreSQL tests need ``KAIROS_TEST_PG``, the URL of a server whose user may
create databases (``.ci/run`` starts one).  Each test gets a database of its
own.  Without the variable they skip — except under CI, where a missing
server is a failure, not a skip.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import freezegun
import psycopg
import pytest
from click.testing import CliRunner, Result

from kairos.cli.main import cli
from kairos.memory import Memory

PG_ADMIN_URL = os.environ.get("KAIROS_TEST_PG")
# KAIROS_TEST_SEALED=1: the homes the fixtures make encrypt ([privacy] encrypt),
# so that their read model is sealed and searched in memory
# (kairos.projections.sealedsearch): scripts/test runs the search suites so.
SEALED = bool(os.environ.get("KAIROS_TEST_SEALED"))
SEALED_KEY = "c2VhbGVkLXRlc3QtbWFzdGVyLWtleS0zMi1ieXRlcyE="  # 32 bytes, base64
PRIVACY = "\n[privacy]\nencrypt = true\n"

# The PostgreSQL connection pool keeps the machine's time: under a frozen
# clock that jumps months between tests, psycopg_pool took its connections
# for expired, reopened them in its workers and left writers waiting past
# their 0.3 s (a flaky "couldn't get a connection" on PostgreSQL).
freezegun.configure(extend_ignore_list=["psycopg_pool"])
# pydantic learns what a datetime is when it is first imported: imported under a
# frozen clock (a follower thread of a test in freeze_time loading an embedder),
# it takes freezegun's class for it, and litellm's models fail to build in every
# later test ("Unable to generate pydantic-core schema for datetime", in some
# orders of the files).  litellm, and with it pydantic, load here, before any test
# (with its local table of model costs, as Kairos loads it: no fetch over the network).
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
import litellm  # noqa: E402, F401


@pytest.fixture(autouse=True)
def isolated_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No test reads a real home or database from the environment."""
    monkeypatch.setenv("KAIROS_HOME", str(tmp_path / "no-home-here"))
    monkeypatch.delenv("KAIROS_DATABASE_URL", raising=False)
    monkeypatch.delenv("KAIROS_FAULT", raising=False)
    if SEALED:
        monkeypatch.setenv("KAIROS_MASTER_KEY", SEALED_KEY)
    else:
        monkeypatch.delenv("KAIROS_MASTER_KEY", raising=False)


def _pg_database() -> Iterator[str]:
    if not PG_ADMIN_URL:
        if os.environ.get("CI"):
            pytest.fail("KAIROS_TEST_PG is not set under CI: PostgreSQL tests must run")
        pytest.skip("KAIROS_TEST_PG not set (no PostgreSQL server)")
    name = "kt_" + uuid.uuid4().hex[:12]
    with psycopg.connect(PG_ADMIN_URL, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    base = PG_ADMIN_URL.rsplit("/", 1)[0]
    try:
        yield f"{base}/{name}"
    finally:
        with psycopg.connect(PG_ADMIN_URL, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture(params=["sqlite", "postgres"])
def backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def db_url(backend: str, tmp_path: Path) -> Iterator[str]:
    if backend == "sqlite":
        yield "sqlite:///" + str(tmp_path / "home" / "kairos.db")
    else:
        yield from _pg_database()


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return tmp_path / "home"


@pytest.fixture
def mem(home: Path, db_url: str) -> Iterator[Memory]:
    m = Memory.init(str(home), db_url)
    if SEALED:
        m.close()
        with open(home / "kairos.toml", "a", encoding="utf-8") as f:
            f.write(PRIVACY)
        m = Memory(str(home), db_url)
    yield m
    m.close()


class Kairos:
    """Runs the CLI against one home and store, the way a user would."""

    def __init__(self, home: Path, db_url: str):
        self.home, self.db_url = home, db_url
        self.runner = CliRunner()

    def __call__(self, *args: str, input: str | bytes | None = None) -> Result:
        return self.runner.invoke(cli, ["--home", str(self.home), "--db", self.db_url, *args],
                                  input=input, catch_exceptions=False)


@pytest.fixture
def kairos(home: Path, db_url: str, mem: Memory) -> Kairos:
    return Kairos(home, db_url)


def store_rows(m: Memory) -> list[tuple[int, str, int, bytes]]:
    """The raw rows of the event store, for 'nothing was written' checks."""
    rows = m.engine.store.app.recorder.select_notifications(start=None, limit=10**9)
    return [(n.id, str(n.originator_id), n.originator_version, bytes(n.state)) for n in rows]


def home_state(home: Path, db_url: str) -> dict[str, object]:
    """Everything a command could change: files of the home and store rows."""
    files = {}
    for p in sorted(home.rglob("*")):
        rel = p.relative_to(home).as_posix()
        if p.is_file() and not rel.startswith("kairos.db") and rel != ".kairos.lock":
            files[rel] = p.read_bytes()
    m = Memory(str(home), db_url)
    try:
        return {"files": files, "store": store_rows(m), "index": m.engine.readmodel.position()}
    finally:
        m.close()


# -- search ----------------------------------------------------------------------------------
def home_with(home: Path, db_url: str, search: str) -> Memory:
    """A new home whose ``kairos.toml`` holds ``search`` under ``[search]``."""
    home.mkdir(parents=True, exist_ok=True)
    (home / "kairos.toml").write_text("[search]\n" + search + "\n" + (PRIVACY if SEALED else ""),
                                      encoding="utf-8")
    return Memory.init(str(home), db_url)


@pytest.fixture
def lexical(home: Path, db_url: str) -> Iterator[Memory]:
    """A home searching by words only (no embedder)."""
    m = home_with(home, db_url, 'embeddings = "off"')
    yield m
    m.close()


def texts(result: Any) -> list[str]:
    """The texts of a search's hits, in order."""
    return [h.text for h in result]
