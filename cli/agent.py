"""Commands for agent runtimes: the assembled context, the memory tools, MCP."""

from __future__ import annotations

import click

from kairos.cli.common import emit, json_option, memory, run
from kairos.context import DEFAULT_STRATEGY, STRATEGIES, assemble, compare
from kairos.errors import BadInput
from kairos.tools import MEMORY_TOOLS, ToolExecutor, load_tools


@click.command()
@click.option("--agent", "-a", required=True, help="Agent id.")
@click.option("--user", "-u", help="User id (for the pair's files).")
@click.option("--strategy", "-s", type=click.Choice(STRATEGIES), default=DEFAULT_STRATEGY,
              show_default=True, help="What to inject; the rest goes through the memory tools.")
@click.option("--tools", "tools_file", type=click.Path(dir_okay=False),
              help="A JSON file of your own tool definitions (function-calling form).")
@click.option("--compare", "compare_all", is_flag=True,
              help="The four strategies' token counts side by side.")
@json_option
@click.pass_context
@run
def context(ctx: click.Context, agent: str, user: str | None, strategy: str,
            tools_file: str | None, compare_all: bool, as_json: bool) -> None:
    """Print an agent's system prompt and its token counts.

    \b
    Example:
        kairos context --agent ada --user sam
        kairos context --agent ada --user sam --compare
    """
    extra = load_tools(tools_file) if tools_file else []
    mem = memory(ctx)
    if compare_all:
        rows = compare(mem, agent, user, extra)
        if as_json:
            emit(rows)
            return
        click.echo(f"{'strategy':<10} {'injected':>9} {'on demand':>10}  injected files")
        for r in rows:
            click.echo(f"{r['strategy']:<10} {r['injected_tokens']:>9} {r['on_demand_tokens']:>10}"
                       f"  {', '.join(r['injected_files']) or '-'}")
        click.echo(f"tokens by {rows[0]['tokenizer']}")
        return
    result = assemble(mem, agent, user, strategy=strategy, extra_tools=extra)
    if as_json:
        emit(result.to_dict())
        return
    click.echo(result.prompt, nl=False)
    click.echo(f"\n{'-' * 40}\n{'section':<20} {'tokens':>7}", err=True)
    for s in result.sections:
        click.echo(f"{s.title:<20} {s.tokens:>7}", err=True)
    click.echo(f"{'total':<20} {result.total_tokens:>7}   ({result.tokenizer})", err=True)
    for name, n in result.on_demand_tokens.items():
        click.echo(f"on demand: {name:<10} {n:>7}", err=True)


@click.command()
@json_option
@run
def tools(as_json: bool) -> None:
    """Print the memory tools' schemas (function-calling form).

    \b
    Example:
        kairos tools --json > memory-tools.json
    """
    if as_json:
        emit(MEMORY_TOOLS)
        return
    for t in MEMORY_TOOLS:
        fn = t["function"]
        required = set(fn["parameters"]["required"])
        params = ", ".join(p if p in required else f"{p}?" for p in fn["parameters"]["properties"])
        click.echo(f"{fn['name']}({params}): {fn['description']}")


@click.command()
@click.option("--agent", "-a", required=True, help="Agent id.")
@click.option("--user", "-u", required=True, help="User id.")
@click.option("--session", "-s", help="Session id recorded on every write.")
@click.pass_context
@run
def mcp(ctx: click.Context, agent: str, user: str, session: str | None) -> None:
    """Serve the memory tools of one agent and user over MCP (stdio).

    \b
    Example:
        kairos --home /srv/kairos mcp --agent ada --user sam
    """
    from kairos.ids import check_id

    check_id(agent, "agent")
    check_id(user, "user")
    if session is not None:
        check_id(session, "session")
    try:
        from kairos.mcp_server import serve
    except ImportError:
        raise BadInput("kairos mcp needs the mcp package: pip install 'kairos-memory[mcp]'"
                       ) from None
    serve(ToolExecutor(memory(ctx), agent, user, session))


def register(cli: click.Group) -> None:
    cli.add_command(context)
    cli.add_command(tools)
    cli.add_command(mcp)
