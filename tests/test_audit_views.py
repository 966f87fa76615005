"""The documented PostgreSQL audit views, through a read-only role."""

from __future__ import annotations

from pathlib import Path

import psycopg
import pytest

from kairos.memory import Memory

ROOT = Path(__file__).resolve().parent.parent


def test_an_auditor_reads_the_views_and_cannot_write(mem: Memory, db_url: str,
                                                     backend: str) -> None:
    if backend != "postgres":
        pytest.skip("the audit views are PostgreSQL's")
    mem.write("ada", "MEMORY.md", "Sam likes tea.", user="sam")
    mem.write("ada", "MEMORY.md", "Sam likes tea!", user="sam")
    dream = mem.dreams.dream("ada", "sam", force=True).dream_id
    mem.dreams.approve(dream, "alice")
    mem.flush()  # the views read the read model directly: let it catch up first
    with psycopg.connect(db_url, autocommit=True) as admin:
        admin.execute((ROOT / "docs/audit-views.sql").read_text())
        admin.execute((ROOT / "docs/audit-views.sql").read_text())  # idempotent
        admin.execute("DO $$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = "
                      "'auditor_test') THEN CREATE ROLE auditor_test LOGIN IN ROLE "
                      "kairos_auditor; END IF; END $$")
    auditor_url = db_url.replace("//kairos@", "//auditor_test@")
    with psycopg.connect(auditor_url, autocommit=True) as conn:
        rows = conn.execute("SELECT type, actor, text, log_file FROM kairos_audit.events "
                            "WHERE user_id = 'sam' AND type = 'MemoryWritten' "
                            "ORDER BY position").fetchall()
        assert [r[2] for r in rows] == ["Sam likes tea.", "Sam likes tea!"]
        assert all(r[3].startswith("logs/") for r in rows)
        assert conn.execute("SELECT status, decided_by FROM kairos_audit.dreams").fetchall() == [
            ("approved", "alice")]
        assert conn.execute("SELECT content FROM kairos_audit.files WHERE file = 'MEMORY.md'"
                            ).fetchone()[0] == "Sam likes tea!\n"
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute("SELECT * FROM public.memory_index")
        with pytest.raises(psycopg.Error):
            conn.execute("DELETE FROM kairos_audit.events")
