"""A key line that tells of someone is a fact about them, not a record with one value.

Found by the sixth blind set (``b6-long-mum-care``): "Mama: Penicillin-Allergie
(Ausschlag 2019)" was dropped on the first dream as "superseded by: Mama:
Ramipril 5 mg morgens" — the key "Mama" read as an attribute whose one value
changed.  A durable fact lost, with a reason that explained nothing.  The same
for "Oma: Geburtstag 12. März" beside "Oma: wohnt im Heim Rosenhain", "Lena:
swimming on Wednesdays" beside "Lena: piano on Fridays", and every other note
an agent writes as "<person>: <what about them>".

Such a key's values are many (:func:`kairos.dream.distill.claims._about_someone`):
a second line of the same person is another fact, and a value told again with
one slot changed still replaces the first ("Mama: Ramipril 5 mg" -> "Mama:
Ramipril 10 mg").  A role one has one of at a time ("Manager:", "Partner:")
whose value is a name is still a record: a new name replaces the old.
"""

from __future__ import annotations

import pytest

from kairos.dream.distill.derive import derive
from tests.test_dream_union import SETTINGS, units_of


def kept(*notes: str) -> list[str]:
    plan = derive(units_of(*notes, home="USER.md"), {}, SETTINGS)
    return [text for lines in plan.files.values() for text, _ in lines]


@pytest.mark.parametrize("notes", [
    ("Mama: Penicillin-Allergie (Ausschlag 2019)", "Mama: Ramipril 5 mg morgens"),
    ("Oma: Geburtstag 12. März", "Oma: wohnt im Heim Rosenhain"),
    ("Lena: swimming on Wednesdays", "Lena: piano on Fridays"),
    ("Dad: diabetic, type 2", "Dad: walks every morning"),
    ("Sister: lives in Leeds", "Sister: works at the NHS"),
    ("Tante Rosi: Ibuprofen-Allergie", "Tante Rosi: wohnt in Linz"),
    ("Papa: Ramipril 2,5 mg abends", "Papa: wohnt im Heim Rosenhain"),
    ("Boss: strict about deadlines", "Boss: prefers Slack over email"),
    ("Mother: Hilde", "Mother: lives in Graz"),
    ("Sister: Anna", "Sister: Lena"),  # two sisters
    ("Grandpa: blood type 0 negative", "Grandpa: hard of hearing, speak slowly"),
    ("Jonas: allergic to nuts", "Jonas: plays football on Saturdays"),
    ("Mum: birthday 3 May", "Mum: vegetarian", "Mum: lives in Leeds"),
])
def test_two_notes_of_one_person_are_two_facts(notes: tuple[str, ...]) -> None:
    assert sorted(kept(*notes)) == sorted(notes)


@pytest.mark.parametrize(("old", "new"), [
    ("Mama: Ramipril 5 mg morgens", "Mama: Ramipril 10 mg morgens"),
    ("Lena: swimming on Wednesdays", "Lena: swimming on Thursdays"),
    ("Manager: Tom Becker", "Manager: Eva Schulz"),
    ("Manager: Petra", "Manager: Dirk (Petra left the company)"),
    ("Partner: Priya", "Partner: Sam"),
    ("Rent: 1,150 €", "Rent: 1,230 €"),
])
def test_a_value_told_again_with_one_slot_changed_still_replaces_the_old(old: str, new: str) -> None:
    assert kept(old, new) == [new]


def test_the_durable_fact_survives_months_of_dreams_and_a_later_note_of_the_same_person() -> None:
    """The blind case in small: an allergy, then a medication, a dose change and
    a move, each on its own line under the same key."""
    notes = ["Mama: Penicillin-Allergie (Ausschlag 2019)", "Mama: Ramipril 5 mg morgens",
             "Mama: Ramipril 10 mg morgens", "Mama: wohnt jetzt im Heim Rosenhain"]
    out = kept(*notes)
    assert "Mama: Penicillin-Allergie (Ausschlag 2019)" in out
    assert "Mama: Ramipril 10 mg morgens" in out and "Mama: Ramipril 5 mg morgens" not in out
    assert "Mama: wohnt jetzt im Heim Rosenhain" in out
