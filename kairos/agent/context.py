"""Context assembly: what goes into an agent's system prompt.

Four strategies, one default.  Every injected character is paid for on every
request, so the default, ``hybrid-v2``, injects only the agent's identity,
profile and tool notes, and gives the model memory tools plus a hint to load
USER.md and MEMORY.md when it needs them.

| strategy  | injected                           | through tools         |
|-----------|------------------------------------|-----------------------|
| full      | SOUL, ABOUT, TOOLS, USER, MEMORY    | —                     |
| on-demand | the tool descriptions and the hint  | all five files        |
| hybrid-v1 | SOUL, ABOUT, TOOLS, USER            | MEMORY                |
| hybrid-v2 | SOUL, ABOUT, TOOLS                  | USER, MEMORY          |

The tools section is generated from the registered tools' schemas — the
memory tools and any the caller adds — on every assembly, in memory only: it
is never written to the store or the logs, and TOOLS.md (the agent's own
notes, appended under ``## Tool Notes``) is never overwritten.  Files that
do not exist are skipped; a new agent gets a valid minimal prompt.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from kairos.agent import DEFAULT_STRATEGY, STRATEGIES
from kairos.agent.tokens import counter
from kairos.agent.tools import MEMORY_TOOLS, describe
from kairos.domain.files import FILES
from kairos.errors import BadInput
from kairos.ports import MemoryFiles

INJECTED = {
    "full": ("SOUL.md", "ABOUT.md", "TOOLS.md", "USER.md", "MEMORY.md"),
    "on-demand": (),
    "hybrid-v1": ("SOUL.md", "ABOUT.md", "TOOLS.md", "USER.md"),
    "hybrid-v2": ("SOUL.md", "ABOUT.md", "TOOLS.md"),
}
TITLES = {"SOUL.md": "Agent Identity", "ABOUT.md": "Agent Profile", "USER.md": "User Profile",
          "MEMORY.md": "Long-term Memory"}
# The hint of the design, for hybrid-v2; other strategies name their own files.
HINT = "You have memory tools. Load {files} when needed."
FULL_HINT = ("You have memory tools. Your memory files are above; save what you learn with "
             "memory_write.")


@dataclass(frozen=True)
class Section:
    title: str
    text: str
    tokens: int = 0


@dataclass
class AssembledContext:
    agent: str
    user: str | None
    strategy: str
    prompt: str
    sections: list[Section]
    tools: list[dict[str, Any]]
    on_demand: list[str]
    tokenizer: str = ""
    exact: bool = False
    total_tokens: int = 0
    on_demand_tokens: dict[str, int] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _join(names: list[str]) -> str:
    described = [f"{n} ({FILES[n].purpose})" for n in names]
    return described[0] if len(described) == 1 else ", ".join(described[:-1]) + \
        " and " + described[-1]


def hint_for(strategy: str, template: str | None = None) -> str:
    on_demand = [n for n in FILES if n not in INJECTED[strategy]]
    if not on_demand:
        return FULL_HINT if template is None else template.format(files="")
    return (template or HINT).format(files=_join(on_demand))


def assemble(memory: MemoryFiles, agent: str, user: str | None = None, *,
             strategy: str = DEFAULT_STRATEGY, extra_tools: list[dict[str, Any]] | None = None,
             hint: str | None = None, count: bool = True,
             as_of: str | None = None) -> AssembledContext:
    """Build the system prompt of one agent (and user) with one strategy.

    :raises BadInput: unknown strategy, or bad ids.
    """
    if strategy not in STRATEGIES:
        raise BadInput(f"unknown strategy {strategy!r}: use one of {', '.join(STRATEGIES)}")
    tools = [*MEMORY_TOOLS, *(extra_tools or [])]
    injected = [n for n in INJECTED[strategy] if user is not None or FILES[n].scope == "agent"]
    texts = {n: memory.read(agent, n, user=user if FILES[n].scope == "pair" else None,
                            as_of=as_of)
             for n in injected}
    sections: list[Section] = []
    content = {n: r.content.rstrip("\n") for n, r in texts.items() if r.content}
    for name in ("SOUL.md", "ABOUT.md"):
        if name in content:
            sections.append(Section(TITLES[name], content[name]))
    tool_text = describe(tools)
    if "TOOLS.md" in content:
        tool_text += "\n\n---\n\n## Tool Notes\n\n" + content["TOOLS.md"]
    sections.append(Section("Tools", tool_text))
    for name in ("USER.md", "MEMORY.md"):
        if name in content:
            body = content[name]
            if texts[name].over_limit:
                body += (f"\n\n({name} is {texts[name].size} characters, over its limit of "
                         f"{texts[name].limit}: compress it with memory_write mode=replace.)")
            sections.append(Section(TITLES[name], body))
    sections.append(Section("Memory", hint_for(strategy, hint)))
    on_demand = [n for n in FILES if n not in INJECTED[strategy]]
    result = AssembledContext(agent, user, strategy, "", sections, tools, on_demand)
    result.prompt = "\n\n".join(f"## {s.title}\n\n{s.text}" for s in sections) + "\n"
    if count:
        c = counter()
        result.sections = [Section(s.title, s.text, c.count(f"## {s.title}\n\n{s.text}"))
                           for s in sections]
        result.tokenizer, result.exact, result.total_tokens = c.name, c.exact, c.count(result.prompt)
        for name in on_demand:
            if FILES[name].scope == "pair" and user is None:
                continue
            read = memory.read(agent, name, user=user if FILES[name].scope == "pair" else None)
            result.on_demand_tokens[name] = c.count(read.content or "")
    return result


def compare(memory: MemoryFiles, agent: str, user: str | None = None,
            extra_tools: list[dict[str, Any]] | None = None) -> list[dict[str, Any]]:
    """The four strategies side by side: tokens injected on every request, and
    tokens the model may load later through the tools."""
    rows = []
    for strategy in STRATEGIES:
        ctx = assemble(memory, agent, user, strategy=strategy, extra_tools=extra_tools)
        rows.append({"strategy": strategy, "injected_tokens": ctx.total_tokens,
                     "on_demand_tokens": sum(ctx.on_demand_tokens.values()),
                     "injected_files": list(INJECTED[strategy]),
                     "tokenizer": ctx.tokenizer, "exact": ctx.exact})
    return rows


class Contexts:
    """Context assembly over one home's files (what ``Memory.contexts`` is)."""

    def __init__(self, files: MemoryFiles):
        self.files = files

    def assemble(self, agent: str, user: str | None = None, *,
                 strategy: str = DEFAULT_STRATEGY,
                 extra_tools: list[dict[str, Any]] | None = None, hint: str | None = None,
                 count: bool = True, as_of: str | None = None) -> AssembledContext:
        """See :func:`assemble`."""
        return assemble(self.files, agent, user, strategy=strategy, extra_tools=extra_tools,
                        hint=hint, count=count, as_of=as_of)

    def compare(self, agent: str, user: str | None = None,
                extra_tools: list[dict[str, Any]] | None = None) -> list[dict[str, Any]]:
        """See :func:`compare`."""
        return compare(self.files, agent, user, extra_tools)

    def prompt(self, agent: str, user: str | None, *, as_of: str | None = None) -> str:
        """The default (Hybrid v2) prompt as it stood at ``as_of`` (the audit's view)."""
        return self.assemble(agent, user, as_of=as_of, count=False).prompt
