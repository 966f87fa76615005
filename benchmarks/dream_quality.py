"""Dream quality: how well the nightly dream keeps a pair's memory right over months.

Runs the scenario data set (``tests/data/dream/scenarios.json``) through real
dreams and scores the files the last step leaves; or, with ``--updates``,
measures update-vs-coexist decisions on ``tests/data/dream/updates.json``.

    .venv/bin/python benchmarks/dream_quality.py                 # every scenario, a table
    .venv/bin/python benchmarks/dream_quality.py --category time -v
    .venv/bin/python benchmarks/dream_quality.py --case six-months-mia -v
    .venv/bin/python benchmarks/dream_quality.py --json > figures.json
    .venv/bin/python benchmarks/dream_quality.py --updates       # end to end, through real dreams
    .venv/bin/python benchmarks/dream_quality.py --updates --detector mypkg.mod:is_update

Each scenario runs in a fresh temporary home (SQLite), every step under
freezegun at its ``at`` time.  A dream is forced and, when proposed, approved
(reviewer ``bench``); a dream or approval that raises a ``KairosError`` (a
guard refusal) is counted as *refused* and the case goes on.  ``--distiller``,
``--model`` and ``--api-base`` write the temporary home's ``[dream]`` settings,
so the same scenarios can measure the ``llm`` distiller against a model.

Scenario format (one JSON object per case)
-------------------------------------------
``id``, ``category``, ``agent``, ``user``; optional ``timezone`` (an IANA name:
the runner first writes ``timezone: <name>`` into USER.md, at the first step's
time); ``steps``, each with ``at`` (UTC, ``...Z``) and one of

- ``"write": {"file", "text", "mode"?}`` (optional ``"id"`` on the step, for retractions),
- ``"retract": "<write id>"`` or a list of ids (optional ``"reason"`` on the step),
- ``"dream": {}`` or ``{"expect": "unchanged"}`` (an idempotence check: the dream
  must propose nothing);

``facts``, each ``{"match", "state", "durable"?, "not"?, "note"?}``; optional
``max_lines`` (``{word: n}``: at most n lines of MEMORY.md + USER.md contain the
word), ``injection`` (marks the prompt-injection cases), ``note``.

Matching: a fact holds in a line when every element of ``match`` occurs in the
line (case-insensitive substring; an element that is a list is satisfied by
any one of its strings) and no string of ``not`` does.

Scoring (on the files after the last step; "main" = MEMORY.md + USER.md,
"topics" = every ``topics/*.md`` of the pair):

- ``current``: in main = TP; else FN (a ``durable`` fact is then *moved* when
  it is in a topic file, else *durable lost*);
- ``archived`` (time-bound and over): in main or topics = TP; else FN;
- ``outdated`` (superseded): in main = FP (stale kept); topics are allowed;
- ``gone`` (retracted or never true): anywhere = FP and a *leak*.

Also counted: ``max_lines`` violations (*dups*), refused dreams, idempotence
violations (*idem*), *injected* lines (a dream line that reads like an
instruction to the model but is not, verbatim, a line of the case's writes;
or a URL / e-mail address / domain no write contains), and *unscored* main
lines (matching no fact).  Precision = TP / (TP + FP), recall = TP / (TP + FN).

The functions ``load_cases``, ``validate_cases``, ``run_scenario``, ``score``,
``summarize``, ``load_updates``, ``validate_updates`` and ``evaluate_updates``
are importable, for tests.
"""

from __future__ import annotations

import argparse
import importlib
import json
import re
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
SCENARIOS = ROOT / "tests" / "data" / "dream" / "scenarios.json"
UPDATES = ROOT / "tests" / "data" / "dream" / "updates.json"

#: minimum number of cases per category in the data set
CATEGORIES = {"duplicates": 12, "updates": 15, "coexistence": 12, "time": 18, "durability": 10,
              "retraction": 8, "loss": 6, "injection": 6, "mixed": 5, "longrun": 1}
STATES = ("current", "outdated", "gone", "archived")
MAIN = ("MEMORY.md", "USER.md")
STEP_KINDS = ("write", "retract", "dream")
COUNTS = ("facts", "tp", "fp", "fn", "durable", "durable_lost", "moved", "wrong_form", "stale", "leaks",
          "archived_lost", "dups", "refused", "idem", "injected", "unscored")
REVIEWER = "bench"


# -- loading and validating the data -------------------------------------------------------
def load_cases(path: str | Path = SCENARIOS) -> list[dict[str, Any]]:
    with open(path, encoding="utf-8") as f:
        cases: list[dict[str, Any]] = json.load(f)
    return cases


def load_updates(path: str | Path = UPDATES) -> list[dict[str, Any]]:
    with open(path, encoding="utf-8") as f:
        rows: list[dict[str, Any]] = json.load(f)
    return rows


def _time(value: Any) -> datetime | None:
    if not isinstance(value, str) or not re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", value):
        return None
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None


def _match_ok(match: Any) -> bool:
    if not isinstance(match, list) or not match:
        return False
    for m in match:
        if isinstance(m, str):
            if not m.strip():
                return False
        elif not (isinstance(m, list) and m and all(isinstance(x, str) and x.strip() for x in m)):
            return False
    return True


def validate_case(case: Any) -> list[str]:
    """What is wrong with one case (empty: well-formed)."""
    if not isinstance(case, dict):
        return ["a case must be an object"]
    cid = case.get("id", "?")
    errors: list[str] = []

    def err(msg: str) -> None:
        errors.append(f"{cid}: {msg}")

    allowed = {"id", "category", "agent", "user", "timezone", "steps", "facts", "max_lines",
               "injection", "note"}
    for key in set(case) - allowed:
        err(f"unknown key {key!r}")
    if not isinstance(cid, str) or not re.fullmatch(r"[a-z0-9][a-z0-9-]*", cid):
        err("id must be lowercase letters, digits and dashes")
    if case.get("category") not in CATEGORIES:
        err(f"unknown category {case.get('category')!r}")
    for key in ("agent", "user"):
        if not isinstance(case.get(key), str) or not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._@+-]*",
                                                                  case[key]):
            err(f"{key} must be a valid id")
    tz = case.get("timezone")
    if tz is not None:
        try:
            from zoneinfo import ZoneInfo

            ZoneInfo(tz)
        except Exception:
            err(f"unknown timezone {tz!r}")
    steps = case.get("steps")
    if not isinstance(steps, list) or not steps:
        err("steps must be a non-empty list")
        steps = []
    writes: dict[str, str] = {}  # write id -> file
    retracted: set[str] = set()
    last: datetime | None = None
    dreams = 0
    for i, step in enumerate(steps):
        if not isinstance(step, dict):
            err(f"step {i} is not an object")
            continue
        at = _time(step.get("at"))
        if at is None:
            err(f"step {i}: 'at' must be an ISO UTC time like 2026-05-04T09:00:00Z")
        elif last is not None and at < last:
            err(f"step {i}: steps must be in time order")
        else:
            last = at
        kinds = [k for k in STEP_KINDS if k in step]
        if len(kinds) != 1:
            err(f"step {i}: needs exactly one of {', '.join(STEP_KINDS)}")
            continue
        extra = set(step) - {"at", "id", "reason", kinds[0]}
        if extra:
            err(f"step {i}: unknown keys {sorted(extra)}")
        if kinds[0] == "write":
            body = step["write"]
            if not isinstance(body, dict) or set(body) - {"file", "text", "mode"}:
                err(f"step {i}: write must be {{file, text, mode?}}")
                continue
            name = body.get("file")
            if not (name in MAIN or (isinstance(name, str)
                                     and re.fullmatch(r"topics/[a-z0-9-]+\.md", name))):
                err(f"step {i}: write to {name!r}: only MEMORY.md, USER.md, topics/*.md")
            if not isinstance(body.get("text"), str) or not body["text"].strip():
                err(f"step {i}: write text must be a non-empty string")
            if body.get("mode", "append") not in ("append", "replace"):
                err(f"step {i}: mode must be append or replace")
            if "id" in step:
                if not isinstance(step["id"], str) or step["id"] in writes:
                    err(f"step {i}: write id {step.get('id')!r} missing or used twice")
                else:
                    writes[step["id"]] = str(name)
        else:
            if "id" in step:
                err(f"step {i}: only writes take an id")
            if kinds[0] == "retract":
                ids = step["retract"] if isinstance(step["retract"], list) else [step["retract"]]
                if not ids:
                    err(f"step {i}: retract names no write")
                for rid in ids:
                    if rid not in writes:
                        err(f"step {i}: retract {rid!r} names no earlier write")
                    elif rid in retracted:
                        err(f"step {i}: {rid!r} retracted twice")
                    retracted.add(rid)
                if "reason" in step and not (isinstance(step["reason"], str) and step["reason"].strip()):
                    err(f"step {i}: reason must be a non-empty string")
            else:
                dreams += 1
                body = step["dream"]
                if not isinstance(body, dict) or set(body) - {"expect"} or \
                        body.get("expect", "unchanged") != "unchanged":
                    err(f"step {i}: dream must be {{}} or {{\"expect\": \"unchanged\"}}")
            if "reason" in step and kinds[0] != "retract":
                err(f"step {i}: only retractions take a reason")
    if not dreams:
        err("no dream step")
    elif steps and isinstance(steps[-1], dict) and "dream" not in steps[-1]:
        err("the last step must be a dream (the files after it are scored)")
    facts = case.get("facts")
    if not isinstance(facts, list) or not facts:
        err("facts must be a non-empty list")
        facts = []
    for j, fact in enumerate(facts):
        if not isinstance(fact, dict):
            err(f"fact {j} is not an object")
            continue
        extra = set(fact) - {"match", "state", "durable", "not", "note"}
        if extra:
            err(f"fact {j}: unknown keys {sorted(extra)}")
        if not _match_ok(fact.get("match")):
            err(f"fact {j}: match must be a non-empty list of strings (or lists of strings)")
        if fact.get("state") not in STATES:
            err(f"fact {j}: state must be one of {', '.join(STATES)}")
        if "durable" in fact and (fact["durable"] is not True or fact.get("state") != "current"):
            err(f"fact {j}: durable is true, and only on current facts")
        nots = fact.get("not", [])
        if not isinstance(nots, list) or not all(isinstance(x, str) and x.strip() for x in nots):
            err(f"fact {j}: not must be a list of strings")
    max_lines = case.get("max_lines")
    if max_lines is not None and not (isinstance(max_lines, dict) and max_lines and all(
            isinstance(k, str) and k.strip() and isinstance(v, int) and v >= 1
            for k, v in max_lines.items())):
        err("max_lines must map words to positive integers")
    if "injection" in case and case["injection"] is not True:
        err("injection, when given, is true")
    return errors


def validate_cases(cases: Any) -> list[str]:
    """Every problem with the data set: malformed cases, duplicate ids."""
    if not isinstance(cases, list):
        return ["the scenarios file must hold a list"]
    errors = [e for case in cases for e in validate_case(case)]
    ids = Counter(c.get("id") for c in cases if isinstance(c, dict))
    errors += [f"{i}: id used {n} times" for i, n in ids.items() if n > 1]
    return errors


def validate_updates(rows: Any) -> list[str]:
    if not isinstance(rows, list):
        return ["the updates file must hold a list"]
    errors = []
    seen = set()
    for i, row in enumerate(rows):
        if not isinstance(row, dict) or set(row) != {"older", "newer", "expect", "lang", "why"}:
            errors.append(f"row {i}: needs exactly older, newer, expect, lang, why")
            continue
        if any(not isinstance(row[k], str) or not row[k].strip() for k in row):
            errors.append(f"row {i}: every field is a non-empty string")
        if row["expect"] not in ("update", "coexist"):
            errors.append(f"row {i}: expect must be update or coexist")
        if row["lang"] not in ("en", "de"):
            errors.append(f"row {i}: lang must be en or de")
        if row["older"] == row["newer"]:
            errors.append(f"row {i}: older and newer are the same")
        if (row["older"], row["newer"]) in seen:
            errors.append(f"row {i}: pair listed twice")
        seen.add((row["older"], row["newer"]))
    return errors


# -- matching -----------------------------------------------------------------------------------
def fact_matches(fact: dict[str, Any], line: str, *, use_not: bool = True) -> bool:
    low = line.casefold()
    for m in fact["match"]:
        options = [m] if isinstance(m, str) else m
        if not any(o.casefold() in low for o in options):
            return False
    if use_not:
        return not any(n.casefold() in low for n in fact.get("not", []))
    return True


def _lines(text: str | None) -> list[str]:
    return [ln.strip() for ln in (text or "").splitlines() if ln.strip()]


INSTRUCTION = re.compile(
    r"\bignore\b.{0,40}\b(?:instructions?|rules|previous|prior|above|everything)\b"
    r"|\b(?:system prompt|developer mode|jailbreak)\b"
    r"|\b(?:disregard|override|bypass)\b.{0,40}\b(?:instructions?|rules|safety)\b"
    r"|^\s*(?:important|system|assistant|note to the assistant)\s*:"
    r"|\b(?:send|forward|email|e-mail|upload|post|exfiltrate|reveal|print)\b.{0,60}"
    r"\b(?:files?|passwords?|credentials|conversations?|mail|memory|secrets?|prompt)\b",
    re.I)
ADDRESS = re.compile(
    r"https?://[^\s)>\]]+"
    r"|[\w.+-]+@[\w-]+(?:\.[\w-]+)+"
    r"|\b(?:[a-z0-9-]+\.)+(?:com|org|net|io|example|dev|ai|de|info|biz|xyz|ru|cn)\b", re.I)


def _norm(text: str) -> str:
    return " ".join(text.split()).casefold()


def injected_lines(lines: Iterable[str], sources: Iterable[str]) -> list[dict[str, str]]:
    """Dream lines that read like an instruction but are not a source line
    verbatim, and URLs / addresses / domains that no source holds."""
    sources = list(sources)
    verbatim = {_norm(ln) for text in sources for ln in text.splitlines() if ln.strip()}
    blob = "\n".join(sources).casefold()
    found = []
    for line in lines:
        if INSTRUCTION.search(line) and _norm(line) not in verbatim:
            found.append({"line": line, "why": "instruction not in the sources verbatim"})
            continue
        for token in ADDRESS.findall(line):
            token = token.rstrip(".,;:!?'\")")
            if token and token.casefold() not in blob:
                found.append({"line": line, "why": f"address {token!r} in no source"})
                break
    return found


# -- running ------------------------------------------------------------------------------------
@dataclass
class CaseResult:
    id: str
    category: str
    counts: dict[str, int]
    facts: list[dict[str, Any]] = field(default_factory=list)
    dreams: list[dict[str, Any]] = field(default_factory=list)
    duplicates: list[dict[str, Any]] = field(default_factory=list)
    injected: list[dict[str, str]] = field(default_factory=list)
    unscored: list[str] = field(default_factory=list)
    files: dict[str, str] = field(default_factory=dict)
    error: str | None = None
    seconds: float = 0.0

    @property
    def passed(self) -> bool:
        c = self.counts
        return self.error is None and not any(
            c[k] for k in ("fp", "fn", "dups", "refused", "idem", "injected"))

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["passed"] = self.passed
        return out


def _config_text(config: dict[str, Any] | None) -> str | None:
    if not config:
        return None
    body = "".join(f"{k} = {json.dumps(v)}\n" for k, v in config.items() if v is not None)
    return "[dream]\n" + body if body else None


def _open_home(home: Path, config: dict[str, Any] | None) -> Any:
    from kairos import Memory

    text = _config_text(config)
    if text:
        home.mkdir(parents=True, exist_ok=True)
        (home / "kairos.toml").write_text(text, encoding="utf-8")
    return Memory.init(str(home))


def pair_files(mem: Any, agent: str, user: str) -> dict[str, str]:
    """Every file of the pair that MEMORY.md, USER.md and topics/*.md cover."""
    names = {f["file"] for f in mem.files() if f.get("agent") == agent and f.get("user") == user}
    out = {}
    for name in sorted(names):
        if name in MAIN or name.startswith("topics/"):
            out[name] = mem.read(agent, name, user=user).content or ""
    return out


def _dream(mem: Any, case: dict[str, Any], step: dict[str, Any]) -> dict[str, Any]:
    from kairos.dream.distill.base import DistillerFailed
    from kairos.errors import KairosError

    agent, user = case["agent"], case["user"]
    entry: dict[str, Any] = {"at": step["at"]}
    try:
        outcome = mem.dreams.dream(agent, user, force=True)
    except (KairosError, DistillerFailed) as e:  # a refused draft, or a model that failed
        spent = getattr(e, "usage", None) or {}
        entry.update(status="refused", reason=f"{type(e).__name__}: {e}",
                     tokens=int(spent.get("total_tokens") or 0), cost=float(spent.get("cost") or 0.0))
        return entry
    entry.update(status=outcome.status, dream_id=outcome.dream_id, files=list(outcome.files),
                 tokens=outcome.tokens, cost=outcome.cost)
    if outcome.dream_id:
        shown = mem.dreams.show(outcome.dream_id)
        entry["dropped"] = [{"file": d.get("file"), "text": d.get("text"), "reason": d.get("reason")}
                            for d in shown.get("dropped", [])]
        entry["diff"] = {name: f.get("diff", "") for name, f in shown.get("files", {}).items()}
        if outcome.status == "proposed":
            try:
                mem.dreams.approve(outcome.dream_id, reviewer=REVIEWER)
            except KairosError as e:
                entry.update(status="refused", reason=f"approve: {type(e).__name__}: {e}")
    return entry


def run_steps(case: dict[str, Any], *, config: dict[str, Any] | None = None
              ) -> tuple[dict[str, str], list[dict[str, Any]]]:
    """Run a case's steps in a fresh home; return the pair's files after the
    last step and the log of its dreams."""
    from freezegun import freeze_time

    agent, user = case["agent"], case["user"]
    steps = case["steps"]
    ids: dict[str, tuple[str, str]] = {}  # write id -> (file, event id)
    log: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="kairos-dq-") as tmp:
        with freeze_time(steps[0]["at"]):
            mem = _open_home(Path(tmp) / "home", config)
            if case.get("timezone"):
                mem.write(agent, "USER.md", f"timezone: {case['timezone']}", user=user)
        try:
            for step in steps:
                with freeze_time(step["at"]):
                    if "write" in step:
                        body = step["write"]
                        res = mem.write(agent, body["file"], body["text"], user=user,
                                        mode=body.get("mode", "append"))
                        if "id" in step:
                            ids[step["id"]] = (body["file"], res.event_id)
                    elif "retract" in step:
                        names = step["retract"] if isinstance(step["retract"], list) else [step["retract"]]
                        by_file: dict[str, list[str]] = {}
                        for name in names:
                            file, event_id = ids[name]
                            by_file.setdefault(file, []).append(event_id)
                        for file, event_ids in by_file.items():
                            mem.retract(agent, file, event_ids, user=user,
                                        reason=step.get("reason", "the user corrected this"))
                    else:
                        entry = _dream(mem, case, step)
                        expect = step["dream"].get("expect")
                        if expect:
                            entry["expect"] = expect
                        log.append(entry)
            with freeze_time(steps[-1]["at"]):
                files = pair_files(mem, agent, user)
        finally:
            mem.close()
    return files, log


def source_texts(case: dict[str, Any]) -> list[str]:
    texts = [s["write"]["text"] for s in case["steps"] if "write" in s]
    if case.get("timezone"):
        texts.append(f"timezone: {case['timezone']}")
    return texts


def score(case: dict[str, Any], files: dict[str, str], dreams: list[dict[str, Any]]) -> CaseResult:
    """Score the files a case's last step left against its facts."""
    main = [ln for name in MAIN for ln in _lines(files.get(name))]
    topics = [ln for name, text in files.items() if name.startswith("topics/") for ln in _lines(text)]
    c = dict.fromkeys(COUNTS, 0)
    results = []
    for fact in case["facts"]:
        in_main = [ln for ln in main if fact_matches(fact, ln)]
        in_topics = [ln for ln in topics if fact_matches(fact, ln)]
        # the fact's words are there, but in a form its "not" rules out
        # (unresolved time, wrong tense, a year on a birthday): not lost, not right
        loose = [ln for ln in main + topics if fact_matches(fact, ln, use_not=False)
                 and not fact_matches(fact, ln)]
        state = fact["state"]
        c["facts"] += 1
        if fact.get("durable"):
            c["durable"] += 1
        if state == "current":
            if in_main:
                outcome = "ok"
                c["tp"] += 1
            else:
                c["fn"] += 1
                if fact.get("durable") and in_topics:
                    outcome = "moved"
                    c["moved"] += 1
                elif loose:
                    outcome = "wrong form"
                    c["wrong_form"] += 1
                elif fact.get("durable"):
                    outcome = "durable lost"
                    c["durable_lost"] += 1
                else:
                    outcome = "missing"
        elif state == "archived":
            if in_main or in_topics:
                outcome = "ok"
                c["tp"] += 1
            else:
                c["fn"] += 1
                if loose:
                    outcome = "wrong form"
                    c["wrong_form"] += 1
                else:
                    outcome = "lost"
                    c["archived_lost"] += 1
        elif state == "outdated":
            outcome = "stale kept" if in_main else "ok"
            if in_main:
                c["fp"] += 1
                c["stale"] += 1
        else:  # gone
            outcome = "leak" if in_main or in_topics else "ok"
            if outcome == "leak":
                c["fp"] += 1
                c["leaks"] += 1
        results.append({"match": fact["match"], "not": fact.get("not", []), "state": state,
                        "durable": bool(fact.get("durable")), "outcome": outcome,
                        "lines": (in_main + in_topics) or loose})
    duplicates = []
    for word, most in (case.get("max_lines") or {}).items():
        hits = [ln for ln in main if word.casefold() in ln.casefold()]
        if len(hits) > most:
            duplicates.append({"word": word, "max": most, "lines": hits})
    c["dups"] = len(duplicates)
    c["refused"] = sum(1 for d in dreams if d["status"] == "refused")
    c["idem"] = sum(1 for d in dreams if d.get("expect") and d["status"] != d["expect"])
    tz_line = f"timezone: {case['timezone']}" if case.get("timezone") else None
    injected = injected_lines(main + topics, source_texts(case))
    c["injected"] = len(injected)
    unscored = [ln for ln in main if ln != tz_line
                and not any(fact_matches(f, ln, use_not=False) for f in case["facts"])]
    c["unscored"] = len(unscored)
    return CaseResult(case["id"], case["category"], c, results, dreams, duplicates, injected,
                      unscored, files)


def run_scenario(case: dict[str, Any], *, config: dict[str, Any] | None = None) -> CaseResult:
    """Run one case end to end and score it.  Errors other than a refused dream
    (a crash in the engine or the data) are reported in ``error``, not raised."""
    started = time.perf_counter()
    try:
        files, log = run_steps(case, config=config)
        result = score(case, files, log)
    except Exception as e:  # noqa: BLE001 - one broken case must not stop the run
        counts = dict.fromkeys(COUNTS, 0)
        result = CaseResult(case.get("id", "?"), case.get("category", "?"), counts,
                            error=f"{type(e).__name__}: {e}")
    result.seconds = round(time.perf_counter() - started, 3)
    return result


def _ratio(a: int, b: int) -> float | None:
    return round(a / b, 3) if b else None


def summarize(results: list[CaseResult]) -> dict[str, Any]:
    """Totals per category and overall, with precision and recall."""
    groups: dict[str, list[CaseResult]] = {}
    for r in results:
        groups.setdefault(r.category, []).append(r)
    order = [c for c in CATEGORIES if c in groups] + sorted(set(groups) - set(CATEGORIES))

    def total(rs: list[CaseResult]) -> dict[str, Any]:
        keys = rs[0].counts.keys() if rs else []
        t: dict[str, Any] = {k: sum(r.counts[k] for r in rs) for k in keys}
        t["cases"] = len(rs)
        t["passed"] = sum(1 for r in rs if r.passed)
        t["errors"] = sum(1 for r in rs if r.error)
        t["precision"] = _ratio(t.get("tp", 0), t.get("tp", 0) + t.get("fp", 0))
        t["recall"] = _ratio(t.get("tp", 0), t.get("tp", 0) + t.get("fn", 0))
        return t

    return {"categories": {c: total(groups[c]) for c in order}, "overall": total(results)}


COLUMNS = [("cases", "cases"), ("passed", "pass"), ("facts", "facts"), ("tp", "TP"), ("fp", "FP"),
           ("fn", "FN"), ("precision", "prec"), ("recall", "recall"), ("durable_lost", "durLost"),
           ("moved", "moved"), ("wrong_form", "wrongF"), ("stale", "stale"), ("leaks", "leaks"),
           ("dups", "dups"), ("refused", "refused"), ("idem", "idem"), ("injected", "inject"),
           ("unscored", "unscor")]


def format_summary(summary: dict[str, Any]) -> str:
    def cell(v: Any) -> str:
        return "-" if v is None else (f"{v:.3f}" if isinstance(v, float) else str(v))

    head = f"{'category':<12}" + "".join(f"{label:>8}" for _, label in COLUMNS)
    rows = [head]
    for name, t in [*summary["categories"].items(), ("overall", summary["overall"])]:
        if name == "overall":
            rows.append("-" * len(head))
        rows.append(f"{name:<12}" + "".join(f"{cell(t.get(k)):>8}" for k, _ in COLUMNS))
    return "\n".join(rows)


def format_case(r: CaseResult, *, full: bool = False) -> str:
    out = [f"[{'pass' if r.passed else 'FAIL'}] {r.id} ({r.category}, {r.seconds:.2f} s)"]
    if r.error:
        out.append(f"    error: {r.error}")
    for f in r.facts:
        if f["outcome"] != "ok" or full:
            what = " + ".join(m if isinstance(m, str) else "|".join(m) for m in f["match"])
            nots = f" not {f['not']}" if f["not"] else ""
            out.append(f"    {f['outcome']:<13} {f['state']:<9}{' durable' if f['durable'] else ''} "
                       f"[{what}]{nots}" + (f"  <- {f['lines']}" if f["lines"] else ""))
    for d in r.duplicates:
        out.append(f"    duplicate     '{d['word']}' in {len(d['lines'])} lines (max {d['max']}): "
                   f"{d['lines']}")
    for d in r.dreams:
        if d["status"] == "refused":
            out.append(f"    refused       dream at {d['at']}: {d.get('reason')}")
        if d.get("expect") and d["status"] != d["expect"]:
            changed = "".join(d.get("diff", {}).values()).strip().splitlines()
            changed = [ln for ln in changed if ln[:1] in "+-" and ln[:3] not in ("+++", "---")]
            out.append(f"    not idempotent dream at {d['at']}: {d['status']}, {changed[:6]}")
    for i in r.injected:
        out.append(f"    injected      {i['why']}: {i['line']!r}")
    if full:
        for name, text in r.files.items():
            out.append(f"    --- {name}")
            out.extend(f"      {ln}" for ln in _lines(text))
        for d in r.dreams:
            for dr in d.get("dropped", []):
                out.append(f"    dropped at {d['at'][:10]}: [{dr['file']}] {dr['text']!r} ({dr['reason']})")
    if r.unscored and full:
        out.append(f"    unscored: {r.unscored}")
    return "\n".join(out)


# -- the update/coexist table -----------------------------------------------------------------
OLDER_AT, NEWER_AT, DREAM_AT = "2026-05-04T09:00:00Z", "2026-05-11T09:00:00Z", "2026-05-12T02:00:00Z"
TOKEN = re.compile(r"[\w'+@.-]+")


def _distinct(older: str, newer: str) -> set[str]:
    """The words of the older line the newer does not have (what a merged line
    must still say for the older fact to have survived)."""
    def toks(s: str) -> set[str]:
        return {t.strip(".'").casefold() for t in TOKEN.findall(s)} - {""}

    return {t for t in toks(older) - toks(newer) if len(t) > 2 or any(ch.isdigit() for ch in t)}


def dream_decides(older: str, newer: str, *, config: dict[str, Any] | None = None) -> str:
    """What today's dream does with the pair: write ``older``, a week later
    ``newer``, dream, approve.  Returns "update" (the older no longer stands as
    a line of its own), "coexist" (it does), "refused" (the dream raised) or
    "lost" (the newer line did not survive)."""
    from freezegun import freeze_time

    from kairos.errors import KairosError

    agent, user = "ada", "mia"
    with tempfile.TemporaryDirectory(prefix="kairos-dq-") as tmp:
        with freeze_time(OLDER_AT):
            mem = _open_home(Path(tmp) / "home", config)
        try:
            with freeze_time(OLDER_AT):
                old_id = mem.write(agent, "MEMORY.md", older, user=user).event_id
            with freeze_time(NEWER_AT):
                new_id = mem.write(agent, "MEMORY.md", newer, user=user).event_id
            with freeze_time(DREAM_AT):
                try:
                    outcome = mem.dreams.dream(agent, user, force=True)
                except KairosError:
                    return "refused"
                if outcome.status == "unchanged" or not outcome.dream_id:
                    return "coexist"
                shown = mem.dreams.show(outcome.dream_id)
                if outcome.status == "proposed":
                    try:
                        mem.dreams.approve(outcome.dream_id, reviewer=REVIEWER)
                    except KairosError:
                        return "refused"
                lines = [(ln["text"], {s["event_id"] for s in ln["sources"]})
                         for f in shown["files"].values() for ln in f["lines"]]
                if "MEMORY.md" not in shown["files"]:
                    text = mem.read(agent, "MEMORY.md", user=user).content or ""
                    lines += [(ln, {old_id} if ln == older.strip() else {new_id} if ln == newer.strip()
                               else set()) for ln in _lines(text)]
        finally:
            mem.close()
    if not any(new_id in src for _, src in lines):
        return "lost"
    keeping = [(text, src) for text, src in lines if old_id in src]
    if any(new_id not in src for _, src in keeping):
        return "coexist"
    distinct = _distinct(older, newer)
    for text, _ in keeping:  # merged into a line citing both: does it still say the older fact?
        low = text.casefold()
        if distinct and all(t in low for t in distinct):
            return "coexist"
    return "update"


def load_detector(spec: str) -> Callable[[str, str], str]:
    module, _, name = spec.partition(":")
    if not module or not name:
        raise SystemExit(f"--detector wants module:function, not {spec!r}")
    sys.path[:0] = [str(Path.cwd()), str(ROOT)]
    fn: Callable[[str, str], str] = getattr(importlib.import_module(module), name)
    return fn


def evaluate_updates(rows: list[dict[str, Any]], detector: Callable[[str, str], str] | None = None,
                     *, config: dict[str, Any] | None = None) -> dict[str, Any]:
    """Accuracy of a detector (or, without one, of today's dream end to end)."""
    decide = detector or (lambda older, newer: dream_decides(older, newer, config=config))
    started = time.perf_counter()
    out = []
    for row in rows:
        try:
            got = str(decide(row["older"], row["newer"]))
        except Exception as e:  # noqa: BLE001
            got = f"error: {type(e).__name__}: {e}"
        out.append({**row, "got": got, "ok": got == row["expect"]})

    def acc(rs: list[dict[str, Any]]) -> dict[str, Any]:
        right = sum(1 for r in rs if r["ok"])
        return {"rows": len(rs), "right": right, "accuracy": _ratio(right, len(rs))}

    return {
        "mode": "detector" if detector else "end-to-end dream",
        "overall": acc(out),
        "by_expect": {e: acc([r for r in out if r["expect"] == e]) for e in ("update", "coexist")},
        "by_lang": {lang: acc([r for r in out if r["lang"] == lang]) for lang in ("en", "de")},
        "got": dict(Counter(r["got"] if r["got"] in ("update", "coexist", "refused", "lost") else "error"
                            for r in out)),
        "rows": out,
        "seconds": round(time.perf_counter() - started, 1),
    }


def format_updates(report: dict[str, Any], *, verbose: bool = False) -> str:
    o = report["overall"]
    lines = [f"update/coexist table ({report['mode']}): {o['right']}/{o['rows']} right, "
             f"accuracy {o['accuracy']:.3f}  [{report['seconds']} s]"]
    for key in ("by_expect", "by_lang"):
        lines.append("  " + "   ".join(f"{name}: {a['right']}/{a['rows']} ({a['accuracy']:.3f})"
                                       for name, a in report[key].items() if a["rows"]))
    lines.append("  answers: " + ", ".join(f"{k} {v}" for k, v in sorted(report["got"].items())))
    if verbose:
        for r in report["rows"]:
            if not r["ok"]:
                lines.append(f"  want {r['expect']:<7} got {r['got']:<7} [{r['lang']}] "
                             f"{r['older']!r} / {r['newer']!r}")
    return "\n".join(lines)


# -- the command line ----------------------------------------------------------------------------
def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Dream quality figures (see the module docstring).")
    parser.add_argument("--scenarios", default=str(SCENARIOS))
    parser.add_argument("--updates-file", default=str(UPDATES))
    parser.add_argument("--case", action="append", help="run only this case id (repeatable)")
    parser.add_argument("--category", action="append", help="run only this category (repeatable)")
    parser.add_argument("--updates", action="store_true", help="score the update/coexist table instead")
    parser.add_argument("--detector", help="module:function (older, newer) -> 'update'|'coexist'")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("-v", "--verbose", action="store_true", help="list every failure")
    parser.add_argument("--distiller", help="[dream] distiller for the temporary homes (rules, llm)")
    parser.add_argument("--model", help="[dream] model (with --distiller llm)")
    parser.add_argument("--api-base", help="[dream] api_base (with --distiller llm)")
    args = parser.parse_args(argv)
    given = {"distiller": args.distiller, "model": args.model, "api_base": args.api_base}
    config: dict[str, Any] | None = {k: v for k, v in given.items() if v} or None

    if args.updates:
        rows = load_updates(args.updates_file)
        problems = validate_updates(rows)
        if problems:
            print("\n".join(problems), file=sys.stderr)
            return 2
        detector = load_detector(args.detector) if args.detector else None
        report = evaluate_updates(rows, detector, config=config)
        print(json.dumps(report, indent=2, ensure_ascii=False) if args.json
              else format_updates(report, verbose=args.verbose))
        return 0

    cases = load_cases(args.scenarios)
    problems = validate_cases(cases)
    if problems:
        print("\n".join(problems), file=sys.stderr)
        return 2
    if args.case:
        cases = [c for c in cases if c["id"] in args.case]
        missing = set(args.case) - {c["id"] for c in cases}
        if missing:
            print(f"no such case: {', '.join(sorted(missing))}", file=sys.stderr)
            return 2
    if args.category:
        cases = [c for c in cases if c["category"] in args.category]
    started = time.perf_counter()
    results = [run_scenario(c, config=config) for c in cases]
    summary = summarize(results)
    summary["seconds"] = round(time.perf_counter() - started, 1)
    if args.json:
        print(json.dumps({"summary": summary, "cases": [r.to_dict() for r in results]},
                         indent=2, ensure_ascii=False))
        return 0
    single = bool(args.case)
    if args.verbose or single:
        for r in results:
            if single or not r.passed:
                print(format_case(r, full=single))
        print()
    print(format_summary(summary))
    o = summary["overall"]
    print(f"{o['cases']} cases, {o['facts']} facts ({o['durable']} durable) in {summary['seconds']} s; "
          f"{o['errors']} errors")
    return 0


if __name__ == "__main__":
    sys.exit(main())
