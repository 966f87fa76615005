"""The ``llm`` distiller: any model litellm supports, answering structured JSON.

The prompt is ``prompt.md`` beside this module (shown in docs/dream.md).  The
model gets the current lines with their sources and the events since the
last cutoff, with their ids, and must answer the JSON object the prompt
describes; the answer is validated here and then by the same guards as every
draft (an invented or foreign event id rejects it).  Malformed output, a
timeout or an HTTP error after the retries raise :class:`DistillerFailed`.

litellm is imported only when this distiller runs: its import alone takes
seconds, and most homes never need it.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from kairos.domain.hashing import format_time
from kairos.dream.distill.base import Context, DistillerFailed, Draft

PROMPT = Path(__file__).with_name("prompt.md")


def prompt_text() -> str:
    return PROMPT.read_text(encoding="utf-8")


def request_body(context: Context) -> dict[str, Any]:
    """What the model sees, besides the prompt."""
    cited = sorted({s for lines in context.files.values() for ln in lines for s in ln.sources})
    return {
        "agent": context.agent, "user": context.user, "now": format_time(context.now),
        "timezone": context.timezone or "UTC",
        "limits": context.limits, "ttl_days": context.ttl_days,
        "files": {name: [{"text": ln.text, "sources": list(ln.sources)} for ln in lines]
                  for name, lines in sorted(context.files.items())},
        "sources": {s: {"time": format_time(context.sources[s].time), "text": context.sources[s].text}
                    for s in cited if s in context.sources},
        "events": [{"id": s.event_id, "type": s.type, "time": format_time(s.time),
                    "file": s.file, "text": s.text, **({"retracts": list(s.retracts)}
                                                       if s.retracts else {})}
                   for s in context.signals],
    }


def parse_answer(content: str | None) -> dict[str, Any]:
    """Validate the model's answer against the schema of the prompt.

    :raises DistillerFailed: naming what is wrong.
    """
    if not content:
        raise DistillerFailed("the model gave an empty answer")
    text = content.strip()
    if text.startswith("```"):  # some models fence JSON even when told not to
        text = text.strip("`").removeprefix("json").strip()
    try:
        data = json.loads(text)
    except ValueError as e:
        raise DistillerFailed(f"the model's answer is not JSON: {e}") from None
    if not isinstance(data, dict) or not isinstance(data.get("files"), dict):
        raise DistillerFailed("the model's answer has no \"files\" object")
    for name, lines in data["files"].items():
        if not isinstance(lines, list):
            raise DistillerFailed(f"files.{name} is not a list")
        for line in lines:
            if (not isinstance(line, dict) or not isinstance(line.get("text"), str)
                    or not isinstance(line.get("sources"), list)
                    or not all(isinstance(s, str) for s in line["sources"])):
                raise DistillerFailed(f"files.{name} has a line that is not "
                                      "{\"text\": str, \"sources\": [str]}")
    dropped = data.get("dropped", [])
    if not isinstance(dropped, list) or not all(
            isinstance(d, dict) and isinstance(d.get("text"), str)
            and isinstance(d.get("reason"), str) for d in dropped):
        raise DistillerFailed("\"dropped\" must be a list of {file, text, sources, reason}")
    if not isinstance(data.get("report", {}), dict):
        raise DistillerFailed("\"report\" must be an object")
    return data


class LLMDistiller:
    name = "llm"

    def __init__(self, model: str, *, api_base: str | None = None, timeout: float = 120.0,
                 retries: int = 2):
        self.model, self.api_base = model, api_base
        self.timeout, self.retries = timeout, retries

    def distil(self, context: Context) -> Draft:
        # Use the cost map litellm ships instead of fetching one at import.
        os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
        try:
            import litellm
        except ImportError:
            raise DistillerFailed("the llm distiller needs litellm: "
                                  "pip install 'kairos-memory[llm]'") from None
        litellm.suppress_debug_info = True  # it prints hints to stdout, which is our output
        messages = [{"role": "system", "content": prompt_text()},
                    {"role": "user", "content": json.dumps(request_body(context),
                                                           ensure_ascii=False)}]
        extra: dict[str, Any] = {}
        if self.api_base:
            extra["api_base"] = self.api_base
            extra["api_key"] = os.environ.get("KAIROS_LLM_API_KEY") or "no-key"
        try:
            response = litellm.completion(
                model=self.model, messages=messages, timeout=self.timeout,
                num_retries=self.retries, temperature=0,
                response_format={"type": "json_object"}, **extra)
        except Exception as e:  # litellm maps every provider's failures to its own types
            message = " ".join(str(e).split())[:300]
            raise DistillerFailed(f"{type(e).__name__}: {message}") from None
        usage = getattr(response, "usage", None)
        try:
            cost = float(litellm.completion_cost(completion_response=response) or 0.0)
        except Exception:  # a model litellm has no price for costs what it costs: unknown
            cost = 0.0
        spent = {"prompt_tokens": getattr(usage, "prompt_tokens", 0) or 0,
                 "completion_tokens": getattr(usage, "completion_tokens", 0) or 0,
                 "total_tokens": getattr(usage, "total_tokens", 0) or 0, "cost": cost}
        try:
            data = parse_answer(response.choices[0].message.content)
        except DistillerFailed as e:  # a malformed answer still cost its tokens
            raise DistillerFailed(str(e), usage=spent, model=self.model) from None
        files = {name: [(line["text"], list(line["sources"])) for line in lines]
                 for name, lines in data["files"].items()}
        dropped = [{"file": d.get("file"), "text": d["text"], "sources": d.get("sources", []),
                    "reason": d["reason"],
                    **{k: d[k] for k in ("kind", "by", "to") if isinstance(d.get(k), str)}}
                   for d in data.get("dropped", [])]
        report = {"orient": {name: len(lines) for name, lines in context.files.items()},
                  **data.get("report", {})}
        return Draft(files=files, dropped=dropped, report=report, model=self.model, usage=spent)
