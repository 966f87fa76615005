"""A fast start: ``kairos --version`` and ``--help`` load no event-store
library, ``import kairos`` neither; the lazy group still knows every command.

Behaviour, not timing (benchmarks/bench_startup.py times it): each check runs
a fresh interpreter and looks at ``sys.modules``.
"""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
import textwrap

import click
import pytest

from kairos.cli.main import COMMANDS, cli

HEAVY = ("sqlalchemy", "eventsourcing", "psycopg", "msgspec", "kairos.memory",
         "kairos.engine", "kairos.domain.events")


def loaded_after(code: str) -> list[str]:
    """The heavy modules a fresh interpreter holds after running ``code``."""
    probe = (f"import sys\ntry:\n{textwrap.indent(code, '    ')}\nexcept SystemExit:\n    pass\n"
             f"import json\nprint(json.dumps(sorted(m for m in sys.modules "
             f"if m.startswith({HEAVY!r}))), file=sys.stderr)")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         timeout=60)
    return list(json.loads(out.stderr.strip().splitlines()[-1]))


@pytest.mark.parametrize("args", [["--version"], ["--help"], ["write", "--help"]])
def test_version_and_help_load_no_store_library(args: list[str]) -> None:
    code = f"sys.argv = ['kairos', *{args!r}]; from kairos.cli.main import main; main()"
    assert loaded_after(code) == []


def test_import_kairos_loads_no_store_library_until_memory_is_used() -> None:
    assert loaded_after("import kairos; from kairos import KairosError") == []
    loaded = loaded_after("from kairos import Memory")
    assert "kairos.memory" in loaded and "eventsourcing" in loaded


def test_an_sqlite_home_never_loads_psycopg(tmp_path: object) -> None:
    code = ("from kairos import Memory; m = Memory.init(sys.argv[0]); "
            "m.write('ada', 'SOUL.md', 'x'); m.read('ada', 'SOUL.md'); m.close()")
    probe = f"import sys; sys.argv = [{str(tmp_path)!r}]\n{code}"
    assert not [m for m in loaded_after(probe) if m.startswith("psycopg")]


def test_the_lazy_group_names_every_command_of_its_modules() -> None:
    """A command added to a module but not to COMMANDS would be unreachable."""
    for module_name in set(COMMANDS.values()):
        module = importlib.import_module(f"kairos.cli.{module_name}")
        defined = [v for v in vars(module).values() if isinstance(v, click.Command)]
        nested = {id(c) for g in defined if isinstance(g, click.Group)
                  for c in g.commands.values()}
        for cmd in defined:
            if id(cmd) not in nested:
                assert COMMANDS.get(str(cmd.name)) == module_name, cmd.name
    ctx = click.Context(cli)
    assert all(cli.get_command(ctx, name) is not None for name in cli.list_commands(ctx))


def test_a_read_on_a_caught_up_sqlite_home_loads_no_store_library(tmp_path: object) -> None:
    """``kairos read`` of a file now answers from the read model with sqlite3
    (kairos.engine.quickread); its output is checked against the full path's
    in tests/test_quickread.py."""
    from kairos.memory import Memory

    home = str(tmp_path)
    with Memory.init(home) as m:
        m.write("ada", "MEMORY.md", "Sam likes tea", user="sam")
    code = (f"sys.argv = ['kairos', '--home', {home!r}, 'read', '-a', 'ada', '-u', 'sam', "
            "'-f', 'MEMORY.md', '--json']; from kairos.cli.main import main; main()")
    assert [m for m in loaded_after(code) if m != "kairos.engine"
            and not m.startswith(("kairos.engine.quickread", "kairos.engine.sqlitefiles"))] == []
    out = subprocess.run([sys.executable, "-c", f"import sys\n{code}"], capture_output=True,
                         text=True, timeout=60)
    assert json.loads(out.stdout)["content"] == "Sam likes tea\n"


def test_a_command_that_never_searches_loads_no_embedding_model(tmp_path: object) -> None:
    """With ``embeddings = "auto"`` (the default) the embedder is chosen by
    what is installed, not by importing it: ``kairos history`` loads neither
    numpy nor wordllama."""
    from kairos.memory import Memory

    home = str(tmp_path)
    with Memory.init(home) as m:
        m.write("ada", "MEMORY.md", "Sam likes tea", user="sam")
    probe = ("import sys\n"
             f"sys.argv = ['kairos', '--home', {home!r}, 'history', '-a', 'ada', '-u', 'sam']\n"
             "try:\n    from kairos.cli.main import main; main()\nexcept SystemExit:\n    pass\n"
             "print(sorted(m for m in sys.modules if m.split('.')[0] in ('numpy', 'wordllama')),"
             " file=sys.stderr)")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60)
    assert "Sam likes tea" in out.stdout
    assert out.stderr.strip().splitlines()[-1] == "[]"
