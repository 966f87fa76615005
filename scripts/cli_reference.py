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
when this file is stale.  Exit codes: 0 ok, 1 not found or verification
failed, 2 bad input (nothing was written).
"""


def commands(group: click.Group, prefix: list[str]) -> list[list[str]]:
    found = [prefix]
    for name in sorted(group.commands):
        cmd = group.commands[name]
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
