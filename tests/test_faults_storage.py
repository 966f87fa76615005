"""Full disks, read-only media, no permission: every failure one clear
line (exit 1), never a traceback; read-only commands work with no write
access at all; nothing acknowledged is lost, and the home works again once
space or permission returns.

Real faults: a small tmpfs (filled, or remounted read-only) when the suite
runs as root with ``mount``; an unprivileged user (``runuser -u nobody``)
on a copy of a home without write permission.  Each skips, saying why,
where the machine allows neither (the injected faults of
``test_faults_writes.py`` still cover the write path).
"""

from __future__ import annotations

import errno
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from click.testing import CliRunner
from freezegun import freeze_time

from kairos.cli.main import cli
from kairos.errors import StorageFailed, StorageReadOnly, storage_error
from kairos.memory import Memory
from tests.faultkit import (
    as_nobody,
    can_mount,
    fill,
    nobody_python,
    one_clear_line,
    remount,
    tmpfs,
)

READS = [  # the read-only commands: they must work without any write access
    ("verify",),
    ("read", "-a", "ada", "-u", "sam", "-f", "MEMORY.md"),
    ("read", "-a", "ada", "-u", "sam", "-f", "MEMORY.md", "--as-of", "2026-11-02T10:00:00Z"),
    ("history", "-a", "ada", "-u", "sam"),
    ("log", "2026-11-02"),
    ("audit", "--agent", "ada", "--user", "sam"),
    ("trace", "-a", "ada", "-u", "sam", "-f", "MEMORY.md"),
    ("diff", "-a", "ada", "-u", "sam", "-f", "MEMORY.md", "0", "1"),
]
WRITES = [  # commands that write: on a full or read-only disk, one clear line
    ("write", "-a", "ada", "-u", "sam", "-f", "MEMORY.md", "a fact that cannot be stored " * 40),
    ("session", "end", "-a", "ada", "-u", "sam"),
    ("rebuild",),
    ("rebuild", "--from-logs"),
    ("dream", "--agent", "ada", "--user", "sam", "--force"),
    ("seal",),
    ("export", "-a", "ada", "-u", "sam", "/tmp/kairos-no-such-folder/bundle-out"),
]


def url_for(home: Path, db_url: str) -> str:
    """The fixture's PostgreSQL database, or an SQLite store in ``home``."""
    return db_url if not db_url.startswith("sqlite") else "sqlite:///" + str(home / "kairos.db")


def story(home: Path, db_url: str) -> dict[str, str]:
    """A small history with a published dream version; what reads show."""
    with freeze_time("2026-11-02T09:00:00Z"):
        mem = Memory.init(str(home), db_url)
        mem.write("ada", "SOUL.md", "I am Ada.")
        mem.write("ada", "MEMORY.md", "Sam likes tea", user="sam")
        mem.write("ada", "MEMORY.md", "Sam likes tea", user="sam")
        for i in range(5):
            mem.end_session("ada", "sam", session=f"s{i}")
    with freeze_time("2026-11-03T09:00:00Z"):
        outcome = mem.dreams.dream("ada", "sam", force=True)
        assert outcome.dream_id
        mem.dreams.approve(outcome.dream_id, "alice")
    mem.close()
    return {"read": "Sam likes tea\n"}


def invoke(home: Path, db_url: str, *args: str) -> tuple[int, str, str]:
    """The CLI in this process; an exception escaping it (a traceback) fails the test."""
    out = CliRunner().invoke(cli, ["--home", str(home), "--db", db_url, *args])
    if out.exception is not None and not isinstance(out.exception, SystemExit):
        raise AssertionError(f"{args}: traceback instead of an error") from out.exception
    return out.exit_code, out.stdout, out.stderr


def clear(code: int, err: str, *args: str) -> None:
    assert code == 1, (args, code, err)
    lines = [line for line in err.splitlines() if line.startswith("Error: ")]
    assert len(lines) == 1 and "Traceback" not in err, (args, err)


def snapshot(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file()}


def test_storage_errors_name_the_path_and_the_cause() -> None:
    cases = [(OSError(errno.ENOSPC, "No space", "/h/logs/x.md"), "StorageFull",
              "cannot write /h/logs/x.md: no space left"),
             (OSError(errno.EROFS, "Read-only", "/h/x"), "StorageReadOnly", "read-only"),
             (OSError(errno.EACCES, "denied", "/h/.kairos.lock"), "StoragePermission",
              "/h/.kairos.lock: permission denied"),
             (OSError(errno.EPERM, "no", "/h/y"), "StoragePermission", "not permitted"),
             (Exception("database or disk is full"), "StorageFull", "/h/kairos.db"),
             (Exception("attempt to write a readonly database"), "StorageReadOnly",
              "/h/kairos.db"),
             (Exception("connection refused"), "StoreUnavailable", "/h/kairos.db")]
    for exc, kind, text in cases:
        error = storage_error(exc, "/h/kairos.db")
        assert type(error).__name__ == kind and text in str(error), (exc, error)
        assert isinstance(error, StorageFailed) and error.exit_code == 1


def test_every_command_on_a_full_disk_says_one_clear_line(tmp_path: Path, db_url: str) -> None:
    if not can_mount():
        pytest.skip("needs root and mount for a real full disk (test_faults_writes injects "
                    "ENOSPC where it cannot)")
    with tmpfs(tmp_path / "fs", "12m") as fs:
        home = fs / "home"
        db_url = url_for(home, db_url)
        shown = story(home, db_url)
        before = snapshot(home / "logs")
        filler = fill(fs)
        for args in READS:
            code, out, err = invoke(home, db_url, *args)
            assert code == 0, (args, out, err)  # reads write nothing: a full disk does not matter
        for args in WRITES:
            code, out, err = invoke(home, db_url, *args)
            if code != 0:
                clear(code, err, *args)
            elif args[0] == "write" and db_url.startswith("sqlite"):
                raise AssertionError("a write to a full disk succeeded")
        filler.unlink()  # space returns
        # The first write completes the log of a write whose append failed
        # (on PostgreSQL the store is not on the full disk); then all is read.
        for args in [*WRITES[:2], *READS]:
            code, out, err = invoke(home, db_url, *args)
            assert code == 0, (args, out, err)
        after = snapshot(home / "logs")
        assert all(after[k].startswith(v) for k, v in before.items())  # nothing lost
        # A day file whose creation was cut short is removed, not copied aside
        # on every later open (no pile of empty .broken copies).
        assert not [k for k, v in after.items() if ".broken" in k and not v], sorted(after)
        code, out, _ = invoke(home, db_url, "read", "-a", "ada", "-u", "sam", "-f", "MEMORY.md")
        assert out.startswith(shown["read"])


def _readable_everywhere(home: Path, db_url: str, run: object) -> None:
    assert callable(run)
    for args in READS:
        code, out, err = run(*args)
        assert code == 0, (args, out, err)
        assert "Traceback" not in err
        if args[0] == "read" and len(args) == 7:
            assert out == "Sam likes tea\n"
        if args[0] == "verify":
            assert out.startswith("ok: "), out


def test_read_only_commands_work_on_a_read_only_mount(tmp_path: Path, db_url: str) -> None:
    if not can_mount():
        pytest.skip("needs root and mount for a read-only mount (the nobody test covers "
                    "no write permission)")
    with tmpfs(tmp_path / "fs", "16m") as fs:
        home = fs / "home"
        db_url = url_for(home, db_url)
        story(home, db_url)
        before = snapshot(fs)
        remount(fs, "ro")
        try:
            _readable_everywhere(home, db_url, lambda *a: invoke(home, db_url, *a))
            for args in WRITES[:2]:
                code, _, err = invoke(home, db_url, *args)
                clear(code, err, *args)
                assert "read-only" in err
            with pytest.raises(StorageReadOnly):
                Memory(str(home), db_url)  # a writable open says so, in one error
        finally:
            remount(fs, "rw")
        assert snapshot(fs) == before  # no lock file, no -shm, nothing


def test_a_copy_with_its_write_ahead_log_reads_on_a_read_only_mount(tmp_path: Path) -> None:
    if not can_mount():
        pytest.skip("needs root and mount")
    home = tmp_path / "home"
    db_url = "sqlite:///" + str(home / "kairos.db")
    story(home, db_url)
    writer = Memory(str(home), db_url)  # holds the database open: -wal and -shm exist
    try:
        writer.write("ada", "MEMORY.md", "Sam likes jazz", user="sam")
        writer.flush()
        assert (home / "kairos.db-wal").exists()
        with tmpfs(tmp_path / "fs", "16m") as fs:
            subprocess.run(["cp", "-a", str(home), str(fs / "home")], check=True)
            remount(fs, "ro")
            try:
                copy = fs / "home"
                code, out, err = invoke(copy, "sqlite:///" + str(copy / "kairos.db"), "read",
                                        "-a", "ada", "-u", "sam", "-f", "MEMORY.md")
                assert (code, out) == (0, "Sam likes tea\nSam likes jazz\n"), err
            finally:
                remount(fs, "rw")
    finally:
        writer.close()


def test_read_only_commands_work_as_a_user_without_write_permission(
        tmp_path: Path, db_url: str) -> None:
    if nobody_python() is None:
        pytest.skip("needs root, runuser and a Python the user nobody can run")
    home = tmp_path / "home"
    story(home, db_url)
    outside = Path(tempfile.mkdtemp(prefix="kairos-nobody-"))  # pytest's tmp is root's alone
    try:
        outside.chmod(0o755)
        copy = Path(shutil.copytree(home, outside / "home"))
        shutil.rmtree(copy / "memory")  # a copy need not bring the derived files
        for p in [copy, *copy.rglob("*")]:
            p.chmod(0o555 if p.is_dir() else 0o444)
        db = url_for(copy, db_url)
        before = snapshot(copy)

        def run(*args: str) -> tuple[int, str, str]:
            done = as_nobody(copy, db, *args)
            return done.returncode, done.stdout, done.stderr

        _readable_everywhere(copy, db, run)
        line = one_clear_line(as_nobody(copy, db, *WRITES[0]))
        assert "permission denied" in line or "read-only" in line
        assert snapshot(copy) == before
    finally:
        for p in outside.rglob("*"):
            if p.is_dir():
                p.chmod(0o755)
        shutil.rmtree(outside)


def test_close_never_raises_a_raw_os_error(mem: Memory, monkeypatch: pytest.MonkeyPatch
                                           ) -> None:
    mem.write("ada", "MEMORY.md", "Sam likes tea", user="sam")

    def refused(path: str, content: str) -> None:
        raise PermissionError(errno.EACCES, "Permission denied", path)

    monkeypatch.setattr("kairos.projections.materialize.write_file", refused)
    mem.close()  # the files are derived: the next open writes them


def test_a_missing_extra_names_what_to_install(home: Path, mem: Memory, db_url: str) -> None:
    mem.close()
    code = ("import sys; sys.modules['mcp'] = None; sys.argv[0] = 'kairos'; "
            "from kairos.cli.main import main; main()")
    done = subprocess.run([sys.executable, "-c", code, "--home", str(home), "--db", db_url,
                           "mcp", "--agent", "ada", "--user", "sam"], capture_output=True,
                          text=True)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "pip install 'kairos-memory[mcp]'" in done.stderr


def test_cryptography_is_a_declared_dependency() -> None:
    import tomllib

    from tests.faultkit import ROOT

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert any(d.startswith("cryptography") for d in project["dependencies"])
