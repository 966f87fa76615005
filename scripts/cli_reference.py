"""Generate docs/cli.md from the commands' own --help (``--check``: fail if stale).

    python scripts/cli_reference.py          # rewrite docs/cli.md
    python scripts/cli_reference.py --check  # exit 1 when docs/cli.md is out of date
"""

from __future__ import annotations

import sys
from pathlib import Path

import click
from click.testing import CliRunner

from kairos.cli.main import cli

DOC = Path(__file__).resolve().parent.parent / "docs" / "cli.md"
INTRO = """# CLI reference

Generated from `kairos --help` by `scripts/cli_reference.py`; a test fails
when this file is stale.

Exit codes, the same for every command (`tests/test_cli.py` checks them):

- **0** ok;
- **1** a check failed (verification, a checkpoint or a bundle, a dream's
  guards) or an operation failed (the store unreachable, a distiller's answer
  unusable, a pair's dream in `dream --all`);
- **2** bad input or usage: an invalid or unknown option, id, file, date,
  version or dream; nothing was written.

Errors are one line on standard error, starting `Error: `.
"""


def command(group: click.Group, name: str) -> click.Command:
    """A subcommand, through the group's own lookup (the top group imports
    its commands' modules only when asked for them)."""
    cmd = group.get_command(click.Context(group), name)
    assert cmd is not None, name
    return cmd


def commands(group: click.Group, prefix: list[str]) -> list[list[str]]:
    found = [prefix]
    for name in sorted(group.list_commands(click.Context(group))):
        cmd = command(group, name)
        if isinstance(cmd, click.Group):
            found.extend(commands(cmd, [*prefix, name]))
        else:
            found.append([*prefix, name])
    return found


def render() -> str:
    runner = CliRunner()
    parts = [INTRO]
    for path in commands(cli, []):
        out = runner.invoke(cli, [*path, "--help"], prog_name="kairos", terminal_width=88)
        title = " ".join(["kairos", *path])
        parts.append(f"\n## {title}\n\n```\n{out.output.rstrip()}\n```\n")
    return "".join(parts)


def main() -> None:
    text = render()
    if "--check" in sys.argv:
        if not DOC.exists() or DOC.read_text() != text:
            print("docs/cli.md is stale: run python scripts/cli_reference.py", file=sys.stderr)
            sys.exit(1)
        return
    DOC.write_text(text)
    print(f"wrote {DOC}")


if __name__ == "__main__":
    main()
