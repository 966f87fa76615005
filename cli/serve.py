"""Commands for the HTTP service: ``kairos serve`` and its API keys.

``serve`` runs the HTTP API and MCP over HTTP for one home on uvicorn
(``docs/serve.md``); ``keys`` issues, lists and revokes the keys that open
it.  The server's modules are imported when ``serve`` runs.
"""

from __future__ import annotations

import click

from kairos.cli import render
from kairos.cli.options import agent_option, json_option, memory, reason_option, run, user_option


@click.command()
@click.option("--host", default="127.0.0.1", show_default=True,
              help="The address to listen on (loopback by default: put a TLS proxy in front "
                   "to serve a network).")
@click.option("--port", default=8420, show_default=True, type=click.IntRange(0, 65535),
              help="The port (0: any free one, printed when listening).")
@click.pass_context
@run
def serve(ctx: click.Context, host: str, port: int) -> None:
    """Serve the home over HTTP: the REST API, and MCP (streamable HTTP) at /mcp.

    Every request needs an API key (`kairos keys create`).  Stops
    gracefully on SIGTERM or Ctrl-C: no new connection, in-flight requests
    finish, the read side is flushed.

    \b
    Example:
        kairos keys create --role agent --agent ada --by ops
        kairos serve --port 8420
    """
    from kairos.http.server import run_server

    run_server(memory(ctx), host, port)


@click.group()
def keys() -> None:
    """Issue, list and revoke the API keys of `kairos serve`.

    A key is shown once, when issued; the home keeps only a digest of it.
    Issuing and revoking are events: `kairos audit --type KeyIssued`.
    """


@keys.command("create")
@click.option("--role", required=True,
              type=click.Choice(["agent", "reviewer", "auditor", "admin"]),
              help="agent: its memory tools; reviewer: dreams and rollbacks; auditor: "
                   "read-only audit; admin: everything.")
@agent_option(required=False, help="The one agent the key reaches (required for --role agent).")
@user_option(help="The one user the key reaches (default: every user of the agent).")
@click.option("--expires", help="When the key stops working (ISO 8601 date or time).")
@click.option("--by", required=True, help="Who issues it (kept in the audit).")
@json_option
@click.pass_context
@run
def create(ctx: click.Context, role: str, agent: str | None, user: str | None,
           expires: str | None, by: str, as_json: bool) -> None:
    """Issue a key, and print it (once).

    \b
    Example:
        kairos keys create --role agent --agent ada --user sam --by ops
        kairos keys create --role auditor --expires 2027-01-31 --by dpo
    """
    token, key = memory(ctx).keys.create(role, agent=agent, user=user, expires=expires, by=by)
    if as_json:
        render.emit({"key": token, **key.to_dict()})
    else:
        click.echo(token)
        click.echo(f"key {key.key_id}: {role}" + (f", agent {agent}" if agent else "")
                   + (f", user {user}" if user else "") + (f", until {key.expires}"
                                                          if key.expires else ""), err=True)


@keys.command("list")
@json_option
@click.pass_context
@run
def list_keys(ctx: click.Context, as_json: bool) -> None:
    """Every key issued: id, role, scope, expiry, who issued and revoked it.

    \b
    Example:
        kairos keys list --json
    """
    found = [k.to_dict() for k in memory(ctx).keys.list()]
    if as_json:
        render.emit(found)
        return
    for k in found:
        scope = "/".join(x for x in (k["agent"], k["user"]) if x) or "all"
        state = f"revoked {k['revoked_at']} by {k['revoked_by']}" if k["revoked_at"] else (
            f"until {k['expires']}" if k["expires"] else "live")
        click.echo(f"{k['key_id']}  {k['role']:8}  {scope:24}  issued {k['issued_at']} by "
                   f"{k['issued_by']}  {state}")


@keys.command("revoke")
@click.argument("key_id")
@reason_option("Why (kept in the audit).")
@click.option("--by", required=True, help="Who revokes it (kept in the audit).")
@click.pass_context
@run
def revoke(ctx: click.Context, key_id: str, reason: str, by: str) -> None:
    """Revoke a key: from now on it opens nothing.

    A running server notices within a second.

    \b
    Example:
        kairos keys revoke 3f9c0a1b2c4d --reason "laptop lost" --by ops
    """
    key = memory(ctx).keys.revoke(key_id, by=by, reason=reason)
    click.echo(f"revoked key {key.key_id} at {key.revoked_at}")
