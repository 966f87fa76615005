"""One value in other spellings: phone numbers, decimal commas, cents, German
clock times, a monthly rate, a participle that tells how a thing is.

Found by the fifth blind set (``tests/data/dream/scenarios_blind5.json``):
"0176 2234 9981" and "+49 176 22349981" were two numbers to the union, so
three notes of one electrician stayed three lines; "17,99 €" was the numbers
17 and 99; "Spotify Family 17.99/month, billed on the 3rd" became "billed on
3 April 2026", a past event that ages out; "best reached before 8" was read
as something that happened.  Here each as a class, with the look-alikes that
must stay apart.
"""

from __future__ import annotations

import pytest

from kairos.dream.distill import facts, tense, union, when
from kairos.dream.distill.derive import derive
from tests.test_dream_union import SETTINGS, units_of


@pytest.mark.parametrize(("a", "b"), [
    ("0176 2234 9981", "+49 176 22349981"),
    ("0176-2234-9981", "0176 22349981"),
    ("+49 (0)40 123 4567", "040 1234567"),
    ("+44 20 7946 0958", "020 7946 0958"),
    ("+1 415 555 0123", "0415 555 0123"),
    ("+41 44 668 18 00", "044 668 18 00"),
    ("+353 1 234 5678", "01 234 5678"),
])
def test_a_phone_number_is_one_number_however_it_is_written(a: str, b: str) -> None:
    """Its national digits are one word; written with its country, the country
    is a word of its own, so the line that names it says more (and is kept)."""
    assert facts.numbers_spelt(a).split(" ")[0] == facts.numbers_spelt(b).split(" ")[0]
    assert facts.covers(f"Tom: {a}", f"Tom: {b}") or a.startswith("0")


def test_one_number_in_two_countries_is_two_numbers() -> None:
    """A review found "+49 151 2345678" merged into "+43 151 2345678 (Austrian SIM)"."""
    a, b = "Tom mobile +49 151 2345678", "Tom mobile +43 151 2345678 (Austrian SIM)"
    assert not facts.covers(a, b) and not facts.covers(b, a)
    assert union.numbers_differ(a, b)


@pytest.mark.parametrize(("a", "b"), [
    ("0176 2234 9981", "0176 2234 9982"),
    ("+49 176 22349981", "+49 176 22349918"),
    ("040 1234567", "040 7654321"),
    ("+49 151 2345678", "+43 151 2345678"),
])
def test_two_phone_numbers_stay_two(a: str, b: str) -> None:
    assert facts.numbers_spelt(a) != facts.numbers_spelt(b)


@pytest.mark.parametrize(("text", "spelt"), [
    ("17,99 € mtl.", "17.99 € mtl."),
    ("11 ct/word", "0.11/word"),
    ("5 cents each", "0.05 each"),
    ("0,11 € pro Wort", "0.11 € pro Wort"),
    ("1,230 € warm", "1,230 € warm"),  # three digits after the comma: thousands, not a fraction
    ("2026-04-03", "2026-04-03"),  # a date is not a phone number
])
def test_numbers_are_spelt_one_way(text: str, spelt: str) -> None:
    assert facts.numbers_spelt(text) == spelt


def test_a_respelt_number_is_found_where_it_stands_in_the_line() -> None:
    text = "Nowak: tel 0176-2234-9981, 0,11 € or 11 ct"
    spans = facts.number_spans(text)
    assert [(text[s:e], v) for s, e, v in spans] == [
        ("0176-2234-9981", "017622349981"), ("0,11", "0.11"), ("11 ct", "0.11")]


@pytest.mark.parametrize("notes", [
    ["Electrician: Bogdan Nowak, 0176 2234 9981", "bogdan nowak (Elektriker) tel 0176-2234-9981",
     "Elektriker Nowak: +49 176 22349981, best reached before 8"],
    ["Plumber Kemal, 0151 4470 2210", "Kemal (plumber) +49 151 44702210, evenings only"],
    ["Dr. Aydin: 040 123 4567", "Dr. Aydin, Tel. +49 40 1234567, Mo-Fr"],
])
def test_notes_of_one_contact_with_its_number_in_other_spellings_become_one_line(notes: list[str]) -> None:
    plan = derive(units_of(*notes), {}, SETTINGS)
    lines = plan.files["MEMORY.md"]
    assert len(lines) == 1, lines
    [(text, sources)] = lines
    assert sources == [f"e{n}" for n in range(len(notes))]
    digits = "".join(c for c in facts.numbers_spelt(notes[0]) if c.isdigit())
    assert digits[-7:] in "".join(c for c in facts.numbers_spelt(text) if c.isdigit())


def test_two_contacts_with_two_numbers_stay_two_lines() -> None:
    notes = ["Electrician: Bogdan Nowak, 0176 2234 9981", "Electrician (backup): Jan Nowak, 0176 2234 9918"]
    plan = derive(units_of(*notes), {}, SETTINGS)
    assert len(plan.files["MEMORY.md"]) == 2


@pytest.mark.parametrize(("a", "b"), [
    ("Meyer & Partner pay 0.11 €/word for legal", "Meyer & Partner: 11 ct/word, legal"),
    ("Spotify 17.99/month", "Spotify: 17,99€ mtl."),
    ("Gym 29,90 € monthly", "gym membership 29.90 a month"),
])
def test_one_price_in_other_spellings_is_one_value(a: str, b: str) -> None:
    assert not union.numbers_differ(a, b)


@pytest.mark.parametrize(("a", "b"), [
    ("Meyer & Partner pay 0.11 €/word", "Meyer & Partner pay 0.12 €/word"),
    ("Spotify 17.99/month", "Spotify: 19,99€ mtl."),
    ("rate 11 ct/word", "rate 0.011/word"),
])
def test_two_prices_stay_two_values(a: str, b: str) -> None:
    assert union.numbers_differ(a, b)


@pytest.mark.parametrize(("text", "clock"), [
    ("Probe do 19.30 Gemeindehaus", "19:30"),
    ("Training dienstags 18.00 am Sportplatz", "18:00"),
    ("Sprechstunde bis 12.45", "12:45"),
    ("Rehearsal Thursdays 19.30 at the hall", "19:30"),  # British English writes it so too
    ("Kurs mittwochs 18.15", "18:15"),
])
def test_a_german_clock_time_with_a_dot_is_a_time(text: str, clock: str) -> None:
    assert clock in union.note(text).times


@pytest.mark.parametrize("text", [
    "Termin am 27.12. beim Zahnarzt",  # a date
    "Brot kostet 16.50 € beim Bäcker",  # a price
    "Regal ist 2.45 m hoch",  # a measure
    "Abgabe am 10.12 im Büro",  # a day and month as well as a time: not read either way
    "Total 19.30 at the shop",  # no weekday or word of time before it: a price, perhaps
    "Bis 12.45 € gilt der Rabatt",
])
def test_a_date_price_or_measure_with_a_dot_is_not_a_clock_time(text: str) -> None:
    assert not union.note(text).times


def test_the_german_time_joins_the_same_rehearsal_told_in_english_and_german() -> None:
    a = "Choir rehearsal Thursdays 7:30pm, Gemeindehaus St. Lukas"
    b = "Chorprobe donnerstags 19.30 im Gemeindehaus"
    assert union.note(a).times == union.note(b).times == {"19:30"}
    c = "Chorprobe donnerstags 20.30 im Gemeindehaus"
    assert union.conflict(b, c)


@pytest.mark.parametrize("text", [
    "Spotify Family 17.99/month, billed on the 3rd",
    "Netflix Standard 13.99/month, billed on the 21st",
    "Gym membership charged on the 1st",
    "Cloud storage subscription renews on the 15th",
    "Handyvertrag 25 € monatlich, abgebucht am 5.",
])
def test_a_monthly_day_of_a_rate_stays_a_monthly_day_and_never_ages(text: str) -> None:
    from datetime import date
    t = when.resolve_days(text, date(2026, 4, 2), date(2026, 9, 1))
    assert not t.dates and not t.over and not t.written_past, t
    assert t.text == text


@pytest.mark.parametrize("text", [
    "dentist on the 3rd",
    "meet at 3 p.m. on the 3rd",
    "invoice due next month, on the 10th",
    "Gym membership ends on the 15th",  # a review found these read as every month's
    "Subscription box arrives on the 12th",
    "Was charged twice by Telekom, refund promised on the 20th",
])
def test_a_day_of_the_month_without_a_rate_is_still_one_day(text: str) -> None:
    from datetime import date
    t = when.resolve_days(text, date(2026, 4, 2), date(2026, 4, 2))
    assert t.dates, text


@pytest.mark.parametrize(("text", "past"), [
    ("Elektriker Nowak: 0176 2234 9981, best reached before 8", False),
    ("The office is easily reached by tram", False),
    ("Van usually parked in the yard", False),
    ("Nowak reached the site before 8", True),
    ("Sam moved to Berlin", True),
    ("Tiles delivered to the garage", True),
])
def test_a_participle_after_best_or_usually_tells_how_a_thing_is(text: str, past: bool) -> None:
    assert tense.clause_past(text, 0, len(text), "en") is past


def test_monthly_subscriptions_are_kept_as_standing_facts_with_their_day() -> None:
    notes = ["Spotify Family 17.99/month, billed on the 3rd",
             "Netflix Standard 13.99/month, billed on the 21st"]
    plan = derive(units_of(*notes), {}, SETTINGS)
    texts = [t for t, _ in plan.files["MEMORY.md"]]
    assert texts == notes  # no "3 April 2026", nothing archived


@pytest.mark.parametrize(("text", "written", "today", "over"), [
    ("Lena pays €210/month on the car loan until August.", (2026, 1, 22), (2026, 9, 10), True),
    ("Kita 320 € pro Monat bis Juli", (2026, 1, 10), (2026, 8, 3), True),
    ("Lena pays €210/month on the car loan until August.", (2026, 1, 22), (2026, 5, 23), False),
])
def test_a_rate_with_an_end_still_ends(text: str, written: tuple[int, int, int], today: tuple[int, int, int],
                                       over: bool) -> None:
    from datetime import date
    t = when.resolve_days(text, date(*written), date(*today))
    assert t.over is over and t.dates, t


@pytest.mark.parametrize(("text", "resolved"), [
    ("Essen auf Rädern ab September 8,20 € pro Menü", "Essen auf Rädern ab September 2026 8,20 € pro Menü"),
    ("Preis ab 1. September 8,20 €", "Preis ab 1. September 2026 8,20 €"),
    ("box from September 12.50", "box from September 2026 12.50"),
    ("from September 12, 2026", "from September 12, 2026"),
    ("due September 12", "due September 12, 2026"),
])
def test_a_price_after_a_month_is_not_its_day(text: str, resolved: str) -> None:
    """"ab September 8,20 €" is a price from September, not "September 8, 2026,20 €"."""
    from datetime import date
    assert when.resolve_days(text, date(2026, 7, 1), date(2026, 7, 2)).text == resolved


@pytest.mark.parametrize("notes", [
    ("Tom IBAN DE89 3704 0044 0532 0130 00", "Tom has a new phone number: 0176 1234567"),
    ("Tom: Termin 01/04/2026 beim Notar", "Tom new mobile 0176 1234567"),
    ("Tom: Steuer-ID 01 234 567 890", "Tom hat eine neue Handynummer: 0160 9988776"),
    ("Tom's wedding planned for 12 June", "Tom moved to Hamburg on 1 April"),
    ("Tom drove 1,200 km to Rome for the wedding", "Tom has cycled 2,500 km this year"),
    ("Our Golf: bought used at 48,000 km in 2022", "Golf odometer now 61,300 km"),
    ("Mia starts at Kita in Spring 2026", "Mia Kita now Lindenweg 4"),
    ("Tom mobile +49 151 2345678", "Tom mobile +43 151 2345678 (Austrian SIM)"),
])
def test_a_review_s_look_alikes_of_an_update_keep_both_lines(notes: tuple[str, str]) -> None:
    """Found by reviewing the new value kinds (:mod:`~kairos.dream.distill.measures`):
    an IBAN, an appointment's date or a tax id read as a phone number; a house
    move as a date moved; a trip's or a bought car's kilometres as a counter
    reading; "Spring 2026" as a street.  Each dropped a line that must stay."""
    from tests.test_dream_person_keys import kept
    assert len(kept(*notes)) == 2
