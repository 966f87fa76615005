"""Helpers shared by the command modules: error mapping, output, options."""

from __future__ import annotations

import functools
import json
import sys
from collections.abc import Callable
from typing import Any

import click

from kairos.domain import ACTORS
from kairos.errors import KairosError
from kairos.memory import Memory

CLI_ACTORS = [a for a in ACTORS if a != "import"]


class KairosClickError(click.ClickException):
    def __init__(self, message: str, exit_code: int):
        super().__init__(message)
        self.exit_code = exit_code  # type: ignore[misc]


def run(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Turn library errors into one-line click errors with the library's exit code."""
    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except KairosError as e:
            raise KairosClickError(str(e), e.exit_code) from None
    return wrapper


def json_option(fn: Callable[..., Any]) -> Callable[..., Any]:
    return click.option("--json", "as_json", is_flag=True, help="Print JSON.")(fn)


def scope_options(fn: Callable[..., Any]) -> Callable[..., Any]:
    fn = click.option("--user", "-u", help="User id (for USER.md and MEMORY.md).")(fn)
    return click.option("--agent", "-a", required=True, help="Agent id.")(fn)


def file_option(required: bool = True) -> Callable[..., Any]:
    return click.option("--file", "-f", "file", required=required,
                        help="SOUL.md, ABOUT.md, TOOLS.md, USER.md or MEMORY.md.")


def emit(data: Any) -> None:
    click.echo(json.dumps(data, indent=2, ensure_ascii=False, default=str))


def memory(ctx: click.Context, recover: bool = True) -> Memory:
    obj = ctx.find_object(dict)
    assert obj is not None
    mem = Memory(obj["home"], obj["db"], recover=recover)
    ctx.call_on_close(mem.close)
    return mem


def read_text(text: str) -> str | bytes:
    """TEXT ``-`` reads standard input (bytes, checked as UTF-8 by the library);
    one trailing newline is dropped, as a shell's ``$(...)`` would."""
    if text != "-":
        return text
    data = sys.stdin.buffer.read()
    if data.endswith(b"\r\n"):
        return data[:-2]
    return data[:-1] if data.endswith(b"\n") else data
