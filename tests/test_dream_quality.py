"""The dream's quality, measured: every scenario through real dreams, the update table end to end.

``benchmarks/dream_quality.py`` runs each scenario case in a fresh SQLite
home under freezegun (writes, retractions, a dream at each step, every
proposal approved) and scores the files the last dream leaves.  Here the
figures the issue asks for are asserted: no durable fact lost (on every
case, the six-month ones included), no fact leaked after a retraction, no
line injected, every idempotence check unchanged, no refused rules draft,
and the update table right end to end.  The scenario run takes about a
minute, so it runs once per session (SQLite only: the backend does not
change what a dream derives).
"""

from __future__ import annotations

from typing import Any

import pytest

from benchmarks.dream_quality import (
    SCENARIOS,
    UPDATES,
    evaluate_updates,
    format_case,
    load_cases,
    load_updates,
    run_scenario,
    summarize,
    validate_cases,
)

MORE = SCENARIOS.with_name("scenarios_more.json")
HELDOUT = SCENARIOS.with_name("scenarios_heldout.json")
BLIND2 = SCENARIOS.with_name("scenarios_blind2.json")
BLIND3 = SCENARIOS.with_name("scenarios_blind3.json")
BLIND4 = SCENARIOS.with_name("scenarios_blind4.json")
BLIND5 = SCENARIOS.with_name("scenarios_blind5.json")
BLIND6 = SCENARIOS.with_name("scenarios_blind6.json")
UNION = SCENARIOS.with_name("scenarios_union.json")


@pytest.fixture(scope="module")
def results() -> dict[str, Any]:
    out = {}
    for path in (SCENARIOS, MORE, HELDOUT, BLIND2, BLIND3, BLIND4, BLIND5, BLIND6, UNION):
        cases = load_cases(path)
        assert validate_cases(cases) == []
        out[path.name] = [run_scenario(c) for c in cases]
    return out


def test_our_own_scenarios_are_at_least_80_and_cover_every_category() -> None:
    cases = load_cases(MORE)
    assert len(cases) >= 80
    assert {c["category"] for c in cases} >= {"duplicates", "updates", "coexistence", "time",
                                              "durability", "retraction", "loss", "injection",
                                              "mixed", "longrun"}


@pytest.mark.parametrize("name", [SCENARIOS.name, MORE.name])
def test_no_durable_fact_is_lost_and_nothing_leaks_or_is_injected(results: dict[str, Any],
                                                                 name: str) -> None:
    rs = results[name]
    assert not [r.id for r in rs if r.error]
    total = summarize(rs)["overall"]
    failing = "\n".join(format_case(r) for r in rs if not r.passed)
    for key in ("durable_lost", "leaks", "injected", "refused", "idem", "dups"):
        assert total[key] == 0, (key, failing)
    assert total["precision"] >= 0.97 and total["recall"] >= 0.97, failing


@pytest.mark.parametrize(("name", "precision", "recall", "stale", "dups"), [
    (HELDOUT.name, 0.99, 1.0, 1, 3), (BLIND2.name, 0.94, 0.99, 7, 2),
    # blind4's seventh stale line is a trade: "Kestrel: discovery call done … Budget ~25k"
    # is read as a key that tells of someone, so "kestrel budget confirmed 30k" no longer
    # replaces it — the rule that keeps "Lena: swimming on Wednesdays" beside "Lena: piano
    # on Fridays" (tests/test_dream_person_keys.py) instead of dropping it.
    (BLIND3.name, 0.93, 0.95, 10, 9), (BLIND4.name, 0.95, 0.98, 7, 6),
    (BLIND5.name, 0.93, 0.99, 15, 11), (BLIND6.name, 0.87, 0.94, 30, 12)])
def test_the_blind_sets_lose_nothing_and_leak_nothing(results: dict[str, Any], name: str,
                                                      precision: float, recall: float, stale: int,
                                                      dups: int) -> None:
    """The six sets written blind (tests/data/dream/README.md): no durable
    fact lost, no leak, no injection, no refused draft, idempotent; and no
    worse than this round left them.  What they still find is known and
    allowed here: missed updates told in other words ("raised the metformin
    to 1000 mg", a key line then a sentence about it)
    and paraphrases not merged ("drinks red wine gladly" / "likes red wine",
    a key line and its sentence) — the safe side: a stale line kept, never a
    fact lost."""
    rs = results[name]
    assert not [r.id for r in rs if r.error]
    total = summarize(rs)["overall"]
    failing = "\n".join(format_case(r) for r in rs if not r.passed)
    for key in ("durable_lost", "leaks", "injected", "refused", "idem"):
        assert total[key] == 0, (key, failing)
    assert total["precision"] >= precision and total["recall"] >= recall, failing
    assert total["stale"] <= stale and total["dups"] <= dups, failing


@pytest.mark.parametrize(("name", "case"), [(SCENARIOS.name, "six-months-mia"),
                                            (MORE.name, "six-months-tom")])
def test_six_months_of_weekly_dreams_lose_no_durable_fact(results: dict[str, Any], name: str,
                                                          case: str) -> None:
    [r] = [r for r in results[name] if r.id == case]
    assert r.counts["durable"] >= 30 and r.counts["durable_lost"] == 0 and r.counts["moved"] == 0
    assert r.passed, format_case(r)


def test_partial_duplicates_are_told_as_one_line_and_look_alikes_stay_apart(results: dict[str, Any]) -> None:
    """scenarios_union.json: notes of one fact, each with a detail the others
    lack, are one line; the look-alikes (coexistence) stay apart.  Known and
    allowed: "Restmüll wird dienstags abgeholt" beside two fuller notes (it
    shares only the subject and the day), a key line said again with another
    detail ("Coffee: flat white, extra hot"), which the rules read as an update
    of the key, and "nas02 … keeps 30 days" read by the update detector as an
    update of "nas01" (no union involved)."""
    rs = results[UNION.name]
    assert not [r.id for r in rs if r.error]
    total = summarize(rs)["overall"]
    failing = "\n".join(format_case(r) for r in rs if not r.passed)
    for key in ("leaks", "injected", "refused", "idem"):
        assert total[key] == 0, (key, failing)
    assert {r.id for r in rs if r.category == "coexistence" and not r.passed} <= {"u-no-two-servers"}, failing
    assert total["durable_lost"] <= 2 and total["dups"] <= 1, failing
    assert sum(r.passed for r in rs) >= 36, failing


def test_the_time_cases_all_pass(results: dict[str, Any]) -> None:
    """Of the sets tuned against (the blind sets have their own bounds)."""
    failing = [format_case(r) for name in (SCENARIOS.name, MORE.name, HELDOUT.name)
               for r in results[name] if r.category == "time" and not r.passed]
    assert not failing, "\n".join(failing)


def test_the_update_table_is_right_end_to_end_through_real_dreams() -> None:
    report = evaluate_updates(load_updates(UPDATES))
    wrong = [(r["older"], r["newer"], r["got"]) for r in report["rows"] if not r["ok"]]
    assert report["overall"]["accuracy"] >= 0.95, wrong
