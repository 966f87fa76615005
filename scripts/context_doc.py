"""Regenerate the four strategies' prompts in docs/context.md from the sample home.

    python scripts/context_doc.py [--check]
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path

from kairos.agent import STRATEGIES
from kairos.agent.context import assemble, compare
from kairos.memory import Memory

sys.path.insert(0, str(Path(__file__).parent))
from docgen import run, splice  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "context.md"
START, END = "<!-- strategies:start -->", "<!-- strategies:end -->"


def render() -> str:
    out = [""]
    with tempfile.TemporaryDirectory() as tmp:
        shutil.copytree(ROOT / "logs", Path(tmp) / "logs")
        with Memory(tmp, recover=False) as mem:
            mem.rebuild(from_logs=True)
            rows = compare(mem, "ada", "sam")
            out += [f"Token counts by {rows[0]['tokenizer']}, for agent `ada` and user `sam`:",
                    "", "| strategy | injected on every request | loadable through the tools |",
                    "|---|---|---|"]
            out += [f"| {r['strategy']} | {r['injected_tokens']} | {r['on_demand_tokens']} |"
                    for r in rows]
            for strategy in STRATEGIES:
                ctx = assemble(mem, "ada", "sam", strategy=strategy)
                out += ["", f"### {strategy}", "", "```markdown", ctx.prompt.rstrip("\n"), "```",
                        "", "| section | tokens |", "|---|---|"]
                out += [f"| {s.title} | {s.tokens} |" for s in ctx.sections]
                out.append(f"| **total** | **{ctx.total_tokens}** |")
    return "\n".join(out)


if __name__ == "__main__":
    run(DOC, lambda text: splice(text, START, END, render()), "context_doc.py")
