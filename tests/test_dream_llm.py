"""The llm distiller through litellm's real HTTP path, against a loopback server."""

from __future__ import annotations

import json
from typing import Any

import pytest
from freezegun import freeze_time

from kairos.dream.distill.base import DistillerFailed
from kairos.dream.distill.guards import GuardFailed
from kairos.dream.distill.llm import LLMDistiller, prompt_text
from kairos.memory import Memory
from tests.conftest import Kairos, store_rows
from tests.llm_server import LLMServer, completion

MODEL = "openai/test-model"


@pytest.fixture
def server():  # type: ignore[no-untyped-def]
    with LLMServer() as s:
        yield s


def seed(mem: Memory) -> None:
    with freeze_time("2026-11-01T09:00:00Z"):
        mem.write("ada", "MEMORY.md", "Sam prefers green tea.", user="sam")
        mem.write("ada", "MEMORY.md", "Sam prefers green tea.", user="sam")
        mem.write("ada", "MEMORY.md", "Kim's secret: allergic to peanuts.", user="kim")
    with freeze_time("2026-11-02T09:00:00Z"):
        mem.end_session("ada", "sam", session="s-1", notes="Sam adopted a cat named Miso.")


def request_of(body: dict[str, Any]) -> dict[str, Any]:
    return json.loads(body["messages"][1]["content"])


def good(body: dict[str, Any]) -> tuple[int, Any, float]:
    """A sensible answer built from what the model was sent."""
    req = request_of(body)
    lines = req["files"]["MEMORY.md"]
    tea = sorted({s for line in lines for s in line["sources"]})
    notes = next(e["id"] for e in req["events"] if e["type"] == "SessionEnded")
    answer = {"files": {"MEMORY.md": [
        {"text": "Sam prefers green tea.", "sources": tea},
        {"text": "Sam has a cat named Miso.", "sources": [notes]}]},
        "dropped": [], "report": {"gather": "one duplicate; a fact in the session notes"}}
    return 200, completion(json.dumps(answer)), 0.0


def distiller(server: LLMServer, **kw: Any) -> LLMDistiller:
    return LLMDistiller(MODEL, api_base=server.api_base, **{"timeout": 10, "retries": 0, **kw})


def test_a_good_answer_becomes_a_proposal_citing_its_sources(mem: Memory, server: LLMServer
                                                              ) -> None:
    seed(mem)
    server.replies.append(good)
    outcome = mem.dreams.dream("ada", "sam", distiller=distiller(server), force=True)
    assert outcome.status == "proposed" and outcome.tokens == 160 and outcome.cost == 0.0
    shown = mem.dreams.show(outcome.dream_id)
    assert shown["distiller"] == "llm" and shown["model"] == MODEL
    assert shown["usage"]["prompt_tokens"] == 120
    lines = shown["files"]["MEMORY.md"]["lines"]
    assert [line["text"] for line in lines] == ["Sam prefers green tea.", "Sam has a cat named Miso."]
    assert [s["type"] for s in lines[1]["sources"]] == ["SessionEnded"]
    sent = server.requests[0]
    assert sent["model"] == "test-model" and sent["messages"][0]["content"] == prompt_text()
    assert "Kim" not in json.dumps(sent)  # another pair's memory never reaches the model
    mem.dreams.approve(outcome.dream_id, "alice")
    assert mem.read("ada", "MEMORY.md", user="sam").content == (
        "Sam prefers green tea.\nSam has a cat named Miso.\n")


@pytest.mark.parametrize("case", ["malformed", "invented id", "other pair's id", "slow", "no files"])
def test_a_bad_answer_fails_the_dream_and_writes_nothing(mem: Memory, server: LLMServer,
                                                        case: str) -> None:
    seed(mem)
    kim = mem.history("ada", user="kim")[-1]["event_id"]

    def answer(sources: list[str]) -> Any:
        return lambda body: (200, completion(json.dumps({"files": {"MEMORY.md": [
            {"text": "Sam prefers green tea.", "sources": sources}]}})), 0.0)

    server.replies.append({
        "malformed": lambda body: (200, completion('{"files": {"MEMORY.md": [oops'), 0.0),
        "invented id": answer(["00000000-0000-0000-0000-00000000beef"]),
        "other pair's id": answer([kim]),
        "slow": lambda body: (200, completion("{}"), 3.0),
        "no files": lambda body: (200, completion('{"lines": []}'), 0.0),
    }[case])
    before = store_rows(mem)
    expected = {"malformed": (DistillerFailed, "not JSON"),
                "invented id": (GuardFailed, "does not exist"),
                "other pair's id": (GuardFailed, "belongs to another pair"),
                "slow": (DistillerFailed, "Timeout"),
                "no files": (DistillerFailed, "no \"files\"")}[case]
    with pytest.raises(expected[0], match=expected[1]):
        mem.dreams.dream("ada", "sam", distiller=distiller(server, timeout=1), force=True)
    assert store_rows(mem) == before


def test_an_http_500_is_retried(mem: Memory, server: LLMServer) -> None:
    seed(mem)
    server.replies.append(lambda body: (500, {"error": {"message": "overloaded"}}, 0.0))
    server.replies.append(good)
    outcome = mem.dreams.dream("ada", "sam", distiller=distiller(server, retries=1), force=True)
    assert outcome.status == "proposed" and len(server.requests) == 2


def test_the_cli_runs_the_llm_distiller_and_reports_failures(kairos: Kairos, mem: Memory,
                                                             server: LLMServer) -> None:
    seed(mem)
    server.replies.append(lambda body: (200, completion("not json at all"), 0.0))
    out = kairos("dream", "--agent", "ada", "--user", "sam", "--force", "--distiller", "llm",
                 "--model", MODEL, "--api-base", server.api_base, "--retries", "0", "--json")
    assert out.exit_code == 1
    summary = json.loads(out.stdout)
    assert summary["failed"][0]["agent"] == "ada" and "not JSON" in summary["failed"][0]["error"]
    server.replies.append(good)
    out = kairos("dream", "--agent", "ada", "--user", "sam", "--force", "--distiller", "llm",
                 "--model", MODEL, "--api-base", server.api_base, "--retries", "0")
    assert out.exit_code == 0 and out.stdout.startswith("proposed ")
