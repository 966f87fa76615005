"""Recall as a user meets it: what an adversarial pass over search found.

Each class of failure gets many cases, each in its own pair of one home (so
the cases also stay out of each other's results), words only and with the
embedded model, on both backends:

- an old fact that a replace took out of its file ranked above what
  replaced it, when more rankings found the old text than the new one;
- one fact written many times filled a ranking's candidates, and the
  other facts were not found;
- stop words of the other language dropped real words ("hat", "May",
  "Will", "war", "den");
- an appended update went unrecognised when the question used another
  form of the word ("live" against "lives");
- a long history entry came back as its first 300 characters, not the
  part that matched, when the match was another form or spelling.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from freezegun import freeze_time

from kairos.agent.search import _snippet, _stem, words_of
from kairos.errors import BadInput
from kairos.memory import Memory
from tests.conftest import Kairos, home_with, texts


@pytest.fixture(params=["off", "wordllama"], ids=["lexical", "hybrid"])
def either(request: pytest.FixtureRequest, home: Path, db_url: str) -> Iterator[Memory]:
    """A home searching by words only, then one by words and meaning."""
    m = home_with(home, db_url, f'embeddings = "{request.param}"')
    yield m
    m.close()


REPLACED = [
    ("Sam lives in Oslo.", "Sam moved to Bergen.", "where does Sam live"),
    ("Sam lives in Oslo.", "Sam moved to Bergen.", "where does Sam live now?"),
    ("Sam works at Acme as a tester.", "Sam joined Globex.", "where does Sam work"),
    ("Sam's phone number is 555-0100.", "Sam has a new phone: 555-0199.", "Sam's phone number"),
    ("The standup is at 09:45.", "Standup starts at 10:15 from Monday.", "when is the standup"),
    ("Sam drives a red Volvo.", "Sam sold the Volvo and rides a bike.", "what does Sam drive"),
    ("Sam is vegetarian.", "Sam eats fish again.", "is Sam vegetarian"),
    ("Sam's dentist is Dr. Berg.", "Sam changed dentist to Dr. Holm.", "who is Sam's dentist"),
]


def test_a_replaced_fact_ranks_below_what_replaced_it(either: Memory) -> None:
    for n, (old, new, _) in enumerate(REPLACED):
        user = f"u{n}"
        either.write("ada", "USER.md", old, user=user)
        either.write("ada", "USER.md", new, user=user, mode="replace")
    for n, (old, new, query) in enumerate(REPLACED):
        found = texts(either.search("ada", query, user=f"u{n}"))
        assert found and found[0] == new, (query, found)
        assert old not in found or found.index(old) > found.index(new), (query, found)


def test_a_fact_written_many_times_does_not_hide_the_others(either: Memory) -> None:
    others = ["Sam likes jazz.", "Sam likes Thai food.", "Sam likes his cat Miso.",
              "Sam likes hiking in the mountains."]
    for n, copies in enumerate((10, 30, 60)):
        user = f"u{n}"
        for i in range(copies):
            either.write("ada", "MEMORY.md", "Sam likes tea.", user=user)
            if i < len(others):
                either.write("ada", "MEMORY.md", others[i], user=user)
    for n, copies in enumerate((10, 30, 60)):
        found = texts(either.search("ada", "what does Sam like", user=f"u{n}"))
        assert set(found) >= {"Sam likes tea.", *others}, (copies, found)
        assert len(found) == len(set(found))  # one result per text


STOP_WORDS = [  # (fact, query): the query's only telling word is a stop word elsewhere
    ("Sam lost his favourite hat at the station.", "Where is Sam's hat?"),
    ("Sam is flying to Lisbon in May.", "What is happening in May?"),
    ("Will is Sam's business partner.", "Who is Will?"),
    ("Sam's grandfather fought in the war in Korea.", "which war did the grandfather fight"),
    ("Sam's home office is in the den.", "where is the den"),
    ("Sam works in the IT department.", "who works in IT"),
    ("The houseplants die every winter.", "why do the houseplants die"),
    ("Sam studied at MIT.", "where did Sam study, mit?"),
    ("Der Hund heißt Bruno.", "Wie heißt der Hund?"),  # German: "der" and "wie" dropped
    ("Sam hat eine Katze namens Miso.", "Hat Sam eine Katze?"),
]


def test_a_word_that_is_a_stop_word_of_the_other_language_is_looked_for(either: Memory) -> None:
    for n, (fact, _) in enumerate(STOP_WORDS):
        either.write("ada", "MEMORY.md", fact, user=f"u{n}")
        for i in range(12):  # other facts of the same person, which "Sam" alone would match
            either.write("ada", "MEMORY.md", f"Sam note {i}: likes item {i}.", user=f"u{n}")
    for n, (fact, query) in enumerate(STOP_WORDS):
        assert fact in texts(either.search("ada", query, user=f"u{n}", limit=3)), query


@pytest.mark.parametrize(("query", "kept", "dropped"), [
    ("Where is Sam's hat?", {"hat", "sam"}, {"where", "is", "s"}),
    ("What happens in May?", {"may", "happens"}, {"what", "in"}),
    ("Will it rain?", {"will", "it", "rain"}, set()),
    ("Wo ist der Hut?", {"hut"}, {"wo", "ist", "der"}),
    ("Was macht die Katze mit dem Ball?", {"macht", "katze", "ball"}, {"die", "mit", "dem"}),
    ("Für wen ist das?", {"wen"}, {"für", "ist", "das"}),
    ("the", {"the"}, set()),  # only stop words: they are kept
])
def test_stop_words_are_dropped_by_the_querys_language(query: str, kept: set[str],
                                                       dropped: set[str]) -> None:
    words = set(words_of(query))
    assert kept <= words and not dropped & words, words


UPDATES = [  # appended, not replaced: the newer line is the update
    ("Sam lives in Oslo.", "Sam now lives in Bergen.",
     ["where does Sam live", "where does Sam lives", "where is Sam living", "Sam lived where"]),
    ("Sam works at Acme.", "Sam quit Acme and now works at Globex.",
     ["where does Sam work", "where does Sam works", "where is Sam working", "Sam's work"]),
    ("Sam's standup meeting is at 09:45.", "The standup meeting moved to 10:15.",
     ["when is the standup meeting", "standup meetings", "when does the meeting start"]),
]


def test_an_appended_update_ranks_first_whatever_form_the_question_uses(
        either: Memory) -> None:
    for n, (old, new, _) in enumerate(UPDATES):
        either.write("ada", "MEMORY.md", old, user=f"u{n}")
        either.write("ada", "MEMORY.md", new, user=f"u{n}")
    for n, (_, new, queries) in enumerate(UPDATES):
        for query in queries:
            assert texts(either.search("ada", query, user=f"u{n}"))[0] == new, query


@pytest.mark.parametrize(("a", "b"), [
    ("live", "lives"), ("lived", "living"), ("moved", "moves"), ("meeting", "meetings"),
    ("works", "working"), ("Zürich", "Zurich"), ("class", "classes"), ("plays", "played"),
    ("organised", "organized"), ("colour", "color"), ("favourite", "favorite"),
])
def test_word_forms_meet_at_one_stem(a: str, b: str) -> None:
    assert _stem(a) == _stem(b)


@pytest.mark.parametrize(("a", "b"), [
    ("Johanna", "Johannes"), ("Daniela", "Daniel"), ("news", "new"), ("interview", "internet"),
    ("conference", "confetti"), ("bikini", "bike"),
])
def test_other_words_stay_apart(a: str, b: str) -> None:
    assert _stem(a) != _stem(b)


NOTE = ("We talked about the weather, the garden and the football results for a long while, "
        "then about the neighbours' new fence and whether it would rain at the weekend. "
        "Sam mentioned the cinema, a book about bees and a podcast on sourdough bread. "
        "Later, almost in passing: Sam's weekly meeting moved to Thursdays; he flies to Zürich "
        "on 3 March for the Zahnarzttermin his sister booked.")


@pytest.mark.parametrize("query", ["meeting", "meetings", "Zürich", "zurich", "Thursday",
                                   "zahnarzt", "flying", "sister's"])
def test_a_long_entry_comes_back_around_what_matched(query: str) -> None:
    shown = _snippet(NOTE, words_of(query))
    assert len(shown) <= 300 and "Thursdays" in shown, (query, shown)


def test_a_long_session_note_is_found_and_shown_where_it_matched(either: Memory) -> None:
    either.end_session("ada", "sam", notes=NOTE)
    for query in ("meetings", "Zurich", "Zahnarzt"):
        hits = either.search("ada", query, user="sam").hits
        assert hits and "Thursdays" in hits[0].text, (query, hits[0].text if hits else None)


def test_the_cli_takes_an_unquoted_question(kairos: Kairos, mem: Memory) -> None:
    mem.write("ada", "USER.md", "Sam works at the harbour office.", user="sam")
    mem.close()
    out = kairos("search", "-a", "ada", "-u", "sam", "where", "does", "Sam", "work?")
    assert out.exit_code == 0 and "harbour office" in out.output
    assert kairos("search", "-a", "ada", "-u", "sam").exit_code == 2  # no query at all


KINDS = [  # (fact, query): the query names the kind of fact, the fact says it in other words
    ("Sam works for Globex as a data engineer.", "Who is Sam's employer?"),
    ("Sam's flat is in Grünerløkka.", "where does Sam live"),
    ("Sam has two daughters, Ada and Mia.", "does Sam have kids"),
    ("Sam's dog is called Bruno.", "does Sam have pets"),
    ("Sam flies to Lisbon on Friday.", "Sam's travel plans"),
    ("Sam's mobile is 555-0199.", "Sam's phone"),
    ("Sam studied architecture at ETH.", "where did Sam go to university"),
    ("Sam cycles to the office.", "does Sam ride a bike"),
    ("Sam's girlfriend Lea is a nurse.", "is Sam married"),
    ("Sam loves spicy Thai food.", "what does Sam like to eat"),
    ("Jonas arbeitet bei Audi als Ingenieur.", "Was ist Jonas' Job?"),
    ("Jonas hat einen Hund namens Fips.", "Hat Jonas Haustiere?"),
]


def test_a_question_naming_a_kind_of_fact_finds_it_in_other_words(either: Memory) -> None:
    for n, (fact, _) in enumerate(KINDS):
        for i in range(10):  # the person's other facts, which the name alone would match
            either.write("ada", "MEMORY.md", f"Sam note {i}: likes item {i}.", user=f"u{n}")
        either.write("ada", "MEMORY.md", fact, user=f"u{n}")
    for n, (fact, query) in enumerate(KINDS):
        assert fact in texts(either.search("ada", query, user=f"u{n}", limit=3)), query


def test_a_line_with_the_querys_own_word_ranks_above_one_with_a_related_word(
        either: Memory) -> None:
    either.write("ada", "MEMORY.md", "Sam's employer is Globex.", user="sam")
    either.write("ada", "MEMORY.md", "Sam works out at the gym on Mondays.", user="sam")
    assert texts(either.search("ada", "Sam's employer", user="sam"))[0] == "Sam's employer is Globex."


def test_asked_about_a_fact_a_dream_superseded_it_comes_right_after_its_replacement(
        either: Memory) -> None:
    """A QA pass: after a dream dropped "Sam lives in Oslo" for "Sam moved
    to Bergen", the old line went below every line the dream wrote (all
    newer), out of the top 10.  It goes below its replacement only."""
    facts = ["Sam's cat is called Miso.", "Sam reads before bed.", "Sam is allergic to penicillin.",
             "Sam drives a red Volvo.", "Sam's sister Kim visits on Sundays.", "Sam plays the cello.",
             "Sam's dentist is Dr. Berg.", "Sam works at Globex.", "Sam's daughter Ella is six.",
             "Sam prefers green tea to coffee.", "Sam's wife is Ingrid.", "Sam runs on Tuesdays."]
    with freeze_time("2026-09-01T09:00:00Z"):
        either.write("ada", "MEMORY.md", "Sam lives in Oslo.", user="sam")
        for fact in facts:
            either.write("ada", "MEMORY.md", fact, user="sam")
    with freeze_time("2026-09-20T09:00:00Z"):
        either.write("ada", "MEMORY.md", "Sam moved to Bergen.", user="sam")
    with freeze_time("2026-10-05T03:00:00Z"):
        outcome = either.dreams.dream("ada", "sam", force=True)
        either.dreams.approve(outcome.dream_id, "alice")
    assert "Oslo" not in (either.read("ada", "MEMORY.md", user="sam").content or "")
    for query in ("did Sam live in Oslo?", "Sam lived in Oslo", "where does Sam live"):
        found = texts(either.search("ada", query, user="sam"))
        assert found[:2] == ["Sam moved to Bergen.", "Sam lives in Oslo."], (query, found)


UNRELATED = [  # (older, newer, query): the newer line is not an update of the older
    ("Sam is allergic to penicillin.", "Sam is allergic to cats.", "is Sam allergic to penicillin?"),
    ("Sam likes tea.", "Sam likes jazz.", "does Sam like tea?"),
    ("Sam's interview is on Monday.", "Sam's internet is slow.", "when is Sam's interview?"),
    ("Johannes plays football on Saturdays.", "Johanna played chess at school.",
     "what does Johannes play?"),
    ("Daniel works at the bank.", "Daniela worked at the hospital.", "where does Daniel work?"),
    ("Sam reads the news at breakfast.", "Sam reads a new novel at night.",
     "when does Sam read the news?"),
]


def test_a_newer_line_about_something_else_is_not_taken_for_an_update(either: Memory) -> None:
    for n, (older, newer, _) in enumerate(UNRELATED):
        with freeze_time("2026-09-01T09:00:00Z"):
            either.write("ada", "MEMORY.md", older, user=f"u{n}")
            either.write("ada", "MEMORY.md", "Sam drives a Volvo.", user=f"u{n}")
        with freeze_time("2026-10-01T09:00:00Z"):
            either.write("ada", "MEMORY.md", newer, user=f"u{n}")
    for n, (older, _, query) in enumerate(UNRELATED):
        assert texts(either.search("ada", query, user=f"u{n}"))[0] == older, query


def test_a_name_in_every_line_does_not_bury_the_line_that_holds_the_question(
        either: Memory) -> None:
    """A third QA pass: "Who is Lena dating?" — every line holds "Lena";
    ranked by that word alone and by meaning, short unrelated lines buried
    the one line with "dating" in hybrid search."""
    lines = ["Lena hates cilantro.", "Lena's email is lena@example.org.", "Lena likes jazz.",
             "Lena is dating Tom Becker, a nurse she met at the climbing gym.",
             "Lena takes cetirizine for hay fever.", "Lena runs on Sundays.", "Lena's cat is Pixel."]
    for line in lines:
        either.write("ada", "MEMORY.md", line, user="lena")
    assert texts(either.search("ada", "Who is Lena dating?", user="lena"))[0] == lines[3]
    assert texts(either.search("ada", "What medication does Lena take?", user="lena"))[0] == \
        lines[4]


GERMAN_ON_ENGLISH = [  # a question in German about a note in English, and the other way round
    ("Lena works for SAP as a UX designer.", "Wo arbeitet Lena?"),
    ("Lena's birthday is 14 May.", "Wann hat Lena Geburtstag?"),
    ("Lena has a cat called Pixel.", "Hat Lena ein Haustier?"),
    ("Lena lives in Hamburg-Altona.", "Wo wohnt Lena?"),
    ("Jonas arbeitet bei Audi als Ingenieur.", "Where does Jonas work?"),
    ("Jonas hat einen Hund namens Fips.", "Does Jonas have pets?"),
]


def test_a_question_in_one_language_finds_a_note_in_the_other(either: Memory) -> None:
    for n, (fact, _) in enumerate(GERMAN_ON_ENGLISH):
        for line in ("Lena hates cilantro.", "Lena's email is lena@example.org.",
                     "Lena likes jazz."):
            either.write("ada", "MEMORY.md", line, user=f"u{n}")
        either.write("ada", "MEMORY.md", fact, user=f"u{n}")
    for n, (fact, query) in enumerate(GERMAN_ON_ENGLISH):
        assert fact in texts(either.search("ada", query, user=f"u{n}", limit=3)), query


def test_a_query_that_is_not_valid_text_is_refused_in_one_line(either: Memory) -> None:
    with pytest.raises(BadInput, match="lone surrogate"):
        either.search("ada", "\ud800tea", user="sam")


# -- a fourth pass: questions whose answer the words alone missed ------------------------------------
FOURTH = [  # (the pair's lines, query, the line that answers, its best rank allowed)
    (["Priya and Arjun have a son, Kabir, who is 6.",
      "Kabir goes to St Mary's Primary School in Levenshulme.",
      "Tom Hughes, Priya's best friend from nursing school, runs a bakery in Didsbury.",
      "Priya volunteers at the school library on Fridays.", "Priya drinks oat milk."],
     "Which school does her son attend?", "Kabir goes to St Mary's Primary School in Levenshulme.", 5),
    (["Jonas arbeitet als Elektriker bei Siemens Energy in München.",
      "Der Hund heißt Bruno, ein Labrador, 7 Jahre alt.", "Jonas mag keine Pilze.",
      "Jonas isst kein Schweinefleisch.", "Jonas trinkt keinen Alkohol.", "Jonas spielt Fußball.",
      "Jonas hört Podcasts."],
     "Does Jonas have a dog?", "Der Hund heißt Bruno, ein Labrador, 7 Jahre alt.", 1),
    (["Jonas arbeitet als Elektriker bei Siemens Energy in München.", "Jonas mag keine Pilze.",
      "Jonas isst kein Schweinefleisch.", "Jonas trinkt keinen Alkohol.", "Jonas spielt Fußball."],
     "Where does Jonas work?", "Jonas arbeitet als Elektriker bei Siemens Energy in München.", 1),
    (["Priya is a practice nurse at a GP surgery in Chorlton.", "Priya's brother lives in Leeds.",
      "Name: Priya Nair. Lives in Stockport since April.", "Priya is vegan."],
     "What does Priya do for a living?", "Priya is a practice nurse at a GP surgery in Chorlton.", 1),
    (["Priya's dentist appointment is on 21 May.", "Priya's book club meets on 14 June."],
     "What happens on the 21st?", "Priya's dentist appointment is on 21 May.", 1),
    (["Jonas hat am 28. März einen Zahnarzttermin.", "Jonas' Frau heißt Anna.",
      "Jonas' Handynummer: 0171 2345678.", "Jonas mag keine Pilze."],
     "When is his dentist appointment?", "Jonas hat am 28. März einen Zahnarzttermin.", 1),
    (["Jonas hat am 28. März einen Zahnarzttermin.", "Jonas' Frau heißt Anna.",
      "Jonas' Handynummer: 0171 2345678.", "Jonas mag keine Pilze."],
     "What's his phone number?", "Jonas' Handynummer: 0171 2345678.", 1),
    (["Jonas' Handynummer: 0171 2345678.", "Jonas möchte im Sommer nach Kroatien fahren.",
      "Jonas mag keine Pilze.", "Neue Handynummer: 0176 9988776."],
     "Was ist Jonas' Handynummer?", "Neue Handynummer: 0176 9988776.", 1),
    (["Priya and Arjun have a son, Kabir, who is 6.", "Kabir loves dinosaurs.",
      "Kabir's school play is on 2 April.", "Kabir is scared of dogs.", "Kabir draws every day."],
     "How old is Kabir?", "Priya and Arjun have a son, Kabir, who is 6.", 1),
    (["Arjun's birthday is 22 January.", "Arjun loves cricket.", "Arjun makes great dosa.",
      "Priya's husband is Arjun; he is a software engineer at Booking.com.", "Arjun cycles to work."],
     "Who is Arjun?", "Priya's husband is Arjun; he is a software engineer at Booking.com.", 2),
    (["Priya ran a half marathon in Manchester in October.", "Priya likes the park.",
      "Priya is vegan."],
     "Does Priya run?", "Priya ran a half marathon in Manchester in October.", 2),
    (["There are mice in Priya's shed.", "Priya's cat is called Biscuit."],
     "mouse", "There are mice in Priya's shed.", 1),
    (["Priya's manager is Helen Cole.", "Priya goes bouldering on Tuesdays.",
      "Priya has hay fever."],
     "Who is her boss?", "Priya's manager is Helen Cole.", 1),
    (["Priya's manager is Helen Cole.", "Priya goes bouldering on Tuesdays.",
      "Priya has hay fever."],
     "What are her hobbies?", "Priya goes bouldering on Tuesdays.", 1),
]


@pytest.mark.parametrize(("lines", "query", "answer", "rank"), FOURTH,
                         ids=[q for _, q, _, _ in FOURTH])
def test_the_answer_is_found_when_the_words_alone_miss_it(
        either: Memory, lines: list[str], query: str, answer: str, rank: int) -> None:
    """Found by a fourth QA pass: a topic word in most lines taken for a
    name and its lines dropped; the name's lines burying the one line of the
    kind asked ("Hund" for "dog"); "for a living" read as a home; ordinals;
    German compounds; an age, who someone is, irregular forms, a boss, hobbies."""
    for line in lines:
        either.write("ada", "MEMORY.md", line, user="priya")
    found = texts(either.search("ada", query, user="priya", limit=5))
    assert answer in found[:rank], (query, found)


def test_a_replaced_write_found_alone_brings_its_replacement(either: Memory) -> None:
    """Found by a fourth QA pass: after a dream dropped "drives a blue
    Toyota Yaris", that write was the only result for "What car does she
    drive?" — the line that replaced it says neither "car" nor "drive"."""
    either.write("ada", "MEMORY.md", "Priya drives a blue Toyota Yaris.", user="priya")
    for line in ("Priya is vegan.", "Priya works night shifts.", "Priya's cat is called Biscuit."):
        either.write("ada", "MEMORY.md", line, user="priya")
    either.write("ada", "MEMORY.md", "Priya is vegan.\nPriya works night shifts.\n"
                 "Priya's cat is called Biscuit.\nPriya sold the Yaris and now cycles to work.",
                 user="priya", mode="replace")
    found = texts(either.search("ada", "What car does she drive?", user="priya", limit=5))
    assert found[0] == "Priya sold the Yaris and now cycles to work.", found
    assert "Priya drives a blue Toyota Yaris." in found[1:], found


def test_a_write_a_dream_rewrote_is_one_result_not_two(either: Memory) -> None:
    """Found by a fourth QA pass: once a dream wrote "in April" as "in April
    2026", the line and its write were two results, and a stale fact filled
    two of five places.  A write a current line cites is that line."""
    with freeze_time("2026-03-02T09:00:00Z"):
        either.write("ada", "MEMORY.md", "Priya's dentist appointment is on 14 May at 8:30.",
                     user="priya")
        either.end_session("ada", "priya")
    with freeze_time("2026-03-03T01:00:00Z"):
        out = either.dreams.dream("ada", "priya", force=True)
        if out.status == "proposed":
            either.dreams.approve(out.dream_id, "test")
    found = texts(either.search("ada", "dentist appointment", user="priya", limit=5))
    assert found == ["Priya's dentist appointment is on 14 May 2026 at 8:30."], found


LONG_NOTE = ("Long catch-up with Priya this evening. She talked at length about the ward, the rota, how "
             "tired she is after the night shifts, Kabir's reading homework and the parents' evening, the "
             "weather in Manchester, Arjun's new team lead, the Lisbon plans, and a film they watched on "
             "Saturday that she did not enjoy much at all. Near the end she mentioned that her passport "
             "expires in February 2027 and that she has a new employer from May: Stockport NHS Trust, "
             "where she will work as a practice nurse.")


@pytest.mark.parametrize(("query", "kinds", "shown"), [
    ("Priya passport", [], "passport expires"),
    ("When does Priya's passport expire?", [], "passport expires"),
    ("Where will she work from May?", [], "Stockport NHS"),
    ("Who is Priya's new employer?", ["work"], "Stockport NHS"),
])
def test_a_long_note_is_shown_where_it_answers_not_where_the_name_is(
        query: str, kinds: list[str], shown: str) -> None:
    """A fourth QA pass: the window was cut around the first word that
    matched — the name the note begins with, or "work" inside "homework"."""
    assert shown in _snippet(LONG_NOTE, words_of(query), kinds)


def test_a_topic_files_name_counts_as_a_word_of_its_lines(either: Memory) -> None:
    """A fourth QA pass: "Lisbon flight" found the India flight first — the
    Lisbon topic file's lines do not repeat "Lisbon"."""
    either.write("ada", "topics/india.md", "Flight AI162 to Mumbai leaves at 13:05.", user="priya")
    either.write("ada", "topics/lisbon.md", "Flight EZY2321 leaves at 7:15.", user="priya")
    for query in ("What time is the Lisbon flight?", "Lisbon flight"):
        found = texts(either.search("ada", query, user="priya", limit=5))
        assert found[0] == "Flight EZY2321 leaves at 7:15.", (query, found)
    found = texts(either.search("ada", "India flight", user="priya", limit=5))
    assert found[0] == "Flight AI162 to Mumbai leaves at 13:05.", found


def test_a_fifth_pass_ordinals_names_and_multi_line_writes(either: Memory) -> None:
    """A fifth QA pass, against the fourth's changes: a note saying "3rd" was
    no longer found by "3rd"; a "now …" line sharing only the name jumped
    above the answer; "Who is Dave?" about no one the pair knows returned
    four relatives; a write of several lines came back as one of them."""
    either.write("ada", "MEMORY.md", "Priya's bank appointment is on the 3rd.", user="p1")
    either.write("ada", "MEMORY.md", "Priya's 40th birthday party is at the Albert Hall.", user="p1")
    for query, answer in (("What's happening on the 3rd?", "Priya's bank appointment is on the 3rd."),
                          ("40th", "Priya's 40th birthday party is at the Albert Hall.")):
        assert texts(either.search("ada", query, user="p1", limit=5))[:1] == [answer], query
    for line in ("Priya is allergic to shellfish.", "Priya takes levothyroxine.",
                 "Priya now cycles to work.", "Priya has a new mobile number: 07700 900123."):
        either.write("ada", "MEMORY.md", line, user="p2")
    found = texts(either.search("ada", "Does Priya have any allergies?", user="p2", limit=5))
    assert found[0] == "Priya is allergic to shellfish.", found
    for line in ("Priya's mum Lakshmi lives in Kochi.", "Priya's manager is Helen Cole."):
        either.write("ada", "MEMORY.md", line, user="p3")
    assert texts(either.search("ada", "Who is Dave?", user="p3", limit=5)) == []
    either.write("ada", "MEMORY.md", "Priya lives in Stockport.\nPriya loves Thai food.", user="p4",
                 mode="replace")
    found = texts(either.search("ada", "Stockport", user="p4", limit=5))
    assert "Priya loves Thai food." not in found[:1] and any("Stockport" in t for t in found[:1]), found


def test_a_replaced_write_pulls_in_no_line_on_a_guess(either: Memory) -> None:
    """A seventh QA pass: a replaced write shared one word with each of two
    newer lines ("nurse", "Manchester"); the newest took its score and came
    first for "Who is Priya's employer?", above the answer."""
    either.write("ada", "MEMORY.md", "Priya works as a paediatric nurse at Manchester Royal "
                 "Infirmary.", user="priya")
    either.write("ada", "MEMORY.md", "Priya now works as a practice nurse at a GP surgery in "
                 "Didsbury.", user="priya", mode="replace")
    either.write("ada", "MEMORY.md", "Priya ran the Great Manchester Run 10k in May.", user="priya")
    found = texts(either.search("ada", "Who is Priya's employer?", user="priya"))
    assert found and "practice nurse" in found[0], found
    assert "Great Manchester Run" not in " ".join(found[:1]), found


def test_a_job_change_said_without_work_is_found_by_work(either: Memory) -> None:
    """A seventh QA pass: "von Roche zu Novartis gewechselt" holds no word of
    work, and "Where does Kathi work?" never found it.  (Not by "quit",
    "gekündigt" or "fängt an": the ninth pass found "quit smoking" and a
    cancelled phone contract above the job for every question about work.)"""
    for n, change in enumerate(["Kathi ist von Roche zu Novartis gewechselt.",
                                "Kathi was laid off by Roche and joined Novartis."]):
        user = f"k{n}"
        either.write("ada", "MEMORY.md", "Kathi works as a product manager at Roche in Basel.",
                     user=user)
        either.write("ada", "MEMORY.md", "Kathi's brother Tobias works as a sound engineer.",
                     user=user)
        either.write("ada", "MEMORY.md", "Kathi swims every Tuesday.", user=user)
        either.write("ada", "MEMORY.md", change, user=user)
        found = texts(either.search("ada", "Where does Kathi work?", user=user))
        assert change in found[:3], found


def test_another_persons_kind_is_not_the_users(either: Memory) -> None:
    """A seventh QA pass: "What's Stefan's phone number?" came back with the
    user's own new number, which names no one: the kind without the person."""
    for line in ["Neue Handynummer: +41 78 555 12 34", "Kathi's husband is Stefan.",
                 "Kathi and Stefan have two children.", "Kathi works at Novartis.",
                 "Kathi swims every Tuesday."]:
        either.write("ada", "MEMORY.md", line, user="kathi")
    found = texts(either.search("ada", "What's Stefan's phone number?", user="kathi"))
    assert "Neue Handynummer: +41 78 555 12 34" not in found[:1], found
    found = texts(either.search("ada", "What's Kathi's phone number?", user="kathi"))
    assert found[:1] == ["Neue Handynummer: +41 78 555 12 34"], found


def test_a_topic_file_named_like_the_user_floods_nothing(either: Memory) -> None:
    """An eighth QA pass: with topics/kathi.md, every line of it took a top
    place for any question naming Kathi, and the answer dropped out."""
    either.write("ada", "USER.md", "Kathi Huber, lives in Riehen near Basel.", user="kathi")
    either.write("ada", "MEMORY.md", "Kathi's mobile: +41 78 555 12 34.", user="kathi")
    either.write("ada", "MEMORY.md", "Kathi's birthday is on 14 October.", user="kathi")
    for text in ["Prefers short answers without emojis.", "Reads crime novels before bed.",
                 "Plays the cello in an amateur orchestra.", "Has a standing desk at home.",
                 "Volunteers at the Basel food bank.", "Saves for a trip to Japan in 2027."]:
        either.write("ada", "topics/kathi.md", text, user="kathi")
    found = texts(either.search("ada", "What's Kathi's phone number?", user="kathi"))
    assert "Kathi's mobile: +41 78 555 12 34." in found[:2], found
    found = texts(either.search("ada", "When is Kathi's birthday?", user="kathi"))
    assert found[:1] == ["Kathi's birthday is on 14 October."], found


@pytest.mark.parametrize(("old", "new", "query"), [
    ("Kathi's mobile: +41 79 123 45 67.", "Neue Handynummer: +41 78 555 12 34.",
     "What's Kathi's phone number?"),
    ("Zahnarzttermin am 12. Mai um 14 Uhr bei Dr. Frei.", "Dentist moved to 19 May at 8:00.",
     "Wann ist der Zahnarzttermin?"),
])
def test_an_update_in_the_other_language_ranks_above_what_it_updates(
        either: Memory, old: str, new: str, query: str) -> None:
    """A seventh QA pass: the two lines share no word across the languages,
    so the newer was not taken for the older's replacement and came 2nd-4th."""
    for line in ["Kathi works at Novartis.", old, "Kathi swims every Tuesday.", new]:
        either.write("ada", "MEMORY.md", line, user="kathi")
    found = texts(either.search("ada", query, user="kathi"))
    assert found and found[0] == new, found
    assert old not in found or found.index(old) > 0, found


def test_the_users_own_fact_ranks_above_a_relatives(either: Memory) -> None:
    """A seventh QA pass: "Where does Kathi live?" put her mother's and a
    friend's "lives" above her own home (USER.md, said in German)."""
    either.write("ada", "USER.md", "Kathi Huber. Wohnt seit April in Riehen.", user="kathi")
    for line in ["Kathi's mother Ingrid lives in Freiburg.", "Emil's best friend Noah lives next door.",
                 "Ihr Bruder Tobias wohnt in Berlin.", "Kathi works at Novartis."]:
        either.write("ada", "MEMORY.md", line, user="kathi")
    found = texts(either.search("ada", "Where does Kathi live?", user="kathi"))
    assert found[:1] == ["Kathi Huber. Wohnt seit April in Riehen."], found
    found = texts(either.search("ada", "Where does Ingrid live?", user="kathi"))
    assert found[:1] == ["Kathi's mother Ingrid lives in Freiburg."], found


def test_a_habit_or_a_contract_ended_is_no_answer_about_work(either: Memory) -> None:
    """A ninth QA pass: with "quit", "gekündigt" and "fängt an" among the
    words of work, "quit smoking" and a cancelled phone contract ranked above
    the job for every question about work."""
    for line in ["Kathi quit smoking in January.", "Kathi hat ihren Handyvertrag gekündigt.",
                 "Kathis Yogakurs fängt am Montag an.", "Kathi is a nurse at the Unispital Basel.",
                 "Kathi's son Tim got promoted to team captain."]:
        either.write("ada", "MEMORY.md", line, user="kathi")
    for query in ["Where does Kathi work?", "What's Kathi's job?", "Wo arbeitet Kathi?"]:
        found = texts(either.search("ada", query, user="kathi"))
        assert found[:1] == ["Kathi is a nurse at the Unispital Basel."], (query, found)


def test_subjectless_notes_are_the_users_own(either: Memory) -> None:
    """A tenth QA pass: "Lives with partner Sam in Leeds." (no subject, the
    user's own) was taken for a line about a relative and ranked down."""
    for line in ["Lives with partner Sam in Leeds.", "Works with brother Tom at the family bakery.",
                 "Priya's mother Lakshmi lives in Leicester.", "Used to work at a call centre."]:
        either.write("ada", "MEMORY.md", line, user="priya")
    found = texts(either.search("ada", "Where does Priya live?", user="priya"))
    assert found[:1] == ["Lives with partner Sam in Leeds."], found


def test_a_question_about_no_one_weighs_no_relative_down(either: Memory) -> None:
    """A tenth QA pass: "Who is allergic to peanuts?" put the user's birch
    pollen above her son's peanut allergy: the question is about no one."""
    for line in ["Kathi is allergic to birch pollen.", "Kathi's son Tim is allergic to peanuts.",
                 "Kathi works at Novartis."]:
        either.write("ada", "MEMORY.md", line, user="kathi")
    found = texts(either.search("ada", "Who is allergic to peanuts?", user="kathi"))
    assert found[:1] == ["Kathi's son Tim is allergic to peanuts."], found


def test_someone_elses_new_number_does_not_move_above_the_users(either: Memory) -> None:
    """A tenth QA pass: "Neue Handynummer von Kathis Mutter" and "Stefan has a
    new mobile number" were taken for updates of Kathi's own number."""
    for line in ["Kathi's mobile: 079 111 22 33.", "Neue Handynummer von Kathis Mutter: 076 333 44 55.",
                 "Kathi works at Novartis.", "Kathi swims every Tuesday."]:
        either.write("ada", "MEMORY.md", line, user="kathi")
    found = texts(either.search("ada", "What's Kathi's mobile number?", user="kathi"))
    assert found[:1] == ["Kathi's mobile: 079 111 22 33."], found


def test_her_own_new_number_said_with_a_pronoun_is_hers(either: Memory) -> None:
    """An eleventh QA pass: "She has a new mobile" was taken for someone
    else's ("She" read as a name), and the old number stayed first."""
    for line in ["Kathi's mobile: 079 111 22 33.", "Kathi works at Novartis.", "Kathi swims on Tuesdays.",
                 "She has a new mobile: 079 999 88 77."]:
        either.write("ada", "MEMORY.md", line, user="kathi")
    found = texts(either.search("ada", "What is Kathi's mobile number?", user="kathi"))
    assert found[:1] == ["She has a new mobile: 079 999 88 77."], found


# -- a twelfth QA pass (1 December) -------------------------------------------------------
def test_a_file_rewritten_many_times_comes_back_as_its_lines(either: Memory) -> None:
    """Every version of a file an agent rewrote (mode replace, a line added
    each time) came back whole, as history, for every word of it: "tea"
    gave six snapshots of MEMORY.md and no current line."""
    facts = ["Sam drinks green tea.", "Sam lives in Bergen.", "Sam has a dog named Bruno.",
             "Sam works at Globex.", "Sam's sister is Kim.", "Sam plays chess on Fridays.",
             "Sam is allergic to penicillin.", "Sam's tea mug is blue."]
    for n in range(1, len(facts) + 1):
        either.write("ada", "MEMORY.md", "\n".join(facts[:n]), user="sam", mode="replace")
    for query, answer in (("tea", {"Sam drinks green tea.", "Sam's tea mug is blue."}),
                          ("Where does Sam live?", {"Sam lives in Bergen."}),
                          ("Sam's dog", {"Sam has a dog named Bruno."}),
                          ("penicillin", {"Sam is allergic to penicillin."}),
                          ("chess", {"Sam plays chess on Fridays."})):
        hits = list(either.search("ada", query, user="sam", limit=6))
        assert {h.text for h in hits[:len(answer)]} == answer, (query, texts(hits))
        assert all(h.where == "current" for h in hits[:len(answer)]), (query, hits)
        assert not any("\n" in h.text for h in hits), (query, texts(hits))
    # A line a later version dropped is found as that line, from history.
    either.write("ada", "MEMORY.md", "\n".join(facts[1:]), user="sam", mode="replace")
    hits = list(either.search("ada", "green tea", user="sam", limit=3))
    assert (hits[0].text, hits[0].where) == ("Sam drinks green tea.", "history"), hits


# (old, what a replace wrote instead, a query for the old fact)
REWRITTEN_AWAY = [
    ("Sam's passport number is X9Y8Z7.",
     "Sam's gym locker is number 97.\nSam's flat is 3B.\nSam likes tea.",
     ("What is Sam's passport number?", "passport", "X9Y8Z7")),
    ("Sam's dentist appointment is on Friday at 9.",
     "Sam's team lunch is on Friday.\nSam likes tea.",
     ("When is Sam's dentist appointment?", "dentist")),
    ("Sam's library card expires in March.",
     "Sam's train pass expires in March.\nSam likes tea.",
     ("When does the library card expire?", "library card")),
    ("Sam's wifi password is tulip-42.",
     "Sam's bike lock code is 4242.\nSam's wifi router is in the hall.",
     ("wifi password", "What is the wifi password?")),
]


def test_a_dropped_fact_is_not_ranked_below_a_line_that_shares_one_word(either: Memory) -> None:
    """One word in common ("number" in "Sam's passport number is X9Y8Z7" and
    "Sam's gym locker is number 97") made the newer line the dropped fact's
    replacement: it came first, for "X9Y8Z7" too, and an agent would
    answer 97."""
    for n, (old, new, queries) in enumerate(REWRITTEN_AWAY):
        user = f"u{n}"
        either.write("ada", "MEMORY.md", old, user=user)
        either.write("ada", "MEMORY.md", new, user=user, mode="replace")
        for query in queries:
            found = texts(either.search("ada", query, user=user, limit=3))
            assert found[:1] == [old], (query, found)


def test_the_only_match_is_not_buried_under_newer_lines_found_by_meaning(either: Memory) -> None:
    """A pair of many notes, and the one write that holds "X9Y8Z7" dropped
    from its file by a rewrite: it came 13th, below notes that only the
    ranking by meaning found, each newer and in the same file."""
    notes = [f"Note {i}: Sam mentioned {w} during the {t} chat." for i, (w, t) in enumerate(
        zip(["apples", "rivers", "clouds", "lamps", "bread", "chairs", "coffee", "trams"] * 5,
            ["travel", "food", "work", "health", "family"] * 8, strict=False))]
    either.write("ada", "MEMORY.md", "Sam's passport number is X9Y8Z7.", user="sam")
    for note in notes:
        either.write("ada", "MEMORY.md", note, user="sam")
    either.write("ada", "MEMORY.md", "\n".join(notes), user="sam", mode="replace")
    for query in ("X9Y8Z7", "passport number", "Sam's passport"):
        found = texts(either.search("ada", query, user="sam", limit=10))
        assert found[:1] == ["Sam's passport number is X9Y8Z7."], (query, found)


@pytest.mark.parametrize("moved", ["Standup moved to 10:15.", "The dentist appointment moved to Friday.",
                                   "The piano lesson moved to Thursday at 17:00."])
def test_a_line_that_only_says_moved_is_no_answer_to_where_someone_lives(
        either: Memory, moved: str) -> None:
    """"Standup moved to 10:15." came first for "Where does Sam live?": its
    "moved" is a word of home and says it changed, and it was taken for an
    update of "Sam lives in Oslo." though it holds no word of the query."""
    for line in ("Sam lives in Oslo.", "Sam works at Globex.", moved):
        either.write("ada", "MEMORY.md", line, user="sam")
    found = texts(either.search("ada", "Where does Sam live?", user="sam", limit=3))
    assert found[:1] == ["Sam lives in Oslo."], found


@pytest.mark.parametrize(("line", "queries"), [
    ("Sam went to Paris in May.", ("go", "going", "gone")),
    ("Sam bought a new bicycle.", ("buying", "buy", "buys")),
    ("Sam ate sushi at Koji.", ("eating", "eats", "eaten")),
    ("Sam flew to Tokyo in June.", ("flying", "flies", "flown")),
    ("Sam's geese live on the farm.", ("goose",)),
    ("Sam caught a cold on the trip.", ("catching", "catch")),
    ("Sam taught a yoga class.", ("teaching", "teaches")),
    ("Sam has written three novels.", ("writing", "wrote")),
    ("Sam's children are at school until three.", ("child",)),
])
def test_every_form_of_an_irregular_word_finds_the_others(
        either: Memory, line: str, queries: tuple[str, ...]) -> None:
    """"go", "going", "buying", "eating", "flying" and "goose" found nothing:
    the irregular forms were looked up one way, and not from -ing forms."""
    for other in (line, "Sam likes green tea.", "Sam works at Globex."):
        either.write("ada", "MEMORY.md", other, user="sam")
    for query in queries:
        assert texts(either.search("ada", query, user="sam", limit=2))[:1] == [line], query


def test_a_form_the_index_stems_alike_does_not_count_twice(either: Memory) -> None:
    """"run" looked for "runs" and "running" too, one word three times: the
    running lines outranked the passport for "When does Sam's passport run
    out?"."""
    for line in ("Sam's passport runs out in March 2027.", "Sam runs three times a week.",
                 "Sam ran the half marathon in 1:52."):
        either.write("ada", "MEMORY.md", line, user="sam")
    found = texts(either.search("ada", "When does Sam's passport run out?", user="sam", limit=3))
    assert found[:1] == ["Sam's passport runs out in March 2027."], found


@pytest.mark.parametrize(("line", "query"), [
    ("Sam fliegt am 3. März nach München.", "Muenchen"),
    ("Sams Schwester wohnt in Köln.", "Koeln"),
    ("Das Büro ist in Düsseldorf.", "Duesseldorf"),
    ("Sam schickt liebe Grüße.", "Gruesse"),
    ("Sam mag Fußball.", "Fussball"),
])
def test_an_umlaut_typed_as_two_letters_finds_it(either: Memory, line: str, query: str) -> None:
    """"Muenchen" put "Kirchenchor" first: a German word typed without its
    umlaut was matched only by its pieces."""
    for other in (line, "Sam singt im Kirchenchor.", "Sam arbeitet bei Globex."):
        either.write("ada", "MEMORY.md", other, user="sam")
    assert texts(either.search("ada", query, user="sam", limit=2))[:1] == [line], query


def test_since_takes_a_year_or_a_month(either: Memory) -> None:
    """`--since 2020` (a year, valid ISO 8601) was refused."""
    with freeze_time("2025-06-01T09:00:00Z"):
        either.write("ada", "MEMORY.md", "Sam lived in Oslo.", user="sam")
    with freeze_time("2026-03-05T09:00:00Z"):
        either.write("ada", "MEMORY.md", "Sam lives in Bergen.", user="sam")
    for since, found in (("2026", ["Sam lives in Bergen."]), ("2026-03", ["Sam lives in Bergen."]),
                         ("2026-04", []), ("2025", ["Sam lives in Bergen.", "Sam lived in Oslo."])):
        assert sorted(texts(either.search("ada", "Sam", user="sam", since=since))) == sorted(found)
    for bad in ("2026-13", "20261", "2026-3"):
        with pytest.raises(BadInput, match="unparsable date"):
            either.search("ada", "Sam", user="sam", since=bad)


def test_the_cli_takes_a_year_as_since_and_refuses_it_as_until(kairos: Kairos, mem: Memory) -> None:
    """A year alone is where a range starts; as its end ("--until 2026": the
    first moment of 2026, or its last?) it would be a guess."""
    mem.write("ada", "MEMORY.md", "Sam lives in Bergen.", user="sam")
    assert kairos("seal").exit_code == 0  # (an export needs a checkpoint)
    ok = kairos("search", "-a", "ada", "-u", "sam", "--since", "2000", "Bergen")
    assert ok.exit_code == 0 and "Sam lives in Bergen." in ok.output, ok.output
    later = kairos("search", "-a", "ada", "-u", "sam", "--since", "2999-01", "Bergen")
    assert later.exit_code == 0 and "Bergen" not in later.output, later.output
    for args in (("search", "-a", "ada", "-u", "sam", "--since", "2026-13", "Bergen"),
                 ("export", "-a", "ada", "-u", "sam", "--until", "2026",
                  str(kairos.home.parent / "bundle"))):
        bad = kairos(*args)
        assert bad.exit_code != 0 and len(bad.output.strip().splitlines()) == 1, bad.output
        assert ("unparsable date" if "--since" in args else "give a full date") in bad.output, (
            args, bad.output)


# -- a thirteenth QA pass, against the twelfth's changes ----------------------------------
@pytest.mark.parametrize(("update", "query", "old"), [
    ("She moved to Bergen in May.", "Where does Sam live?", "Sam lives in Oslo."),
    ("Moved to Bergen last month.", "Where does Sam live?", "Sam lives in Oslo."),
    ("She joined Globex in March.", "Where does Sam work?", "Sam works at Acme."),
    ("Joined Globex in March.", "Where does Sam work?", "Sam works at Acme."),
    ("Sie ist nach Berlin umgezogen.", "Wo wohnt Sam?", "Sam wohnt in Köln."),
    ("Ist im März nach Berlin umgezogen.", "Wo wohnt Sam?", "Sam wohnt in Köln."),
    # (the fourteenth pass: words of when, and a tag, first)
    ("Yesterday moved to Bergen.", "Where does Sam live?", "Sam lives in Oslo."),
    ("Recently moved to Bergen.", "Where does Sam live?", "Sam lives in Oslo."),
    ("Finally moved to Bergen!", "Where does Sam live?", "Sam lives in Oslo."),
    ("Last week moved to Bergen.", "Where does Sam live?", "Sam lives in Oslo."),
    ("Update: moved to Bergen.", "Where does Sam live?", "Sam lives in Oslo."),
    ("Gestern nach Berlin umgezogen.", "Wo wohnt Sam?", "Sam wohnt in Köln."),
    ("Letzte Woche nach Berlin umgezogen.", "Wo wohnt Sam?", "Sam wohnt in Köln."),
])
def test_an_update_said_with_a_pronoun_or_no_subject_still_ranks_first(
        either: Memory, update: str, query: str, old: str) -> None:
    """The twelfth pass's "Standup moved" rule went too far: a note saying
    "She moved to Bergen." holds no word of "Where does Sam live?" either,
    and fell below lines that only name Sam.  A line is no update only when
    it begins with a subject of its own ("Standup", "The dentist
    appointment").  The fourteenth: "Yesterday", "Update:", "Letzte Woche"
    were read as such a subject."""
    for line in ("Sam lives in Oslo.", "Sam works at Acme.", "Sam wohnt in Köln.",
                 "Sam likes green tea.", "Sam plays chess on Fridays.", update):
        either.write("ada", "MEMORY.md", line, user="sam")
    assert texts(either.search("ada", query, user="sam", limit=2)) == [update, old], query


def test_a_rewritten_files_line_is_the_one_that_matched_not_the_one_with_the_name(
        either: Memory) -> None:
    """A write of several lines came back as its first line holding the
    name: "Does Sam have allergies?" lost the penicillin line its file had
    dropped, "how old is Sam?" the age, a markdown file gave its heading."""
    either.write("ada", "MEMORY.md", "Sam's sister is Kim.\nSam plays chess on Fridays.\n"
                 "Sam is allergic to penicillin.\nSam works at Globex.", user="a", mode="replace")
    either.write("ada", "MEMORY.md", "Sam's sister is Kim.\nSam plays chess on Fridays.\n"
                 "Sam works at Globex.", user="a", mode="replace")
    hits = list(either.search("ada", "Does Sam have allergies?", user="a", limit=3))
    assert (hits[0].text, hits[0].where) == ("Sam is allergic to penicillin.", "history"), hits
    either.write("ada", "USER.md", "Sam likes tea.\nSam is 34.\nSam lives in Oslo.", user="b",
                 mode="replace")
    either.write("ada", "USER.md", "Sam likes tea.\nSam lives in Oslo.", user="b", mode="replace")
    assert texts(either.search("ada", "how old is Sam?", user="b", limit=3))[:1] == ["Sam is 34."]
    either.write("ada", "MEMORY.md", "# About Sam\n## Home\n- Lives in Oslo with partner Jo.\n"
                 "## Work\n- Tester at Acme.", user="c", mode="replace")
    either.write("ada", "MEMORY.md", "# About Sam\n## Home\n- Moved to Bergen in May.\n"
                 "## Work\n- Developer at Globex since June.", user="c", mode="replace")
    found = texts(either.search("ada", "Where does Sam live?", user="c", limit=3))
    assert "- Moved to Bergen in May." in found[:2] and not any("\n" in t for t in found), found


def test_a_version_whose_lines_the_file_still_holds_is_no_result(either: Memory) -> None:
    """A rewrite whose every line is still in its file came back whole, as
    history, or as one of its lines labelled history though it is current."""
    either.write("ada", "MEMORY.md", "Sam lives in Oslo.", user="sam")
    either.write("ada", "MEMORY.md", "Sam likes green tea.\nSam moved to Bergen.", user="sam",
                 mode="replace")
    hits = list(either.search("ada", "where does Sam live", user="sam"))
    assert [(h.where, h.text) for h in hits[:2]] == [
        ("current", "Sam moved to Bergen."), ("history", "Sam lives in Oslo.")], hits
    assert all(h.where == "current" for h in hits if h.text == "Sam likes green tea."), hits
    assert not any("\n" in h.text for h in hits), hits


def test_an_update_in_a_rewrite_of_several_lines_is_linked_by_the_name_it_shares(
        either: Memory) -> None:
    """"Sam sold the Volvo and rides a bike." in a rewrite of four lines was
    not taken for the update of "Sam drives a red Volvo.": it lacks "drive"."""
    either.write("ada", "MEMORY.md", "Sam drives a red Volvo.", user="sam")
    either.write("ada", "MEMORY.md", "Sam likes green tea.\nSam's sister is Kim.\n"
                 "Sam plays chess on Fridays.\nSam sold the Volvo and rides a bike.", user="sam",
                 mode="replace")
    found = texts(either.search("ada", "what does Sam drive", user="sam", limit=3))
    assert found[:2] == ["Sam sold the Volvo and rides a bike.", "Sam drives a red Volvo."], found


def test_another_answer_appended_alone_does_not_bury_a_dropped_fact(either: Memory) -> None:
    """"Sam's gym locker is number 97." appended on its own, after a rewrite
    dropped the passport line, was taken for its replacement: the one newer
    line found, and the one its write wrote."""
    either.write("ada", "MEMORY.md", "Sam's passport number is X9Y8Z7.", user="sam")
    either.write("ada", "MEMORY.md", "Sam likes tea.\nSam works at Globex.", user="sam",
                 mode="replace")
    either.write("ada", "MEMORY.md", "Sam's gym locker is number 97.", user="sam")
    found = texts(either.search("ada", "What is Sam's passport number?", user="sam", limit=3))
    assert found[:1] == ["Sam's passport number is X9Y8Z7."], found


def test_forms_and_spellings_are_looked_for_only_when_the_word_found_nothing(
        either: Memory) -> None:
    """Added to every query, the umlaut spelling of "Michael" found "Michal",
    "guests" found "Gustav", and "felt" ranked "Sam feels tired" first."""
    for line in ("Michal's birthday is on 3 May.", "Michael's birthday is on 9 October.",
                 "Sam's uncle Gustav visits in June.", "Sam bought a grey felt hat.",
                 "Sam feels tired on Mondays.", "Sam hat neun Geschwister."):
        either.write("ada", "MEMORY.md", line, user="sam")
    assert texts(either.search("ada", "Michael birthday", user="sam", limit=2))[:1] == [
        "Michael's birthday is on 9 October."]
    assert "Sam's uncle Gustav visits in June." not in texts(
        either.search("ada", "guests", user="sam", limit=3))
    assert texts(either.search("ada", "felt", user="sam", limit=2))[:1] == [
        "Sam bought a grey felt hat."]
    assert texts(either.search("ada", "Feuer", user="sam", limit=3)) == []


# -- a fourteenth QA pass, against the thirteenth's changes -------------------------------
@pytest.mark.parametrize(("old", "new", "query"), [
    ("Sam's phone number is 555-0100.", "Sam's phone: 555-0199.", "Sam's phone number"),
    ("Sam's passport number is X9Y8Z7.", "Sam's passport: Y9876.", "Sam's passport number"),
    ("Sam's home address is Storgata 1, Oslo.", "Sam's address: Nygårdsgaten 12, Bergen.",
     "Sam's home address"),
    ("Sam's monthly rent is 9000 NOK.", "Sam's rent: 9500 NOK.", "Sam's monthly rent"),
    ("Sam's gym membership costs 300 NOK a month.", "Gym: 350 NOK per month.",
     "gym membership cost"),
    ("The wifi password is tulip-42.", "Wifi: correcthorse.", "wifi password"),
])
def test_a_file_rewritten_to_one_line_gives_that_line_first(
        either: Memory, old: str, new: str, query: str) -> None:
    """The thirteenth pass's "another answer" check kept "Sam's phone number is
    555-0100." above the line the file was rewritten to, "Sam's phone:
    555-0199.", which lacks "number": the whole file is that line now."""
    either.write("ada", "USER.md", old, user="sam")
    either.write("ada", "USER.md", new, user="sam", mode="replace")
    assert texts(either.search("ada", query, user="sam", limit=2)) == [new, old], query


def test_an_update_between_two_values_goes_below_the_rewrite(either: Memory) -> None:
    either.write("ada", "USER.md", "Sam's phone: 111.", user="sam")
    either.write("ada", "USER.md", "New phone number: 222.", user="sam")
    either.write("ada", "USER.md", "Sam's phone: 333.", user="sam", mode="replace")
    assert texts(either.search("ada", "Sam's phone number", user="sam", limit=3))[:1] == [
        "Sam's phone: 333."]


def test_since_holds_for_a_line_taken_out_of_a_rewrite(either: Memory) -> None:
    """A rewrite inside the window came back as the current line it still
    holds, with that line's earlier time: outside the window asked for."""
    with freeze_time("2026-09-02T09:00:00Z"):
        either.write("ada", "USER.md", "- Lives in Oslo\n- Allergic to penicillin", user="sam",
                     mode="replace")
    with freeze_time("2026-10-02T09:00:00Z"):
        either.write("ada", "USER.md", "- Lives in Bergen\n- Allergic to penicillin", user="sam",
                     mode="replace")
    for query in ("penicillin", "Bergen", "Oslo"):
        hits = list(either.search("ada", query, user="sam", since="2026-09-20"))
        assert all(h.recorded_at >= "2026-09-20" for h in hits), (query, hits)
    assert texts(either.search("ada", "penicillin", user="sam", since="2026-09-20")) == [
        "- Allergic to penicillin"]


@pytest.mark.parametrize("someone", ["Sam's ex", "Sam's roommate", "Sam's flatmate"])
def test_a_move_of_an_ex_or_a_roommate_is_not_the_users(either: Memory, someone: str) -> None:
    either.write("ada", "USER.md", "Sam lives in Bergen.", user="sam")
    either.write("ada", "USER.md", f"{someone} moved to Kiel.", user="sam")
    assert texts(either.search("ada", "where does Sam live?", user="sam", limit=2))[:1] == [
        "Sam lives in Bergen."]


# -- a fifteenth QA pass (blind held-out set) ---------------------------------------------
@pytest.mark.parametrize(("line", "query"), [
    ("Sein Lieblingsbier ist Ganter Urtyp.", "Bier"),
    ("Jonas Becker, 45, Grundschullehrer in Freiburg.", "Lehrer"),
    ("Das Arbeitszimmer ist im Dachgeschoss.", "Zimmer"),
    ("Er trinkt nur stilles Mineralwasser.", "Wasser"),
])
def test_a_compound_is_found_by_a_last_part_the_stemmer_cut(
        either: Memory, line: str, query: str) -> None:
    """The index stems a compound whole ("grundschullehrer" → "grundschullehr":
    "er" is cut off a long word, not off "lehrer"), so the part was looked
    for as it stands and not found; a tail the stemmer leaves as short as
    "bi" must still not find "Nairobi"."""
    either.write("ada", "MEMORY.md", line, user="jonas")
    either.write("ada", "MEMORY.md", "Jonas flog 2019 nach Nairobi und Lehre.", user="jonas")
    assert texts(either.search("ada", query, user="jonas", limit=3))[:1] == [line]
    if query == "Bier":
        assert "Jonas flog 2019 nach Nairobi und Lehre." not in texts(
            either.search("ada", query, user="jonas"))


def test_a_shared_ending_or_middle_is_no_part_of_a_compound(either: Memory) -> None:
    """"veterinarian" found "vegetarian" (a shared "-arian" is an affix, not a
    part), "Kindern" a tool note on "reminders" (its 4-gram "inde", less
    the "e" a stemmer cuts, ends "remind"), and "automobile" the phone line
    ("mobile" is a part of it, but a car is what was asked)."""
    for text in ("Priya's mobile: +44 7700 900 118.", "Priya's car is a blue Skoda Octavia.",
                 "She is vegetarian but eats eggs.",
                 "Biscuit had surgery; vet is Dr. Okafor at Morningside Vets."):
        either.write("ada", "MEMORY.md", text, user="priya")
    either.write("ada", "TOOLS.md", "remind tool: at most 50 open reminders per user.")
    assert texts(either.search("ada", "automobile", user="priya"))[:1] == [
        "Priya's car is a blue Skoda Octavia."]
    assert texts(either.search("ada", "veterinarian", user="priya"))[:1] == [
        "Biscuit had surgery; vet is Dr. Okafor at Morningside Vets."]
    assert "remind tool: at most 50 open reminders per user." not in texts(
        either.search("ada", "Kindern", user="priya"))
    if either.search("ada", "veterinarian", user="priya").mode == "lexical":
        assert "She is vegetarian but eats eggs." not in texts(
            either.search("ada", "veterinarian", user="priya"))


@pytest.mark.parametrize(("word", "text", "holds"), [
    ("zahnarzttermin", "Lenas Zahnarzt ist Dr. Berg.", True),  # the line's word is a part
    ("chorprobe", "Lena singt im Kirchenchor.", True),  # where two compounds meet
    ("smartphone", "Sam replaced the iPhone.", True),  # a shared ending that is a word
    ("sprudelwasser", "Er trinkt Mineralwasser.", True),
    ("veterinarian", "She is vegetarian.", False),  # a shared ending that is an affix
    ("automatically", "The automobile is blue.", False),  # a shared beginning that is one
    ("kindern", "open reminders", False),  # a shared middle
])
def test_a_part_of_a_long_word_is_one_that_begins_or_ends_it(
        word: str, text: str, holds: bool) -> None:
    from kairos.projections.search import grams, held_parts
    assert (held_parts(text, [word], frozenset(grams([word]))) > 0) is holds


@pytest.mark.parametrize("query", ["on-call", "on call", "oncall", "when is Priya on call?"])
def test_the_querys_words_side_by_side_rank_above_one_of_them(either: Memory, query: str) -> None:
    """"on" is a stop word: "on call" was "call" to the index, and "video
    calls" held it as much; the newer line was then taken for an update of
    the older because both name the user and say "call"."""
    either.write("kit", "MEMORY.md", "Priya is on call every fourth week; PagerDuty schedule DP-ONCALL.",
                 user="priya")
    either.write("kit", "MEMORY.md", "Priya's beagle sometimes barks during video calls; not a problem.",
                 user="priya")
    assert texts(either.search("kit", query, user="priya", limit=2))[:1] == [
        "Priya is on call every fourth week; PagerDuty schedule DP-ONCALL."]


@pytest.mark.parametrize("query", ["what's the name of Mei's cat?", "cat's name",
                                   "what is Mei's cat called?"])
def test_the_thing_asked_about_outweighs_the_words_of_the_answers_form(
        either: Memory, query: str) -> None:
    """"name", "called" say what form the answer takes: "Sigrid has a dog
    named Tøffel" held "name" and the user's name, as many words as the cat's line."""
    either.write("ada", "MEMORY.md", "Mei's cat is called Mochi, a grey British Shorthair.", user="mei")
    either.write("ada", "MEMORY.md", "Mei's lab mate Sigrid has a dog named Tøffel.", user="mei")
    either.write("ada", "TOOLS.md", "weather tool: pass city names in English (München -> Munich).")
    assert texts(either.search("ada", query, user="mei", limit=3))[:1] == [
        "Mei's cat is called Mochi, a grey British Shorthair."]


@pytest.mark.parametrize("query", ["where does Priya live now?", "wo wohnt Priya jetzt?",
                                   "where does Priya currently live?"])
@pytest.mark.parametrize("mode", ["append", "replace"])
def test_asked_what_is_true_now_the_newest_version_comes_first(
        either: Memory, query: str, mode: str) -> None:
    """"now" was matched as a word ("Priya now works as …" came first), and a
    move appended was not taken for an update of "lives in Leeds": the two
    lines share only the user's name."""
    either.write("nova", "USER.md", "Priya lives in Leeds (Headingley) with her partner Tomasz.",
                 user="priya")
    new = "Priya moved to Edinburgh in July; new address 14 Marchmont Crescent."
    job = "Priya now works as a staff engineer at Quillmark."
    if mode == "append":
        either.write("nova", "USER.md", new, user="priya")
        either.write("nova", "USER.md", job, user="priya")
    else:
        either.write("nova", "USER.md", f"{new}\n{job}", user="priya", mode="replace")
    found = texts(either.search("nova", query, user="priya", limit=3))
    assert found[:1] == [new], found
    if mode == "append":  # (the replaced line: history, below what replaced it)
        assert found[1:2] == ["Priya lives in Leeds (Headingley) with her partner Tomasz."], found


def test_an_update_of_another_kind_is_not_taken_for_the_one_asked(either: Memory) -> None:
    """The user's name is no word two lines share, but then a line of
    another kind ("team meeting moved") does not update the one asked
    about ("dentist appointment")."""
    either.write("ada", "MEMORY.md", "Sam has a dentist appointment on 14 October at 15:00.",
                 user="sam")
    either.write("ada", "MEMORY.md", "Sam's weekly team meeting moved to Monday 10:00.", user="sam")
    assert texts(either.search("ada", "When is Sam's dentist appointment?", user="sam"))[:1] == [
        "Sam has a dentist appointment on 14 October at 15:00."]


@pytest.mark.parametrize(("line", "query"), [
    ("Priya's personal laptop is a ThinkPad X1 Carbon running Arch Linux.", "computer"),
    ("His assistant is Fiona Grant; cc her on all calendar invites.", "secretary"),
    ("Priya's sister Anjali is getting married on 12 June in Chennai.", "wedding"),
    ("Priya lives in Leeds with her partner Tomasz.", "boyfriend"),
    ("Mei is lactose intolerant; oat milk in her coffee.", "dairy"),
])
def test_an_everyday_word_finds_the_line_that_says_it_in_another(
        either: Memory, line: str, query: str) -> None:
    """"boyfriend" also found every relative and colleague: the words that
    say who one is were one group for any of them, not only for "who is …?".
    (The sister's wedding is of the partner's kind too: "married".)"""
    others = ["Her manager at Quillmark is Helen Strachan.",
              "Her colleague Sam lives in Glasgow and visits monthly."]
    for text in (line, *others, "Priya's sister Anjali is getting married on 12 June in Chennai."):
        either.write("ada", "MEMORY.md", text, user="priya")
    found = texts(either.search("ada", query, user="priya", limit=3))
    assert line in found[:2] and not set(others) & set(found[:found.index(line)]), found


# -- a sixteenth QA pass (second blind set) ------------------------------------------------
@pytest.mark.parametrize("query", [
    "latest blood pressure reading", "most recent blood pressure reading",
    "newest blood pressure reading", "What was the last blood pressure reading?"])
def test_a_query_for_the_latest_ranks_the_newest_version_first(either: Memory, query: str) -> None:
    """"latest" was looked for as a word, and the newer line, which does not
    say it changed, stayed below the January reading it follows."""
    for text in ("Marta's blood pressure reading in January: 142/90; GP wants a recheck in April.",
                 "Marta's e-reader is a Kobo Clara; she reads Polish crime novels.",
                 "April recheck: blood pressure down to 128/82."):
        either.write("quill", "MEMORY.md", text, user="marta")
    assert texts(either.search("quill", query, user="marta", limit=3))[:1] == [
        "April recheck: blood pressure down to 128/82."]


def test_last_before_a_name_or_a_span_of_time_asks_for_no_latest() -> None:
    from kairos.agent.search import _NOT_LATEST
    assert _NOT_LATEST.search("What's Sam's last name?")
    assert _NOT_LATEST.search("what did Sam do last week?")
    assert not _NOT_LATEST.search("last blood pressure reading")


@pytest.mark.parametrize(("word", "text"), [
    ("hypertension", "Marta is in the teachers' pension scheme."),  # "-ension": "-ion" and a letter
    ("instrument", "Flying Ryanair instead of driving."),  # "inst": "in-" and two letters
])
def test_a_derived_beginning_or_ending_is_no_part_of_a_long_word(word: str, text: str) -> None:
    from kairos.projections.search import grams, held_parts
    assert held_parts(text, [word], frozenset(grams([word]))) == 0


def test_an_english_word_finds_no_line_by_a_piece_it_shares_with_another(either: Memory) -> None:
    """"hypertension" found only "pension", "musical instrument" only a flight
    "instead of driving": the substring companion took a shared "-ension"
    and "inst" for compound parts."""
    for text in ("Marta is in the teachers' pension scheme and plans to retire at 60.",
                 "Kraków trip changed: flying Ryanair FR 2417 on 18 July instead of driving."):
        either.write("quill", "MEMORY.md", text, user="marta")
    if either.search("quill", "hypertension", user="marta").mode == "lexical":
        assert texts(either.search("quill", "hypertension", user="marta")) == []
        assert texts(either.search("quill", "musical instrument", user="marta")) == []


@pytest.mark.parametrize(("query", "line", "others"), [
    ("family doctor", "Hausarzt: Dr. Brandt, Praxis in der Kastanienallee 12.",
     ["Family car: grey Skoda Octavia Kombi, plate B-KW 4127.",
      "Sold the Skoda; the family now drives a VW ID.3 (B-KW 880E)."]),
    ("tax return deadline", "Die Steuererklärung 2025 muss bis 31. Juli beim Finanzamt sein.",
     ["Project deadline for the Treptow bridge: handover to the Senat on 30 September 2026."]),
])
def test_a_word_written_in_other_words_outranks_a_generic_word_found(
        either: Memory, query: str, line: str, others: list[str]) -> None:
    """The generic word was found ("Family car"), the specific one only in
    German: BM25 weighs a word it never found at nothing, and the kind's
    ranking that found "Hausarzt" counted a third of the words'."""
    for text in (*others, line):
        either.write("nova", "MEMORY.md", text, user="jonas")
    assert texts(either.search("nova", query, user="jonas", limit=3))[:1] == [line]


@pytest.mark.parametrize(("query", "line"), [
    ("parents evening", "Elternabend in Emils Schule am 5. Februar, 19 Uhr."),
    ("Elternabend", "Parents' evening at Emil's school on Thursday at 7."),
    ("high blood pressure", "Jonas nimmt morgens 5 mg Ramipril gegen Bluthochdruck."),
    ("tax return", "Die Steuererklärung 2025 muss bis 31. Juli beim Finanzamt sein."),
    ("peanut allergy", "Lotte hat eine Erdnussallergie – immer ein EpiPen im Rucksack."),
    ("heating", "Die Heizung wird im Oktober gewartet."),
    ("driving licence", "Jonas' Führerschein läuft 2031 ab."),
])
def test_an_everyday_thing_is_found_in_the_other_language(either: Memory, query: str,
                                                           line: str) -> None:
    for text in ("Jonas is allergic to penicillin.", "Jonas's mother Ingrid lives in Potsdam.",
                 "Jonas and his parents go to the Baltic every August.", line):
        either.write("nova", "MEMORY.md", text, user="jonas")
    result = either.search("nova", query, user="jonas", limit=3)
    # (by meaning, "his parents" is nearer "parents evening" than "Elternabend" is)
    assert texts(result)[:1] == [line] if result.mode == "lexical" else line in texts(result)[:2]


@pytest.mark.parametrize(("query", "line"), [
    ("debt", "Ben's student loan: Plan 2, about £38k left."),
    ("heating", "Marta's house is a 1930s semi; boiler replaced in November (Worcester Bosch)."),
    ("hypertension", "Marta's blood pressure reading in January: 142/90."),
    ("musical instrument", "Marta is learning the cello; lessons with Mr. Finch on Wednesdays."),
])
def test_an_everyday_synonym_finds_the_line(either: Memory, query: str, line: str) -> None:
    for text in ("Marta is in the teachers' pension scheme and plans to retire at 60.",
                 "Flying Ryanair FR 2417 on 18 July instead of driving.", line):
        either.write("quill", "MEMORY.md", text, user="marta")
    assert texts(either.search("quill", query, user="marta", limit=3))[:1] == [line]


def test_equivalents_are_added_only_for_a_word_that_found_nothing() -> None:
    from kairos.agent.synonyms import equivalents
    assert "steuererklärung" in equivalents(["tax", "return", "deadline"], ["tax", "return"])
    assert "elternabend" in equivalents(["parents", "evening"], ["evening"])
    assert equivalents(["tax", "return"], []) == []
    assert "steuererklärung" not in equivalents(["return", "tax"], ["return", "tax"])  # not side by side


# -- a seventeenth QA pass (third blind set) --------------------------------------------------
@pytest.mark.parametrize(("query", "line"), [
    ("knee pain", "knie rechts zwickt bergab, physio termin 20.02."),
    ("how is she sleeping now?", "schlaf besser: 7-7.5h seit handy nicht mehr im schlafzimmer"),
    ("is the part-time request approved?", "teilzeit genehmigt ab 1.9., freitags frei"),
    ("iron supplements", "hausärztin empfiehlt eisen 2x/wo"),
    ("running shoes", "schuhe: asics novablast 4, ~600km drauf, neue bestellt"),
    ("what is her resting heart rate?", "ruhepuls: 52 | hfmax: 191"),
    ("caffeine", "koffein: max 2 tassen kaffee, letzte vor 14 uhr"),
])
def test_an_english_query_finds_a_terse_german_note(either: Memory, query: str, line: str) -> None:
    """A coaching agent's German shorthand was not found by the English
    everyday word ("knee": knie, "sleeping": schlaf)."""
    for text in ("trainingsplan: 4x/wo, long run sonntags", "ziel 2026: halbmarathon unter 2h",
                 line):
        either.write("kompass", "MEMORY.md", text, user="lena")
    assert line in texts(either.search("kompass", query, user="lena", limit=3))[:2]


def test_an_equivalent_is_found_in_another_form_of_the_word() -> None:
    from kairos.agent.synonyms import equivalents
    assert "schlaf" in equivalents(["sleeping"], ["sleeping"])
    assert "schuhe" in equivalents(["running", "shoes"], ["shoes"])
    assert "doppelt" in equivalents(["invoice", "sent", "twice"], ["twice"])


@pytest.mark.parametrize(("query", "old", "new"), [
    ("what exercise does she do these days", "Priya goes to hot yoga Mondays at 19:00.",
     "Priya stopped yoga; she now swims at Clifton Lido on Tuesdays."),
    ("when is the coaching session now?", "sessions: di 7:30 via zoom, 30 min",
     "ab sept: sessions do 18:00 statt di morgens"),
    ("when is release 4.14.0?", "Release 4.14.0 planned for 9 September 2026.",
     "Release 4.14.0 slipped to 16 September 2026 (Kafka consumer lag fix)."),
])
def test_asked_for_now_a_newer_line_that_says_it_changed_comes_first(
        either: Memory, query: str, old: str, new: str) -> None:
    """"these days" was looked for as a word, "statt" and "slipped" did not
    say a line changed, and a word every result holds kept the newer
    session line below the older one."""
    for text in (old, "pref: sessions in english ok, but feelings stuff in german", new):
        either.write("kompass", "MEMORY.md", text, user="lena")
    assert texts(either.search("kompass", query, user="lena", limit=3))[:1] == [new]


def test_these_days_asks_for_now() -> None:
    from kairos.agent.search import NOW_PHRASE
    assert NOW_PHRASE.search("what does she do these days")
    assert not NOW_PHRASE.search("two days off")


# -- an eighteenth pass: mistyped words and short forms ----------------------------------------
TYPO_LINES = ["Sam is vegetarian since 2019.", "Sam's dentist is Dr. Weber in Altona.",
              "Sam hat einen Zahnarzttermin am 3. März.", "Sam lives in a small house by the lake.",
              "Sam's new address is Hauptstraße 5, Hamburg.", "Sam goes running every Tuesday.",
              "Sam's physiotherapy sessions are on Thursdays.",
              "Sam is allergic to penicillin.", "Sam's daughter Mila starts kindergarten in August."]


@pytest.mark.parametrize(("query", "line"), [
    ("is sam vegitarian?", 0),  # a vowel for a vowel
    ("vegetarain", 0),  # two letters swapped
    ("who is Sam's dentsit", 1),
    ("Zahnartztermin", 2),  # German, swapped
    ("Sam's adress", 4),  # a letter left out
    ("runing days", 5),
    ("physiotheraphy", 6),  # a letter too, beside its key
    ("penicilin allergy", 7),
    ("kindergarden", 8),  # d is not beside t: two slips, allowed in a long word
    ("when does Mila start kindergartn", 8),
])
def test_a_mistyped_word_finds_the_word_it_meant(either: Memory, query: str, line: int) -> None:
    """A query word typed wrong found nothing: the pair's own word it is a
    slip from is looked for instead."""
    for text in TYPO_LINES:
        either.write("ada", "MEMORY.md", text, user="sam")
    assert TYPO_LINES[line] in texts(either.search("ada", query, user="sam", limit=3))[:2]


@pytest.mark.parametrize("query", ["horse", "melting", "mouse", "lakes district"])
def test_a_word_that_is_no_slip_from_the_pairs_words_is_not_corrected(
        either: Memory, query: str) -> None:
    """"horse" is not "house" typed wrong (r and u are not neighbours), nor
    "melting" "meeting": a word of its own that found nothing finds no line
    for a word it only looks like."""
    for text in ["Sam lives in a small house by the lake.", "Weekly meeting on Mondays.",
                 "Sam's mouse is a Logitech MX."]:
        either.write("ada", "MEMORY.md", text, user="sam")
    found = texts(either.search("ada", query, user="sam", limit=5))
    if query == "horse":
        assert "Sam lives in a small house by the lake." not in found, found
    if query == "melting":
        assert "Weekly meeting on Mondays." not in found, found
    if query == "mouse":  # the word itself is there: nothing else is looked for
        assert found[:1] == ["Sam's mouse is a Logitech MX."], found
    if query == "lakes district":  # "lakes" is a form of "lake", not a typo
        assert found[:1] == ["Sam lives in a small house by the lake."], found


def test_a_correction_never_reaches_another_pairs_or_a_retracted_word(either: Memory) -> None:
    """The words a slip may have meant are the pair's own current lines'
    only: another pair's word, or a retracted write's, is never looked for
    (nor its line returned)."""
    either.write("ada", "MEMORY.md", "Kim is vegetarian.", user="kim")
    gone = either.write("ada", "MEMORY.md", "Sam smokes cigarillos.", user="sam")
    either.write("ada", "MEMORY.md", "Sam likes tea.", user="sam")
    either.retract("ada", "MEMORY.md", [gone.event_id], reason="wrong", user="sam")
    assert "Kim is vegetarian." not in texts(either.search("ada", "vegitarian", user="sam"))
    assert not any("cigarillo" in t for t in texts(either.search("ada", "cigarilos", user="sam")))


@pytest.mark.parametrize(("query", "line"), [
    ("dr appt", "Sam has a doctor's appointment on Friday at 9."),
    ("doctor appointment", "Sam: Dr. Weber appt Tue 3pm"),
    ("bday", "Sam's birthday is on 12 May."),
    ("birthday", "Sam bday 12.5."),
    ("Sam's tel", "Sam's phone: +49 170 5550100"),
    ("mgr", "Sam's manager is Petra Lang."),
    ("how many hrs does Sam work", "Sam works 30 hours a week."),
    ("kids", "Sam has two children, Mila and Jonas."),
    ("Sam's mum", "Sam's mother lives in Kiel."),
    ("vacation", "Sam is on holiday in Crete until 14 June."),
])
def test_a_short_or_everyday_form_finds_the_word_written(either: Memory, query: str,
                                                        line: str) -> None:
    """Agents write and ask in short forms ("appt", "bday", "tel", "mgr",
    "hrs") and everyday words ("kids", "mum"): the other form is looked for
    when the one asked found nothing."""
    for text in ("Sam prefers window seats.", "Sam drinks oat milk.", line):
        either.write("ada", "MEMORY.md", text, user="sam")
    assert line in texts(either.search("ada", query, user="sam", limit=3))[:2]


def test_slips_are_the_ones_typing_makes() -> None:
    from kairos.agent.typos import distance, meant
    assert distance("vegitarian", "vegetarian", 2) == 1  # vowel for vowel
    assert distance("dentsit", "dentist", 2) == 1  # swapped
    assert distance("adress", "address", 2) == 1  # left out
    assert distance("gpod", "good", 2) == 1  # p is beside o
    assert distance("horse", "house", 1) == 2  # r is not beside u
    assert distance("appoinrment", "appointment", 2) == 1  # r beside t
    assert distance("meeting", "melting", 1) == 2
    words = {"vegetarian": 3, "veterinarian": 1, "house": 5, "cat": 9}
    assert meant("vegitarian", words) == ["vegetarian"]
    assert meant("horse", words) == []
    assert meant("cta", words) == []  # too short to guess at
    assert meant("house", words) == []  # the word itself is there
    assert meant("12345", {"12346": 1}) == []  # a number is not mistyped


REQUEST_LINES = ["Sam noted down everything about the move in a spreadsheet.",
                 "Sam knows the landlord well.", "Sam can look after the neighbours' cat.",
                 "Sam checks emails only in the morning.", "Sam's hearing aid takes size 312 batteries.",
                 "Sam wants to find a new dentist.", "Sam needs to renew the passport.",
                 "Sam's details are in the CRM."]


@pytest.mark.parametrize(("query", "line"), [
    ("can you look up what we know about Sam's hearing aid", 4),
    ("I need to check whether there is anything saved about batteries", 4),
    ("please find anything we have noted about Sam's passport", 6),
    ("could you check the details on the dentist", 5),
    ("search memory for anything about the hearing aid", 4),
    ("kannst du mal nachschauen, was wir über den Pass notiert haben", 6),
])
def test_the_words_of_asking_are_not_looked_for(either: Memory, query: str, line: int) -> None:
    """An agent asks as a request ("can you look up what we know about …"):
    "look", "know", "check", "noted" and "details" found lines that hold
    them, above the one asked for."""
    for text in REQUEST_LINES:
        either.write("ada", "MEMORY.md", text, user="sam")
    found = texts(either.search("ada", query, user="sam", limit=3))
    assert found[:1] == [REQUEST_LINES[line]], found


@pytest.mark.parametrize("query", ["can you look up what we know about Sam's hearing aid",
                                   "could you check the details on the dentist"])
def test_the_words_of_asking_find_no_lines_of_their_own(lexical: Memory, query: str) -> None:
    """By words only, the lines that hold "know", "look", "check" or
    "details" are not found at all."""
    for text in REQUEST_LINES:
        lexical.write("ada", "MEMORY.md", text, user="sam")
    found = texts(lexical.search("ada", query, user="sam", limit=5))
    assert not {REQUEST_LINES[1], REQUEST_LINES[2], REQUEST_LINES[3], REQUEST_LINES[7]} & set(found)


@pytest.mark.parametrize(("query", "rest"), [
    ("can you look up what we know about Walter's hearing aids", "Walter's hearing aids"),
    ("please find anything we have noted about respite care", "respite care"),
    ("pull up everything we know about the Hotel Aurora account", "the Hotel Aurora account"),
    ("remind me what we agreed about revision rounds", "what we agreed about revision rounds"),
    ("what does Sam find hard?", "what does Sam find hard?"),  # a lone "find" is the question
    ("Sam check-up date", "Sam check-up date"),
    ("Noah's notes on photosynthesis", "Noah's notes on photosynthesis"),
    ("find", "find"),  # nothing else: kept as it is
    ("such mal nach Zahnarzt", "Zahnarzt"),
])
def test_only_whole_phrases_of_asking_are_taken_off(query: str, rest: str) -> None:
    from kairos.agent.preamble import asked
    assert " ".join(asked(query).split()) == rest


@pytest.mark.parametrize(("query", "line"), [
    ("Who pays for Noah's lessons?", "Noah's mother Katrin pays for the lessons, invoiced monthly."),
    ("who picks Noah up after football?", "Noah's dad Tom picks him up after football on Mondays."),
    ("Wer holt Noah vom Training ab?", "Noahs Vater Tom holt ihn montags vom Training ab."),
    ("whose car does Noah borrow?", "Noah's sister Lea lends him her car on weekends."),
])
def test_a_who_question_about_the_user_may_be_answered_by_a_relative(
        either: Memory, query: str, line: str) -> None:
    """A line about the user's relative ranks low for a question about the
    user ("Where does Noah live?" is not answered by where his mother
    lives) — but a question that asks for a person is answered by one."""
    for text in ("Noah is 15 and in year 10.", "Noah plays goalkeeper for SC Hietzing.",
                 "Noah's birthday is 8 May.", "Noah finds long word problems frustrating.",
                 line):
        either.write("lumen", "MEMORY.md", text, user="noah")
    assert texts(either.search("lumen", query, user="noah", limit=3))[:1] == [line]


def test_a_mistyped_first_part_of_a_compound_finds_the_compound(either: Memory) -> None:
    """"Zahnartz" is no slip from any whole word the pair wrote, but from
    the beginning of "Zahnarztpraxis": that beginning is looked for."""
    for text in ("Walter's dentist: Dr. Yilmaz, Zahnarztpraxis Dammstraße 8.",
                 "Walter hört schlecht auf dem linken Ohr.", "Walter trinkt morgens Tee."):
        either.write("hearth", "MEMORY.md", text, user="ingrid")
    found = texts(either.search("hearth", "Zahnartz Walter", user="ingrid", limit=3))
    assert found[:1] == ["Walter's dentist: Dr. Yilmaz, Zahnarztpraxis Dammstraße 8."], found


def test_a_slip_is_also_looked_for_in_the_beginning_of_a_longer_word() -> None:
    from kairos.agent.typos import meant
    words = {"zahnarztpraxis": 1, "zahnarzttermin": 2, "dentist": 1}
    assert meant("zahnartz", words)[:1] == ["zahnarzt"]
    assert meant("dentsit", words) == ["dentist"]  # a whole word before a beginning
    assert meant("zahn", words) == []  # too short


@pytest.mark.parametrize(("query", "line"), [
    ("When is the chimney sweep coming?", "Schornsteinfeger kommt am 12. Mai zwischen 8 und 10."),
    ("Reiseversicherung", "Lior's travel insurance is with HanseMerkur, policy TR-4471."),
    ("who is the caretaker", "Hausmeister: Herr Öztürk, Tel. im Treppenhaus."),
    ("Rollstuhl Reparatur", "Dad's wheelchair needs a new tyre; repair shop on Elm Street."),
    ("collarbone", "Bea: Unfall am 3.4., Schlüsselbein gebrochen, 6 Wochen Pause."),
    ("dyslexia", "Noah hat LRS; Nachteilsausgleich bei Diktaten beantragt."),
    ("annual general meeting", "Jahreshauptversammlung des Radclubs am 14. März."),
])
def test_the_glossary_finds_everyday_things_said_in_the_other_language(
        either: Memory, query: str, line: str) -> None:
    """A carer, landlord or club secretary writes in one language and asks in
    the other: "chimney sweep" is "Schornsteinfeger", "LRS" dyslexia
    (kairos/equivalents.txt)."""
    for text in ("Prefers calls after 10.", "Pays the rent on the 1st.", line):
        either.write("atlas", "MEMORY.md", text, user="bea")
    assert line in texts(either.search("atlas", query, user="bea", limit=3))[:2]


def test_the_glossary_is_well_formed() -> None:
    """Every line says one thing in at least two ways, in lower case, and no
    way of saying it is on two lines (a word would then mean two things)."""
    from kairos.agent.synonyms import _EQUIVALENTS, _base
    seen: dict[tuple[str, ...], int] = {}
    twice = set()
    for n, line in enumerate(_EQUIVALENTS):
        assert len(line) >= 2, line
        for alternative in line:
            assert alternative and all(w == w.lower() for w in alternative), line
            key = tuple(_base(w) for w in alternative)
            if seen.setdefault(key, n) != n:
                twice.add(key)
    # (blood pressure is hypertension's sign and the thing itself; invoices are
    # their own line for the German plural)
    assert twice == {("blood", "pressur"), ("bluthochdruck",), ("invoic",)}, twice


@pytest.mark.parametrize(("query", "old", "new"), [
    ("current tutoring schedule", "Tutoring sessions: Tuesdays 17:00–18:00, online via Zoom.",
     "Sessions moved to Wednesdays 16:30–17:30, in person at the main library."),
    ("what is Noah's football training time now?", "Noah's football training is Mondays at 18:00.",
     "Training changed to Thursdays 17:30 from March."),
    ("aktueller Trainingstermin", "Trainingstermin: dienstags 19 Uhr in der Halle Nord.",
     "Training jetzt donnerstags, 18 Uhr, gleiche Halle."),
    ("latest tutoring rate", "Tutoring rate: 40 EUR per hour.",
     "Rate raised to 45 EUR per hour from January."),
])
def test_asked_for_now_a_newer_line_that_changed_a_found_one_comes_in(
        either: Memory, query: str, old: str, new: str) -> None:
    """The newer line of an appended update may lack the asked word ("Sessions
    moved to Wednesdays" for "current tutoring schedule"): asked for what is
    true now, it comes in above the line it changed."""
    for text in (old, "Noah's mother pays for the lessons.", "Noah finds word problems hard.",
                 "Noah's chemistry teacher wants units on every value.", new):
        either.write("lumen", "MEMORY.md", text, user="noah")
    found = texts(either.search("lumen", query, user="noah", limit=3))
    assert found[:1] == [new], found
    assert old in found, found


def test_not_asked_for_now_the_line_found_comes_first(either: Memory) -> None:
    """Without "now", "current" or "latest", the query's own line ranks first
    (the newer line comes in only when asked what is true now)."""
    for text in ("Tutoring sessions: Tuesdays 17:00–18:00, online via Zoom.",
                 "Sessions moved to Wednesdays 16:30–17:30, in person at the main library."):
        either.write("lumen", "MEMORY.md", text, user="noah")
    found = texts(either.search("lumen", "tutoring on zoom", user="noah", limit=3))
    assert found[:1] == ["Tutoring sessions: Tuesdays 17:00–18:00, online via Zoom."], found


def test_a_newer_line_about_another_thing_of_the_same_name_is_no_change(either: Memory) -> None:
    """"New salary at Larkspur" says something new about Larkspur, but it
    changed no "new job at Larkspur": a name, or a word that says a change,
    shared is no link."""
    for text in ("Priya works as a product manager at Fernhill Insurance.",
                 "Priya started a new job at Larkspur Health as head of product.",
                 "New salary at Larkspur: £88,500."):
        either.write("ada", "MEMORY.md", text, user="priya")
    found = texts(either.search("ada", "Where does Priya work now?", user="priya", limit=3))
    assert found[:1] == ["Priya started a new job at Larkspur Health as head of product."], found


# -- a nineteenth pass: the newer version of a state, asked without "now" ---------------------
# (query, user, lines in the order written, the line that must come first).  A question about
# a state (not about the past) whose answer the pair wrote more than once in one file: the
# newest version first, though it lacks the asked word ("29.8 kg" for "weight"), says no "now"
# or the question none — and the older first where the newer is no version of it.
_SAYS_NEW = ("left alone: _same_subject moves a newer line that says it changed (\"new\", \"now\", "
             "\"moved\") and shares a long word (\"weight\", \"reunion\") above the older, the "
             "older's name dropped; _later_version itself says no (test_no_later_version_of_…)")
LATER_VERSIONS = [
    # the same measure again, in the same unit, of the same named thing
    ("Rex's weight", "kai", ["Rex's weight at the spring check: 31.5 kg, diet started.",
                             "Rex weighed in at 29.8 kg in July – the diet is working."], 1),
    ("how many hens does Ada keep?", "ada", ["Ada keeps 6 hens in the back garden.",
                                             "Now 8 hens: two pullets joined the flock in April."], 1),
    ("What dose of levothyroxine is Hannes on?", "hannes",
     ["Hannes takes levothyroxine 50 µg every morning.",
      "Levothyroxine raised to 75 µg after the March blood test."], 1),
    ("disk usage alert threshold", "ops", ["Disk usage alert fires at 80 %.",
                                           "Raised the disk alert to 90 % – 80 was too noisy."], 1),
    ("Wie viel wiegt Rex?", "kai", ["Rex wiegt 31,5 kg (Kontrolle Frühjahr).",
                                    "Rex jetzt 29,8 kg, Diät schlägt an."], 1),
    ("How much insulin does Mochi get?", "kai", ["Mochi gets 4 IU of insulin twice daily.",
                                                 "Mochi switched to ProZinc, 3.5 IU twice a day."], 1),
    ("Wie hoch ist die Miete?", "mo", ["Miete: 950 € warm, fällig am 3. des Monats.",
                                       "Vermieter erhöht ab Mai auf 1.020 € warm."], 1),
    # a value that changed, in a line that holds the asked word and shares another
    ("Where is the reunion?", "mo", ["Class reunion on 14 March at the Old Mill pub.",
                                     "Reunion venue changed – now at the rowing club, still 14 March."],
     1),
    ("Wo ist die Weihnachtsfeier?", "mo",
     ["Weihnachtsfeier am 12.12. im Ratskeller.",
      "Weihnachtsfeier verlegt: jetzt im Bootshaus, Datum bleibt 12.12."], 1),
    # a later year of the date asked for
    ("Wann ist die nächste Inspektion fällig?", "mo",
     ["Auto: Inspektion gemacht am 10.04.2025, nächste fällig im April 2026.",
      "Inspektion am 08.04.2026 erledigt, nächste fällig 04/2027."], 1),
    # look-alikes: the older stays first
    pytest.param("Rex's weight", "kai", ["Rex's weight: 31.5 kg at the spring check.",  # another dog
                                         "Mia's weight: 28 kg, new food since May."], 0,
                 marks=pytest.mark.xfail(strict=True, reason=_SAYS_NEW)),
    pytest.param("how much does Sam weigh?", "sam", ["Sam weighs 82 kg.",  # another person
                                                     "Lena now weighs 61 kg."], 0,
                 marks=pytest.mark.xfail(strict=True, reason=_SAYS_NEW)),
    ("how many hens does Ada keep?", "ada", ["Ada keeps 6 hens in the back garden.",
                                             "The neighbours now have 7 hens too."], 0),
    ("Rex's weight", "kai", ["Rex's weight: 31.5 kg.",  # another measure, in the same unit
                             "Rex's new food bag: 12 kg, grain-free."], 0),
    ("Rex's food", "kai", ["Rex's food: 300 g twice a day.",  # another measure, a like size
                           "Rex's treats: 250 g a week."], 0),
    pytest.param("Where is the reunion?", "mo", ["Class reunion on 14 March at the Old Mill pub.",
                                                 "Hotel booking moved to the 15th, after the reunion."],
                 0, marks=pytest.mark.xfail(strict=True, reason=_SAYS_NEW)),
    ("Wann ist die nächste Inspektion fällig?", "mo", ["Auto: Inspektion fällig im April 2026.",
                                                       "TÜV beim Motorrad fällig 2027."], 0),
    # asked about the past: the older is the answer
    ("What was Rex's weight at the spring check?", "kai",
     ["Rex's weight at the spring check: 31.5 kg, diet started.",
      "Rex weighed in at 29.8 kg in July – the diet is working."], 0),
    ("Wie war das Gewicht von Rex früher?", "kai", ["Gewicht Rex: 31,5 kg (Frühjahr).",
                                                    "Rex jetzt 29,8 kg, Diät schlägt an."], 0),
]


@pytest.mark.parametrize(("query", "user", "lines", "first"), LATER_VERSIONS)
def test_asked_for_a_state_the_newer_version_comes_first(
        either: Memory, query: str, user: str, lines: list[str], first: int) -> None:
    """blind5: "Bruno 49,0 kg" ranked below the older "Gewicht Bruno 51,2 kg",
    "Now 5 colonies" below "Apiary: 4 colonies", "Venue changed – the wedding
    is now at …" below the first venue: nothing asked for "now", and the
    newer lacked the asked word or said no change.  A later version of the
    same measure (unit, size) of the same named thing, a changed value with
    a word in common, or a later year of the date asked for ranks above the
    older — not another's, another measure's, nor when the past is asked."""
    for text in ("Prefers calls after 10.", lines[0], "Pays by bank transfer.", lines[1]):
        either.write("atlas", "MEMORY.md", text, user=user)
    found = texts(either.search("atlas", query, user=user, limit=4))
    assert found[:1] == [lines[first]], found


def test_asked_for_now_the_same_measure_again_comes_in_without_the_asked_word(
        lexical: Memory) -> None:
    """The newer weight lacks "weight" (words only do not find it): asked for
    the current weight, the newer line of the file that gives the same
    measure of the same dog comes in, above the one it replaced."""
    for text in ("Rex's weight at the spring check: 31.5 kg, diet started.",
                 "Rex is afraid of the exam table.", "Rex: 29.8 kg at the July weigh-in, diet working.",
                 "Rex's owner prefers calls in the afternoon."):
        lexical.write("atlas", "MEMORY.md", text, user="kai")
    found = texts(lexical.search("atlas", "Rex current weight", user="kai", limit=3))
    assert found[:2] == ["Rex: 29.8 kg at the July weigh-in, diet working.",
                         "Rex's weight at the spring check: 31.5 kg, diet started."], found


def test_a_quantity_is_read_with_its_unit() -> None:
    from kairos.agent.search import _asks_past, _measures, _same_measure
    assert _measures("Gewicht Bruno 51,2 kg – zu schwer! Ziel 46 kg") == (("kg", 51.2), ("kg", 46.0))
    assert _measures("€0.14/word, 3 IU BID, 135°, 12/day") == (
        ("iu", 3.0), ("°", 135.0), ("/day", 12.0), ("€", 0.14))
    assert _measures("am 12.03.2023 um 7:30 Uhr, 10 Uhr, mix 3:2") == ()  # dates and times
    assert _measures("ab Mai 1.020 € warm, €2,400 total") == (("€", 1020.0), ("€", 2400.0))
    assert _same_measure("4 colonies", "Now 5 colonies")
    assert not _same_measure("31 kg", "12 kg")  # a weight and a bag of food
    assert not _same_measure("31 kg", "31 cm")
    assert _asks_past("What was Rex's weight?") and _asks_past("Wo hat sie früher gewohnt?")
    assert not _asks_past("Was macht Emil für Sport?")  # German "was" is "what"
    assert not _asks_past("how old is Rex?")


@pytest.mark.parametrize(("old", "new", "query"), [
    ("Rex's weight: 31.5 kg at the spring check.", "Mia's weight: 28 kg, new food since May.",
     "Rex's weight"),
    ("Sam weighs 82 kg.", "Lena now weighs 61 kg.", "how much does Sam weigh?"),
    ("Class reunion on 14 March at the Old Mill pub.",
     "Hotel booking moved to the 15th, after the reunion.", "Where is the reunion?"),
])
def test_no_later_version_of_another_subject(old: str, new: str, query: str) -> None:
    """Another dog's weight, another person's, a change of something else
    beside the asked word: no later version of the older line (the three
    look-alikes the older rule still moves, marked xfail above)."""
    from kairos.agent.search import WORD, _Asked, _later_version
    asked = words_of(query)
    names = {_stem(w.casefold()) for w in WORD.findall(query) if w[0].isupper()}
    assert not _later_version(old, new, _Asked.of(asked, names, asked, _stem("sam")))
