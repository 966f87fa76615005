"""Docs that cannot drift: the CLI reference and every command's help."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from kairos.cli.main import cli

ROOT = Path(__file__).resolve().parent.parent


def load_script(name: str):  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location(name, ROOT / "scripts" / f"{name}.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


GEN = load_script("cli_reference")
COMMANDS = [p for p in GEN.commands(cli, []) if p]


def test_the_cli_reference_is_current() -> None:
    assert (ROOT / "docs/cli.md").read_text() == GEN.render(), \
        "docs/cli.md is stale: run python scripts/cli_reference.py"


@pytest.mark.parametrize("path", COMMANDS, ids=[" ".join(p) for p in COMMANDS])
def test_every_command_has_a_summary_and_an_example(path: list[str]) -> None:
    cmd: click.Command = cli
    for name in path:
        assert isinstance(cmd, click.Group)
        cmd = GEN.command(cmd, name)
    assert cmd.help and cmd.help.strip().split("\n")[0].endswith(".")
    if not isinstance(cmd, click.Group):
        assert "Example:" in cmd.help
        out = CliRunner().invoke(cli, [*path, "--help"])
        assert out.exit_code == 0 and "Example:" in out.output
    assert f"## kairos {' '.join(path)}\n" in (ROOT / "docs/cli.md").read_text()


def test_the_dream_walkthrough_and_prompt_in_the_docs_are_current() -> None:
    demo = load_script("dream_demo")
    doc = (ROOT / "docs/dream.md").read_text()
    assert (ROOT / "kairos/dream/distill/prompt.md").read_text().rstrip() in doc
    assert demo.render() in doc, "docs/dream.md is stale: run python scripts/dream_demo.py"


def test_the_strategies_in_the_context_docs_are_current() -> None:
    doc = load_script("context_doc")
    assert doc.render() in (ROOT / "docs/context.md").read_text(), \
        "docs/context.md is stale: run python scripts/context_doc.py"


def test_the_audit_guide_shows_current_output() -> None:
    doc = load_script("audit_doc")
    text = (ROOT / "docs/audit.md").read_text()
    assert doc.render(text) == text, "docs/audit.md is stale: run python scripts/audit_doc.py"


def test_the_module_map_and_the_event_tables_are_current() -> None:
    doc = load_script("architecture_doc")
    for path, update in ((ROOT / "docs/architecture.md", doc.update_architecture),
                         (ROOT / "docs/log-format.md", doc.update_log_format)):
        text = path.read_text()
        assert update(text) == text, f"{path.name} is stale: run python scripts/architecture_doc.py"


def test_every_event_type_is_in_the_log_format_spec() -> None:
    from kairos.domain.events import EVENT_TYPES

    text = (ROOT / "docs/log-format.md").read_text()
    assert len(EVENT_TYPES) == 13
    for kind in EVENT_TYPES:
        assert f"| `{kind.value}` |" in text


def test_every_function_the_walk_throughs_name_exists() -> None:
    import importlib
    import re

    text = (ROOT / "docs/architecture.md").read_text()
    walk = text[text.index("## Walk-throughs"):text.index("## The fold")]
    names = re.findall(r"`(kairos\.[\w.]+)`", walk)
    assert len(names) > 20
    for name in names:
        parts = name.split(".")
        for cut in range(len(parts), 0, -1):
            try:
                obj = importlib.import_module(".".join(parts[:cut]))
            except ImportError:
                continue
            for attr in parts[cut:]:
                assert hasattr(obj, attr), f"{name}: no {attr}"
                obj = getattr(obj, attr)
            break
        else:
            raise AssertionError(f"{name}: no such module")
