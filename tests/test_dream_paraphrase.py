"""Duplicates told in the other language or in other words (kairos/dream/distill/gloss.py).

A user states one fact in English and again in German, or twice in other
words: a careful editor keeps one line citing both writes.  Precision over
recall: a line merges only when all it says is said in the other — another
number, date, negation, direction, owner or thing keeps both lines.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from kairos.dream.distill import faithful, gloss, when
from kairos.dream.distill.derive import Settings, Unit, derive
from kairos.dream.distill.facts import covers


def at(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00")).astimezone(UTC)


def unit(n: int, text: str, when_: str, home: str = "MEMORY.md") -> Unit:
    return Unit((f"e{n}", 0), text, (f"e{n}",), home, at(when_), n)


SAME = [  # each says all the other says, in either direction
    ("Sam is vegetarian.", "Sam ist Vegetarier."),
    ("Jonas is a vegetarian.", "Jonas ist Vegetarierin."),
    ("Lena's dentist appointment is on 12 May.", "Zahnarzttermin von Lena am 12. Mai"),
    ("Lena's dentist appointment is on 12 May.", "Lena hat am 12. Mai einen Termin beim Zahnarzt."),
    ("Max prefers window seats.", "Max likes to sit by the window."),
    ("Max prefers window seats.", "Max bevorzugt einen Fensterplatz."),
    ("Jonas is allergic to penicillin.", "Jonas: Penicillin-Allergie"),
    ("Jonas is allergic to penicillin.", "Jonas ist allergisch gegen Penicillin."),
    ("Sam ist kein Vegetarier.", "Sam is not a vegetarian."),
    ("Paul lives in Munich.", "Paul wohnt in München."),
    ("Sam works at Siemens as an engineer.", "Sam arbeitet bei Siemens als Ingenieur."),
    ("Anna likes red wine.", "Anna mag Rotwein."),
    ("Mia has a dog called Rex.", "Mia hat einen Hund namens Rex."),
    ("Mia's birthday is on 3 March.", "Mias Geburtstag ist am 3. März."),
    ("Mia's birthday is on 3 March.", "Geburtstag von Mia: 3. März"),
    ("Tom speaks German.", "Tom spricht Deutsch."),
    ("Kim owes Sam 50 EUR.", "Kim schuldet Sam 50 EUR."),
    ("Ole's family doctor is Dr Brandt.", "Oles Hausarzt ist Dr Brandt."),
    ("Ines is left-handed.", "Ines ist Linkshänderin."),
    ("Vera hates coffee.", "Vera hasst Kaffee."),
]

APART = [  # look-alikes: another thing, day, number, negation, direction, owner
    ("Sam is vegan.", "Sam ist Vegetarier."),
    ("Sam is a vegetarian.", "Sam ist kein Vegetarier."),
    ("Lena's dentist appointment is on 13 May.", "Zahnarzttermin von Lena am 12. Mai"),
    ("Lena's doctor appointment is on 12 May.", "Zahnarzttermin von Lena am 12. Mai"),
    ("Max prefers aisle seats.", "Max likes to sit by the window."),
    ("Jonas is allergic to peanuts.", "Jonas: Penicillin-Allergie"),
    ("Paul lives in Munich.", "Paul wohnt nicht mehr in München."),
    ("Paul lives in Munich.", "Paul wohnt in Wien."),
    ("Sam works at Siemens as an engineer.", "Sams Frau arbeitet bei Siemens als Ingenieurin."),
    ("Anna likes red wine.", "Anna hasst Rotwein."),
    ("Anna likes red wine.", "Anna mag Weißwein."),
    ("Mia has a dog called Rex.", "Mia hat eine Katze namens Rex."),
    ("Mia's birthday is on 3 March.", "Mias Geburtstag ist am 4. März."),
    ("Tom speaks German.", "Tom spricht Englisch."),
    ("Kim owes Sam 50 EUR.", "Sam schuldet Kim 50 EUR."),
    ("Kim owes Sam 50 EUR.", "Kim schuldet Sam 60 EUR."),
    ("Tom's sister is vegetarian.", "Tom ist Vegetarier."),
    ("Sam flies to Vienna on 3 June.", "Sam fliegt am 3. Juni von Wien."),
    ("Sam's boss is Anna.", "Sam ist Annas Chef."),
    ("Ben has two dogs.", "Ben hat drei Hunde."),
]


@pytest.mark.parametrize(("a", "b"), SAME)
def test_a_fact_said_again_in_the_other_language_or_other_words_is_covered(a: str, b: str) -> None:
    assert covers(a, b) and covers(b, a)


@pytest.mark.parametrize(("a", "b"), APART)
def test_a_look_alike_in_the_other_language_is_not_covered(a: str, b: str) -> None:
    assert not covers(a, b) and not covers(b, a)


@pytest.mark.parametrize(("a", "b"), SAME)
def test_the_loss_guard_counts_the_fact_in_the_other_language_as_kept(a: str, b: str) -> None:
    assert faithful.supports(a, b) and faithful.supports(b, a)


def test_a_false_friend_is_read_as_german_only_in_a_german_line() -> None:
    """"Chef" is a boss in German; an English chef cooks."""
    assert gloss.word("chef", german=True) == gloss.word("boss")
    assert gloss.word("chef") is None
    assert gloss.word("kind") is None and gloss.word("kind", german=True) == gloss.word("child")
    assert not covers("Tom's boss is Anna.", "Tom is a chef, Anna too.")


def test_a_compound_reads_as_its_two_parts() -> None:
    assert gloss.compound("zahnarzttermin") == (gloss.word("dentist"), gloss.word("appointment"))
    assert gloss.compound("penicillinallergie") == ("penicillin", gloss.word("allergy"))
    assert gloss.compound("müller") is None


@pytest.mark.parametrize(("first", "second", "home"), [
    ("Sam is vegetarian.", "Sam ist Vegetarier.", "USER.md"),
    ("Zahnarzttermin von Lena am 12. Mai", "Lena's dentist appointment is on 12 May.", "MEMORY.md"),
    ("Max prefers window seats.", "Max likes to sit by the window.", "USER.md"),
    ("Jonas: Penicillin-Allergie", "Jonas is allergic to penicillin.", "MEMORY.md"),
])
def test_the_dream_keeps_one_line_citing_both_writes(first: str, second: str, home: str) -> None:
    units = [unit(1, first, "2026-04-01T09:00Z", home), unit(2, second, "2026-04-03T09:00Z", home)]
    plan = derive(units, {}, Settings(at("2026-04-04T02:00Z"), when.zone("Europe/Berlin")))
    kept = [(t, s) for name in ("USER.md", "MEMORY.md") for t, s in plan.files.get(name, [])]
    assert len(kept) == 1 and kept[0][1] == ["e1", "e2"], kept


@pytest.mark.parametrize(("first", "second"), [
    ("Lena's dentist appointment is on 13 May.", "Zahnarzttermin von Lena am 12. Mai"),
    ("Jonas is allergic to peanuts.", "Jonas: Penicillin-Allergie"),
    ("Tom's sister is vegetarian.", "Tom ist Vegetarier."),
    ("Kim owes Sam 50 EUR.", "Sam schuldet Kim 50 EUR."),
    ("Max's wife prefers aisle seats.", "Max likes to sit by the window."),
])
def test_the_dream_keeps_both_look_alikes(first: str, second: str) -> None:
    """(Another value of one attribute — "vegan", then "Vegetarier" — is an
    update, not a duplicate: the updates' tests.)"""
    units = [unit(1, first, "2026-04-01T09:00Z"), unit(2, second, "2026-04-03T09:00Z")]
    plan = derive(units, {}, Settings(at("2026-04-04T02:00Z"), when.zone("Europe/Berlin")))
    assert len(plan.files.get("MEMORY.md", [])) == 2
