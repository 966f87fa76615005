"""Updates told in other words: the same thing, another value, no shared wording.

A later note changes a value of a thing the memory holds, but names the thing
otherwise (a drug cut short, a plate alone, a key in the other language, a
glossary word's German compound) and tells the value otherwise (a counter
read again, payment terms, an address, a phone number, a day said to have moved, a status
over, a person replaced): "Painkiller: Ibuprofen 400 mg 3x daily" -> "Dr.
Haas: Ibu jetzt 600 mg"; "Van HH-RF 412: last service at 84,200 km" ->
"HH-RF 412 had its service today, odometer 96.500 km"; "Tiles ordered,
delivery pending" -> "Bad-Fliesen geliefert"; "Kinderarzt: Dr. Wendt, …" ->
"Dr Wendt retired … kids now see Dr. Oyelaran (same practice, same number)".

Look-alikes must stay both: two vans, a plan ("next service due at …"), a
trip, two price items, two children, two clients, another meeting, another
hive, another room's tiles, another choir, a second doctor, a stand-in for a
while, Saturday and weekday hours.

tests/data/dream/updates_retold.json holds the table (the format of
``benchmarks/dream_quality.py --updates --updates-file``); each row runs
through ``derive`` as the nightly dream does.  What makes a row pass is the
older's value (:data:`VALUE`): gone from every line that cites the older
alone for an update (what stays of the older, "Hausarzt: Bahnhofstraße 3,
Tel. …", may stay), kept for a coexistence.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks.dream_quality import validate_updates
from kairos.dream.distill import measures, records, slots
from tests.test_dream_updates_more import dream

DATA = Path(__file__).resolve().parent / "data" / "dream"
ROWS = json.loads((DATA / "updates_retold.json").read_text(encoding="utf-8"))
# The older's value, by the newer: what must go (an update) or stay (a coexistence).
VALUE = {
    'Dr. Brandt: Diclo jetzt 50 mg, 1x tgl.': '75 mg',
    'Dr. Haas says Ibu now 600 mg when needed': '400 mg',
    'B-KL 220 Kilometerstand jetzt 131.250 km': '120,400',
    'HH-RF 412 back from the workshop, odometer 96,500 km': '84,200',
    'Rent is 1,040 € warm since May': '980',
    'Kestrel Design now pays net 30': '14 days',
    'Hansen GmbH: ab sofort 14 Tage netto': '30 Tage',
    'Oxalsäure verschoben auf 27.06. - zu warm': '06-20',
    'Volk 3: oxalic acid treatment postponed to June 27': '20.06.',
    'Physio Vogel ist umgezogen, jetzt Gartenweg 5': 'Hauptstraße 12',
    'Studio Nord moved to 3 Harbour Road': 'Mill Lane',
    'Küchenfronten geliefert, alles da': 'ausstehend',
    'Kivik sofa delivered, all fine': 'pending',
    'Tanzschule Weber: accepted!': 'waiting',
    'Musikschule Lübeck: angenommen, Start im September': 'warte',
    'Bad-Fliesen geliefert, stehen in der Garage': 'pending',
    'Dr. Keller ist in Rente, neuer Hausarzt ist Dr. Brandt (gleiche Praxis, gleiche Nummer)': 'Keller',
    'Dr. Lang retired; the kids now see Dr. Okafor at the same practice': 'Lang',
    'Dr. Roth has left, kids now go to Dr. Aydin': 'Roth',
    'Van HH-RF 977: odometer 96,500 km': '84,200',
    'HH-RF 412: next service due at 114,200 km': '84,200',
    'HH-RF 412 trip to Kiel and back, 1,200 km': '84,200',
    'New price list: dog castration now 310 EUR': '240',
    'Leo: Ibu jetzt 300 mg bei Fieber': '200 mg',
    'Brandt Verlag: payment terms 14 days net': '30 days',
    'Kestrel Design: 2% discount if paid within 10 days': '30 days',
    'Board meeting moved to June 10': '2026-06-03',
    'Volk 5: Oxalsäure verschoben auf 27.06.': 'Volk 3',
    'Warehouse: Birkenweg 2': 'Lindenstraße 14',
    'Kitchen tiles delivered': 'Bathroom',
    'Jugendchor: angenommen!': 'Kammerchor',
    'Hautarzt für Leo: Dr. Yilmaz, Tel. 0511 987654': 'Keller',
    'Dr. Wendt is on holiday until May 30, the kids see Dr. Oyelaran meanwhile': 'Wendt',
    'Bäckerei Kern samstags 8-13 Uhr': 'Mo-Fr',
    'Yıldız has a new mobile: 0157 8801 2234': '1180',
    'Frau Lemke hat eine neue Nummer: 0421 66 55 199': '55 120',
    'Gerd has a new office number: 0421 555 1234': '1188',
    'Dr. Wendt Fax: 04131 22 41 79': '41 70',
    'Anna hat eine neue Handynummer: 0172 999 1234': '1188',
    'Mia has a new phone number: +49 160 9988776.': '5566778',
    'Mia hat eine neue Handynummer: 0160 9988776': '2233445',
}
# A row the rules still get wrong: a ``Key:`` line whose key names a thing, not an attribute,
# is one value — a second field of the thing under the same key replaces the first (the
# older was lost before this table too; see slots' key lines).
MISSED = {"Kestrel Design: 2% discount if paid within 10 days"}


def _stale(older: str, newer: str, value: str) -> bool:
    lines = dream((older, "2026-05-04T09:00Z"), (newer, "2026-05-11T09:00Z"))
    assert any("e1" in src for _, src in lines), lines  # the newer is never lost
    return any(value.casefold() in text.casefold() for text, src in lines if "e0" in src and "e1" not in src)


def test_the_table_is_well_formed_and_both_ways() -> None:
    assert validate_updates(ROWS) == []  # the benchmark's format: --updates --updates-file
    assert len(ROWS) >= 30
    assert set(VALUE) == {r["newer"] for r in ROWS}
    assert {(r["lang"], r["expect"]) for r in ROWS} == {
        ("en", "update"), ("en", "coexist"), ("de", "update"), ("de", "coexist")}
    for kind in ("value", "status", "person"):  # each class, both ways
        assert {r["expect"] for r in ROWS if r["why"].startswith(kind + ":")} == {"update", "coexist"}
    assert all(r["older"].casefold().find(VALUE[r["newer"]].casefold()) >= 0 for r in ROWS)


@pytest.mark.parametrize("row", ROWS, ids=[r["newer"][:40] for r in ROWS])
def test_the_table_row_by_row(row: dict[str, str]) -> None:
    if row["newer"] in MISSED:
        pytest.xfail(row["why"])
    stale = _stale(row["older"], row["newer"], VALUE[row["newer"]])
    assert stale == (row["expect"] == "coexist"), row["why"]
    if row["expect"] == "update":  # the guards accept the reason the dream gives
        assert slots.is_update(row["older"], row["newer"]) == "update", row["why"]


def test_the_practice_and_number_stay_when_only_the_doctor_changed() -> None:
    lines = dream(("Kinderarzt: Dr. Wendt, Praxis am Markt, Tel. 04131 22 41 70", "2026-01-10T09:00Z"),
                  ("Dr Wendt retired end of March. kids now see Dr. Oyelaran (same practice, same number)",
                   "2026-04-08T09:00Z"))
    texts = [t for t, _ in lines]
    assert not [t for t in texts if "Wendt" in t and "retired" not in t]
    assert "Kinderarzt: Praxis am Markt, Tel. 04131 22 41 70" in texts


def test_a_counter_reading_only_goes_up_and_a_plan_is_no_reading() -> None:
    assert [(k, a) for k, a, *_ in measures.found("odometer 96.500 km", 0, 18)] == [("reading", "96500")]
    assert measures.found("next service due at 114,200 km", 0, 30) == []
    assert measures.found("oil change every 15,000 km", 0, 27) == []
    assert measures.found("ran 12 km", 0, 9) == []  # a distance, no counter
    assert not measures.goes_on("96500", "84200", "reading")


def test_payment_terms_an_address_and_a_moved_day_read_as_values() -> None:
    def kinds(text: str) -> list[tuple[str, str]]:
        return [(v.kind, v.amount) for v in records.values(text)
                if v.kind in ("terms", "address", "date", "reading", "phone")]
    assert kinds("payment terms 30 days net") == [("terms", "30")]
    assert kinds("Zahlungsziel 14 Tage") == [("terms", "14")]
    assert kinds("stay 14 days") == []  # a while, not terms
    assert kinds("Lindenstraße 14, room 003") == [("address", "lindenstraße14|14")]
    assert kinds("oxalsäure verschoben auf 27.12.") == [("date", "12-27")]
    assert kinds("Dinner with Sam on 27.12.") == []  # a day is a value only where it moved or was planned
    assert [(v.kind, v.amount, v.unit) for v in records.values("Herr Yıldız, mobile 0160 332 1180")] == [
        ("phone", "1603321180", "mobile")]
    assert kinds("demolition starts 2026-03-16") == []  # a day is no phone number


def test_a_status_over_needs_the_same_thing() -> None:
    older = "Bathroom tiles ordered (Villeroy, 'Tomsen' grey 30x60), delivery pending"
    assert records.revalued(older, "Bad-Fliesen geliefert, alles vollständig")
    assert records.revalued(older, "Kitchen tiles delivered") is None
    assert records.revalued("Auditioned for Kammerchor Hannover, waiting to hear back",
                            "Jugendchor: angenommen!") is None
