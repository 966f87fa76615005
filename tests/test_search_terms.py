"""The full-text index's words are tagged with their scope, so that a search
reads only its own pair's postings (kairos/projections/terms.py); compound
parts are found among a pair's own words.  The behaviour tests run on
SQLite and PostgreSQL; the index's layout is SQLite's."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from kairos.domain.ids import agent_stream_id, pair_stream_id
from kairos.memory import Memory
from kairos.ports import SearchScope
from kairos.projections import terms
from tests.conftest import home_with, texts


# -- the tags and words, as functions ---------------------------------------------------------
@given(st.text(min_size=1, max_size=12))
def test_a_tag_is_consonants_only_and_the_same_for_the_same_stream(user: str) -> None:
    stream = pair_stream_id("ada", user).hex
    t = terms.tag(stream)
    assert len(t) == terms.TAG_LENGTH and set(t) <= set(terms.TAG_LETTERS)
    assert not set(t) & set("aeiouy")  # the stemmer measures words by their vowels
    assert terms.tag(str(pair_stream_id("ada", user))) == t  # with dashes or without


def test_different_pairs_get_different_tags() -> None:
    tags = {terms.tag(pair_stream_id("ada", f"user{n}").hex) for n in range(2000)}
    assert len(tags) >= 1995  # 3.2 million tags: a clash is rare, and costs no leak


def test_words_are_folded_and_cjk_runs_cut_into_bigrams() -> None:
    assert terms.tokens("Sam's Weekly MEETING, 9:30") == ["sam", "s", "weekly", "meeting", "9", "30"]
    assert terms.tokens("Straße") == terms.tokens("STRASSE") == ["strasse"]
    assert terms.tokens("ｆｕｌｌ") == ["full"]  # NFKC: full-width letters
    assert terms.tokens("歯医者の予約は10月20日") == ["歯医", "医者", "者の", "の予", "予約", "約は",
                                                    "10", "月", "20", "日"]
    assert terms.tokens("e_mail") == ["e", "mail"]
    stream = agent_stream_id("ada").hex
    t = terms.tag(stream)
    assert terms.index_text("Ship it.", stream) == f"{t}ship {t}it"
    assert terms.index_text(None, stream) is None
    assert terms.index_text("…", stream) == ""


def test_a_query_looks_in_each_of_its_streams_with_prefixes_and_bigrams() -> None:
    a, b = agent_stream_id("ada").hex, pair_stream_id("ada", "sam").hex
    ta, tb = terms.tag(a), terms.tag(b)
    expression = terms.match(["zahnarzt", "tea", "歯医者", "歯"], [a, b])
    assert expression is not None
    parts = expression.split(" OR ")
    for t in (ta, tb):
        assert f'"{t}zahnarzt"' in parts and f'"{t}zahnarzt"*' in parts
        assert f'"{t}tea"' in parts and f'"{t}tea"*' not in parts  # three letters: no prefix
        assert f'"{t}歯医"' in parts and f'"{t}医者"' in parts
        assert f'"{t}歯"*' in parts  # a lone character: the bigrams it begins
    assert terms.match(["…"], [a]) is None


# -- the index, on SQLite -----------------------------------------------------------------------
def test_each_pairs_words_are_its_own_in_the_index(home: Path) -> None:
    m = Memory.init(str(home))
    try:
        m.write("ada", "MEMORY.md", "Sam has a dentist appointment.", user="sam")
        m.write("ada", "MEMORY.md", "Lena has a dentist appointment.", user="lena")
        m.write("ada", "SOUL.md", "Ada is patient.")
        m.flush()
        with m.engine.readmodel.engine.connect() as conn:
            vocabulary = [t for (t,) in conn.exec_driver_sql("SELECT term FROM memory_fts_terms")]
    finally:
        m.close()
    tags = {terms.tag(s.hex) for s in (pair_stream_id("ada", "sam"), pair_stream_id("ada", "lena"),
                                       agent_stream_id("ada"))}
    assert len(tags) == 3
    assert all(t[:terms.TAG_LENGTH] in tags for t in vocabulary)  # no word without its scope
    sam = terms.tag(pair_stream_id("ada", "sam").hex)
    lena = terms.tag(pair_stream_id("ada", "lena").hex)
    assert sam + "dentist" in vocabulary and lena + "dentist" in vocabulary


def test_a_home_indexed_before_the_tags_is_indexed_again_when_migrated(home: Path) -> None:
    m = Memory.init(str(home))
    try:
        m.write("ada", "MEMORY.md", "Sam plays the oboe.", user="sam")
        m.end_session("ada", "sam", notes="Oboe lessons on Fridays.")
        m.flush()
        from kairos.projections.schema import migrations_table
        readmodel = m.engine.readmodel
        with readmodel.engine.begin() as conn:  # the index as m004 made it: untagged
            for name in ("memory_fts_terms", "memory_fts_where", "memory_fts"):
                conn.exec_driver_sql(f"DROP TABLE {name}")
            conn.exec_driver_sql("CREATE VIRTUAL TABLE memory_fts USING fts5(body, scope, "
                                 "content='', tokenize='porter unicode61 remove_diacritics 2')")
            conn.execute(migrations_table.delete().where(
                migrations_table.c.name == "m005_scoped_terms"))
        assert readmodel.migrate() == ["m005_scoped_terms"]
        assert sorted(h.where for h in m.search("ada", "oboe", user="sam")) == \
            ["current", "history"]
        assert m.verify().ok
    finally:
        m.close()


# -- what a search finds, on both backends -----------------------------------------------------
def test_compound_parts_and_stems_are_found_among_the_pairs_own_words(lexical: Memory) -> None:
    m = lexical
    for text in ("Lena hat seit einem Skiunfall Knieprobleme links.",
                 "Wegen des Knies läuft Lena nur noch zweimal pro Woche.",
                 "Lena singt im Kirchenchor, geprobt wird mittwochs.",
                 "Lenas Zahnarzt ist Dr. Berg.",
                 "Sam replaced the iPhone with a Pixel 9."):
        m.write("ada", "MEMORY.md", text, user="lena" if "Lena" in text else "sam")
    m.write("ada", "MEMORY.md", "Kaffeemaschine und Knieschoner gekauft.", user="omar")
    found = texts(m.search("ada", "Knie", user="lena"))
    assert sorted(found) == ["Lena hat seit einem Skiunfall Knieprobleme links.",
                             "Wegen des Knies läuft Lena nur noch zweimal pro Woche."]
    assert texts(m.search("ada", "Chorprobe", user="lena"))[0].startswith("Lena singt")
    assert texts(m.search("ada", "Bergen", user="lena")) == []  # "Berg" is not Bergen's stem
    assert texts(m.search("ada", "smartphone", user="sam")) == \
        ["Sam replaced the iPhone with a Pixel 9."]
    assert texts(m.search("ada", "Kaffeemaschine", user="lena")) == []  # omar's, not lena's
    assert "Kaffeemaschine und Knieschoner gekauft." not in texts(
        m.search("ada", "Knieschoner", user="sam"))
    assert texts(m.search("ada", "Knieschoner", user="omar")) == [
        "Kaffeemaschine und Knieschoner gekauft."]


def test_cjk_text_is_found_by_words_inside_its_runs(lexical: Memory) -> None:
    m = lexical
    m.write("ada", "MEMORY.md", "歯医者の予約は10月20日の午後3時です。", user="yuki")
    m.write("ada", "MEMORY.md", "京都の紅葉を見に行く予定は11月下旬です。", user="yuki")
    m.write("ada", "MEMORY.md", "歯医者は駅前です。", user="kenji")
    assert texts(m.search("ada", "歯医者", user="yuki")) == ["歯医者の予約は10月20日の午後3時です。"]
    assert texts(m.search("ada", "紅葉", user="yuki")) == ["京都の紅葉を見に行く予定は11月下旬です。"]
    assert texts(m.search("ada", "歯", user="yuki")) == ["歯医者の予約は10月20日の午後3時です。"]
    assert texts(m.search("ada", "歯医者", user="kenji")) == ["歯医者は駅前です。"]


def test_prefixes_and_folded_spellings_stay_in_the_pair(lexical: Memory) -> None:
    m = lexical
    m.write("ada", "MEMORY.md", "Zahnarzttermin am Montag.", user="lena")
    m.write("ada", "MEMORY.md", "Sam lives on Hauptstraße 4.", user="sam")
    m.write("ada", "MEMORY.md", "Omar lives on Hauptstrasse 9.", user="omar")
    assert texts(m.search("ada", "Zahnarzt", user="lena")) == ["Zahnarzttermin am Montag."]
    assert texts(m.search("ada", "Zahnarzt", user="sam")) == []
    assert texts(m.search("ada", "hauptstrasse", user="sam")) == ["Sam lives on Hauptstraße 4."]
    assert texts(m.search("ada", "HAUPTSTRASSE", user="omar")) == ["Omar lives on Hauptstrasse 9."]


def test_filters_apply_after_ranking_without_losing_results(lexical: Memory) -> None:
    """The ranking asks FTS5 for the best rows first and filters them in
    SQL after: a filter that drops most of them still gets every match."""
    m = lexical
    for n in range(120):
        m.write("ada", "MEMORY.md", f"Budget review {n}.", user="sam")
    last = ("Budget review: after the long meeting with the whole finance team the final figure "
            "for the coming year is forty thousand, with travel and hardware cut by a third.")
    m.write("ada", "topics/budget.md", last, user="sam")
    found = m.search("ada", "budget review", user="sam", file="topics/budget.md", limit=5)
    assert texts(found) == [last]
    # The word ranking alone (not rescued by the companion): ranked below
    # 240 others, past the first rows it asks FTS5 for.
    scope = SearchScope("ada", "sam", "topics/budget.md", None, False)
    ranked = m.engine.search_index.lexical(scope, ["budget", "review"], 10)
    assert {d.text for d in ranked} == {last} and {d.kind for d in ranked} == {"current", "history"}
    retracted = m.write("ada", "MEMORY.md", "Budget review secret.", user="sam")
    m.retract("ada", "MEMORY.md", [retracted.event_id], user="sam", reason="wrong")
    assert all("secret" not in t for t in texts(m.search("ada", "budget", user="sam", limit=100)))


def test_the_lines_kept_write_by_write_are_the_lines_a_rebuild_derives(
        home: Path, db_url: str) -> None:
    """Appends take a shortcut (their lines are inserted without reading the
    file's others); replaces, retractions and mixed batches compare: either
    way the rows are the ones a rebuild derives from the events.  No
    follower: the batches are made by the flushes below, so appends,
    replaces and retractions of one file do share batches."""
    import random

    from kairos.projections.schema import lines_table

    home_with(home, db_url, 'embeddings = "off"').close()
    m = Memory(str(home), db_url, follow=False)
    rng = random.Random(12)
    written: list[str] = []
    for n in range(80):
        roll = rng.random()
        user = rng.choice(["sam", "lena"])
        if roll < 0.7:  # appends, often of a text the file already holds
            text = rng.choice(["Sam likes tea.", "Lena sings.", f"Note {n}.", "A\nB"])
            written.append(m.write("ada", "MEMORY.md", text, user=user).event_id)
        elif roll < 0.8:
            m.write("ada", "MEMORY.md", f"Fresh start {n}.\nSam likes tea.", user=user,
                    mode="replace")
        elif roll < 0.9 and written:
            eid = written.pop(rng.randrange(len(written)))
            try:
                m.retract("ada", "MEMORY.md", [eid], user=user, reason="test")
            except Exception:  # noqa: BLE001 - another pair's write, or gone already
                pass
        if rng.random() < 0.15:
            m.flush()  # batches of several writes, of every kind
    m.flush()

    def rows() -> list[tuple[Any, ...]]:
        with m.engine.readmodel.engine.connect() as conn:
            return sorted(tuple(r) for r in conn.execute(lines_table.select().with_only_columns(
                lines_table.c.agent_id, lines_table.c.user_id, lines_table.c.file,
                lines_table.c.text, lines_table.c.sources, lines_table.c.position,
                lines_table.c.recorded_at, lines_table.c.shared)))

    try:
        kept = rows()
        assert len(kept) > 10
        assert any(r[-1] for r in kept) and not all(r[-1] for r in kept)  # shared and not
        assert m.verify().ok  # the full-text index's rows, and each shared line's write
        if db_url.startswith("sqlite"):
            with m.engine.readmodel.engine.connect() as conn:
                conn.exec_driver_sql("INSERT INTO memory_fts(memory_fts) VALUES ('integrity-check')")
        m.rebuild()
        assert rows() == kept
    finally:
        m.close()


def test_a_rebuild_that_folds_stream_by_stream_derives_what_one_pass_does(
        home: Path, db_url: str) -> None:
    """A home with more files than a rebuild folds in one pass
    (``Indexer.fold_cap``) has its files folded stream by stream from a
    second read: the same files, rows and lines as the one pass, which are
    the ones the writes left.  Many streams, interleaved: two agents' own
    files, their pairs' files and topics; appends, replaces, retractions."""
    import random

    from kairos.projections.schema import files_table, lines_table

    home_with(home, db_url, 'embeddings = "off"').close()
    m = Memory(str(home), db_url, follow=False)
    rng = random.Random(20)
    written: dict[tuple[str, str | None, str], list[str]] = {}
    for n in range(160):
        agent, user = rng.choice(["ada", "bo"]), rng.choice(["sam", "lena", "kim", None])
        file = rng.choice(["TOOLS.md", "ABOUT.md"]) if user is None else \
            rng.choice(["MEMORY.md", "USER.md", "topics/work.md"])
        roll = rng.random()
        if roll < 0.75:
            text = rng.choice(["Sam likes tea.", f"Note {n}.", "A\nB", f"Line {n % 7}."])
            written.setdefault((agent, user, file), []).append(
                m.write(agent, file, text, user=user).event_id)
        elif roll < 0.87:
            m.write(agent, file, f"Fresh start {n}.\nSam likes tea.", user=user, mode="replace")
        elif written.get((agent, user, file)):
            ids = written[agent, user, file]
            m.retract(agent, file, [ids.pop(rng.randrange(len(ids)))], user=user, reason="test")
        if rng.random() < 0.2:
            m.flush()
    m.flush()

    def state() -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]], dict[str, str]]:
        with m.engine.readmodel.engine.connect() as conn:
            files = sorted(tuple(r) for r in conn.execute(files_table.select()))
            lines = sorted(tuple(r) for r in conn.execute(lines_table.select().with_only_columns(
                lines_table.c.agent_id, lines_table.c.user_id, lines_table.c.file,
                lines_table.c.text, lines_table.c.sources, lines_table.c.position,
                lines_table.c.recorded_at, lines_table.c.shared)))
        disk = {str(p.relative_to(home)): p.read_text() for p in sorted(home.rglob("*.md"))
                if "logs" not in p.parts}
        return files, lines, disk

    try:
        kept = state()
        assert len(kept[0]) > 20 and len(kept[1]) > 50 and len(kept[2]) > 20
        m.rebuild()
        assert state() == kept
        m.engine.indexer.fold_cap = 3  # past three files: folded stream by stream
        read_by_stream, streams = m.engine.store.read_bulk_by_stream, []

        def counted() -> Any:
            for r in read_by_stream():
                streams.append(r.event.originator_id)
                yield r
        m.engine.store.read_bulk_by_stream = counted  # type: ignore[method-assign]
        report = m.rebuild()
        assert state() == kept
        assert len(set(streams)) == 8 and streams == sorted(streams, key=streams.index)
        assert report.events == m.engine.store.max_position() or db_url.startswith("postgres")
        assert texts(m.search("ada", "tea", user="sam"))
    finally:
        m.close()


def test_the_scored_vectors_follow_writes_retractions_and_replaces(home: Path, db_url: str) -> None:
    """The pair's vectors are held between searches and read again only when
    something was applied: a write, a retraction or a replace made between
    two searches is seen by the second."""
    m = home_with(home, db_url, 'embeddings = "wordllama"')
    try:
        m.write("ada", "MEMORY.md", "Sam drinks green tea every afternoon.", user="sam")
        m.flush()
        m.engine.embed()
        assert texts(m.search("ada", "where to sit on a plane", user="sam")) == []
        seat = m.write("ada", "MEMORY.md", "Sam prefers window seats on flights.", user="sam")
        m.flush()
        m.engine.embed()
        assert texts(m.search("ada", "where to sit on a plane", user="sam"))[:1] == [
            "Sam prefers window seats on flights."]
        m.retract("ada", "MEMORY.md", [seat.event_id], user="sam", reason="wrong")
        m.flush()
        assert "Sam prefers window seats on flights." not in texts(
            m.search("ada", "where to sit on a plane", user="sam"))
        m.write("ada", "MEMORY.md", "Sam books aisle seats on planes now.", user="sam",
                mode="replace")
        m.flush()
        m.engine.embed()
        found = m.search("ada", "where to sit on a plane", user="sam")
        assert texts(found)[:1] == ["Sam books aisle seats on planes now."]
        assert found.note is None
    finally:
        m.close()


def test_a_rebuild_by_another_process_is_not_served_from_stale_caches(
        home: Path, db_url: str) -> None:
    """A long-lived search (an MCP server) keeps a pair's lines and vectors
    while the read model does not change.  A rebuild elsewhere numbers the
    lines anew and ends at the same position: its new generation is what
    tells the server to read them again."""
    server = home_with(home, db_url, 'embeddings = "wordllama"')
    try:
        tea = server.write("ada", "MEMORY.md", "Sam drinks green tea every afternoon.", user="sam")
        server.write("ada", "MEMORY.md", "Sam prefers window seats on flights.", user="sam")
        server.retract("ada", "MEMORY.md", [tea.event_id], user="sam", reason="wrong")
        # The first line's row is gone, the second keeps its number: a
        # rebuild numbers the one line left 1.
        server.flush()
        server.engine.embed()
        before = server.search("ada", "where to sit on a plane", user="sam")
        assert [(h.text, h.where) for h in before][:1] == [
            ("Sam prefers window seats on flights.", "current")]
        operator = Memory(str(home), db_url)
        try:
            operator.rebuild()  # the lines again, numbered from the start
        finally:
            operator.close()
        after = server.search("ada", "where to sit on a plane", user="sam")
        assert [(h.text, h.where) for h in after][:1] == [
            ("Sam prefers window seats on flights.", "current")]
        assert after.note is None
    finally:
        server.close()


def test_the_index_is_made_again_when_the_rules_for_its_words_change(home: Path) -> None:
    """A line leaves the contentless index by being tokenized again: words
    made by other rules (a new Python's Unicode tables, a change to
    terms.py) would corrupt it, so the read model re-indexes when the
    rules' version differs from the one it was indexed with."""
    from kairos.projections.schema import positions

    m = Memory.init(str(home))
    m.write("ada", "MEMORY.md", "Sam visited İstanbul in May.", user="sam")
    m.flush()
    readmodel = m.engine.readmodel
    with readmodel.engine.begin() as conn:
        assert conn.scalar(positions.select().with_only_columns(positions.c.position).where(
            positions.c.name == "terms")) == terms.version()
        conn.execute(positions.update().where(positions.c.name == "terms").values(position=1))
        # What older rules made: here nothing, so that a search finds the
        # line only if the index was made again.
        conn.exec_driver_sql("INSERT INTO memory_fts(memory_fts) VALUES ('delete-all')")
    m.close()
    m = Memory(str(home))
    try:
        assert texts(m.search("ada", "istanbul", user="sam")) == ["Sam visited İstanbul in May."]
        m.write("ada", "MEMORY.md", "Sam is back.", user="sam", mode="replace")  # lines leave
        m.flush()
        assert m.verify().ok
    finally:
        m.close()


def test_odd_letters_and_mixed_scripts_are_found_as_they_were_written(lexical: Memory) -> None:
    m = lexical
    m.write("ada", "MEMORY.md", "Sam visited İstanbul in May.", user="sam")
    m.write("ada", "MEMORY.md", "Tom travels to Tokyo on Tuesday.", user="sam")
    m.write("ada", "MEMORY.md", "オンラインでT恤を買った。", user="sam")
    m.write("ada", "MEMORY.md", "오늘 학교에서 시험을 봤다.", user="sam")
    assert texts(m.search("ada", "istanbul", user="sam")) == ["Sam visited İstanbul in May."]
    assert texts(m.search("ada", "İSTANBUL", user="sam")) == ["Sam visited İstanbul in May."]
    found = texts(m.search("ada", "T恤", user="sam"))
    assert found == ["オンラインでT恤を買った。"]  # "T" is a letter, not a prefix of Tom and Tokyo
    assert texts(m.search("ada", "학교", user="sam")) == ["오늘 학교에서 시험을 봤다."]



# -- a one-line write's words, indexed once -----------------------------------------------------
def _fts_rows(m: Memory) -> tuple[int, int]:
    """The full-text index's rows: history entries and lines of their own."""
    from kairos.projections.search import LINES_FROM

    with m.engine.readmodel.engine.connect() as conn:
        history, lines = conn.exec_driver_sql(
            f"SELECT count(*) FILTER (WHERE id < {LINES_FROM}), "
            f"count(*) FILTER (WHERE id >= {LINES_FROM}) FROM memory_fts_docsize").one()
    return int(history), int(lines)


def _where(m: Memory, query: str) -> list[tuple[str, str]]:
    return [(h.where, h.text) for h in m.search("ada", query, user="sam", limit=20)]


def test_a_one_line_write_is_indexed_once_and_found_as_its_line(home: Path) -> None:
    """A write of one line is its file's line word for word: the index holds
    its words once, as the write's history entry, and a search finds the
    line through that row.  A write of several lines, and a line a replace
    brings, have rows of their own; a rewrite that keeps a line keeps it
    found; a line that leaves takes no row with it.  (A search shows a text
    once: as the current line while a file holds it, else as history.)"""
    m = Memory.init(str(home))
    try:
        tea = m.write("ada", "MEMORY.md", "Sam likes green tea.", user="sam")
        m.write("ada", "MEMORY.md", "Sam rows.\nSam drinks tea at four.", user="sam")
        m.flush()
        assert _fts_rows(m) == (2, 2)  # two writes; the two lines of the second
        assert _where(m, "green") == [("current", "Sam likes green tea.")]
        assert _where(m, "tea") == [("current", "Sam drinks tea at four."),
                                    ("current", "Sam likes green tea.")]

        m.write("ada", "MEMORY.md", "Sam likes green tea.\nSam plays the oboe.", user="sam",
                mode="replace")
        m.flush()
        assert _fts_rows(m) == (3, 1)  # the two-line write's lines left; the oboe came
        assert _where(m, "tea") == [("current", "Sam likes green tea."),  # kept by the replace
                                    ("history", "Sam drinks tea at four.")]
        assert _where(m, "oboe") == [("current", "Sam plays the oboe.")]

        # The first write retracted: the line the replace said again stays
        # current, found through that write's row.
        m.retract("ada", "MEMORY.md", [tea.event_id], user="sam", reason="said again later")
        m.flush()
        assert _where(m, "green") == [("current", "Sam likes green tea.")]
        m.write("ada", "MEMORY.md", "Sam moved to Bergen.", user="sam", mode="replace")
        m.flush()
        assert _fts_rows(m) == (4, 1)  # a replace's line has a row of its own
        assert _where(m, "tea") == [("history", "Sam drinks tea at four."),
                                    ("history", "Sam likes green tea.")]
        assert _where(m, "bergen") == [("current", "Sam moved to Bergen.")]
        assert m.verify().ok
        before = _fts_rows(m), _where(m, "tea"), _where(m, "bergen")
        m.rebuild()
        assert (_fts_rows(m), _where(m, "tea"), _where(m, "bergen")) == before
    finally:
        m.close()


def test_a_line_marked_shared_that_its_history_does_not_hold_is_reported(home: Path) -> None:
    m = Memory.init(str(home))
    try:
        m.write("ada", "MEMORY.md", "Sam rows.\nSam sings.", user="sam")
        m.flush()
        assert m.verify().ok
        with m.engine.readmodel.engine.begin() as conn:
            conn.exec_driver_sql("DROP TRIGGER memory_fts_line_out")  # the mark alone changes
            conn.exec_driver_sql("UPDATE memory_lines SET shared = 1 WHERE text = 'Sam sings.'")
        problems = m.verify().problems
        assert any("marked as found through a history entry" in p.message for p in problems), problems
    finally:
        m.close()


def test_a_home_indexed_before_shared_lines_keeps_its_rows_when_migrated(home: Path) -> None:
    """A read model made before lines shared their write's row: every line
    has a row of its own, which the migration keeps (no re-index); lines
    written after share, and lines of either kind leave cleanly."""
    from kairos.projections.schema import migrations_table
    from kairos.projections.search import LINES_FROM, drop_fts

    m = Memory.init(str(home))
    try:
        m.write("ada", "MEMORY.md", "Sam plays the oboe.", user="sam")
        m.flush()
        readmodel = m.engine.readmodel
        with readmodel.engine.begin() as conn:  # the read model as m005 left it
            drop_fts(conn)
            conn.exec_driver_sql("ALTER TABLE memory_lines DROP COLUMN shared")
            conn.exec_driver_sql("CREATE VIRTUAL TABLE memory_fts USING fts5(body, content='', "
                                 "tokenize='porter unicode61 remove_diacritics 2')")
            for name, kind in (("memory_fts_terms", "row"), ("memory_fts_where", "instance")):
                conn.exec_driver_sql(f"CREATE VIRTUAL TABLE {name} "
                                     f"USING fts5vocab(memory_fts, {kind})")
            conn.exec_driver_sql(
                "INSERT INTO memory_fts(rowid, body) SELECT position, kairos_terms(text, stream_id) "
                "FROM memory_index WHERE type = 'MemoryWritten'")
            conn.exec_driver_sql(
                f"INSERT INTO memory_fts(rowid, body) SELECT id + {LINES_FROM}, "
                "kairos_terms(text, scope) FROM memory_lines")
            conn.exec_driver_sql(
                "CREATE TRIGGER memory_fts_history AFTER INSERT ON memory_index WHEN new.type IN "
                "('MemoryWritten', 'SessionEnded') AND new.text IS NOT NULL BEGIN INSERT INTO "
                "memory_fts(rowid, body) VALUES (new.position, kairos_terms(new.text, "
                "new.stream_id)); END")
            conn.exec_driver_sql(
                "CREATE TRIGGER memory_fts_line_in AFTER INSERT ON memory_lines BEGIN INSERT INTO "
                f"memory_fts(rowid, body) VALUES (new.id + {LINES_FROM}, kairos_terms(new.text, "
                "new.scope)); END")
            conn.exec_driver_sql(
                "CREATE TRIGGER memory_fts_line_out AFTER DELETE ON memory_lines BEGIN INSERT INTO "
                f"memory_fts(memory_fts, rowid, body) VALUES ('delete', old.id + {LINES_FROM}, "
                "kairos_terms(old.text, old.scope)); END")
            conn.execute(migrations_table.delete().where(
                migrations_table.c.name == "m006_shared_lines"))
        assert readmodel.migrate() == ["m006_shared_lines"]
        assert _fts_rows(m) == (1, 1)  # the old line keeps its row
        assert _where(m, "oboe") == [("current", "Sam plays the oboe.")]
        m.write("ada", "MEMORY.md", "Sam plays the cello.", user="sam")
        m.flush()
        assert _fts_rows(m) == (2, 1)  # the new line shares its write's row
        assert _where(m, "cello")[0] == ("current", "Sam plays the cello.")
        assert m.verify().ok
        m.write("ada", "MEMORY.md", "Sam stopped playing.", user="sam", mode="replace")
        m.flush()
        assert _fts_rows(m) == (3, 1)  # both lines left; the replace's came
        assert m.verify().ok
        with readmodel.engine.connect() as conn:  # FTS5's own check of its structure
            conn.exec_driver_sql("INSERT INTO memory_fts(memory_fts) VALUES ('integrity-check')")
    finally:
        m.close()


def test_lines_found_through_their_write_follow_rewrites_on_both_backends(lexical: Memory) -> None:
    """What the agent sees of a one-line write is the same whichever way the
    index holds it: the line while its file holds it (through a replace that
    keeps it, and after the write that first said it is retracted), then
    the history alone; another pair's line of the same words stays its own."""
    m = lexical
    first = m.write("ada", "MEMORY.md", "Sam keeps bees in Ulm.", user="sam")
    m.write("ada", "MEMORY.md", "Sam keeps bees in Ulm.", user="lena")
    m.write("ada", "MEMORY.md", "Sam keeps bees in Ulm.\nSam sings bass.", user="sam",
            mode="replace")
    m.retract("ada", "MEMORY.md", [first.event_id], user="sam", reason="said again")
    found = m.search("ada", "bees", user="sam", limit=10)
    assert [(h.where, h.text) for h in found] == [("current", "Sam keeps bees in Ulm.")]
    assert found.hits[0].event_ids != (first.event_id,)  # cites the replace, not the retracted
    m.write("ada", "MEMORY.md", "Sam sold the hives.", user="sam", mode="replace")
    assert [(h.where, h.text) for h in m.search("ada", "bees", user="sam", limit=10)] == [
        ("history", "Sam keeps bees in Ulm.")]
    assert [(h.where, h.text) for h in m.search("ada", "bees", user="lena", limit=10)] == [
        ("current", "Sam keeps bees in Ulm.")]


def test_a_home_that_m004_made_migrates_through_m005_and_m006(home: Path) -> None:
    """m005 builds the full-text index as it is built now, which reads the
    lines' mark: on a home m004 made, before the mark's column existed."""
    from kairos.projections.schema import migrations_table
    from kairos.projections.search import drop_fts

    m = Memory.init(str(home))
    try:
        m.write("ada", "MEMORY.md", "Sam plays the oboe.", user="sam")
        m.flush()
        readmodel = m.engine.readmodel
        with readmodel.engine.begin() as conn:  # as m004 left it (its index dropped too)
            drop_fts(conn)
            conn.exec_driver_sql("ALTER TABLE memory_lines DROP COLUMN shared")
            conn.execute(migrations_table.delete().where(migrations_table.c.name.in_(
                ["m005_scoped_terms", "m006_shared_lines"])))
        assert readmodel.migrate() == ["m005_scoped_terms", "m006_shared_lines"]
        assert _fts_rows(m) == (1, 1)  # the line, unmarked, has its row
        assert _where(m, "oboe") == [("current", "Sam plays the oboe.")]
        m.write("ada", "MEMORY.md", "Sam plays the cello.", user="sam")
        m.flush()
        assert _fts_rows(m) == (2, 1)
        assert m.verify().ok
    finally:
        m.close()


def test_a_dreams_approval_and_rollback_keep_the_marks_a_rebuild_derives(
        home: Path, db_url: str) -> None:
    """The other events that rewrite a file: a dream's approval keeps a
    one-line write's line (its text, so its position and its mark), a
    rollback brings back a line as a line of its own; the rows are those a
    rebuild derives, the index sound, the line found."""
    from freezegun import freeze_time

    from kairos.projections.schema import lines_table

    m = home_with(home, db_url, 'embeddings = "off"')

    def rows() -> list[tuple[Any, ...]]:
        with m.engine.readmodel.engine.connect() as conn:
            return sorted(tuple(r) for r in conn.execute(lines_table.select().with_only_columns(
                lines_table.c.file, lines_table.c.text, lines_table.c.sources,
                lines_table.c.position, lines_table.c.recorded_at, lines_table.c.shared)))

    try:
        with freeze_time("2026-06-01T10:00:00Z"):
            m.write("ada", "MEMORY.md", "Sam likes tea.", user="sam")
            m.write("ada", "MEMORY.md", "Sam likes tea.", user="sam")
            m.write("ada", "MEMORY.md", "Sam rows boats.", user="sam")
            for i in range(5):
                m.end_session("ada", "sam", session=f"s{i}")
        with freeze_time("2026-06-03T10:00:00Z"):
            proposal = m.dreams.dream("ada", "sam", force=True)
            m.dreams.approve(proposal.dream_id, "alice")
        m.flush()
        approved = rows()
        assert ("MEMORY.md", "Sam likes tea.") in [r[:2] for r in approved]
        m.dreams.rollback("ada", "sam", "MEMORY.md", 0, "back")
        m.flush()
        kept = rows()
        assert kept != approved and [r[-1] for r in kept].count(0) >= 1  # a line of its own
        assert m.verify().ok
        assert ("current", "Sam likes tea.") in [(h.where, h.text) for h in
                                                m.search("ada", "tea", user="sam")]
        m.rebuild()
        assert rows() == kept
    finally:
        m.close()
