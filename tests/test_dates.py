"""Entries land in the day file of their UTC recording date; and, at the end, the
dream's dates: a day and a month take the year their words point to, a monthly
day stays monthly, a weekday in a terse note is read."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest
from freezegun import freeze_time

from kairos.dream.distill import when
from kairos.memory import Memory


def test_midnight_splits_days_months_and_years(mem: Memory, home: Path) -> None:
    with freeze_time("2026-12-31T23:59:59Z"):
        mem.write("ada", "MEMORY.md", "last of the year", user="sam")
    with freeze_time("2027-01-01T00:00:00Z"):
        mem.write("ada", "MEMORY.md", "first of the year", user="sam")
    old = (home / "logs/2026/12/2026-12-31.md").read_text()
    new = (home / "logs/2027/01/2027-01-01.md").read_text()
    assert old.startswith("# Kairos log 2026-12-31\n") and "last of the year" in old
    assert new.startswith("# Kairos log 2027-01-01\n") and "first of the year" in new
    assert "first of the year" not in old and "last of the year" not in new
    assert "- time: 2026-12-31T23:59:59.000000Z" in old
    assert "- time: 2027-01-01T00:00:00.000000Z" in new


def test_local_time_zones_do_not_move_the_day(mem: Memory, home: Path) -> None:
    with freeze_time("2026-11-02T23:30:00-05:00"):  # already 04:30 on the 3rd in UTC
        mem.write("ada", "SOUL.md", "I am Ada.")
    assert (home / "logs/2026/11/2026-11-03.md").exists()


def test_a_clock_that_steps_back_keeps_the_logs_in_order(mem: Memory, home: Path) -> None:
    with freeze_time("2026-11-03T10:00:00Z"):
        mem.write("ada", "SOUL.md", "I am Ada.")
    with freeze_time("2026-11-02T10:00:00Z"):
        mem.write("ada", "ABOUT.md", "A helper.")
    assert not (home / "logs/2026/11/2026-11-02.md").exists()
    assert "A helper." in (home / "logs/2026/11/2026-11-03.md").read_text()
    assert mem.verify().ok


# -- a blind fourth set: dates (sixteenth session) ------------------------------------------------
# A day and a month without a year: ahead when the words point ahead, even after a verb in the
# past; a date that has its year never gets a second one (tests/data/.../scenarios_blind4.json).
def _read(text: str, written: date, today: date | None = None) -> str:
    return when.resolve_days(text, written, today or written).text


YEARS = [
    # written 28 August 2026: "from 3 Sep" is six days ahead, not a year back
    ("GP increased Dad's ramipril to 10mg from 3 Sep", date(2026, 8, 28),
     "GP increased Dad's ramipril to 10mg from 3 Sep 2026"),
    ("The landlord raised the rent to 990 EUR from 1 October.", date(2026, 8, 28),
     "The landlord raised the rent to 990 EUR from 1 October 2026."),
    ("Pelican Foods CLOSED WON today, 36k, contract start 1 June", date(2026, 5, 20),
     "Pelican Foods CLOSED WON on 20 May 2026, 36k, contract start 1 June 2026"),
    ("Jonas Meier (1B) gave notice, moving out 31 Jan", date(2026, 11, 10),
     "Jonas Meier (1B) gave notice, moving out 31 Jan 2027"),
    ("Kestrel signed, go-live 1 Sept", date(2026, 7, 1), "Kestrel signed, go-live 1 Sept 2026"),
    ("Ben hat gekündigt, zieht ab 1. Feb aus.", date(2026, 11, 10),
     "Ben hat gekündigt, zieht ab 1. Feb 2027 aus."),
    ("Die Miete wurde erhöht, ab 3. Sep 1.010 €.", date(2026, 8, 28),
     "Die Miete wurde erhöht, ab 3. Sep 2026 1.010 €."),
    ("Rechnung Müller GmbH fällig am 15. Jan", date(2026, 12, 1),
     "Rechnung Müller GmbH fällig am 15. Jan 2027"),
    ("Der Mietvertrag läuft bis 31. Jan.", date(2026, 11, 10), "Der Mietvertrag läuft bis 31. Jan 2027."),
    ("Heizungsablesung am 3. Okt", date(2026, 9, 1), "Heizungsablesung am 3. Okt 2026"),
    # a told past stays past: no cue that points ahead
    ("Okafor moved out 30 June, deposit returned.", date(2026, 7, 2),
     "Okafor moved out 30 June 2026, deposit returned."),
    ("The old lease ran until 31 Jan.", date(2026, 11, 10), "The old lease ran until 31 Jan 2026."),
    ("Mia started violin on 3 Sep.", date(2026, 8, 28), "Mia started violin on 3 Sep 2025."),
    # a year already there: kept, never doubled, in every spelling of the month
    ("Lease 2A ends 31 Aug 2026", date(2026, 1, 10), "Lease 2A ends 31 Aug 2026"),
    ("2A lease extended to 28 Feb 2027", date(2026, 5, 4), "2A lease extended to 28 Feb 2027"),
    ("Visa valid until 3 Sept. 2027", date(2026, 5, 4), "Visa valid until 3 Sept. 2027"),
    ("Sam arrives Sept 3, 2026", date(2026, 1, 1), "Sam arrives Sept 3, 2026"),
    ("Vertrag läuft bis 31. Dez 2027", date(2026, 5, 4), "Vertrag läuft bis 31. Dez 2027"),
    ("Kündigung zum 15. Okt. 2026 eingereicht", date(2026, 5, 4), "Kündigung zum 15. Okt. 2026 eingereicht"),
    ("Lease ends 31st Aug, 2026", date(2026, 1, 10), "Lease ends 31st Aug, 2026"),
]


@pytest.mark.parametrize(("text", "written", "expected"), YEARS)
def test_a_day_without_a_year_takes_the_year_its_words_point_to(text: str, written: date,
                                                                expected: str) -> None:
    assert _read(text, written) == expected


def test_a_date_with_its_year_ages_in_every_spelling_of_its_month() -> None:
    timed = when.resolve_days("Lease 2A ends 31 Aug 2026", date(2026, 1, 10), date(2026, 9, 5))
    assert timed.end == date(2026, 8, 31) and timed.over
    assert when.resolve_days("DNR order signed Nov 2025", date(2026, 1, 5), date(2026, 1, 5)).end == \
        date(2025, 11, 30)


MONTHLY = [
    "2B pays on the 3rd (tenant's salary date)",
    "Flat 3B: tenant Mr. Okafor, pays on the 1st by transfer",
    "Owen's pension pays £2,310 a month on the 25th.",
    "Mortgage payment £1,142 on the 1st, fixed rate.",
    "Rent is due on the 1st.",
    "Kim gets paid on the 28th.",
    "The direct debit for the gym goes out on the 15th.",
    "Schulz zahlt am 3.",
    "Die Miete wird am 1. abgebucht.",
    "Die Rate ist jeden 1. des Monats fällig.",
    "Miete kommt immer zum 3.",
    "Tom invoices Brightside on the 25th of each month.",
]


@pytest.mark.parametrize("text", MONTHLY)
def test_a_monthly_day_keeps_its_words_and_never_ages(text: str) -> None:
    for written, today in ((date(2026, 1, 20), date(2026, 1, 21)), (date(2026, 1, 20), date(2026, 9, 1))):
        timed = when.resolve_days(text, written, today)
        assert timed.text == text and not timed.dated and not timed.over


def test_a_monthly_day_stays_beside_a_dated_month() -> None:
    text = "Mortgage payment £1,142 on the 1st, fixed until October 2027."
    assert _read(text, date(2026, 1, 20)) == text


ONE_DAY_OF_A_MONTH = [  # no payment's words, or a month of their own: that one day
    ("Lena is meeting Paul on the 15th.", date(2026, 1, 5), "Lena is meeting Paul on 15 January 2026."),
    ("Priya's bank appointment is on the 3rd.", date(2026, 1, 20),
     "Priya's bank appointment is on 3 February 2026."),
    ("USt-Voranmeldung Q2 due next month, on the 10th", date(2026, 6, 20),
     "USt-Voranmeldung Q2 due in July 2026, on 10 July 2026"),
]


@pytest.mark.parametrize(("text", "written", "expected"), ONE_DAY_OF_A_MONTH)
def test_a_day_of_the_month_without_a_habit_is_one_day(text: str, written: date, expected: str) -> None:
    assert _read(text, written) == expected


MON, WED = date(2026, 4, 6), date(2026, 4, 1)  # Monday 6 April, Wednesday 1 April 2026
WEEKDAYS = [
    # a deadline ahead after a comma's own sentence, whatever the verb before the comma
    ("Nordlicht demo went well, Henrik wants pricing by Wednesday", MON,
     "Nordlicht demo went well, Henrik wants pricing by 8 April 2026"),
    ("Mia got the job, Lena starts on Monday.", MON, "Mia got the job, Lena starts on 13 April 2026."),
    # a terse note's day, full or cut short, with or without its clock time
    ("Roof inspection Thursday, Dachdecker Stolz", date(2026, 6, 1),
     "Roof inspection on 4 June 2026, Dachdecker Stolz"),
    ("Mum's cardiology appt Thursday 10:30 at St Mary's (need med list)", date(2026, 3, 2),
     "Mum's cardiology appt on 5 March 2026 10:30 at St Mary's (need med list)"),
    ("Dinner with Kim Sat", WED, "Dinner with Kim on 4 April 2026"),
    ("Vet for Rex Thu.", WED, "Vet for Rex on 2 April 2026."),
    ("Nordlicht GmbH: demo booked Fri 10:00 with Henrik + Saskia", WED,
     "Nordlicht GmbH: demo booked on 3 April 2026 10:00 with Henrik + Saskia"),
    ("Call with the bank moved to Tue", WED, "Call with the bank moved to 7 April 2026"),
    # just after a verb in the past: the last one
    ("Weiss hedge done - 40 m hornbeam planted Sat, watered in", date(2026, 4, 27),
     "Weiss hedge done - 40 m hornbeam planted on 25 April 2026, watered in"),
    ("Boiler fixed Thu", MON, "Boiler fixed on 2 April 2026"),
    # German, cut short: with its preposition or its clock time
    ("Termin Do 14 Uhr beim Zahnarzt", WED, "Termin am 2. April 2026 14 Uhr beim Zahnarzt"),
    ("Steuerberater am Do", WED, "Steuerberater am 2. April 2026"),
    ("Abgabe bis Sa", WED, "Abgabe bis 4. April 2026"),
    ("Praxis ab Mo wieder offen", WED, "Praxis ab 6. April 2026 wieder offen"),
    ("Heizungswartung Freitag 8 Uhr", WED, "Heizungswartung am 3. April 2026 8 Uhr"),
    ("Wir haben am Sa den Zaun gestrichen", WED, "Wir haben am 28. März 2026 den Zaun gestrichen"),
]


@pytest.mark.parametrize(("text", "written", "expected"), WEEKDAYS)
def test_a_weekday_is_the_day_its_words_point_to(text: str, written: date, expected: str) -> None:
    assert _read(text, written) == expected


NOT_ONE_DAY = [  # the days of every week, a day that names a thing, a slot's value: words kept
    "Hausmeister: Herr Pavlović, Mon+Thu",
    "Ms. Alvarez: home visits Mon/Wed/Fri 9am",
    "Gym Mon/Wed 7am",
    "I visit Tue/Sat",
    "Kestrel - Mia prefers calls Tue/Wed afternoons",
    "Milk supplier: Hof Lindner, delivery Mon + Thu",
    "Friday evening plans",
    "Bin day: Thursday",
    "Sat down with Kim to plan the budget",
    "Kim works Monday 9am to 5pm",
    "Mehl kommt von Müller GmbH (Di)",
    "Lieferung immer Mo-Fr",
    "Sprechstunde Mo, Mi und Fr",
    "Do what you can.",
]


@pytest.mark.parametrize("text", NOT_ONE_DAY)
def test_a_weekday_that_is_no_one_day_keeps_its_words(text: str) -> None:
    assert _read(text, WED) == text


IN_WEEKS = [  # "in two weeks" is the day two weeks after writing; a week only for a span it holds
    ("Logo drafts for Klimt due in two weeks", date(2026, 5, 6), "Logo drafts for Klimt due on 20 May 2026"),
    ("Board deck due in a fortnight.", date(2026, 2, 11), "Board deck due on 25 February 2026."),
    ("Lena speaks in Vienna in 3 weeks.", date(2026, 6, 1), "Lena speaks in Vienna on 22 June 2026."),
    ("Abgabe in zwei Wochen", date(2026, 5, 6), "Abgabe am 20. Mai 2026"),
    ("Paula kommt in drei Wochen für ein Wochenende zu Besuch.", date(2026, 6, 3),
     "Paula kommt in der Woche vom 22. Juni 2026 für ein Wochenende zu Besuch."),
    ("Sam is in Rome in two weeks for a week.", date(2026, 5, 6),
     "Sam is in Rome in the week of 18 May 2026 for a week."),
]


@pytest.mark.parametrize(("text", "written", "expected"), IN_WEEKS)
def test_in_n_weeks_is_a_day(text: str, written: date, expected: str) -> None:
    assert _read(text, written) == expected


AGED = [  # a terse note's state, over: in the past, though it had no verb to turn
    ("Barista Jule off sick until Friday", date(2026, 9, 8), date(2026, 9, 15),
     "Barista Jule was off sick until 11 September 2026"),
    ("Off to Lisbon for the Klimt client workshop 14-17 April, mostly offline", date(2026, 4, 1),
     date(2026, 4, 18), "Went to Lisbon for the Klimt client workshop 14-17 April 2026, mostly offline"),
    ("Hoffmann away until 20 May - gate code 4471", date(2026, 5, 2), date(2026, 5, 25),
     "Hoffmann was away until 20 May 2026 - gate code 4471"),
    ("Tom on parental leave until March.", date(2026, 1, 5), date(2026, 6, 1),
     "Tom was on parental leave until March 2026."),
    ("Mum's cardiology appt Thursday 10:30 at St Mary's", date(2026, 3, 2), date(2026, 3, 10),
     "Mum's cardiology appt on 5 March 2026 10:30 at St Mary's"),
]


@pytest.mark.parametrize(("text", "written", "today", "expected"), AGED)
def test_a_terse_note_ages_once_its_day_is_over(text: str, written: date, today: date,
                                                expected: str) -> None:
    timed = when.resolve_days(text, written, today)
    assert timed.over and timed.text == expected


def test_a_terse_note_stays_as_it_is_before_its_day() -> None:
    assert _read("Barista Jule off sick until Friday", date(2026, 9, 8), date(2026, 9, 10)) == \
        "Barista Jule off sick until 11 September 2026"
    assert _read("Off to Lisbon 14-17 April", date(2026, 4, 1), date(2026, 4, 2)) == \
        "Off to Lisbon 14-17 April 2026"


WORDINGS = [  # a day's possessive, a month opening a sentence, a state "ab" a month opens
    ("Maya moved up a level after today's assessment!", date(2026, 5, 12), date(2026, 5, 13),
     "Maya moved up a level after the 12 May 2026 assessment!"),
    ("Tomorrow's meeting is cancelled.", date(2026, 5, 12), date(2026, 5, 12),
     "The 13 May 2026 meeting is cancelled."),
    ("Kim's flight is tomorrow.", date(2026, 5, 12), date(2026, 5, 12), "Kim's flight is on 13 May 2026."),
    ("Ab April wohnt Lena in Köln.", date(2026, 3, 2), date(2026, 5, 2), "Ab April 2026 wohnt Lena in Köln."),
    ("From March Lena lives in Hamburg.", date(2026, 1, 2), date(2026, 5, 2),
     "From March 2026 Lena lives in Hamburg."),
    ("In July Mia flies to Japan.", date(2026, 5, 2), date(2026, 5, 3), "In July 2026 Mia flies to Japan."),
    ("Hausmeisterdienst gekündigt, ab April macht das Firma Demir", date(2026, 3, 2), date(2026, 5, 2),
     "Hausmeisterdienst gekündigt, ab April 2026 macht das Firma Demir"),
]


@pytest.mark.parametrize(("text", "written", "today", "expected"), WORDINGS)
def test_more_wordings_of_a_day_and_a_month(text: str, written: date, today: date, expected: str) -> None:
    assert _read(text, written, today) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("flying to Lisbon on Friday 12 June for five days",
     "flying to Lisbon on Friday 12 June 2026 for five days"),
    ("Flight Friday 12 June, back Sunday 14 June", "Flight Friday 12 June 2026, back Sunday 14 June 2026"),
    ("Thu 3 stores to visit", "Thu 3 stores to visit")])
def test_a_weekday_before_its_date_or_a_number_is_not_read_alone(text: str, expected: str) -> None:
    assert _read(text, date(2026, 6, 3)) == expected


# -- a blind fifth set: a weekday of a named week (twentieth session) --------------------------------
# "next week Thursday", "in 3 Wochen (Mo)": one day, that weekday of that week.  Read apart, the
# week and the weekday made two dates ("in the week of 20 April 2026 on 16 April 2026").
TUESDAY, MONDAY, WEDNESDAY = date(2026, 4, 14), date(2026, 6, 1), date(2026, 6, 3)
WEEKDAY_OF_WEEK = [
    ("Menu tasting with Feinkost Lindner next week Thursday 15:00, bring the couple", TUESDAY,
     "Menu tasting with Feinkost Lindner on 23 April 2026 15:00, bring the couple"),
    ("next week on Thursday dentist", TUESDAY, "On 23 April 2026 dentist"),
    ("dentist Thursday next week", TUESDAY, "dentist on 23 April 2026"),
    ("call Fri next week", WEDNESDAY, "call on 12 June 2026"),
    ("review on Monday, next week", WEDNESDAY, "review on 8 June 2026"),
    ("in 2 weeks on Monday: audit", MONDAY, "On 15 June 2026: audit"),
    ("the week after next on Wednesday: review", WEDNESDAY, "On 17 June 2026: review"),
    ("met Sam last week Tuesday", WEDNESDAY, "met Sam on 26 May 2026"),
    ("this week Friday: team lunch", MONDAY, "On 5 June 2026: team lunch"),
    ("Klassenfahrt 4b nach Juist in 3 Wochen (Mo), Elternbrief muss bis Freitag raus", MONDAY,
     "Klassenfahrt 4b nach Juist am 22. Juni 2026, Elternbrief muss bis Freitag raus"),
    ("nächste Woche Donnerstag Zahnarzt", TUESDAY, "Am 23. April 2026 Zahnarzt"),
    ("Zahnarzt am Donnerstag nächste Woche", TUESDAY, "Zahnarzt am 23. April 2026"),
    ("Zahnarzt Donnerstag in der nächsten Woche", WEDNESDAY, "Zahnarzt am 11. Juni 2026"),
    ("in zwei Wochen am Freitag Abgabe", MONDAY, "Am 19. Juni 2026 Abgabe"),
    ("Übergabe Mi übernächste Woche", WEDNESDAY, "Übergabe am 17. Juni 2026"),
    ("Sa, nächste Woche: Umzug", WEDNESDAY, "Am 13. Juni 2026: Umzug"),
    # not one day: a span of days, a week alone, a weekday alone
    ("works Monday to Friday next week", WEDNESDAY, "works Monday to Friday in the week of 8 June 2026"),
    ("Sam is on call this week (Mon-Sun).", WEDNESDAY,
     "Sam is on call in the week of 1 June 2026 (Mon-Sun)."),
    ("Bereitschaft nächste Woche (Mo-Fr)", WEDNESDAY,
     "Bereitschaft in der Woche vom 8. Juni 2026 (Mo-Fr)"),
    ("next week: handover", WEDNESDAY, "In the week of 8 June 2026: handover"),
    ("Do you have time next week?", WEDNESDAY, "Do you have time in the week of 8 June 2026?"),
    ("dentist next Thursday", TUESDAY, "dentist on 23 April 2026"),
    ("in 3 weeks: audit", MONDAY, "On 22 June 2026: audit"),
]


@pytest.mark.parametrize(("text", "written", "expected"), WEEKDAY_OF_WEEK)
def test_a_weekday_of_a_named_week_is_one_day(text: str, written: date, expected: str) -> None:
    assert _read(text, written) == expected


# A weekday beside the date it names: the date says the day ("by Friday 2026-06-12" was
# "by 5 June 2026 2026-06-12", the coming Friday read apart from the date after it).
@pytest.mark.parametrize(("text", "expected"), [
    ("please deliver the catalogue by Friday 2026-06-12.",
     "please deliver the catalogue by Friday 2026-06-12."),
    ("call on Friday, 12 June", "call on Friday, 12 June 2026"),
    ("Abgabe am Freitag, den 12.6.", "Abgabe am Freitag, den 12.6.2026"),
    ("Termin Fr, 12.06. 10 Uhr", "Termin Fr, 12.06.2026 10 Uhr"),
    ("meeting 2026-06-12 (Fri)", "meeting 2026-06-12 (Fri)"),
    ("party on Saturday the 13th", "party on 13 June 2026"),
    # a weekday alone, or with its clock time, or apart from a date, is still the coming one
    ("due by Friday", "due by 5 June 2026"),
    ("call Friday 10:00", "call on 5 June 2026 10:00"),
    ("report due Friday; review 2026-06-20", "report due 5 June 2026; review 2026-06-20"),
])
def test_a_weekday_beside_its_date_is_that_date(text: str, expected: str) -> None:
    assert _read(text, WEDNESDAY) == expected
