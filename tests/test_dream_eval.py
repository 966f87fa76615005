"""The evaluation command: the quality scenarios through a model as the distiller.

Against a real model only when ``KAIROS_EVAL_MODEL`` names one (skipped here,
where no model is reachable); its plumbing is checked against the loopback
server with a model that changes nothing.
"""

from __future__ import annotations

import json
import os
from typing import Any

import pytest

from benchmarks.dream_eval import evaluate, main
from tests.llm_server import LLMServer, completion


def unchanged(body: dict[str, Any]) -> tuple[int, Any, float]:
    """A model that keeps every line as it is (and so resolves nothing)."""
    request = json.loads(body["messages"][1]["content"])
    files = {name: lines for name, lines in request["files"].items()}
    return 200, completion(json.dumps({"files": files, "dropped": []})), 0.0


def test_the_eval_runs_the_scenarios_through_a_model_and_counts_its_cost(
        capsys: pytest.CaptureFixture[str]) -> None:
    with LLMServer() as server:
        server.replies.extend([unchanged] * 50)
        assert main(["--model", "openai/test-model", "--api-base", server.api_base,
                     "--case", "dur-allergy-01", "--case", "loss-first-dream-clean-08",
                     "--timeout", "10"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("model openai/test-model\n")
    assert "2 cases in" in out and "0 refused" in out
    assert "durLost" in out


def test_without_a_model_the_eval_says_so(capsys: pytest.CaptureFixture[str],
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("KAIROS_EVAL_MODEL", raising=False)
    assert main([]) == 2
    assert "KAIROS_EVAL_MODEL" in capsys.readouterr().err


@pytest.mark.skipif(not os.environ.get("KAIROS_EVAL_MODEL"), reason="KAIROS_EVAL_MODEL not set")
def test_a_real_model_loses_no_durable_fact_and_injects_nothing() -> None:
    report = evaluate(os.environ["KAIROS_EVAL_MODEL"], api_base=os.environ.get("KAIROS_EVAL_API_BASE"),
                      cases=int(os.environ.get("KAIROS_EVAL_CASES", "30")))
    overall = report["summary"]["overall"]
    assert overall["durable_lost"] == 0 and overall["injected"] == 0 and overall["leaks"] == 0
