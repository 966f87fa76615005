"""Tools of the fault suite: real small file systems, read-only mounts,
an unprivileged user, and the CLI in a child process.

Real faults where the machine allows them (root and ``mount``), injected
ones (``KAIROS_FAULT=<ERRNO>@<point>``, :mod:`kairos.faults`) where it does
not; each test says which it used.
"""

from __future__ import annotations

import errno
import functools
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@functools.lru_cache(maxsize=1)
def can_mount() -> bool:
    """Whether this process may mount a tmpfs (root, and mount works here)."""
    if os.geteuid() != 0 or shutil.which("mount") is None:
        return False
    probe = tempfile.mkdtemp(prefix="kairos-mount-probe-")
    try:
        done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", probe],
                              capture_output=True)
        if done.returncode != 0:
            return False
        subprocess.run(["umount", probe], capture_output=True)
        return True
    finally:
        os.rmdir(probe)


@contextmanager
def tmpfs(path: Path, size: str) -> Iterator[Path]:
    """A real tmpfs of ``size`` mounted at ``path`` (created), for the block."""
    path.mkdir(parents=True, exist_ok=True)
    subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(path)],
                   check=True, capture_output=True)
    try:
        yield path
    finally:
        subprocess.run(["umount", "-l", str(path)], capture_output=True)


def remount(path: Path, mode: str) -> None:
    subprocess.run(["mount", "-o", f"remount,{mode}", str(path)], check=True,
                   capture_output=True)


def fill(path: Path) -> Path:
    """Fill the file system holding ``path`` until it reports ENOSPC."""
    filler = path / ".filler"
    with open(filler, "wb", buffering=0) as f:
        for size in (65536, 4096, 512, 1):  # to the last byte
            try:
                while True:
                    f.write(b"\0" * size)
            except OSError as e:
                assert e.errno == errno.ENOSPC
    return filler


def kairos_cli(home: Path, db_url: str, *args: str, fault: str | None = None,
               user: str | None = None, input: str | None = None,
               env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """The CLI in a child process (``user``: as that user, through runuser)."""
    full = {**os.environ, "KAIROS_HOME": str(home), "KAIROS_DATABASE_URL": db_url,
            "PYTHONDONTWRITEBYTECODE": "1", **(env or {})}
    full.pop("KAIROS_FAULT", None)
    if fault:
        full["KAIROS_FAULT"] = fault
    cmd = [sys.executable, "-m", "kairos.cli", *args]
    if user is not None:
        cmd = ["runuser", "-u", user, "--", "env", f"PYTHONPATH={ROOT}", *[
            f"{k}={v}" for k, v in full.items() if k.startswith(("KAIROS_", "PYTHON"))], *cmd]
    return subprocess.run(cmd, env=full, capture_output=True, text=True, input=input,
                          cwd=str(home) if user is None else "/", timeout=120)


def one_clear_line(done: subprocess.CompletedProcess[str]) -> str:
    """A failed command's message: exit 1, one line, no traceback."""
    assert done.returncode == 1, (done.returncode, done.stdout, done.stderr)
    assert "Traceback" not in done.stderr, done.stderr
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    errors = [line for line in lines if line.startswith("Error: ")]
    assert len(errors) == 1, done.stderr
    return errors[0]


def needs_mount() -> None:
    if not can_mount():
        pytest.skip("needs root and mount (a real tmpfs): covered by the injected-fault tests")


def nobody_can_run() -> bool:
    return os.geteuid() == 0 and shutil.which("runuser") is not None


BOOT = ("import site, sys; site.addsitedir({sp!r}); sys.argv[0] = 'kairos'; "
        "from kairos.cli.main import main; main()")


@functools.lru_cache(maxsize=1)
def nobody_python() -> list[str] | None:
    """A command that runs the CLI as ``nobody`` with this environment's
    packages (its Python may live where nobody can reach it, as under
    /root: then the system's Python of the same version), or None."""
    if os.geteuid() != 0 or shutil.which("runuser") is None:
        return None
    import sysconfig

    site_packages = sysconfig.get_paths()["purelib"]
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    for python in (sys.executable, f"/usr/bin/{version}", f"/usr/local/bin/{version}"):
        boot = BOOT.format(sp=site_packages)
        probe = subprocess.run(["runuser", "-u", "nobody", "--", python, "-c",
                                boot.replace("main()", "None"), "--version"],
                               capture_output=True, text=True, cwd="/")
        if probe.returncode == 0:
            return [python, "-c", boot]
    return None


def as_nobody(home: Path, db_url: str, *args: str) -> subprocess.CompletedProcess[str]:
    python = nobody_python()
    assert python is not None
    env = {"PATH": os.environ.get("PATH", ""), "KAIROS_HOME": str(home),
           "KAIROS_DATABASE_URL": db_url, "PYTHONDONTWRITEBYTECODE": "1", "HOME": "/"}
    return subprocess.run(["runuser", "-u", "nobody", "--", "env", *[f"{k}={v}" for k, v in
                                                                     env.items()],
                           *python, *args], capture_output=True, text=True, cwd="/",
                          timeout=120)
