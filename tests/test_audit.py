"""Audit queries, what was known when, trace, diff and export bundles."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
from freezegun import freeze_time

from kairos.memory import Memory
from tests.conftest import Kairos


def story(mem: Memory) -> dict[str, str]:
    ids = {}
    with freeze_time("2026-10-05T09:00:00Z"):
        ids["soul"] = mem.write("ada", "SOUL.md", "I am Ada.", actor="system").event_id
        ids["tea"] = mem.write("ada", "MEMORY.md", "Sam likes tea.", user="sam",
                               session="s-1").event_id
        mem.write("ada", "MEMORY.md", "Kim's secret: hates tea.", user="kim", session="k-1")
    with freeze_time("2026-10-06T09:00:00Z"):
        ids["tea2"] = mem.write("ada", "MEMORY.md", "sam likes tea", user="sam",
                                session="s-2").event_id
        ids["rome"] = mem.write("ada", "MEMORY.md", "Sam lives in Rome.", user="sam",
                                actor="user", session="s-2").event_id
    with freeze_time("2026-10-07T09:00:00Z"):
        ids["retract"] = mem.retract("ada", "MEMORY.md", [ids["rome"]], user="sam",
                                     reason="moved to Oslo", session="s-3").event_id
    return ids


def test_audit_filters_by_pair_time_actor_type_session_file_and_text(mem: Memory,
                                                                     kairos: Kairos) -> None:
    ids = story(mem)

    def rows(*args: str) -> list[dict[str, object]]:
        out = kairos("audit", *args, "--format", "jsonl")
        assert out.exit_code == 0, out.output
        return [json.loads(line) for line in out.stdout.splitlines()]

    pair = rows("--agent", "ada", "--user", "sam", "--since", "2026-10-06",
                "--until", "2026-10-07T23:59:59Z")
    assert [r["event_id"] for r in pair] == [ids["tea2"], ids["rome"], ids["retract"]]
    assert all(r["user_id"] == "sam" for r in pair)
    assert [r["event_id"] for r in rows("--actor", "user")] == [ids["rome"], ids["retract"]]
    assert [r["event_id"] for r in rows("--type", "MemoryRetracted")] == [ids["retract"]]
    assert [r["event_id"] for r in rows("--session", "s-2")] == [ids["tea2"], ids["rome"]]
    assert [r["event_id"] for r in rows("--file", "SOUL.md")] == [ids["soul"]]
    assert [r["event_id"] for r in rows("--grep", "LIKES TEA")] == [ids["tea"], ids["tea2"]]
    positions = [r["position"] for r in rows()]
    assert positions == sorted(positions)


def test_each_row_points_at_its_log_line(mem: Memory, kairos: Kairos, home: Path) -> None:
    story(mem)
    out = kairos("audit", "--format", "csv")
    table = list(csv.DictReader(io.StringIO(out.stdout)))
    assert table and set(table[0]) >= {"event_id", "recorded_at", "actor", "text", "log_file"}
    for row in table:
        lines = (home / row["log_file"]).read_text().split("\n")
        assert lines[int(row["log_line"]) - 1].startswith(f"## {int(row['position']):06d} ")
    plain = kairos("audit", "--agent", "ada", "--user", "sam").stdout
    assert "Sam lives in Rome." in plain and "logs/2026/10/2026-10-06.md:" in plain


def test_audit_context_shows_what_the_agent_knew_then(mem: Memory, kairos: Kairos) -> None:
    story(mem)
    then = json.loads(kairos("audit", "context", "-a", "ada", "-u", "sam", "--as-of",
                             "2026-10-06T12:00:00Z", "--json").stdout)
    assert then["prompt"].startswith("## Agent Identity\n\nI am Ada.")
    assert then["on_demand"]["MEMORY.md"] == "Sam likes tea.\nsam likes tea\nSam lives in Rome.\n"
    later = json.loads(kairos("audit", "context", "-a", "ada", "-u", "sam", "--as-of",
                              "2026-10-08", "--json").stdout)
    assert "Rome" not in later["on_demand"]["MEMORY.md"]
    before = json.loads(kairos("audit", "context", "-a", "ada", "-u", "sam", "--as-of",
                               "2026-10-01", "--json").stdout)
    assert before["on_demand"] == {"USER.md": None, "MEMORY.md": None}
    assert "I am Ada." not in before["prompt"]


def test_trace_follows_a_line_through_dreams_to_its_raw_writes(mem: Memory,
                                                               kairos: Kairos) -> None:
    ids = story(mem)
    with freeze_time("2026-10-08T03:00:00Z"):
        dream_id = mem.dreams.dream("ada", "sam", force=True).dream_id
        mem.dreams.approve(dream_id, "alice")
    rows = json.loads(kairos("trace", "-a", "ada", "-u", "sam", "-f", "MEMORY.md", "--grep",
                             "tea", "--json").stdout)
    assert len(rows) == 1
    line = rows[0]
    assert line["dream"]["dream_id"] == dream_id and line["dream"]["reviewer"] == "alice"
    assert [s["event_id"] for s in line["sources"]] == [ids["tea"], ids["tea2"]]
    assert all(s["log"].startswith("logs/2026/10/") for s in line["sources"])
    raw = json.loads(kairos("trace", "-a", "ada", "-u", "sam", "-f", "MEMORY.md",
                            "--version", "0", "--json").stdout)
    assert [r["text"] for r in raw] == ["Sam likes tea.", "sam likes tea"]
    assert raw[0]["dream"] is None and raw[0]["sources"][0]["event_id"] == ids["tea"]
    old = json.loads(kairos("trace", "-a", "ada", "-u", "sam", "-f", "MEMORY.md", "--as-of",
                            "2026-10-06T12:00:00Z", "--line", "3", "--json").stdout)
    assert old[0]["text"] == "Sam lives in Rome."
    assert old[0]["sources"][0]["retracted_by"] == ids["retract"]


def test_diff_between_versions_explains_the_change(mem: Memory, kairos: Kairos) -> None:
    story(mem)
    dream_id = mem.dreams.dream("ada", "sam", force=True).dream_id
    mem.dreams.approve(dream_id, "alice")
    out = kairos("diff", "-a", "ada", "-u", "sam", "-f", "MEMORY.md", "0", "1")
    assert out.exit_code == 0
    assert "--- MEMORY.md version 0\n+++ MEMORY.md version 1\n" in out.stdout
    assert "-Sam likes tea.\n" in out.stdout and f"dream {dream_id}" in out.stdout
    assert kairos("diff", "-a", "ada", "-u", "sam", "-f", "MEMORY.md", "0", "9").exit_code == 2


def test_an_export_bundle_verifies_alone_and_fails_when_touched(
        mem: Memory, kairos: Kairos, tmp_path: Path) -> None:
    story(mem)
    assert kairos("keygen", str(tmp_path / "k.pem")).exit_code == 0
    assert kairos("export", "-a", "ada", "-u", "sam", str(tmp_path / "none")).exit_code == 2
    assert kairos("seal", "--key", str(tmp_path / "k.pem")).exit_code == 0
    bundle = tmp_path / "bundle"
    out = kairos("export", "-a", "ada", "-u", "sam", str(bundle))
    assert out.exit_code == 0, out.output
    assert sorted(p.name for p in bundle.iterdir()) == ["README.md", "checkpoint.json",
                                                         "events.jsonl", "logs"]
    everything = "".join(p.read_text() for p in bundle.rglob("*") if p.is_file())
    assert "Kim's secret" not in everything and "Sam lives in Rome." in everything
    from click.testing import CliRunner

    from kairos.cli.main import cli

    def verify(*extra: str) -> object:
        return CliRunner().invoke(cli, ["verify", "--bundle", str(bundle), *extra])

    ok = verify("--public-key", str(tmp_path / "k.pem.pub"))
    assert ok.exit_code == 0 and "(signature holds)" in ok.output  # type: ignore[attr-defined]
    events = bundle / "events.jsonl"
    events.write_text(events.read_text().replace("Sam lives in Rome.", "Sam lives in Paris."))
    bad = verify()
    assert bad.exit_code == 1 and "hash does not match" in bad.output  # type: ignore[attr-defined]


@pytest.mark.parametrize("args", [["--since", "yesterday"], ["--agent", "../x"],
                                  ["--file", "NOTES.md"]])
def test_bad_audit_filters_exit_2(kairos: Kairos, args: list[str]) -> None:
    out = kairos("audit", *args)
    assert out.exit_code == 2 and out.stderr.startswith("Error: ")


TAMPERINGS = {
    "a line that is not JSON": lambda lines: ["{not json", *lines[1:]],
    "a missing field": lambda lines: [json.dumps({k: v for k, v in json.loads(lines[0]).items()
                                                  if k != "hash"}), *lines[1:]],
    "a field of the wrong type": lambda lines: [
        json.dumps({**json.loads(lines[0]), "version": "one"}), *lines[1:]],
    "a payload field missing": lambda lines: [
        json.dumps({**json.loads(lines[0]), "payload": {}}), *lines[1:]],
    "a payload field too many": lambda lines: [
        json.dumps({**json.loads(lines[0]), "payload": {**json.loads(lines[0])["payload"],
                                                        "extra": 1}}), *lines[1:]],
    "a proof that is not hex": lambda lines: [
        json.dumps({**json.loads(lines[0]), "inclusion": ["zz"]}), *lines[1:]],
}


@pytest.mark.parametrize("tamper", sorted(TAMPERINGS))
def test_a_tampered_bundle_fails_verification_without_a_traceback(
        mem: Memory, kairos: Kairos, tmp_path: Path, tamper: str) -> None:
    story(mem)
    assert kairos("seal").exit_code == 0
    bundle = tmp_path / "bundle"
    assert kairos("export", "-a", "ada", "-u", "sam", str(bundle)).exit_code == 0
    events = bundle / "events.jsonl"
    lines = events.read_text().splitlines()
    events.write_text("\n".join(TAMPERINGS[tamper](lines)) + "\n")
    from click.testing import CliRunner

    from kairos.cli.main import cli

    out = CliRunner().invoke(cli, ["verify", "--bundle", str(bundle)])
    assert out.exit_code == 1, out.output
    assert out.output.startswith("FAILED: events.jsonl:")
    assert "Traceback" not in out.output


def test_a_bundle_with_a_broken_checkpoint_fails_verification(
        mem: Memory, kairos: Kairos, tmp_path: Path) -> None:
    story(mem)
    assert kairos("seal").exit_code == 0
    bundle = tmp_path / "bundle"
    assert kairos("export", "-a", "ada", "-u", "sam", str(bundle)).exit_code == 0
    (bundle / "checkpoint.json").write_text("{broken")
    from click.testing import CliRunner

    from kairos.cli.main import cli

    out = CliRunner().invoke(cli, ["verify", "--bundle", str(bundle)])
    assert out.exit_code == 1 and out.output.startswith("FAILED: checkpoint.json: ")


def test_trace_finds_a_line_a_dream_superseded(mem: Memory, kairos: Kairos) -> None:
    with freeze_time("2026-10-01T09:00:00Z"):
        old = mem.write("ada", "MEMORY.md", "Sam's dog is called Bruhno.", user="sam").event_id
        mem.write("ada", "MEMORY.md", "Sam's dog is a beagle.", user="sam")
    with freeze_time("2026-10-05T09:00:00Z"):
        mem.write("ada", "MEMORY.md", "Sam's dog is called Bruno, not Bruhno.", user="sam")
    with freeze_time("2026-10-06T03:00:00Z"):
        dream_id = mem.dreams.dream("ada", "sam", force=True).dream_id
        mem.dreams.approve(dream_id, "alice")
    out = kairos("trace", "-a", "ada", "-u", "sam", "-f", "MEMORY.md", "--grep", "Bruhno")
    assert out.exit_code == 0
    assert "  -: Sam's dog is called Bruhno.\n" in out.stdout
    assert f"left in version 1 (dream {dream_id}, rules, approved by alice" in out.stdout
    assert "replaced by: Sam's dog is called Bruno, not Bruhno." in out.stdout
    rows = json.loads(kairos("trace", "-a", "ada", "-u", "sam", "-f", "MEMORY.md", "--grep",
                             "Bruhno", "--json").stdout)
    assert [r["status"] for r in rows] == ["current", "left"]  # the correction still names it
    left = rows[1]["left"]
    assert (left["version"], left["kind"], left["reviewer"]) == (1, "superseded", "alice")
    assert left["replaced_by"] == "Sam's dog is called Bruno, not Bruhno."
    assert rows[1]["sources"][0]["event_id"] == old
    missing = kairos("trace", "-a", "ada", "-u", "sam", "-f", "MEMORY.md", "--grep", "poodle")
    assert missing.exit_code == 2 and "no line of MEMORY.md matches" in missing.output
