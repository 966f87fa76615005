"""Partial duplicates: notes of one fact, each with a detail the others lack, become one line.

The scenario set ``tests/data/dream/scenarios_union.json`` measures it end to
end; here the rules one by one: which notes unite (:mod:`kairos.dream.distill.union`),
what the united line keeps and cites, what the report and the guards say, and
the look-alikes that must stay apart.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from kairos.dream.distill import faithful, union, when
from kairos.dream.distill.derive import Settings, Unit, derive

SWIM = ["Swimming lessons for Mia on Tuesdays at 5 pm",
        "Mia's swim class is Tuesday 17:00 at the Westbad",
        "Mia swimming Tuesdays: bring 1 EUR for the locker"]


def at(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00")).astimezone(UTC)


def units_of(*texts: str, home: str = "MEMORY.md") -> list[Unit]:
    return [Unit((f"e{n}", 0), text, (f"e{n}",), home, at(f"2026-03-{2 + 7 * n:02d}T09:00Z"), n)
            for n, text in enumerate(texts)]


SETTINGS = Settings(at("2026-03-30T03:00Z"), when.zone("Europe/Berlin"))


def test_three_notes_of_a_swim_class_become_one_line_that_keeps_every_detail_and_cites_all() -> None:
    units = units_of(*SWIM)
    plan = derive(units, {}, SETTINGS)
    [(text, sources)] = plan.files["MEMORY.md"]
    for detail in ("Mia", "Tuesday", "5 pm", "Westbad", "1 EUR", "locker"):
        assert detail in text
    assert sources == ["e0", "e1", "e2"]
    assert plan.report["gather"]["partial_duplicates"] == [{"notes": SWIM, "into": text}]
    assert plan.report["consolidate"]["united"] == 1 and plan.report["consolidate"]["merged"] == 2


def test_a_line_of_another_file_the_union_takes_in_is_explained_and_a_second_dream_changes_nothing() -> None:
    """Merged in place (the same file) no line is dropped: the report tells the
    union.  A line of another file that the union takes in says where it went, and by which line."""
    units = units_of(*SWIM)
    current = {"MEMORY.md": [(u.text, u.sources) for u in units[:2]], "topics/sport.md": [(SWIM[2], ("e2",))]}
    plan = derive(units, current, SETTINGS)
    [(text, sources)] = plan.files["MEMORY.md"]
    assert [(d["file"], d["kind"], d["by"]) for d in plan.dropped] == [("topics/sport.md", "moved", text)]
    again = derive(units, {"MEMORY.md": [(text, tuple(sources))], "topics/sport.md": []}, SETTINGS)
    assert again.files == plan.files and again.dropped == []


@pytest.mark.parametrize("notes", [
    ["Papa nimmt Ramipril 5 mg morgens", "Ramipril 5 mg für Papa, nach dem Frühstück",
     "Papa Ramipril 5 mg – Rezept bei Dr. Yilmaz"],
    ["Ben has football training on Wednesdays at 18:00",
     "Ben Fußballtraining mittwochs 18:00 am Sportplatz Nord"],
    ["Book club meets on the first Monday of the month",
     "Book club first Monday of the month, at Clara's flat",
     "Book club first Monday of the month at 19:30",
     "Book club first Monday of the month: bring a snack"],
    ["Guest wifi is KairosGuest on the 5 GHz band", "Guest wifi KairosGuest, password sunflower42"],
])
def test_german_english_and_mixed_notes_of_one_fact_unite_without_losing_a_word(notes: list[str]) -> None:
    plan = derive(units_of(*notes), {}, SETTINGS)
    [(text, sources)] = plan.files["MEMORY.md"]
    assert len(sources) == len(notes)
    for n in notes:
        assert faithful.supports(text, n), (text, n)
    assert "Sportplatz Nord" in text or "Clara" in text or "Yilmaz" in text or "sunflower42" in text


@pytest.mark.parametrize(("a", "b"), [
    ("Mia swims on Tuesdays at 5 pm", "Leo swims on Tuesdays at 5 pm at the Westbad"),  # who
    ("Piano lesson on Mondays at 4 pm", "Piano lesson on Thursdays at 6 pm with Mrs Haas"),  # day
    ("Papa nimmt Ramipril 5 mg morgens", "Papa nimmt Metformin 500 mg morgens"),  # dose
    ("Car: VW Golf, plate B-KM 2231", "Second car: VW Polo, plate B-KM 8870"),  # name, number
    ("Backup server nas01 runs at 02:00 nightly", "Backup server nas02 runs at 02:00 nightly, keeps 30 days"),
    ("Team A standup daily at 9:30 in Orbit", "Team B standup daily at 9:30 in Nebula"),
    ("Mia's swim class is on Tuesdays at the Westbad",
     "No swim class for Mia on Tuesdays in the school holidays"),  # a negation
    ("Lena is allergic to peanuts", "Lena is allergic to penicillin, it gives her a rash"),  # two values
    ("Mia's manager at Siemens is Tom Becker.", "Mia's team at Siemens is 6 people."),  # whose thing
    ("Kim owes Sam 50 EUR.", "Sam schuldet Kim 50 EUR."),  # who to whom
    ("Mia works at Siemens as a data engineer.", "Mia left Siemens; she starts at Zalando on 1 July."),
    ("Mia has ballet on Tuesdays", "Mia has piano on Tuesdays at the music school"),  # two things
    ("Mia has ballet on Tuesdays at 4 pm", "Mia has piano on Tuesdays at 4 pm"),
    ("Mia Ballett dienstags 16 Uhr", "Mia Klavier dienstags 16 Uhr"),
    ("Bruno gets 200 g dry food in the morning", "Bruno gets 200 g wet food in the evening"),  # part of day
    ("Oma wohnt in Köln", "Opa wohnt in Köln, Ehrenfeld"),
    ("Gym on Mondays at 7 am", "Yoga on Mondays at 7 am at the studio"),
    ("Lisa mag Tee mit Honig", "Lisa mag keinen Tee am Abend"),
])
def test_look_alikes_are_not_one_fact(a: str, b: str) -> None:
    assert not union.same_thing(a, b)
    assert not union.same_thing(b, a)


@pytest.mark.parametrize(("a", "b"), [
    ("Swimming lessons for Mia on Tuesdays at 5 pm", "Mia's swim class is Tuesday 17:00 at the Westbad"),
    ("Tom's gym is FitX on Hauptstraße", "Tom's gym FitX costs 24.90 EUR a month"),
    ("Chef trinkt Kaffee schwarz, morgens", "Chef trinkt Kaffee schwarz aus der blauen Tasse"),
    ("Mia's ballet is on Tuesdays at 4 pm", "Ballet for Mia Tuesdays 16:00, bring the pink shoes"),
])
def test_notes_of_one_thing_with_one_value_are_one_fact(a: str, b: str) -> None:
    assert union.same_thing(a, b) and union.same_thing(b, a)


def test_two_children_on_one_day_stay_two_lines_through_the_dream() -> None:
    notes = ("Mia swims on Tuesdays at 5 pm", "Leo swims on Tuesdays at 5 pm at the Westbad")
    plan = derive(units_of(*notes), {}, SETTINGS)
    assert [t for t, _ in plan.files["MEMORY.md"]] == ["Mia swims on Tuesdays at 5 pm",
                                                       "Leo swims on Tuesdays at 5 pm at the Westbad"]
    assert plan.report["consolidate"]["united"] == 0


def test_a_note_that_says_all_another_says_is_left_to_the_merge() -> None:
    """"Sam's partner Priya is a teacher" tells her job; the merge keeps "Sam's
    partner is Priya" apart on purpose, and a union adding nothing must not undo it."""
    assert not union.same_thing("Sam's partner is Priya.", "Sam's partner Priya is a teacher.")


def test_episodes_told_alike_are_not_united() -> None:
    plan = derive(units_of("Ana cooked francesinha for dinner and wrote down the recipe",
                           "Ana cooked bolinhos de bacalhau for dinner and wrote down the recipe"),
                  {}, SETTINGS)
    assert len(plan.files["MEMORY.md"]) == 2 and plan.report["consolidate"]["united"] == 0


def test_lines_in_different_files_are_not_united() -> None:
    units = units_of(*SWIM[:2]) + [Unit(("e9", 0), SWIM[2], ("e9",), "USER.md", at("2026-03-20T09:00Z"), 9)]
    plan = derive(units, {}, SETTINGS)
    assert len(plan.files["USER.md"]) == 1 and len(plan.files["MEMORY.md"]) == 1


def test_the_united_line_keeps_the_words_a_later_note_adds_as_a_phrase() -> None:
    text = union.united(["Office parking: space 14 in the underground garage",
                         "Parking space 14 is on level -2", "Parking space 14 needs the blue fob"])
    assert text == "Office parking: space 14 in the underground garage; on level -2; needs the blue fob"


def test_the_loss_guard_accepts_a_line_that_keeps_the_sources_own_weekday() -> None:
    """ "is Tuesday 17:00", read alone, is next Tuesday; a line that keeps
    "Tuesday" still says it, and one that drops the day does not."""
    src = "Mia's swim class is Tuesday 17:00 at the Westbad"
    kw = {"written": at("2026-03-09T09:00Z"), "now": at("2026-03-30T03:00Z"),
          "tz": when.zone("Europe/Berlin")}
    assert faithful.supports("Swimming for Mia on Tuesdays; class 17:00 at the Westbad", src, **kw)
    assert not faithful.supports("Swimming for Mia; class 17:00 at the Westbad", src, **kw)


def test_one_attribute_with_two_values_stays_two_lines() -> None:
    """The words alone share three ("Jonas ist allergisch gegen …"); the claims
    give the allergy two values, which is two facts, not one told in parts."""
    plan = derive(units_of("Jonas ist allergisch gegen Nüsse.", "Jonas ist allergisch gegen Katzenhaare."),
                  {}, SETTINGS)
    assert len(plan.files["MEMORY.md"]) == 2 and plan.report["consolidate"]["united"] == 0


def test_how_a_name_is_given_is_not_a_detail_and_a_bracket_is_not_left_open() -> None:
    assert union.united(["Ben's dog is called Rex!", "Ben walks his dog Rex every morning."]) == \
        "Ben walks his dog Rex every morning"
    assert union.united(["Soil test result bed 3 = pH 5.8, blueberries planned there",
                         "Bed 3 soil test: pH 5.8 (acidic) - good for blueberries"]) == \
        "Soil test result bed 3 = pH 5.8, blueberries planned there; acidic - good"
