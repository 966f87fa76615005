"""Checkpoints against honest and lying histories."""

from __future__ import annotations

import dataclasses
import json
import shutil
import sqlite3
from pathlib import Path

import psycopg
import pytest

from kairos.domain.events import expected_hash
from kairos.memory import Memory
from tests.conftest import Kairos


def fill(mem: Memory, n: int, user: str = "sam", word: str = "fact") -> None:
    for i in range(n):
        mem.write("ada", "MEMORY.md", f"{word} {i}", user=user)


def rewrite_rows(mem: Memory, db_url: str, events: list) -> None:  # type: ignore[type-arg]
    """Overwrite stored events in place, as an attacker with database access would."""
    mapper = mem.engine.store.app.mapper
    for e in events:
        state = mapper.to_stored_event(e).state
        if db_url.startswith("sqlite"):
            with sqlite3.connect(db_url[len("sqlite:///"):]) as conn:
                conn.execute("UPDATE stored_events SET state = ? WHERE originator_id = ? AND "
                             "originator_version = ?", (state, e.originator_id.hex,
                                                        e.originator_version))
        else:
            with psycopg.connect(db_url, autocommit=True) as conn:
                conn.execute("UPDATE kairos_events SET state = %s WHERE originator_id = %s AND "
                             "originator_version = %s", (state, e.originator_id,
                                                         e.originator_version))


def delete_after(db_url: str, position: int) -> None:
    if db_url.startswith("sqlite"):
        with sqlite3.connect(db_url[len("sqlite:///"):]) as conn:
            conn.execute("DELETE FROM stored_events WHERE rowid > ?", (position,))
            conn.execute("DELETE FROM stored_snapshots")
    else:
        with psycopg.connect(db_url, autocommit=True) as conn:
            conn.execute("DELETE FROM kairos_events WHERE notification_id > %s", (position,))
            conn.execute("DELETE FROM kairos_snapshots")


def regenerate_logs(home: Path, db_url: str) -> None:
    """Make the logs and projections agree with the (rewritten) store, so
    that the plain checks pass and only a checkpoint can catch the lie."""
    shutil.rmtree(home / "logs")
    (home / "logs").mkdir()
    with Memory(str(home), db_url, recover=False) as m:
        m.engine.readmodel.reset()
        m.rebuild()
        assert m.verify().ok


@pytest.fixture
def sealed(mem: Memory, kairos: Kairos, tmp_path: Path) -> Path:
    assert kairos("keygen", str(tmp_path / "key.pem")).exit_code == 0
    fill(mem, 6)
    out = kairos("seal", "--key", str(tmp_path / "key.pem"), "--json")
    data = json.loads(out.stdout)
    kept = tmp_path / "elsewhere.json"  # the copy an auditor keeps
    shutil.copy(Path(mem.home) / data["file"], kept)
    return kept


def test_an_honest_history_extends_its_checkpoint(mem: Memory, kairos: Kairos, sealed: Path,
                                                  tmp_path: Path) -> None:
    fill(mem, 3, word="later")
    out = kairos("verify", "--checkpoint", str(sealed), "--public-key",
                 str(tmp_path / "key.pem.pub"))
    assert out.exit_code == 0, out.output
    assert "the history (12 events) extends the checkpoint (7 events" in out.stdout
    recorded = mem.engine.index.events(types=["CheckpointSealed"])
    assert [(r["agent_id"], r["user_id"]) for r in recorded] == [("_system", None)]


def test_an_old_event_rewritten_with_every_hash_recomputed_is_caught(
        mem: Memory, kairos: Kairos, sealed: Path, home: Path, db_url: str) -> None:
    from kairos.domain.events import MemoryStream

    events = mem.engine.store.stream(MemoryStream.stream_id("ada", "sam"))
    forged, prev = [], None
    for e in events:
        if e.originator_version == 3:
            e = dataclasses.replace(e, text="a fact that was never written")
        if prev is not None and e.prev != prev:
            e = dataclasses.replace(e, prev=prev)
        if e.hash != expected_hash(e) or forged:
            e = dataclasses.replace(e, hash=expected_hash(e))
            forged.append(e)
        prev = e.hash
    rewrite_rows(mem, db_url, forged)
    mem.close()
    regenerate_logs(home, db_url)
    assert kairos("verify").exit_code == 0  # the lie is self-consistent…
    out = kairos("verify", "--checkpoint", str(sealed))
    assert out.exit_code == 1  # …but not with what was sealed
    assert "does not extend the checkpoint" in out.stdout


def test_a_truncated_history_is_caught(mem: Memory, kairos: Kairos, sealed: Path, home: Path,
                                       db_url: str) -> None:
    mem.close()
    delete_after(db_url, 4)
    regenerate_logs(home, db_url)
    assert kairos("verify").exit_code == 0
    out = kairos("verify", "--checkpoint", str(sealed))
    assert out.exit_code == 1 and "fewer than the checkpoint's 7" in out.stdout


def test_a_forked_history_is_caught(mem: Memory, kairos: Kairos, sealed: Path, home: Path,
                                    db_url: str) -> None:
    mem.close()
    delete_after(db_url, 4)
    regenerate_logs(home, db_url)
    with Memory(str(home), db_url) as m:
        fill(m, 6, word="another story")  # as long as the original, and longer
    out = kairos("verify", "--checkpoint", str(sealed))
    assert out.exit_code == 1 and "does not extend the checkpoint" in out.stdout


def test_a_checkpoint_with_a_bad_signature_is_caught(mem: Memory, kairos: Kairos, sealed: Path,
                                                     tmp_path: Path) -> None:
    data = json.loads(sealed.read_text())
    tampered = tmp_path / "tampered.json"
    tampered.write_text(json.dumps({**data, "size": data["size"] - 1}))
    out = kairos("verify", "--checkpoint", str(tampered))
    assert out.exit_code == 1 and "signature does not hold" in out.stdout
    assert kairos("keygen", str(tmp_path / "other.pem")).exit_code == 0
    out = kairos("verify", "--checkpoint", str(sealed), "--public-key",
                 str(tmp_path / "other.pem.pub"))
    assert out.exit_code == 1 and "signed with another key" in out.stdout
    unsigned = tmp_path / "unsigned.json"
    unsigned.write_text(json.dumps({k: v for k, v in data.items()
                                    if k not in ("signature", "public_key")}))
    out = kairos("verify", "--checkpoint", str(unsigned), "--public-key",
                 str(tmp_path / "key.pem.pub"))
    assert out.exit_code == 1 and "not signed" in out.stdout
