"""Updates told in words of their own (the ninth update pass).

Four classes the dream kept the stale line beside the newer one for
(tests/data/dream/updates_extra.json has a row of each, and look-alikes that
must coexist):

- a recurring thing's time given again by a name of its own: "The team
  stand-up is at 9:30" -> "Stand-ups moved to 10 from next week";
  "Probe dienstags 19:30" -> "Chorprobe jetzt mittwochs um 20 Uhr";
- a wait or a fault over: "waiting for the building permit" -> "permit
  granted"; "Kitchen tap in 2B leaking" -> "2B tap fixed";
- a value the newer says was left: "Tools: Jira for tickets, …" -> "migrated
  tickets from Jira to Linear" (only that field goes);
- the one in a role (a partner too) left: "Ms. Li left; Tom Berg handles our
  account now", "Sara and Jonas broke up"; and a plan called off in other
  words ("dropped the half-marathon plan", "the Rome trip is off").

Each runs through ``derive`` as the nightly dream does (a write, a week later
another, a dream the next night), fast; the table runs end to end in
``benchmarks/dream_quality.py --updates --updates-file …/updates_extra.json``.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from kairos.dream.distill import records, when
from kairos.dream.distill.derive import Settings, Unit, derive

DATA = Path(__file__).resolve().parent / "data" / "dream"
ROWS = json.loads((DATA / "updates_extra.json").read_text(encoding="utf-8"))


def at(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00")).astimezone(UTC)


def dream(*writes: tuple[str, str], now: str = "2026-05-12T02:00Z") -> list[tuple[str, list[str]]]:
    units = [Unit((f"e{n}", 0), text, (f"e{n}",), "MEMORY.md", at(written), n)
             for n, (text, written) in enumerate(writes)]
    plan = derive(units, {}, Settings(at(now), when.zone(None)))
    return plan.files.get("MEMORY.md", [])


def decides(older: str, newer: str) -> str:
    """As ``dream_decides`` says it: "update" when no line cites the older alone."""
    lines = dream((older, "2026-05-04T09:00Z"), (newer, "2026-05-11T09:00Z"))
    assert any("e1" in src for _, src in lines), lines  # the newer is never lost
    return "coexist" if any("e0" in src and "e1" not in src for _, src in lines) else "update"


def test_the_extra_table_is_well_formed_and_both_ways() -> None:
    assert len(ROWS) >= 50
    assert {(r["lang"], r["expect"]) for r in ROWS} == {
        ("en", "update"), ("en", "coexist"), ("de", "update"), ("de", "coexist")}


@pytest.mark.parametrize("row", ROWS, ids=[r["newer"][:40] for r in ROWS])
def test_the_extra_table_row_by_row(row: dict[str, str]) -> None:
    assert decides(row["older"], row["newer"]) == row["expect"], row["why"]


def texts(lines: list[tuple[str, list[str]]]) -> list[str]:
    return [t for t, _ in lines]


def test_a_value_left_takes_only_its_field() -> None:
    tools = "Tools: Jira for tickets, Confluence for docs, Slack for chat."
    lines = texts(dream((tools, "2026-01-08T09:00Z"),
                        ("Team migrated tickets from Jira to Linear.", "2026-02-20T09:00Z"),
                        ("Docs moved out of Confluence into Notion.", "2026-04-02T09:00Z")))
    assert "Tools: Slack for chat." in lines
    assert not [t for t in lines if "Jira for" in t or "Confluence for" in t]
    lines = texts(dream(("Ferro Bikes contact: Luca Ferro, prefers Slack", "2026-06-01T09:00Z"),
                        ("Luca prefers WhatsApp now, stopped using Slack", "2026-07-01T09:00Z"),
                        now="2026-07-02T02:00Z"))
    assert "Ferro Bikes contact: Luca Ferro" in lines and not [t for t in lines if "prefers Slack" in t]


def test_a_time_changed_of_one_thing_of_a_record_leaves_the_others() -> None:
    lines = texts(dream(("Emma: piano Wednesdays 16:00, swimming Fridays 17:00", "2026-01-08T09:00Z"),
                        ("Swimming now Thursdays 17:00.", "2026-02-20T09:00Z")))
    assert "Emma: piano Wednesdays 16:00" in lines
    assert not [t for t in lines if "Fridays" in t]


def test_a_roster_or_a_duration_is_no_time_of_a_thing() -> None:
    # "3:58" is a marathon time, and the line says more than a time: nothing is lost
    older = "ole | 41 | marathon pb 3:58 | knee issues (left) | trains 4x/wk"
    assert records.revalued(older, "new pb 3:49 @ berlin") is None


@pytest.mark.parametrize(("older", "newer"), [
    ("Gym on Mondays at 7:00.", "Gym on 5 May at 8:00 instead."),  # a day's exception
    ("Mias Schwimmkurs ist dienstags um 17 Uhr.", "Der Schwimmkurs von Tom ist jetzt um 18 Uhr."),
    ("Waiting for the permit and the loan.", "Permit granted."),  # two things waited for
    ("Waiting for the building permit.", "Hopefully the permit is granted soon."),
    ("Uses Slack at work.", "Stopped using Slack for the side project, until it restarts."),
    ("Mia's partner is Jonas.", "Jonas left for Rome on Monday (a conference)."),
])
def test_look_alikes_change_nothing(older: str, newer: str) -> None:
    assert decides(older, newer) == "coexist"


def test_a_things_name_is_matched_by_its_compound_head_plural_and_hyphen() -> None:
    assert records.noun_key("Chorprobe") == records.noun_key("Probe")
    assert records.noun_key("Stand-ups") == records.noun_key("standup")
    assert records.noun_key("Baugenehmigung") == records.noun_key("Genehmigung")


# A price's unit said again in words, or the price called by another word for
# it ("fee", "Gebühr"): still the same price of the same thing (blind6's
# b6-upd-hourly-rate).  (The older is written on 4 May, the newer on 11 May:
# a change "from 1 Feb" would be next year's, and the older still true.)
@pytest.mark.parametrize(("older", "newer"), [
    ("Stundensatz RA Dr. Pichler: 220 €/h netto", "Pichler's hourly rate goes up to 240 €/h from 1 May"),
    ("Klimt Studio: hourly rate 85 EUR", "Klimt Studio Stundensatz jetzt 95 €/h"),
    ("Gym: 39 €/month", "Gym monthly fee now 45 €/month"),
    ("Netflix: 13.99/mo", "Netflix monthly cost goes up to 15.99/mo"),
    ("Nachhilfe Frau Roth: 30 € pro Stunde", "Frau Roth nimmt ab Mai 35 € stündlich"),
    ("Hausmeisterdienst Krause: 120 € monatlich", "Krause Monatspreis seit Mai 135 €/Monat"),
])
def test_a_price_called_by_its_unit_or_another_word_for_price_is_updated(older: str, newer: str) -> None:
    assert decides(older, newer) == "update"


@pytest.mark.parametrize(("older", "newer"), [
    ("Kanzlei Berger: 180 €/h", "Dr. Pichler hourly rate now 240 €/h"),  # another lawyer
    ("Gym: 39 €/month", "Parking fee now 45 €/month"),  # another thing's fee
    ("Cleaner Ana: 300 €/month", "Ana's hourly rate is now 25 €/h"),  # per month is not per hour
    ("Gym: 39 €/month", "Gym might raise the monthly fee to 45 €"),  # a plan
])
def test_a_price_of_another_thing_or_unit_is_no_update(older: str, newer: str) -> None:
    assert decides(older, newer) == "coexist"


# One item of a price list given a new price, named as the list names it and
# the price said with a verb of costing, no currency (blind6's b6-upd-burger-price):
# that item's field goes, the others stay, citing the list.
@pytest.mark.parametrize(("newer", "kept", "gone"), [
    ("Classic kostet jetzt 10,50 (Fleisch teurer)", "Veggie Burger 8.90 €, Pommes 4 €", "9.50"),
    ("Veggie now costs 9.20", "Classic Burger 9.50 €, Pommes 4 €", "8.90"),
    ("Pommes now 4.50 €", "Classic Burger 9.50 €, Veggie Burger 8.90 €", "Pommes 4 €"),
])
def test_one_item_of_a_price_list_is_updated_and_the_rest_kept(newer: str, kept: str, gone: str) -> None:
    older = "Prices: Classic Burger 9.50 €, Veggie Burger 8.90 €, Pommes 4 €"
    lines = dream((older, "2026-05-04T09:00Z"), (newer, "2026-05-11T09:00Z"))
    texts = [text for text, _ in lines]
    assert any(kept in t and "e0" in src for t, src in lines), lines
    assert not any(gone in t for t in texts), lines
    assert any(t == newer for t in texts), lines


@pytest.mark.parametrize("newer", [
    "Burger kostet jetzt 10,50",  # which burger: both are
    "Milkshake now costs 4.50",  # not on the list
    "The new grill costs 3 days of work",  # a cost in days, no price
])
def test_a_price_of_no_one_item_leaves_the_list_whole(newer: str) -> None:
    older = "Prices: Classic Burger 9.50 €, Veggie Burger 8.90 €, Pommes 4 €"
    lines = dream((older, "2026-05-04T09:00Z"), (newer, "2026-05-11T09:00Z"))
    assert (older, ["e0"]) in lines, lines


@pytest.mark.parametrize(("text", "amounts"), [
    ("Classic kostet jetzt 10,50", ["10.5"]),
    ("Veggie now costs 9.20", ["9.2"]),
    ("now costs 12.90/month", ["12.9"]),
    ("Das kostet 2 Stunden", []),  # time, not money
    ("the repair costs 3 days", []),
    ("costs 5 points in the app", []),
])
def test_a_number_said_to_be_a_cost_is_money_unless_it_counts_something_else(
        text: str, amounts: list[str]) -> None:
    assert [v.amount for v in records.values(text) if v.kind == "money"] == amounts
