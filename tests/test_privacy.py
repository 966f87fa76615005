"""Encryption at rest and erasure (crypto-shredding), on both backends.

A home with ``[privacy] encrypt = true`` keeps every piece of memory content
encrypted in its events, snapshots and logs; ``forget`` destroys a pair's
keys and purges what the read side decrypted.  These tests look for the
words themselves in the bytes: every file of the home, the SQLite database
with its WAL, and on PostgreSQL a ``pg_dump`` and the database's table files.
"""

from __future__ import annotations

import base64
import glob
import hashlib
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
from click.testing import CliRunner

from kairos import clock
from kairos.cli.main import cli
from kairos.domain.events import MemoryStream
from kairos.engine.keyring import KeyUnavailable
from kairos.errors import BadInput, NotFound
from kairos.memory import Memory

# Words no other test data holds, so a hit is this test's text.
SECRETS = ("Zanzibarpistachio", "Quetzalwelder", "Okapibremen", "Xylophonenotes",
           "Vermilionreason")
KEEP = "Kimchesspuzzle"  # another subject's: must survive every erasure


def new_key() -> str:
    return base64.b64encode(os.urandom(32)).decode()


@pytest.fixture
def key(monkeypatch: pytest.MonkeyPatch) -> str:
    k = new_key()
    monkeypatch.setenv("KAIROS_MASTER_KEY", k)
    return k


def encrypting(home: Path, db_url: str) -> Memory:
    Memory.init(str(home), db_url).close()
    with open(home / "kairos.toml", "a", encoding="utf-8") as f:
        f.write("\n[privacy]\nencrypt = true\n")
    return Memory(str(home), db_url)


@pytest.fixture
def emem(home: Path, db_url: str, key: str) -> Iterator[Memory]:
    m = encrypting(home, db_url)
    yield m
    m.close()


def fill(m: Memory) -> dict[str, str]:
    """Every kind of content for sam (two agents), and some for kim."""
    first = m.write("ada", "MEMORY.md", f"Sam loves {SECRETS[0]} gelato", user="sam")
    m.write("ada", "MEMORY.md", f"Sam works as a {SECRETS[1]} at Globex", user="sam")
    m.write("ada", "MEMORY.md", f"Sam now works as a {SECRETS[1]} at Initech", user="sam")
    m.write("ada", "USER.md", f"Sam lives in {SECRETS[2]}", user="sam")
    wrong = m.write("ada", "MEMORY.md", "Sam smokes", user="sam")
    m.retract("ada", "MEMORY.md", [wrong.event_id], reason=f"not true, says {SECRETS[4]}",
              user="sam")
    m.end_session("ada", user="sam", notes=f"We talked about {SECRETS[3]}")
    m.write("bob", "MEMORY.md", f"Sam asked bob about {SECRETS[0]}", user="sam")
    m.write("ada", "MEMORY.md", f"Kim enjoys a {KEEP}", user="kim")
    m.write("ada", "SOUL.md", "Ada is patient")
    outcome = m.dreams.dream("ada", "sam", force=True)
    assert outcome.status == "proposed", outcome
    assert outcome.dream_id is not None
    m.dreams.approve(outcome.dream_id, "rev")
    m.flush()
    return {"first": first.event_id, "dream": outcome.dream_id}


def home_bytes(home: Path) -> dict[str, bytes]:
    return {str(p.relative_to(home)): p.read_bytes() for p in home.rglob("*") if p.is_file()}


def found_in(blobs: dict[str, bytes], words: tuple[str, ...]) -> list[tuple[str, str]]:
    return sorted((name, w) for name, data in blobs.items() for w in words
                  if w.encode() in data or w.lower().encode() in data)


def stored_rows(db_url: str) -> dict[str, bytes]:
    """The event store's own tables (events and snapshots), as bytes."""
    if db_url.startswith("sqlite:"):
        import sqlite3

        conn = sqlite3.connect(db_url[len("sqlite:///"):])
        try:
            return {f"{t}:{i}": bytes(r[0]) for t in ("stored_events", "stored_snapshots")
                    for i, r in enumerate(conn.execute(f"SELECT state FROM {t}"))}
        finally:
            conn.close()
    with psycopg.connect(db_url) as conn:
        tables = [r[0] for r in conn.execute(
            "SELECT tablename FROM pg_tables WHERE tablename LIKE '%%events' "
            "OR tablename LIKE '%%snapshots'")]
        return {f"{t}:{i}": bytes(r[0]) for t in tables
                for i, r in enumerate(conn.execute(f"SELECT state FROM {t}"))}


def empty_pg_database(db_url: str) -> str:
    """A new, empty database beside ``db_url``'s (the test server drops it
    with the server)."""
    name = "kt_restore_" + os.urandom(6).hex()
    with psycopg.connect(db_url, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    return db_url.rsplit("/", 1)[0] + "/" + name


def pg_bytes(db_url: str) -> dict[str, bytes]:
    """A pg_dump of the database, and its table files after a checkpoint."""
    bindirs = sorted(glob.glob("/usr/lib/postgresql/*/bin"))
    pg_dump = shutil.which("pg_dump") or (os.path.join(bindirs[-1], "pg_dump") if bindirs
                                          else None)
    assert pg_dump, "pg_dump not found"
    dump = subprocess.run([pg_dump, db_url], capture_output=True, check=True).stdout
    with psycopg.connect(db_url, autocommit=True) as conn:
        conn.execute("CHECKPOINT")
        data_dir = conn.execute("SHOW data_directory").fetchone()[0]
        oid = conn.execute("SELECT oid FROM pg_database WHERE datname = current_database()"
                           ).fetchone()[0]
    files = {"pg_dump": dump}
    for path in glob.glob(os.path.join(data_dir, "base", str(oid), "*")):
        with open(path, "rb") as f:
            files[path] = f.read()
    return files


# -- encryption at rest ---------------------------------------------------------------
def test_events_snapshots_and_logs_hold_no_memory_text(emem: Memory, home: Path,
                                                       db_url: str) -> None:
    fill(emem)
    for i in range(210):  # past a snapshot (every 200 events)
        emem.write("ada", "MEMORY.md", f"note {i} about {SECRETS[0]}", user="kim")
    emem.flush()
    rows = stored_rows(db_url)
    assert any(k.startswith("stored_snapshots") or "snapshots" in k for k in rows)
    assert found_in(rows, (*SECRETS, KEEP)) == []
    logs = {k: v for k, v in home_bytes(home).items() if k.startswith("logs")}
    assert logs and found_in(logs, (*SECRETS, KEEP)) == []
    # No materialized file: they would be the memory in clear beside the events.
    assert not list(home.glob("memory/**/*.md"))
    assert b"~kx1:" in b"".join(logs.values())
    # The log as it is, and decrypted for those who hold the key.
    day = emem.history("ada", user="sam")[0]["recorded_at"][:10]
    assert SECRETS[2] not in emem.log(day, agent="ada", user="sam")
    assert SECRETS[2] in emem.log(day, agent="ada", user="sam", decrypt=True)
    assert SECRETS[2] in emem.log(day, decrypt=True)
    assert any(e.get("text") == f"Sam lives in {SECRETS[2]}"
               for e in emem.log_entries(day, decrypt=True))
    # ...while every read decrypts.
    assert SECRETS[2] in (emem.read("ada", "USER.md", user="sam").content or "")
    assert [h.text for h in emem.search("ada", SECRETS[2].lower(), user="sam")]
    trace = emem.audit.trace("ada", "sam", "MEMORY.md")
    assert any(SECRETS[1] in (r["text"] or "") for r in trace)
    shown = emem.dreams.show(emem.dreams.list(agent="ada")[0]["dream_id"])
    assert any(SECRETS[1] in str(line) for line in shown["files"]["MEMORY.md"]["lines"])
    assert emem.verify().problems == []
    # After all that, the home and the whole database — the read side with
    # its files, lines, event index and full-text index, WAL and free pages
    # included — hold no memory text: the read model's is sealed.
    emem.close()
    blobs = home_bytes(home)
    if not db_url.startswith("sqlite:"):
        blobs.update(pg_bytes(db_url))
    assert found_in(blobs, (*SECRETS, KEEP)) == []
    assert b"~ks1:" in b"".join(blobs.values())


def test_a_copy_without_the_master_key_cannot_be_read(emem: Memory, home: Path, db_url: str,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    fill(emem)
    emem.close()
    monkeypatch.delenv("KAIROS_MASTER_KEY")
    with pytest.raises(KeyUnavailable, match="no master key is set"):
        Memory(str(home), db_url)
    result = CliRunner().invoke(cli, ["--home", str(home), "--db", db_url, "read", "-a", "ada",
                                      "-u", "sam", "-f", "MEMORY.md"])
    assert result.exit_code != 0
    assert "no master key is set" in result.output and len(result.output.splitlines()) == 1
    monkeypatch.setenv("KAIROS_MASTER_KEY", new_key())
    with pytest.raises(KeyUnavailable, match="not the one this home's keys were wrapped with"):
        Memory(str(home), db_url)


def test_master_key_from_a_file_or_a_command(home: Path, db_url: str, tmp_path: Path) -> None:
    keyfile = tmp_path / "master.key"
    result = CliRunner().invoke(cli, ["keygen", "--master-key", str(keyfile)])
    assert result.exit_code == 0, result.output
    assert oct(keyfile.stat().st_mode & 0o777) == "0o600"
    Memory.init(str(home), db_url).close()
    with open(home / "kairos.toml", "a", encoding="utf-8") as f:
        f.write(f'\n[privacy]\nencrypt = true\nkey_file = "{keyfile}"\n')
    with Memory(str(home), db_url) as m:
        m.write("ada", "MEMORY.md", f"Sam loves {SECRETS[0]}", user="sam")
    text = (home / "kairos.toml").read_text().replace(f'key_file = "{keyfile}"',
                                                       f'key_command = "cat {keyfile}"')
    (home / "kairos.toml").write_text(text)
    with Memory(str(home), db_url) as m:
        assert SECRETS[0] in (m.read("ada", "MEMORY.md", user="sam").content or "")
    (home / "kairos.toml").write_text(text.replace(f"cat {keyfile}", "false"))
    with pytest.raises(KeyUnavailable, match="key_command failed"):
        Memory(str(home), db_url)
    inside = home / "master.key"
    shutil.copy(keyfile, inside)
    (home / "kairos.toml").write_text(text.replace(f'key_command = "cat {keyfile}"',
                                                   f'key_file = "{inside}"'))
    with pytest.raises(KeyUnavailable, match="inside the home"):
        Memory(str(home), db_url)


def test_rotating_the_master_key_rewrites_no_event(emem: Memory, home: Path, db_url: str,
                                                   tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    fill(emem)
    before = stored_rows(db_url)
    logs = {k: v for k, v in home_bytes(home).items() if k.startswith("logs")}
    emem.close()
    new = tmp_path / "new.key"
    assert CliRunner().invoke(cli, ["keygen", "--master-key", str(new)]).exit_code == 0
    result = CliRunner().invoke(cli, ["--home", str(home), "--db", db_url, "rotate-key",
                                      "--new-key-file", str(new)])
    assert result.exit_code == 0, result.output
    assert "re-wrapped 4 data keys" in result.output  # ada/sam, bob/sam, ada/kim, ada
    events = {k: v for k, v in stored_rows(db_url).items() if "events" in k}
    assert events == {k: v for k, v in before.items() if "events" in k}
    assert {k: v for k, v in home_bytes(home).items() if k.startswith("logs")} == logs
    with pytest.raises(KeyUnavailable):
        Memory(str(home), db_url)  # the old key no longer opens it
    monkeypatch.setenv("KAIROS_MASTER_KEY", new.read_text().strip())
    with Memory(str(home), db_url) as m:
        assert SECRETS[2] in (m.read("ada", "USER.md", user="sam").content or "")
        assert m.verify().problems == []


LOOKS = ("~kx1:00:3:abc", "~kx1:0123456789abcdef:5:Zm9v")  # Kairos's form, or nearly


def test_text_that_looks_encrypted_is_text_in_a_plain_home(mem: Memory) -> None:
    for text in LOOKS:
        mem.write("ada", "MEMORY.md", text, user="sam")
    mem.write("ada", "MEMORY.md", "Sam likes tea", user="sam", mode="append")  # sizes still add
    assert mem.read("ada", "MEMORY.md", user="sam").content == "".join(
        t + "\n" for t in (*LOOKS, "Sam likes tea"))
    assert mem.search("ada", LOOKS[0], user="sam") is not None
    assert mem.verify().problems == []
    assert mem.rebuild().changed == []


def test_text_that_looks_encrypted_is_text_in_an_encrypting_home(emem: Memory,
                                                                 db_url: str) -> None:
    """Encrypted like any other text — and a ciphertext copied from another
    pair's log entry never decrypts in this pair."""
    fill(emem)
    kim = next(e for e in emem.engine.store.stream(MemoryStream.stream_id("ada", "kim"))
               if e.kind.value == "MemoryWritten")
    for text in (*LOOKS, kim.text):  # the last: kim's ciphertext, copied
        emem.write("ada", "MEMORY.md", text, user="sam")
    emem.write("ada", "MEMORY.md", f"Sam now works as a {SECRETS[1]} at Hooli", user="sam")
    dream = emem.dreams.dream("ada", "sam", force=True)
    assert dream.dream_id
    emem.dreams.reject(dream.dream_id, "rev", LOOKS[1])
    shown = emem.read("ada", "MEMORY.md", user="sam").content or ""
    assert all(t in shown for t in (*LOOKS, kim.text)) and KEEP not in shown
    history = emem.history("ada", user="sam")
    assert KEEP not in str(history) and history[-1]["text"] == LOOKS[1]
    assert emem.verify().problems == []
    emem.close()
    with Memory(emem.home, db_url) as again:  # another process reads the same
        assert again.read("ada", "MEMORY.md", user="sam").content == shown
        assert again.rebuild().changed == []


# -- erasure --------------------------------------------------------------------------
def test_forget_leaves_no_plaintext_anywhere(emem: Memory, home: Path, db_url: str,
                                             tmp_path: Path) -> None:
    fill(emem)
    emem.seal()
    checkpoint = sorted((home / "checkpoints").glob("checkpoint-*.json"))[-1]
    kim_before = emem.read("ada", "MEMORY.md", user="kim")
    kim_history = emem.history("ada", user="kim")
    soul = emem.read("ada", "SOUL.md").content
    logs_before = {k: v for k, v in home_bytes(home).items() if k.startswith("logs")}
    shutil.copytree(home / "logs", tmp_path / "logs-before")
    # The read side holds them sealed, never in clear.
    blobs = home_bytes(home) if db_url.startswith("sqlite:") else pg_bytes(db_url)
    assert found_in(blobs, SECRETS) == [] and b"~ks1:" in b"".join(blobs.values())

    erasure = emem.forget("sam", reason="GDPR request 118", by="dpo")
    assert [p["agent"] for p in erasure.pairs] == ["ada", "bob"]
    assert erasure.events == 12 and len(erasure.erased) == 2 and erasure.compacted
    emem.close()

    # No plaintext of sam's anywhere; kim's is still there.
    blobs = home_bytes(home)
    if not db_url.startswith("sqlite:"):
        blobs.update(pg_bytes(db_url))
    else:
        assert "kairos.db" in blobs
    assert found_in(blobs, SECRETS) == []
    # The logs only grew (the erasure's entries), the chains and checkpoint verify.
    logs_after = {k: v for k, v in blobs.items() if k.startswith("logs")}
    assert all(logs_after[k].startswith(v) for k, v in logs_before.items())
    with Memory(str(home), db_url) as m:
        assert m.verify().problems == []
        assert m.verify_checkpoint(str(checkpoint)).ok
        assert m.read("ada", "MEMORY.md", user="kim") == kim_before
        assert m.history("ada", user="kim") == kim_history
        assert m.read("ada", "SOUL.md").content == soul
        for agent, name in (("ada", "MEMORY.md"), ("ada", "USER.md"), ("bob", "MEMORY.md")):
            assert m.read(agent, name, user="sam").content is None
        assert m.rebuild().changed == []
    # The incident path: from the logs — today's, or a copy taken before the
    # erasure — into an empty store, the text does not come back once the
    # keys are gone.
    for logs in (home / "logs", tmp_path / "logs-before"):
        if db_url.startswith("sqlite:"):
            for p in home.glob("kairos.db*"):
                p.unlink()
            target = db_url
        else:
            target = empty_pg_database(db_url)
        if logs != home / "logs":
            shutil.rmtree(home / "logs")
            shutil.copytree(logs, home / "logs")
        with Memory(str(home), target, recover=False) as m:
            m.rebuild(from_logs=True)
            assert m.verify().problems == []
            assert m.read("ada", "MEMORY.md", user="sam").content is None
            assert m.search("ada", SECRETS[0].lower(), user="sam").hits == []
            assert m.read("ada", "MEMORY.md", user="kim").content == kim_before.content
        assert found_in(home_bytes(home), SECRETS) == []
        if target != db_url:
            with psycopg.connect(db_url, autocommit=True) as conn:
                conn.execute(f'DROP DATABASE "{target.rsplit("/", 1)[1]}" WITH (FORCE)')


def test_forget_dry_run_lists_and_changes_nothing(emem: Memory, home: Path,
                                                  db_url: str) -> None:
    fill(emem)
    rows = stored_rows(db_url)
    keys = sorted(str(p) for p in (home / "keys").rglob("*.key"))
    result = CliRunner().invoke(cli, ["--home", str(home), "--db", db_url, "forget", "--user",
                                      "sam", "--reason", "GDPR 118", "--by", "dpo",
                                      "--dry-run", "--json"])
    assert result.exit_code == 0, result.output
    import json

    data = json.loads(result.output)
    assert data["dry_run"] is True and data["erased"] == []
    assert [(p["agent"], p["files"], p["keys"]) for p in data["pairs"]] == [
        ("ada", ["MEMORY.md", "USER.md"], 1), ("bob", ["MEMORY.md"], 1)]
    assert data["events"] == 12
    assert not found_in({"out": result.output.encode()}, SECRETS)  # counts, never content
    assert stored_rows(db_url) == rows
    assert sorted(str(p) for p in (home / "keys").rglob("*.key")) == keys
    assert SECRETS[2] in (emem.read("ada", "USER.md", user="sam").content or "")


def test_forget_one_agent_keeps_the_other_pairs(emem: Memory) -> None:
    fill(emem)
    erasure = emem.forget("sam", agent="bob", reason="asked bob to forget", by="dpo")
    assert [p["agent"] for p in erasure.pairs] == ["bob"]
    assert emem.read("bob", "MEMORY.md", user="sam").content is None
    assert SECRETS[2] in (emem.read("ada", "USER.md", user="sam").content or "")
    assert emem.search("bob", SECRETS[0].lower(), user="sam").hits == []
    assert emem.search("ada", SECRETS[0].lower(), user="sam").hits


def test_bad_forget_requests_change_nothing(emem: Memory, home: Path, db_url: str) -> None:
    fill(emem)
    rows = stored_rows(db_url)
    with pytest.raises(NotFound, match="no memory of user 'nobody'"):
        emem.forget("nobody", reason="r", by="dpo")
    with pytest.raises(NotFound):
        emem.forget("sam", agent="carl", reason="r", by="dpo")
    with pytest.raises(BadInput):
        emem.forget("sam", reason="   ", by="dpo")
    with pytest.raises(BadInput):
        emem.forget("../sam", reason="r", by="dpo")
    for args in (["--user", "nobody", "--reason", "r", "--by", "x"],
                 ["--user", "sam", "--reason", "r"],
                 ["--user", "sam", "--reason", "", "--by", "x"]):
        result = CliRunner().invoke(cli, ["--home", str(home), "--db", db_url, "forget", *args])
        assert result.exit_code != 0, args
    assert stored_rows(db_url) == rows


def test_a_home_that_does_not_encrypt_refuses_to_forget(mem: Memory, home: Path) -> None:
    mem.write("ada", "MEMORY.md", f"Sam loves {SECRETS[0]}", user="sam")
    before = mem.history("ada", user="sam")
    with pytest.raises(BadInput, match="does not encrypt"):
        mem.forget("sam", reason="r", by="dpo")
    result = CliRunner().invoke(cli, ["--home", str(home), "--db", mem.url, "forget",
                                      "--user", "sam", "--reason", "r", "--by", "dpo"])
    assert result.exit_code != 0
    assert len(result.output.strip().splitlines()) == 1 and "does not encrypt" in result.output
    assert mem.history("ada", user="sam") == before


def test_a_pair_written_before_encryption_refuses_to_forget(home: Path, db_url: str,
                                                            key: str) -> None:
    with Memory.init(str(home), db_url) as m:
        m.write("ada", "MEMORY.md", f"Sam loves {SECRETS[0]}", user="sam")
    with open(home / "kairos.toml", "a", encoding="utf-8") as f:
        f.write("\n[privacy]\nencrypt = true\n")
    with Memory(str(home), db_url) as m:
        m.write("ada", "MEMORY.md", "Sam likes tea", user="sam")
        assert m.read("ada", "MEMORY.md", user="sam").content == (
            f"Sam loves {SECRETS[0]}\nSam likes tea\n")
        with pytest.raises(BadInput, match="1 event.* recorded before the home encrypted"):
            m.forget("sam", reason="r", by="dpo")
        with pytest.raises(BadInput, match="recorded before the home encrypted"):
            m.forget("sam", reason="r", by="dpo", dry_run=True)
        # The files materialized in clear before are removed (by a rebuild, at the latest).
        m.rebuild()
        assert not list(home.glob("memory/**/*.md"))
        assert m.verify().problems == []


def test_nothing_comes_back(emem: Memory) -> None:
    ids = fill(emem)
    # A proposal pending at the erasure, and a version to roll back to.
    emem.write("ada", "MEMORY.md", f"Sam now works as a {SECRETS[1]} at Hooli", user="sam")
    pending = emem.dreams.dream("ada", "sam", force=True)
    assert pending.dream_id
    emem.forget("sam", reason="GDPR 118", by="dpo")
    assert emem.dreams.approve(pending.dream_id, "rev")
    assert emem.read("ada", "MEMORY.md", user="sam").content is None
    emem.dreams.rollback("ada", "sam", "MEMORY.md", 1, "try to get it back")
    assert emem.read("ada", "MEMORY.md", user="sam").content is None
    assert emem.dreams.read_version("ada", "sam", "MEMORY.md", 1) in (None, "")
    # A dream after the erasure has nothing of it; search finds nothing.
    emem.write("ada", "MEMORY.md", "Sam is back and likes tea", user="sam")
    outcome = emem.dreams.dream("ada", "sam", force=True)
    if outcome.dream_id:
        assert not found_in({"p": str(emem.dreams.show(outcome.dream_id)).encode()}, SECRETS)
    for word in (*SECRETS, "gelato", "smokes"):
        for agent in ("ada", "bob"):
            assert emem.search(agent, word.lower(), user="sam").hits == [], word
    assert emem.read("ada", "MEMORY.md", user="sam").content == "Sam is back and likes tea\n"
    # The history keeps every event, its content gone; the source of a line says so.
    history = emem.history("ada", user="sam")
    assert ids["first"] in {r["event_id"] for r in history}
    assert all(not found_in({"r": str(r).encode()}, SECRETS) for r in history)
    assert emem.audit.trace("ada", "sam", "USER.md")[-1]["status"] == "erased"


def test_the_erasure_is_audited(emem: Memory, home: Path, db_url: str, tmp_path: Path) -> None:
    fill(emem)
    emem.forget("sam", reason="GDPR request 118", by="dpo")
    runner = CliRunner()
    audit = runner.invoke(cli, ["--home", str(home), "--db", db_url, "audit", "--user", "sam",
                                "--type", "SubjectErased"])
    assert audit.exit_code == 0, audit.output
    assert audit.output.count("SubjectErased") == 2 and "dpo" in audit.output
    assert "GDPR request 118" in audit.output
    trace = runner.invoke(cli, ["--home", str(home), "--db", db_url, "trace", "-a", "ada",
                                "-u", "sam", "-f", "MEMORY.md"])
    assert trace.exit_code == 0, trace.output
    assert "erased at" in trace.output and "by dpo" in trace.output
    assert "GDPR request 118" in trace.output
    # An auditor's bundle: it verifies, and shows the erasure, not the text.
    out = tmp_path / "bundle"
    emem.seal()
    emem.audit.export("ada", "sam", str(out))
    from kairos.audit.export import verify_bundle

    assert verify_bundle(str(out))["ok"]
    bundle = {str(p): p.read_bytes() for p in out.rglob("*") if p.is_file()}
    assert found_in(bundle, SECRETS) == []
    assert any(b"SubjectErased" in v for v in bundle.values())
    import json

    records = [json.loads(line) for line in (out / "events.jsonl").read_text().splitlines()]
    writes = [r for r in records if r["type"] == "MemoryWritten" and r["payload"]["user"]]
    assert writes and all(r["erased"] and r["decrypted"] == {"text": None} for r in writes)
    # A subject not erased: the bundle verifies, and shows the text decrypted beside it.
    kim = tmp_path / "kim"
    emem.audit.export("ada", "kim", str(kim))
    assert verify_bundle(str(kim))["ok"]
    shown = [json.loads(line) for line in (kim / "events.jsonl").read_text().splitlines()]
    assert [r["decrypted"]["text"] for r in shown if r["type"] == "MemoryWritten"] == [
        f"Kim enjoys a {KEEP}", "Ada is patient"]


def test_erased_keys_stay_gone_for_other_processes(emem: Memory, home: Path, db_url: str,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    fill(emem)
    other = Memory(str(home), db_url)
    try:
        assert SECRETS[0] in str(other.audit.trace("bob", "sam", "MEMORY.md"))
        emem.forget("sam", reason="r", by="dpo")
        import kairos.engine.keyring as keyring

        monkeypatch.setattr(keyring, "RECHECK_SECONDS", 0.0)
        assert SECRETS[0] not in str(other.audit.trace("bob", "sam", "MEMORY.md"))
        assert SECRETS[0] not in str(other.history("bob", user="sam"))
    finally:
        other.close()


def test_key_files_are_wrapped(emem: Memory, home: Path, key: str) -> None:
    fill(emem)
    files = sorted((home / "keys").rglob("*.key"))
    assert len(files) == 4
    raw = base64.b64decode(key)
    for f in files:
        assert raw.hex().encode() not in f.read_bytes()
        assert hashlib.sha256(raw).hexdigest().encode() not in f.read_bytes()


def test_a_dream_that_read_before_an_erasure_proposes_nothing(emem: Memory) -> None:
    fill(emem)
    emem.write("ada", "MEMORY.md", f"Sam now works as a {SECRETS[1]} at Hooli", user="sam")
    events = emem.dreams._events("ada", "sam")
    cutoff = events[-1].originator_version
    emem.forget("sam", reason="r", by="dpo")
    # What the dream drafted from what it read before the erasure.
    lines = [[f"Sam works as a {SECRETS[1]} at Hooli", [events[-1].event_id]]]
    with pytest.raises(BadInput, match="erased while dreaming"):
        emem.engine.execute("ada", "sam", lambda s: s.propose(
            clock.now(), files={"MEMORY.md": {"base": s.active_version("MEMORY.md"), "lines": lines}},
            cutoff=cutoff, dropped=[], report={}, distiller="rules", model=None, usage={},
            trigger="test"))
    assert emem.dreams.list(agent="ada", pending=True) == []


async def mcp_session(home: Path, db_url: str, key: str, query: str) -> dict[str, object]:
    """An MCP client (the official SDK, over stdio) of ada/sam: a write, a read
    and a search."""
    import sys

    from mcp import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "kairos.cli", "--home", str(home), "--db", db_url, "mcp", "--agent", "ada",
              "--user", "sam"],
        env={"PATH": os.environ.get("PATH", ""), "KAIROS_MASTER_KEY": key})
    out: dict[str, object] = {}
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        out["write"] = await session.call_tool(
            "memory_write", {"file": "MEMORY.md", "text": f"Sam plays the {SECRETS[3]}."})
        out["read"] = await session.call_tool("memory_read", {"file": "MEMORY.md"})
        out["search"] = await session.call_tool("memory_search", {"query": query})
    return out


def test_the_memory_tools_over_mcp_decrypt_and_forget(emem: Memory, home: Path, db_url: str,
                                                      key: str) -> None:
    import json

    import anyio

    fill(emem)
    emem.close()
    out = anyio.run(mcp_session, home, db_url, key, SECRETS[2].lower())
    assert out["write"].is_error is False  # type: ignore[attr-defined]
    read = json.loads(out["read"].content[0].text)  # type: ignore[attr-defined]
    assert f"Sam plays the {SECRETS[3]}." in read["content"]
    hits = json.loads(out["search"].content[0].text)["results"]  # type: ignore[attr-defined]
    assert hits and hits[0]["text"] == f"Sam lives in {SECRETS[2]}"
    logs = {k: v for k, v in home_bytes(home).items() if k.startswith("logs")}
    assert found_in(logs, SECRETS) == []  # the MCP write is encrypted too
    with Memory(str(home), db_url) as m:
        m.forget("sam", reason="r", by="dpo")
    out = anyio.run(mcp_session, home, db_url, key, SECRETS[2].lower())
    assert json.loads(out["search"].content[0].text)["results"] == []  # type: ignore[attr-defined]
    read = json.loads(out["read"].content[0].text)  # type: ignore[attr-defined]
    assert read["content"] == f"Sam plays the {SECRETS[3]}.\n"  # written after the erasure


def test_two_keys_for_one_stream_both_decrypt_and_both_are_destroyed(
        emem: Memory, home: Path, db_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Two processes may each create the first key of a new stream: both
    stay valid, and an erasure destroys both."""
    from kairos.domain.events import MemoryStream
    from kairos.engine.keyring import open_keyring

    other = open_keyring(str(home), emem.settings)
    assert other is not None
    sid = MemoryStream.stream_id("ada", "sam")
    other._create(sid)  # the other process's key, made first
    emem.write("ada", "MEMORY.md", f"Sam loves {SECRETS[0]}", user="sam")
    assert len(emem.keyring.key_ids(sid)) in (1, 2)  # type: ignore[union-attr]
    second = other.encryptor(sid)(f"Sam lives in {SECRETS[2]}")
    kids = {second.split(":")[1]}
    emem.engine.execute("ada", "sam", lambda s: s.write("USER.md", second, "append", "agent",
                                                        None, clock.now()))
    assert SECRETS[2] in (emem.read("ada", "USER.md", user="sam").content or "")
    assert kids <= set(emem.keyring.key_ids(sid))  # type: ignore[union-attr]
    emem.forget("sam", reason="r", by="dpo")
    assert not (home / "keys" / str(sid)).exists()
    assert emem.read("ada", "USER.md", user="sam").content is None
    monkeypatch.setattr("kairos.engine.keyring.RECHECK_SECONDS", 0.0)
    assert other.decrypt(second, sid) is None  # gone for the other process too


def test_a_process_that_held_the_key_writes_after_the_erasure_under_a_new_one(
        emem: Memory, home: Path, db_url: str) -> None:
    fill(emem)
    other = Memory(str(home), db_url)  # another process: it has used ada/sam's key
    try:
        assert SECRETS[0] in (other.read("ada", "MEMORY.md", user="sam").content or "")
        old = set(other.keyring.key_ids(MemoryStream.stream_id("ada", "sam")))  # type: ignore[union-attr]
        emem.forget("sam", reason="r", by="dpo")
        other.write("ada", "MEMORY.md", "Sam came back and likes coffee", user="sam")
        new = set(emem.keyring.key_ids(MemoryStream.stream_id("ada", "sam")))  # type: ignore[union-attr]
        assert new and not new & old  # a new key: the destroyed one is refused
        assert other.read("ada", "MEMORY.md", user="sam").content == (
            "Sam came back and likes coffee\n")
    finally:
        other.close()
    with Memory(str(home), db_url) as fresh:
        assert fresh.read("ada", "MEMORY.md", user="sam").content == (
            "Sam came back and likes coffee\n")
        assert fresh.verify().problems == []
        assert fresh.rebuild().changed == []


def test_an_erasure_interrupted_before_its_keys_went_hides_the_text_and_finishes_again(
        emem: Memory, home: Path, db_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    fill(emem)
    before = emem.history("ada", user="sam")[-1]["recorded_at"]
    emem.write("ada", "MEMORY.md", f"Sam now works as a {SECRETS[1]} at Hooli", user="sam")
    from kairos.engine.keyring import Keyring

    def crash(self: Keyring, stream: object) -> list[str]:
        raise OSError("the process died here")

    monkeypatch.setattr(Keyring, "destroy", crash)
    with pytest.raises(OSError):
        emem.forget("sam", reason="r", by="dpo")
    monkeypatch.undo()
    assert (home / "keys" / str(MemoryStream.stream_id("ada", "sam"))).exists()
    # ada/sam's erasure is recorded (bob/sam's, next, never began); its keys
    # still exist, but nothing it recorded before the erasure shows.
    for name in ("MEMORY.md", "USER.md"):
        assert emem.read("ada", name, user="sam").content is None
        assert not (emem.read("ada", name, user="sam", as_of=before).content or "")
    assert SECRETS[0] in (emem.read("bob", "MEMORY.md", user="sam").content or "")
    assert emem.dreams.dream("ada", "sam", force=True).dream_id is None
    emem.dreams.rollback("ada", "sam", "MEMORY.md", 0, "try to get it back")
    assert emem.read("ada", "MEMORY.md", user="sam").content is None
    assert found_in({"h": str(emem.history("ada", user="sam")).encode(),
                     "t": str(emem.audit.trace("ada", "sam", "MEMORY.md")).encode(),
                     "s": str(emem.search("ada", SECRETS[1].lower(), user="sam").hits).encode(),
                     "l": emem.log(before[:10], agent="ada", user="sam",
                                   decrypt=True).encode()}, SECRETS) == []
    assert emem.verify().problems == []
    # Running it again finishes it: the keys go, the database is compacted.
    again = emem.forget("sam", reason="r", by="dpo")
    assert again.compacted
    assert not (home / "keys" / str(MemoryStream.stream_id("ada", "sam"))).exists()
    emem.close()
    blobs = home_bytes(home)
    if not db_url.startswith("sqlite:"):
        blobs.update(pg_bytes(db_url))
    assert found_in(blobs, SECRETS) == []


def test_the_one_who_erases_is_named_on_one_line(emem: Memory) -> None:
    fill(emem)
    for by in ("dpo\nforged: yes", "", "x" * 200):
        with pytest.raises(BadInput):
            emem.forget("sam", reason="r", by=by)
    assert SECRETS[2] in (emem.read("ada", "USER.md", user="sam").content or "")


# -- the sealed read side ------------------------------------------------------------------
def found(m: Memory, query: str, **kw: object) -> list[str]:
    return [h.text for h in m.search("ada", query, user="sam", **kw)]  # type: ignore[arg-type]


def test_sealed_search_follows_writes_retractions_and_erasures(emem: Memory, home: Path,
                                                               db_url: str) -> None:
    """The index in memory moves with the read model: a write joins it, a
    retraction leaves it (but for the auditor's view), a replaced line goes,
    an erasure empties it — in this process and in another."""
    smokes = emem.write("ada", "MEMORY.md", "Sam smokes on the balcony", user="sam")
    emem.write("ada", "MEMORY.md", f"Sam loves {SECRETS[0]} gelato", user="sam")
    assert any("balcony" in t for t in found(emem, "smoking"))  # stemmed, as on disk
    assert any(SECRETS[0] in t for t in found(emem, SECRETS[0][:8].lower()))  # by prefix
    emem.write("ada", "MEMORY.md", "Sam booked a Zahnarzttermin for Friday", user="sam")
    assert any("Zahnarzt" in t for t in found(emem, "Zahnarzt"))  # a compound's part
    emem.retract("ada", "MEMORY.md", [smokes.event_id], reason="not true", user="sam")
    assert not any("balcony" in t for t in found(emem, "balcony"))
    assert any("balcony" in t for t in found(emem, "balcony", include_retracted=True))
    emem.write("ada", "USER.md", "Sam lives in Oslo", user="sam")
    emem.write("ada", "USER.md", "Sam lives in Bergen", user="sam", mode="replace")
    hits = emem.search("ada", "where does Sam live", user="sam")
    assert hits and hits[0].text == "Sam lives in Bergen"
    assert [h.where for h in hits if h.text == "Sam lives in Oslo"] == ["history"]
    with Memory(str(home), db_url) as other:  # another process builds its own
        assert any("Bergen" in h.text for h in other.search("ada", "Bergen", user="sam"))
        emem.forget("sam", reason="GDPR request", by="dpo")
        assert other.search("ada", "Bergen", user="sam").hits == []
    assert found(emem, "Bergen") == [] and found(emem, SECRETS[0].lower()) == []
    emem.write("ada", "MEMORY.md", "Sam came back and plays chess", user="sam")
    assert found(emem, "chess") == ["Sam came back and plays chess"] * len(found(emem, "chess"))
    assert emem.verify().problems == []
    assert emem.rebuild().changed == []


def test_a_rebuild_seals_the_same_rows_and_search_is_the_same(emem: Memory) -> None:
    fill(emem)
    before = {q: found(emem, q) for q in ("gelato", "Initech", "where does Sam live",
                                          SECRETS[3].lower())}
    assert all(before.values())
    with emem.engine.readmodel.engine.connect() as conn:
        rows = sorted(map(tuple, conn.exec_driver_sql(
            "SELECT position, text FROM memory_index ORDER BY position").fetchall()))
        files = sorted(map(tuple, conn.exec_driver_sql(
            "SELECT agent_id, user_id, file, content, segments FROM memory_files").fetchall()))
    assert any(str(t).startswith("~ks1:") for _, t in rows)
    assert emem.rebuild().changed == []
    with emem.engine.readmodel.engine.connect() as conn:
        assert sorted(map(tuple, conn.exec_driver_sql(
            "SELECT position, text FROM memory_index ORDER BY position").fetchall())) == rows
        assert sorted(map(tuple, conn.exec_driver_sql(
            "SELECT agent_id, user_id, file, content, segments FROM memory_files"
        ).fetchall())) == files
    assert {q: found(emem, q) for q in before} == before


def test_rotating_the_master_key_drops_the_keyed_embeddings_and_keeps_working(
        home: Path, db_url: str, key: str, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    home.mkdir(parents=True)
    (home / "kairos.toml").write_text('[search]\nembeddings = "wordllama"\n'
                                      "\n[privacy]\nencrypt = true\n", encoding="utf-8")
    with Memory.init(str(home), db_url) as m:
        m.write("ada", "MEMORY.md", "Sam adores Italian food", user="sam")
        assert [h.text for h in m.search("ada", "pizza", user="sam").hits] == [
            "Sam adores Italian food"]  # by meaning: no word is shared
        with m.engine.readmodel.engine.connect() as conn:
            digests = {r[0] for r in conn.exec_driver_sql("SELECT digest FROM memory_vectors")}
        assert digests and hashlib.sha256(b"Sam adores Italian food").hexdigest()[:32] \
            not in digests  # keyed: a guess cannot be confirmed by its digest
        new = os.urandom(32)
        m.rotate_master_key(new)
        with m.engine.readmodel.engine.connect() as conn:
            assert conn.exec_driver_sql("SELECT count(*) FROM memory_vectors").scalar() == 0
        # Keys made after the rotation, in this process, are wrapped by the new key.
        m.write("ada", "MEMORY.md", "Kim collects stamps", user="kim")
        assert [h.text for h in m.search("ada", "pizza", user="sam").hits] == [
            "Sam adores Italian food"]
    monkeypatch.setenv("KAIROS_MASTER_KEY", base64.b64encode(new).decode())
    with Memory(str(home), db_url) as m:
        assert m.read("ada", "MEMORY.md", user="kim").content == "Kim collects stamps\n"
        hits = m.search("ada", "pizza", user="sam")
        assert hits.mode == "hybrid" and hits.hits[0].text == "Sam adores Italian food"
        assert m.verify().problems == []
        # An erasure deletes the pair's embeddings, named by the keyed digest.
        m.flush()
        with m.engine.readmodel.engine.connect() as conn:
            before = conn.exec_driver_sql("SELECT count(*) FROM memory_vectors").scalar()
        erasure = m.forget("sam", reason="r", by="dpo")
        assert erasure.vectors >= 1
        with m.engine.readmodel.engine.connect() as conn:
            assert conn.exec_driver_sql("SELECT count(*) FROM memory_vectors").scalar() == \
                before - erasure.vectors
        assert m.search("ada", "pizza", user="sam").hits == []
