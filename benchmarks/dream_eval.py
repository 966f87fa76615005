"""Evaluate a model as the dream's distiller: the quality scenarios, through any model litellm reaches.

    KAIROS_EVAL_MODEL=openai/gpt-4o-mini .venv/bin/python benchmarks/dream_eval.py
    KAIROS_EVAL_MODEL=openai/qwen2.5-7b-instruct KAIROS_EVAL_API_BASE=http://127.0.0.1:8000/v1 \\
        .venv/bin/python benchmarks/dream_eval.py --cases 20 -v
    .venv/bin/python benchmarks/dream_eval.py --model ollama/llama3.1 --json > eval.json

Runs the same scenario cases as ``benchmarks/dream_quality.py`` (both data
sets: ``scenarios.json`` and ``scenarios_more.json``), each in a fresh
temporary home whose ``[dream]`` settings select the ``llm`` distiller with
the model, every draft checked by the same guards as the rules distiller's.
A refused draft or a failed call counts as *refused* and the case goes on.
Prints the table of ``dream_quality.py`` and what the model calls cost
(tokens and dollars, refused drafts included), so a user with a model can
see how it compares with the rules distiller's figures in
docs/benchmarks.md.

``KAIROS_EVAL_MODEL`` (or ``--model``) names the model;
``KAIROS_EVAL_API_BASE`` (or ``--api-base``) an OpenAI-compatible server;
``KAIROS_LLM_API_KEY`` is sent to it; hosted providers read their usual
variables.  ``tests/test_dream_eval.py`` runs it against a real model when
``KAIROS_EVAL_MODEL`` is set, and is skipped otherwise.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.dream_quality import (  # noqa: E402
    SCENARIOS,
    CaseResult,
    format_case,
    format_summary,
    load_cases,
    run_scenario,
    summarize,
)

MORE = SCENARIOS.with_name("scenarios_more.json")


def spend(results: list[CaseResult]) -> dict[str, Any]:
    """Tokens and cost of every dream of the results, refused ones included."""
    dreams = [d for r in results for d in r.dreams]
    return {"dreams": len(dreams), "refused": sum(1 for d in dreams if d["status"] == "refused"),
            "tokens": sum(int(d.get("tokens") or 0) for d in dreams),
            "cost": round(sum(float(d.get("cost") or 0.0) for d in dreams), 6)}


def evaluate(model: str, *, api_base: str | None = None, cases: int | None = None,
             ids: list[str] | None = None, timeout: float = 120.0) -> dict[str, Any]:
    """Run the scenarios with the llm distiller and ``model``; the summary and the spend."""
    chosen = [c for path in (SCENARIOS, MORE) for c in load_cases(path)]
    if ids:
        chosen = [c for c in chosen if c["id"] in ids]
    if cases is not None:
        chosen = chosen[::max(1, len(chosen) // cases)][:cases]  # spread over the categories
    config = {"distiller": "llm", "model": model, "api_base": api_base, "timeout": timeout,
              "retries": 1}
    started = time.perf_counter()
    results = [run_scenario(c, config=config) for c in chosen]
    summary = summarize(results)
    summary["seconds"] = round(time.perf_counter() - started, 1)
    return {"model": model, "summary": summary, "spend": spend(results), "results": results}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Dream quality of a model (see the module docstring).")
    parser.add_argument("--model", default=os.environ.get("KAIROS_EVAL_MODEL"))
    parser.add_argument("--api-base", default=os.environ.get("KAIROS_EVAL_API_BASE"))
    parser.add_argument("--cases", type=int, help="only this many cases, spread over the data")
    parser.add_argument("--case", action="append", help="only this case id (repeatable)")
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds per model call")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("-v", "--verbose", action="store_true", help="list every failure")
    args = parser.parse_args(argv)
    if not args.model:
        print("no model: set KAIROS_EVAL_MODEL or give --model", file=sys.stderr)
        return 2
    report = evaluate(args.model, api_base=args.api_base, cases=args.cases, ids=args.case,
                      timeout=args.timeout)
    if args.json:
        print(json.dumps({"model": report["model"], "summary": report["summary"],
                          "spend": report["spend"],
                          "cases": [r.to_dict() for r in report["results"]]},
                         indent=2, ensure_ascii=False))
        return 0
    if args.verbose:
        for r in report["results"]:
            if not r.passed:
                print(format_case(r))
        print()
    print(f"model {report['model']}")
    print(format_summary(report["summary"]))
    s, o = report["spend"], report["summary"]["overall"]
    print(f"{o['cases']} cases in {report['summary']['seconds']} s; {s['dreams']} dreams, "
          f"{s['refused']} refused; {s['tokens']} tokens, ${s['cost']:.4f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
