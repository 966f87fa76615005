"""Generate the parts of the docs that the code defines (``--check``: fail if stale).

* docs/architecture.md, between ``<!-- modules:start -->`` and its end
  marker: the module map, each module with the first line of its docstring;
* docs/architecture.md, between ``<!-- events:start -->`` and its end
  marker: every event type, its payload fields and what it records;
* docs/log-format.md, between ``<!-- events:start -->`` and its end marker:
  the event types with their payload fields in log order.

    python scripts/architecture_doc.py          # rewrite both
    python scripts/architecture_doc.py --check  # exit 1 when either is stale
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

from kairos.domain.events import EVENT_TYPES, payload_fields

sys.path.insert(0, str(Path(__file__).parent))
from docgen import splice  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
ARCHITECTURE = ROOT / "docs" / "architecture.md"
LOG_FORMAT = ROOT / "docs" / "log-format.md"
# Source folders and the package each is installed as (pyproject.toml).
FOLDERS = [("cli", "kairos.cli"), ("kairos", "kairos"), ("projections", "kairos.projections")]
# What each event records, for the table (the classes say it in their names).
MEANING = {
    "StreamOpened": "the first event of an agent's or a pair's stream",
    "MemoryWritten": "a line appended to a file, or the file replaced",
    "MemoryRetracted": "writes withdrawn from every file that cites them (history keeps them)",
    "SessionEnded": "a session of the pair ended (the dream's gate counts them)",
    "DreamProposed": "a dream's proposal: new lines per file, each citing its events",
    "DreamApproved": "a proposal published as the next version of its files",
    "DreamRejected": "a proposal refused; nothing published",
    "DreamRefused": "a draft a guard refused: the rule and what the model call cost",
    "VersionRolledBack": "a file set back (or forward) to a published version",
    "CheckpointSealed": "a checkpoint over the global order: size, position, Merkle root",
    "SubjectErased": "a pair erased: its keys destroyed, its files emptied (who, when, why)",
    "KeyIssued": "an API key of `kairos serve` issued: its role and scope, a digest of its secret",
    "KeyRevoked": "an API key revoked (who, why)",
}


def first_line(path: Path) -> str:
    doc = ast.get_docstring(ast.parse(path.read_text())) or ""
    return doc.strip().split("\n\n")[0].replace("\n", " ")


def modules() -> str:
    lines = ["```"]
    for folder, package in FOLDERS:
        base = ROOT / folder
        for path in sorted(base.rglob("*.py"), key=lambda p: (p.parent != base, str(p))):
            rel = path.relative_to(ROOT)
            if path.name == "__main__.py" or "__pycache__" in rel.parts:
                continue
            name = rel.as_posix() if path.name != "__init__.py" else rel.parent.as_posix() + "/"
            summary = first_line(path)
            if len(summary) > 72:
                summary = summary[:71].rsplit(" ", 1)[0] + " …"
            lines.append(f"{name:<34} {summary}")
        del package
    lines.append("```")
    return "\n".join(lines)


def events_table(meaning: bool) -> str:
    head = ("| type | payload (in order) | records |\n|---|---|---|" if meaning
            else "| type | payload (in order) |\n|---|---|")
    rows = [head]
    for kind, cls in EVENT_TYPES.items():
        fields = ", ".join(payload_fields(cls))
        rows.append(f"| `{kind.value}` | {fields} |" + (f" {MEANING[kind.value]} |" if meaning
                                                        else ""))
    return "\n".join(rows)


def update_architecture(text: str) -> str:
    text = splice(text, "<!-- modules:start -->", "<!-- modules:end -->", modules())
    return splice(text, "<!-- events:start -->", "<!-- events:end -->", events_table(True))


def update_log_format(text: str) -> str:
    return splice(text, "<!-- events:start -->", "<!-- events:end -->", events_table(False))


def main() -> None:
    stale = []
    for doc, update in ((ARCHITECTURE, update_architecture), (LOG_FORMAT, update_log_format)):
        text = doc.read_text()
        new = update(text)
        if "--check" in sys.argv:
            if new != text:
                stale.append(doc.name)
        elif new != text:
            doc.write_text(new)
            print(f"wrote {doc}")
    if stale:
        print(f"{', '.join(stale)} stale: run python scripts/architecture_doc.py",
              file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
