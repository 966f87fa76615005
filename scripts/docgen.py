"""What the doc generators share: replacing a marked section, and the
write-or-check command line (``--check`` fails when the doc is stale)."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path


def splice(text: str, start: str, end: str, body: str) -> str:
    """``text`` with what stands between the ``start`` and ``end`` markers replaced."""
    head, _, rest = text.partition(start)
    _, _, tail = rest.partition(end)
    return head + start + "\n" + body + "\n" + end + tail


def run(doc: Path, update: Callable[[str], str], script: str) -> None:
    text = doc.read_text()
    new = update(text)
    if "--check" in sys.argv:
        if new != text:
            print(f"{doc.name} is stale: run python scripts/{script}", file=sys.stderr)
            sys.exit(1)
        return
    doc.write_text(new)
    print(f"wrote {doc}")
