"""The Python examples in the README run as written."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BLOCKS = re.findall(r"```python\n(.*?)```", (ROOT / "README.md").read_text(), re.S)


@pytest.mark.parametrize("code", BLOCKS)
def test_readme_python_blocks_run(code: str, tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    exec(compile(code, "README.md", "exec"), {})
    out = capsys.readouterr().out
    assert "Sam prefers green tea" in out
    assert (tmp_path / "home" / "logs").is_dir()


def test_the_readme_has_python_examples() -> None:
    assert BLOCKS
