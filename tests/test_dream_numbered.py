"""Two things of one kind named by number are two things: neither line updates the other.

Found by the sixth blind set (``b6-coex-two-flat-rents``): "Top 3: Miete 690 €
inkl. BK, Mieter Hr. Schuster" was dropped as superseded by "Top 7 rent now 845 €
incl. BK (new tenant Fr. Hofer)" — two flats of one house ("Top" numbers an
Austrian flat), read as one rent that changed.  The guard
(:func:`kairos.dream.distill.restated.other_things`) looks only at the head of
a line, where it names what it tells of: in "the meeting moved to Room 14" the
room is the value that changed.
"""

from __future__ import annotations

import pytest

from kairos.dream.distill import restated
from tests.test_dream_person_keys import kept


@pytest.mark.parametrize("notes", [
    ("Top 3: Miete 690 € inkl. BK, Mieter Hr. Schuster",
     "Top 7 rent now 845 € incl. BK (new tenant Fr. Hofer)"),
    ("Room 12: projector broken", "Room 14: projector now fixed"),
    ("Hive 3: queen marked blue", "Hive 5: queen now unmarked"),
    ("Stellplatz 14: Miete 60 €", "Stellplatz 15: Miete jetzt 65 €"),
    ("Server 2 runs Debian 11", "Server 3 now runs Debian 12"),
    ("Flat 4 tenant: Ms Okafor", "Flat 6 tenant now Mr Lee"),
])
def test_two_numbered_things_of_one_kind_are_both_kept(notes: tuple[str, str]) -> None:
    assert sorted(kept(*notes)) == sorted(notes)


@pytest.mark.parametrize(("old", "new"), [
    ("Top 3: Miete 690 € inkl. BK", "Top 3: Miete jetzt 720 € inkl. BK"),
    ("Stellplatz 14: Miete 60 €", "Stellplatz 14: Miete jetzt 65 €"),
    ("Hive 3: queen marked blue", "Hive 3: queen now red"),
    ("Office: room 214, building B", "Office: room 118 now, building B"),  # the room is the value
    ("Parking: Stellplatz 12", "Parking: Stellplatz 7 now"),
])
def test_the_same_numbered_thing_is_still_updated(old: str, new: str) -> None:
    assert kept(old, new) == [new]


@pytest.mark.parametrize(("a", "b", "other"), [
    ("Top 3: Miete 690 €", "Top 7 rent now 845 €", True),
    ("Beute 3 / hive 3: Königin blau", "Hive 3 queen = blue dot", False),
    ("Weekly meeting in Room 12", "Weekly meeting moved to Room 14", False),  # the room is the value
    ("Room 12 projector", "Room 12 projector fixed", False),
])
def test_only_the_head_of_a_line_names_the_thing(a: str, b: str, other: bool) -> None:
    assert restated.other_things(a, b) is other


@pytest.mark.parametrize("older", [
    "-80 freezer #2 broken (alarm Sunday night) - all boxes moved to freezer #1, shelf 3",
    "Spare key is now with the neighbour Mrs Lee, flat 2",
])
def test_a_detail_of_a_cut_field_is_not_kept_alone(older: str) -> None:
    """Found by the sixth blind set (``b6-upd-freezer-repaired``): "shelf 3" was
    all a dream kept of the line once the freezer it qualified was cut."""
    from kairos.dream.distill import records
    _, flds = records.fields(older)
    assert len(flds) == 2, [older[f.start:f.end] for f in flds]
    assert records.remainder(older, frozenset({0})) is None
    assert records.remainder(older, frozenset({1})) == older[:flds[0].end]


@pytest.mark.parametrize(("older", "cut", "left"), [
    ("Locker: gym, row B, number 14", 1, "Locker: gym, number 14"),  # a head: its fields stand alone
    ("Parking: garage Nord, level 2, space 14", 0, "Parking: level 2, space 14"),
    ("Klimt Studio: hourly rate 85 EUR, net 30", 0, "Klimt Studio: net 30"),
])
def test_the_fields_of_a_line_with_a_head_still_stand_alone(older: str, cut: int, left: str) -> None:
    from kairos.dream.distill import records
    assert records.remainder(older, frozenset({cut})) == left


def test_the_freezer_note_is_never_cut_to_its_shelf() -> None:
    out = kept("-80 freezer #2 broken (alarm Sunday night) - all boxes moved to freezer #1, shelf 3",
               "Freezer #2 repaired, compressor replaced, holding -80 again. Boxes stay in #1 for now.")
    assert "shelf 3" not in out
    assert any("shelf 3" in line and "#1" in line for line in out)
