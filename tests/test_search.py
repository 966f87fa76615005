"""Search: what the agent asks for, it finds — ranked — and nothing it must
not see.  Every test runs on SQLite and PostgreSQL (the ``mem`` fixtures)."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from freezegun import freeze_time
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kairos.agent.tools import ToolExecutor
from kairos.memory import Memory
from kairos.projections.embedders import Guarded, WordLlamaEmbedder
from tests.conftest import SEALED, Kairos, home_with, texts
from tests.llm_server import LLMServer, embeddings


# -- words ----------------------------------------------------------------------------------
def test_words_are_found_stemmed_by_prefix_and_as_compound_parts(lexical: Memory) -> None:
    m = lexical
    m.write("ada", "MEMORY.md", "The weekly meeting moved to Monday.", user="sam")
    m.write("ada", "MEMORY.md", "Sam prefers green teas.", user="sam")
    m.write("ada", "MEMORY.md", "Sam likes steamed buns.", user="sam")
    m.write("ada", "MEMORY.md", "Sam's preference is window seats.", user="sam")
    m.write("ada", "MEMORY.md", "Sam works at Northwind Labs.", user="sam")
    m.write("ada", "USER.md", "Zahnarzttermin bei Dr. Albers am 7. Oktober.", user="lena")
    m.write("ada", "USER.md", "Lena singt im Kirchenchor.", user="lena")
    assert texts(m.search("ada", "meetings", user="sam"))[0] == "The weekly meeting moved to Monday."
    assert texts(m.search("ada", "tea", user="sam")) == ["Sam prefers green teas."]  # not "steamed"
    assert texts(m.search("ada", "teas", user="sam")) == ["Sam prefers green teas."]
    assert texts(m.search("ada", "Where does Sam work?", user="sam"))[0] == \
        "Sam works at Northwind Labs."
    assert "Sam's preference is window seats." in texts(
        m.search("ada", "what does Sam prefer", user="sam"))[:2]
    assert texts(m.search("ada", "Zahnarzt", user="lena"))[0].startswith("Zahnarzttermin")
    assert texts(m.search("ada", "Chor", user="lena")) == ["Lena singt im Kirchenchor."]
    found = m.search("ada", "meeting", user="sam")
    assert found.mode == "lexical" and found.note is None


def test_results_carry_file_where_time_events_and_score(lexical: Memory) -> None:
    m = lexical
    with freeze_time("2026-10-01T09:00:00Z"):
        w = m.write("ada", "topics/travel.md", "Sam flies to Lisbon in May.", user="sam")
    with freeze_time("2026-10-02T09:00:00Z"):
        s = m.end_session("ada", "sam", notes="Talked about Lisbon hotels. " + "x " * 200)
    hits = m.search("ada", "Lisbon", user="sam")
    by_where = {h.where: h for h in hits}
    topic = by_where["topic"]
    assert (topic.file, topic.recorded_at, topic.event_ids) == (
        "topics/travel.md", "2026-10-01T09:00:00.000000Z", (w.event_id,))
    note = by_where["history"]
    assert note.event_ids == (s.event_id,) and note.file is None
    assert len(note.text) <= 300 and note.text.endswith("…") and "Lisbon" in note.text
    assert hits[0].score >= hits[1].score > 0
    assert set(hits[0].to_dict()) == {"text", "file", "where", "recorded_at", "event_ids", "score"}


# -- ranking ---------------------------------------------------------------------------------
def test_newer_ranks_ahead_of_older_and_current_ahead_of_history(lexical: Memory) -> None:
    m = lexical
    with freeze_time("2026-10-01T09:00:00Z"):
        m.write("ada", "MEMORY.md", "Sam likes black tea.", user="sam")
    with freeze_time("2026-10-02T09:00:00Z"):
        m.write("ada", "MEMORY.md", "Sam likes green tea.", user="sam")
    assert texts(m.search("ada", "tea", user="sam")) == ["Sam likes green tea.",
                                                        "Sam likes black tea."]
    with freeze_time("2026-10-03T09:00:00Z"):
        m.end_session("ada", "sam", notes="Sam likes white tea.")
    hits = m.search("ada", "tea", user="sam")
    # The session note is newest, but equal in relevance to current lines: they go first.
    assert [h.where for h in hits] == ["current", "current", "history"]


def test_the_superseded_side_of_an_update_ranks_below_its_replacement(lexical: Memory) -> None:
    m = lexical
    with freeze_time("2026-10-01T09:00:00Z"):
        m.write("ada", "USER.md", "Sam lives in Oslo, in the Grünerløkka district.", user="sam")
    with freeze_time("2026-10-05T09:00:00Z"):
        m.write("ada", "USER.md", "Sam lives in Bergen now.", user="sam", mode="replace")
    hits = m.search("ada", "Where does Sam live? Oslo Grünerløkka Bergen", user="sam")
    assert texts(hits)[:2] == ["Sam lives in Bergen now.",
                               "Sam lives in Oslo, in the Grünerløkka district."]
    assert [h.where for h in hits[:2]] == ["current", "history"]


@pytest.mark.parametrize(("older", "newer", "query"), [
    ("Tom's day rate is £450.", "Tom raised his day rate to £500 from October.", "Tom's day rate"),
    ("The Atlas daily standup is at 09:45 in the Fjord room.",
     "The Atlas standup moved to 10:15 so it respects Sam's rule.", "standup time"),
    ("Omar takes metformin 500 mg twice a day with meals.",
     "Omar's doctor increased metformin to 1000 mg twice a day.", "metformin dose"),
])
def test_an_update_appended_beside_the_fact_it_updates_ranks_first(
        lexical: Memory, older: str, newer: str, query: str) -> None:
    """Both stay lines of the file (an append does not replace): the newer
    one, about the same thing, comes first — what is true now."""
    m = lexical
    user = "sam"
    with freeze_time("2026-09-01T09:00:00Z"):
        m.write("ada", "MEMORY.md", older, user=user)
        for other in ("Sam's cat is called Miso.", "Sam reads before bed.",
                      "Sam is allergic to penicillin.", "Tom lives in Leeds with Omar."):
            m.write("ada", "MEMORY.md", other, user=user)
    with freeze_time("2026-10-01T09:00:00Z"):
        m.write("ada", "MEMORY.md", newer, user=user)
    assert texts(m.search("ada", query, user=user))[:2] == [newer, older]


def test_one_word_in_common_does_not_make_a_newer_fact_an_update(lexical: Memory) -> None:
    m = lexical
    with freeze_time("2026-09-01T09:00:00Z"):
        m.write("ada", "MEMORY.md", "Sam's phone is an iPhone 13 with a cracked screen.", user="sam")
    with freeze_time("2026-10-01T09:00:00Z"):
        m.write("ada", "MEMORY.md", "Miso's vet is Dyreklinikken, phone 55 20 30 40.", user="sam")
    assert texts(m.search("ada", "Sam phone iPhone", user="sam"))[0] == \
        "Sam's phone is an iPhone 13 with a cracked screen."


# -- nothing it must not see --------------------------------------------------------------------
def test_retracted_text_is_never_returned_but_the_auditor_sees_it_marked(
        mem: Memory, home: Path, db_url: str) -> None:
    smokes = mem.write("ada", "MEMORY.md", "Sam smokes.", user="sam")
    mem.write("ada", "MEMORY.md", "Sam runs marathons.", user="sam")
    mem.retract("ada", "MEMORY.md", [smokes.event_id], user="sam", reason="wrong person")
    for query in ("smokes", "Sam smokes", "smoking habits"):
        assert "Sam smokes." not in texts(mem.search("ada", query, user="sam", limit=100))
        tool = ToolExecutor(mem, "ada", "sam").run("memory_search", {"query": query, "limit": 50})
        assert "Sam smokes." not in [h["text"] for h in tool["results"]]
    audit = mem.search("ada", "smokes", user="sam", include_retracted=True)
    marked = [h for h in audit if h.text == "Sam smokes."]
    assert marked and marked[0].retracted is True and marked[0].where == "history"
    mem.close()
    k = Kairos(home, db_url)
    out = k("search", "--agent", "ada", "--user", "sam", "--json", "smokes")
    assert "Sam smokes." not in out.output
    out = k("search", "--agent", "ada", "--user", "sam", "--include-retracted", "smokes")
    assert "Sam smokes. [retracted]" in out.output


IDS = st.sampled_from(["ada", "max", "iris", "a.b", "x-1"])
USERS = st.sampled_from(["sam", "lena", "kim", "u@x.org", "tom"])
WORDS = st.lists(st.sampled_from(["tea", "coffee", "Oslo", "dentist", "Zahnarzt", "meeting",
                                  "歯医者", "secret", "plan", "cat"]), min_size=1, max_size=4)


@settings(max_examples=12, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(writes=st.lists(st.tuples(IDS, st.none() | USERS, WORDS), min_size=1, max_size=8),
       queries=st.lists(st.tuples(IDS, st.none() | USERS, WORDS), min_size=1, max_size=4))
def test_no_search_returns_another_pairs_text(mem: Memory, writes: list[Any],
                                              queries: list[Any]) -> None:
    """Property: whatever was written where, a search for (agent, user) only
    returns text written to that agent's own files or that pair's."""
    stamp = f"{time.monotonic_ns()}"  # this example's texts, apart from earlier examples'
    owner: dict[str, tuple[str, str | None]] = {}
    for n, (agent, user, words) in enumerate(writes):
        text = f"{' '.join(words)} {stamp}-{n}"
        mem.write(agent, "MEMORY.md" if user else "TOOLS.md", text, user=user)
        owner[text] = (agent, user)
    if len(writes) > 1:  # a session's notes are history too
        agent, user, words = writes[0]
        if user is not None:
            notes = f"{' '.join(words)} notes {stamp}"
            mem.end_session(agent, user, notes=notes)
            owner[notes] = (agent, user)
    for agent, user, words in queries:
        for query in (" ".join(words), f"{words[0]} {stamp}"):
            for hit in mem.search(agent, query, user=user, limit=100):
                if stamp not in hit.text:
                    continue
                who = owner.get(hit.text) or next(o for t, o in owner.items() if hit.text in t)
                assert who[0] == agent and who[1] in (None, user), (hit, who, agent, user)


# -- the index is the read side's ----------------------------------------------------------------
def test_rebuild_gives_the_same_results_and_does_not_embed_again(
        mem: Memory, home: Path, db_url: str) -> None:
    calls: list[int] = []

    class Counting(WordLlamaEmbedder):
        def embed(self, texts: list[str]) -> Any:
            calls.append(len(texts))
            return super().embed(texts)

    mem.close()
    m = Memory(str(home), db_url)
    m.embedder = m.engine.embedder = m._search.embedder = Guarded(Counting())
    for n in range(30):
        m.write("ada", "MEMORY.md", f"fact {n}: Sam likes item {n * 7 % 13}", user="sam",
                mode="replace" if n % 10 == 0 else "append")
    m.end_session("ada", "sam", notes="Sam asked about the dentist.")
    m.flush()
    m.engine.embed()
    before = [h.to_dict() for h in m.search("ada", "dentist item 3", user="sam", limit=20)]
    assert m.search("ada", "dentist", user="sam").mode == "hybrid"
    embedded = sum(calls)
    assert embedded >= 31
    report = m.rebuild()
    assert report.events > 30
    m.engine.embed()
    after = [h.to_dict() for h in m.search("ada", "dentist item 3", user="sam", limit=20)]
    assert after == before
    assert sum(calls) == embedded + 1  # the query, nothing else
    m.close()


@pytest.mark.skipif(SEALED, reason="a home made before search never had a sealed read model")
def test_a_home_made_before_search_gets_lines_and_history_indexed_when_migrated(
        lexical: Memory) -> None:
    lexical.write("ada", "MEMORY.md", "Sam plays the oboe.", user="sam")
    lexical.end_session("ada", "sam", notes="Oboe lessons on Fridays.")
    lexical.flush()
    from kairos.projections.schema import lines_table, migrations_table, vectors_table
    from kairos.projections.search import drop_fts

    readmodel = lexical.engine.readmodel
    with readmodel.engine.begin() as conn:  # back to the read model before search
        drop_fts(conn)
        lines_table.drop(conn)
        vectors_table.drop(conn)
        conn.execute(migrations_table.delete().where(migrations_table.c.name == "m004_search"))
    assert readmodel.migrate() == ["m004_search"]
    found = lexical.search("ada", "oboe", user="sam")
    assert sorted(h.where for h in found) == ["current", "history"]
    assert lexical.verify().ok
    assert readmodel.migrate() == []


def test_verify_checks_the_search_index_against_the_read_model(lexical: Memory) -> None:
    lexical.write("ada", "MEMORY.md", "Sam plays the oboe.", user="sam")
    lexical.end_session("ada", "sam", notes="Oboe lessons on Fridays.")
    lexical.flush()
    assert lexical.verify().ok
    with lexical.engine.readmodel.engine.begin() as conn:
        conn.exec_driver_sql("DELETE FROM memory_lines")
    problems = [str(p) for p in lexical.verify().problems]
    assert any("search index" in p and "kairos rebuild" in p for p in problems)
    lexical.rebuild()
    assert lexical.verify().ok


ZEDS_FIRST = "(SELECT min(id) FROM memory_lines WHERE user_id = 'zed')"  # its text may be sealed


@pytest.mark.parametrize("tamper", [
    f"UPDATE memory_lines SET sources = 'e0' WHERE id = {ZEDS_FIRST}",
    f"UPDATE memory_lines SET file = 'topics/x.md' WHERE id = {ZEDS_FIRST}",
    f"UPDATE memory_lines SET user_id = 'zoe' WHERE id = {ZEDS_FIRST}"])
def test_verify_compares_each_files_lines_and_names_the_file(lexical: Memory, tamper: str) -> None:
    """File by file, as both tables stream in one order (bounded memory):
    a line that cites other events, moved to a file the pair does not have,
    or to a pair that has no such file is found, and its file named."""
    for user, line in (("amy", "Amy plays the oboe."), ("zed", "Zed plays the drums."),
                       ("zed", "Zed sings."), ("bob", "Bob plays chess.")):
        lexical.write("ada", "MEMORY.md", line, user=user)
    lexical.flush()
    assert lexical.verify().ok
    with lexical.engine.readmodel.engine.begin() as conn:
        conn.exec_driver_sql(tamper)
    problems = [str(p) for p in lexical.verify().problems]
    assert any("search index: ada/" in p and "kairos rebuild" in p for p in problems), problems
    lexical.rebuild()
    assert lexical.verify().ok


def test_semantic_hits_below_the_similarity_floor_are_not_returned(
        home: Path, db_url: str) -> None:
    lines = ["Sam prefers window seats on flights.", "Sam's dentist is Dr. Berg.",
             "Sam drinks green tea every afternoon.", "Sam works as a product designer in Oslo."]
    m = home_with(home, db_url, 'embeddings = "wordllama"')
    try:
        for line in lines:
            m.write("ada", "MEMORY.md", line, user="sam")
        m.flush()
        m.engine.embed()
        # Nothing the pair holds is about this, and no word matches: nothing.
        found = m.search("ada", "quantum chromodynamics lattice gauge", user="sam")
        assert found.mode == "hybrid" and texts(found) == []
        # Related by meaning only (no shared word): above the floor, found.
        near = m.search("ada", "where to sit on a plane", user="sam")
        assert texts(near)[:1] == ["Sam prefers window seats on flights."]
    finally:
        m.close()
    # The floor is what kept them out: without one the nearest lines come back.
    (home / "kairos.toml").write_text('[search]\nembeddings = "wordllama"\nmin_similarity = -1\n',
                                      encoding="utf-8")
    m = Memory(str(home), db_url)
    try:
        assert m.search("ada", "quantum chromodynamics lattice gauge", user="sam").hits
    finally:
        m.close()


def test_a_read_only_open_searches_by_meaning_and_stores_nothing(home: Path, db_url: str) -> None:
    """An auditor's read-only open embeds what the cache lacks for itself:
    the search works, by meaning too, and the home's vector cache is as it was."""
    from sqlalchemy import func, select

    from kairos.projections.schema import vectors_table

    m = home_with(home, db_url, 'embeddings = "off"')  # written unembedded
    try:
        m.write("ada", "MEMORY.md", "Sam prefers window seats on flights.", user="sam")
        m.write("ada", "MEMORY.md", "Sam drinks green tea every afternoon.", user="sam")
    finally:
        m.close()
    (home / "kairos.toml").write_text('[search]\nembeddings = "wordllama"\n', encoding="utf-8")

    def cached() -> int:
        with Memory(str(home), db_url, read_only=True) as ro:
            with ro.engine.readmodel.engine.connect() as conn:
                return int(conn.scalar(select(func.count()).select_from(vectors_table)) or 0)

    assert cached() == 0
    with Memory(str(home), db_url, read_only=True) as ro:
        found = ro.search("ada", "where to sit on a plane", user="sam")
        assert found.mode == "hybrid" and found.note is None
        assert texts(found)[:1] == ["Sam prefers window seats on flights."]
        assert texts(ro.search("ada", "tea", user="sam")) == ["Sam drinks green tea every afternoon."]
    assert cached() == 0


def test_a_line_that_left_its_file_is_found_by_meaning_as_history_only(
        home: Path, db_url: str) -> None:
    """The semantic side keeps a pair's line vectors between searches: once
    a replace took a line out of its file, a search by meaning finds its
    text as history, never as a current line."""
    m = home_with(home, db_url, 'embeddings = "wordllama"')
    try:
        m.write("ada", "MEMORY.md", "Sam prefers window seats on flights.", user="sam")
        m.write("ada", "MEMORY.md", "Sam drinks green tea every afternoon.", user="sam")
        before = m.search("ada", "where to sit on a plane", user="sam")
        assert [(h.text, h.where) for h in before.hits][:1] == [
            ("Sam prefers window seats on flights.", "current")]
        m.write("ada", "MEMORY.md", "Sam drinks green tea every afternoon.", user="sam",
                mode="replace")
        after = m.search("ada", "where to sit on a plane", user="sam")
        assert {h.where for h in after.hits if "window" in h.text} == {"history"}
        replaced = m.history("ada", user="sam")[-1]["event_id"]
        m.retract("ada", "MEMORY.md", [replaced], user="sam", reason="asked to")
        assert m.read("ada", "MEMORY.md", user="sam").content is None  # no lines left
        empty = m.search("ada", "afternoon tea", user="sam")
        assert empty.hits and {h.where for h in empty.hits} == {"history"}
    finally:
        m.close()


# -- embeddings over HTTP ------------------------------------------------------------------------
@pytest.fixture
def server() -> Iterator[LLMServer]:
    with LLMServer() as s:
        yield s


def ok(body: dict[str, Any]) -> tuple[int, Any, float]:
    return 200, embeddings(list(body["input"])), 0.0


def test_a_litellm_embedder_over_http_serves_search_and_its_failures_fall_back_to_lexical(
        home: Path, db_url: str, server: LLMServer, monkeypatch: pytest.MonkeyPatch) -> None:
    """With the background follower embedding what is written: an embedder
    that answers serves search; one that fails never fails a write, and
    search falls back to words and says why."""
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    m = home_with(home, db_url, f'embeddings = "openai/test-embed"\napi_base = "{server.api_base}"'
                               '\ntimeout = 1\nretry_after = 2')
    try:
        server.replies = [ok] * 20
        m.write("ada", "MEMORY.md", "Sam prefers window seats on flights.", user="sam")
        m.write("ada", "MEMORY.md", "Sam's dentist is Dr. Berg.", user="sam")
        m.flush()
        found = m.search("ada", "window flights", user="sam")
        assert found.mode == "hybrid" and found.note is None
        assert found[0].text == "Sam prefers window seats on flights."
        assert any(r.get("input") for r in server.requests)
        # An HTTP error: the write still succeeds; search says it fell back.
        server.replies = [lambda b: (500, {"error": {"message": "overloaded"}}, 0.0)] * 20
        m.write("ada", "MEMORY.md", "Sam moved to Bergen.", user="sam")
        m.flush()
        m.engine.embed()  # the follower's embedding round, waited for: it fails
        found = m.search("ada", "Bergen", user="sam")
        assert found.mode == "lexical" and "unavailable" in (found.note or "")
        assert texts(found) == ["Sam moved to Bergen."]
    finally:
        m.close()


def test_a_failing_embedder_rests_and_a_timeout_bounds_the_search(
        home: Path, db_url: str, server: LLMServer, monkeypatch: pytest.MonkeyPatch) -> None:
    """After a failure the embedder rests (no request, no wait) for
    ``retry_after``; a hung server costs a search the ``timeout`` once; then
    it is tried again.  No background thread here, so every request the
    server sees is a search's own."""
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    home_with(home, db_url, f'embeddings = "openai/test-embed"\napi_base = "{server.api_base}"'
                            '\ntimeout = 1\nretry_after = 2').close()
    m = Memory(str(home), db_url, follow=False)
    try:
        server.replies = [ok] * 20
        m.write("ada", "MEMORY.md", "Sam prefers window seats on flights.", user="sam")
        m.write("ada", "MEMORY.md", "Sam's dentist is Dr. Berg.", user="sam")
        assert m.search("ada", "window flights", user="sam").mode == "hybrid"
        server.replies = [lambda b: (500, {"error": {"message": "overloaded"}}, 0.0)] * 20
        m.write("ada", "MEMORY.md", "Sam moved to Bergen.", user="sam")
        asked = len(server.requests)
        found = m.search("ada", "Bergen", user="sam")
        assert found.mode == "lexical" and "overloaded" in (found.note or "")
        assert [r["input"] for r in server.requests[asked:]] == [["Bergen"]]
        asked = len(server.requests)
        t = time.monotonic()
        again = m.search("ada", "Bergen", user="sam")
        assert again.mode == "lexical" and "unavailable" in (again.note or "")
        assert texts(again) == ["Sam moved to Bergen."]
        assert len(server.requests) == asked  # resting: no request,
        assert time.monotonic() - t < 1  # and no wait
        # A timeout: the setting (1 s) bounds the search — one request, no
        # retries behind it (litellm's would make it ~4.5 s) — then the same fallback.
        time.sleep(2.1)
        server.replies = [lambda b: (200, embeddings(list(b["input"])), 12.0)] * 5
        asked = len(server.requests)
        t = time.monotonic()
        found = m.search("ada", "dentist", user="sam")
        took = time.monotonic() - t
        assert found.mode == "lexical" and "unavailable" in (found.note or "")
        assert "timed out" in (found.note or "").lower()
        assert texts(found) == ["Sam's dentist is Dr. Berg."]
        assert took < 1 + 1.0, took
        assert [r["input"] for r in server.requests[asked:]] == [["dentist"]]
        # Back up: retried after the rest, and the missed lines get embedded.
        time.sleep(2.1)
        server.replies = [ok] * 20
        found = m.search("ada", "Bergen", user="sam")
        assert found.mode == "hybrid" and found[0].text == "Sam moved to Bergen."
        assert ["Sam moved to Bergen."] in [r["input"] for r in server.requests[asked + 1:]]
    finally:
        m.close()


# -- the command line ------------------------------------------------------------------------------
def test_the_cli_searches_with_filters_and_json(kairos: Kairos, mem: Memory) -> None:
    with freeze_time("2026-10-01T09:00:00Z"):
        mem.write("ada", "MEMORY.md", "Sam drinks green tea.", user="sam")
    with freeze_time("2026-10-05T09:00:00Z"):
        mem.write("ada", "USER.md", "Sam drinks tea at 4pm.", user="sam")
    mem.close()
    out = kairos("search", "--agent", "ada", "--user", "sam", "--json", "tea")
    assert out.exit_code == 0
    data = json.loads(out.output)
    assert {r["text"] for r in data["results"]} >= {"Sam drinks green tea.", "Sam drinks tea at 4pm."}
    out = kairos("search", "-a", "ada", "-u", "sam", "--file", "USER.md", "--json", "tea")
    assert [r["file"] for r in json.loads(out.output)["results"]] == ["USER.md"]
    out = kairos("search", "-a", "ada", "-u", "sam", "--since", "2026-10-03", "--json", "tea")
    assert [r["text"] for r in json.loads(out.output)["results"]] == ["Sam drinks tea at 4pm."]
    out = kairos("search", "-a", "ada", "-u", "sam", "-n", "1", "tea")
    assert out.exit_code == 0 and out.output.count("events:") == 1
    bad = kairos("search", "-a", "ada", "-u", "sam", "?!")
    assert bad.exit_code == 2 and "no words" in bad.output


def test_the_floor_is_lower_when_the_words_found_something() -> None:
    """The semantic floor keeps a question about nothing the pair holds
    silent; once the query's words found something, paraphrases of it get in
    at a lower cosine (WORDS_FOUND of the floor), and noise below that not."""
    from kairos.agent.search import WORDS_FOUND, Search
    from kairos.ports import Doc, SearchScope

    def doc(key: int, text: str, score: float = 0.0) -> Doc:
        return Doc(key=key, text=text, file="MEMORY.md", kind="history",
                   recorded_at="2026-10-01T09:00:00.000000Z", position=key,
                   event_ids=(f"e{key}",), score=score, type="MemoryWritten")

    floor = 0.25
    near = floor * (WORDS_FOUND + 1) / 2  # between the two floors
    far = floor * WORDS_FOUND / 2  # below both

    class Index:
        def __init__(self, words_hit: bool) -> None:
            self.words_hit = words_hit

        def now(self) -> Index:
            return self

        def lexical(self, scope: SearchScope, words: list[str], depth: int) -> list[Doc]:
            return [doc(1, "Incident INC-2291: Priya owns the postmortem.", 3.0)] \
                if self.words_hit else []

        def substring(self, scope: SearchScope, words: list[str], depth: int) -> list[Doc]:
            # The companion's n-grams match pieces of unrelated words: a
            # hit of its own must not lower the floor.
            return [doc(4, "Sam is happy with his new job.", 1.0)]

        def lines(self, scope: SearchScope) -> list[Doc]:
            return [doc(1, "Incident INC-2291: Priya owns the postmortem."),
                    doc(2, "Duplicate refunds went out on 2 October."),
                    doc(3, "Priya cycles to work.")]

        def nearest(self, scope: SearchScope, embedder: Any, vector: Any,
                    depth: int) -> tuple[list[Doc], int]:
            return [doc(2, "Duplicate refunds went out on 2 October.", near),
                    doc(3, "Priya cycles to work.", far)], 0

    class Embedder:
        model = "fake"

        def embed(self, texts: list[str]) -> list[list[float]]:
            return [[1.0] for _ in texts]

    with_words = Search(Index(True), Embedder(), min_similarity=floor)  # type: ignore[arg-type]
    assert sorted(texts(with_words.search("ada", "Priya incident outage", user="sam"))) == [
        "Duplicate refunds went out on 2 October.", "Incident INC-2291: Priya owns the postmortem.",
        "Sam is happy with his new job."]
    without = Search(Index(False), Embedder(), min_similarity=floor)  # type: ignore[arg-type]
    assert texts(without.search("ada", "what happened in production", user="sam")) == [
        "Sam is happy with his new job."]  # the companion's own hit, and no semantic one
