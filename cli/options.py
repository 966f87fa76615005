"""What every command shares: its options, the error edge, the home it opens.

Options used by more than one command are declared here once, as decorators
(``--agent``, ``--user``, ``--file``, ``--json``, ``--session``, ``--actor``,
``--reason``, and the group's ``--home`` and ``--db``); no command declares
them itself.  :func:`run` is the edge where a library error becomes one line
on standard error and the exit status the error carries (2 bad input or
usage, 1 a check or an operation failed; see :mod:`kairos.errors`).
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

import click

from kairos.cli import render
from kairos.domain.kinds import ACTORS
from kairos.errors import KairosError

if TYPE_CHECKING:
    from kairos.memory import Memory

F = TypeVar("F", bound=Callable[..., Any])
Decorator = Callable[[F], F]
CLI_ACTORS = [a for a in ACTORS if a != "import"]
FILES_HELP = "SOUL.md, ABOUT.md, TOOLS.md, USER.md, MEMORY.md or topics/<name>.md."


class KairosClickError(click.ClickException):
    def __init__(self, message: str, exit_code: int):
        super().__init__(message)
        self.exit_code = exit_code  # type: ignore[misc]


def run(fn: F) -> F:
    """Turn library errors into one-line click errors with the library's exit code."""
    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except KairosError as e:
            raise KairosClickError(render.hint(str(e)), e.exit_code) from None
    return wrapper  # type: ignore[return-value]


def home_options(fn: F) -> F:
    fn = click.option("--db", envvar="KAIROS_DATABASE_URL",
                      help="Store URL: sqlite:///PATH or postgresql://… "
                           "[env KAIROS_DATABASE_URL].")(fn)
    return click.option("--home", envvar="KAIROS_HOME", type=click.Path(file_okay=False),
                        help="The home directory [env KAIROS_HOME; default: the current "
                             "directory].")(fn)


def agent_option(required: bool = True, help: str = "Agent id.") -> Decorator[Any]:
    return click.option("--agent", "-a", required=required, help=help)


def user_option(required: bool = False, help: str = "User id (for the pair's files).",
                ) -> Decorator[Any]:
    return click.option("--user", "-u", required=required, help=help)


def file_option(required: bool = True, help: str = FILES_HELP) -> Decorator[Any]:
    return click.option("--file", "-f", "file", required=required, help=help)


def session_option(name: str = "session") -> Decorator[Any]:
    return click.option("--session", "-s", name, help="Session id.")


def actor_option(default: str) -> Decorator[Any]:
    return click.option("--actor", type=click.Choice(CLI_ACTORS), default=default,
                        show_default=True, help="Who did this.")


def reason_option(help: str = "Why.") -> Decorator[Any]:
    return click.option("--reason", "-r", required=True, help=help)


def json_option(fn: F) -> F:
    return click.option("--json", "as_json", is_flag=True, help="Print JSON.")(fn)


def memory(ctx: click.Context, recover: bool = True, *, read_only: bool = False) -> Memory:
    """The home the group's options name, closed when the command ends.

    ``read_only``: the commands that only read (verify, read, history, log,
    audit, trace, diff) open the home without writing anything to it.
    """
    from kairos.memory import Memory  # here: --help and --version never load the store

    obj = ctx.find_object(dict)
    assert obj is not None
    mem = Memory(obj["home"], obj["db"], recover=recover, read_only=read_only)
    closing(ctx, mem)
    return mem


def closing(ctx: click.Context, mem: Memory) -> None:
    """Close ``mem`` when the command ends; a failure to close (the read
    side could not be written) is one line and status 1, like any other."""
    def close() -> None:
        try:
            mem.close()
        except KairosError as e:
            raise KairosClickError(render.hint(str(e)), e.exit_code) from None
    ctx.call_on_close(close)


def read_text(text: str) -> str | bytes:
    """TEXT ``-`` reads standard input (bytes, checked as UTF-8 by the library);
    one trailing newline is dropped, as a shell's ``$(...)`` would."""
    if text != "-":
        return text
    data = sys.stdin.buffer.read()
    if data.endswith(b"\r\n"):
        return data[:-2]
    return data[:-1] if data.endswith(b"\n") else data
