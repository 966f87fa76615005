"""Regenerate the sample home's dated logs (``logs/`` at the top of the repo).

Three weeks of memory for 2 agents x 3 users, written through the real
Kairos write path with a frozen clock, so running this again gives the very
same bytes (event ids are derived from the streams, hashes from the events).

    python scripts/make_sample.py            # rewrite ./logs
    python scripts/make_sample.py OUT_DIR    # write OUT_DIR/logs instead
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path

from freezegun import freeze_time

from kairos.memory import Memory

# (day, time, command, args) — a small story per pair.  Days are in October 2026.
SCRIPT: list[tuple[str, str, str, dict[str, object]]] = [
    ("05", "08:00", "write", dict(agent="ada", file="SOUL.md", mode="replace", actor="system",
                                  text="I am Ada, a personal assistant. I am warm, brief and "
                                       "careful with facts. I never guess a date.")),
    ("05", "08:01", "write", dict(agent="ada", file="ABOUT.md", mode="replace", actor="system",
                                  text="Ada helps with travel, health reminders and household "
                                       "planning. Deployed for the Lind family.")),
    ("05", "08:02", "write", dict(agent="ada", file="TOOLS.md", mode="replace", actor="system",
                                  text="calendar: always confirm the time zone before booking.\n"
                                       "email: draft only; the user sends.")),
    ("05", "08:05", "write", dict(agent="orion", file="SOUL.md", mode="replace", actor="system",
                                  text="I am Orion, a coding assistant. I explain what I change "
                                       "and why, and I prefer small diffs.")),
    ("05", "08:06", "write", dict(agent="orion", file="ABOUT.md", mode="replace",
                                  actor="system",
                                  text="Orion works in the Kairos repository and its CI.")),
    ("05", "08:07", "write", dict(agent="orion", file="TOOLS.md", mode="replace",
                                  actor="system",
                                  text="shell: run tests with ./scripts/test before proposing "
                                       "a commit.\ngit: never force-push main.")),
    ("05", "09:12", "write", dict(agent="ada", user="sam", file="USER.md", actor="user",
                                  session="s-sam-1", text="Name: Sam Lind. Time zone: Europe/Oslo.")),
    ("05", "09:14", "write", dict(agent="ada", user="sam", file="MEMORY.md", actor="agent",
                                  session="s-sam-1", text="Sam prefers green tea to coffee.")),
    ("05", "09:15", "write", dict(agent="ada", user="sam", file="MEMORY.md", actor="agent",
                                  session="s-sam-1",
                                  text="Sam is traveling to Singapore in July.")),
    ("05", "09:30", "end", dict(agent="ada", user="sam", session="s-sam-1")),
    ("06", "18:40", "write", dict(agent="ada", user="kim", file="USER.md", actor="user",
                                  session="s-kim-1", text="Name: Kim Lind. Vegetarian.")),
    ("06", "18:42", "write", dict(agent="ada", user="kim", file="MEMORY.md", actor="agent",
                                  session="s-kim-1", text="Kim is allergic to peanuts.")),
    ("06", "18:50", "end", dict(agent="ada", user="kim", session="s-kim-1")),
    ("07", "10:03", "write", dict(agent="orion", user="lee", file="USER.md", actor="user",
                                  session="s-lee-1",
                                  text="Lee Park, maintainer. Reviews in the mornings (KST).")),
    ("07", "10:05", "write", dict(agent="orion", user="lee", file="MEMORY.md", actor="agent",
                                  session="s-lee-1",
                                  text="Lee wants ruff and mypy clean before review.")),
    ("07", "10:40", "end", dict(agent="orion", user="lee", session="s-lee-1")),
    ("08", "07:55", "write", dict(agent="ada", user="sam", file="MEMORY.md", actor="agent",
                                  session="s-sam-2", text="Sam prefers green tea to coffee.")),
    ("08", "07:58", "write", dict(agent="ada", user="sam", file="MEMORY.md", actor="agent",
                                  session="s-sam-2",
                                  text="Sam's dentist appointment is next Tuesday at 10:00.")),
    ("08", "08:10", "end", dict(agent="ada", user="sam", session="s-sam-2",
                                notes="Planned the week; Sam asked to be reminded of the "
                                      "dentist the day before.")),
    ("09", "20:15", "write", dict(agent="ada", user="lee", file="USER.md", actor="user",
                                  session="s-lee-a1", text="Name: Lee Park. Visiting the Linds "
                                                           "in November.")),
    ("09", "20:20", "end", dict(agent="ada", user="lee", session="s-lee-a1")),
    ("10", "11:00", "write", dict(agent="orion", user="sam", file="USER.md", actor="user",
                                  session="s-sam-o1", text="Sam Lind, learning Python.")),
    ("10", "11:02", "write", dict(agent="orion", user="sam", file="MEMORY.md", actor="agent",
                                  session="s-sam-o1",
                                  text="Sam's side project is a tea-tasting log in Flask.")),
    ("10", "11:30", "end", dict(agent="orion", user="sam", session="s-sam-o1")),
    ("12", "08:15", "write", dict(agent="ada", user="sam", file="MEMORY.md", actor="agent",
                                  session="s-sam-2b", text="Sam is allergic to peanuts.")),
    ("12", "08:20", "end", dict(agent="ada", user="sam", session="s-sam-2b")),
    ("12", "09:00", "write", dict(agent="ada", user="kim", file="MEMORY.md", actor="agent",
                                  session="s-kim-2", text="Kim runs on Tuesdays and Thursdays.")),
    ("12", "09:05", "end", dict(agent="ada", user="kim", session="s-kim-2")),
    ("13", "16:20", "write", dict(agent="orion", user="kim", file="USER.md", actor="user",
                                  session="s-kim-o1", text="Kim Lind, data analyst; uses R "
                                                           "and SQL.")),
    ("13", "16:25", "write", dict(agent="orion", user="kim", file="MEMORY.md", actor="agent",
                                  session="s-kim-o1",
                                  text="Kim's dashboards read from a PostgreSQL replica.")),
    ("13", "16:40", "end", dict(agent="orion", user="kim", session="s-kim-o1")),
    ("14", "08:30", "write", dict(agent="ada", user="sam", file="MEMORY.md", actor="agent",
                                  session="s-sam-3", text="Sam now drinks coffee in the "
                                                          "mornings; tea after lunch.")),
    ("14", "08:31", "retract", dict(agent="ada", user="sam", file="MEMORY.md",
                                    ref=("ada", "sam", 5), actor="user", session="s-sam-3",
                                    reason="Sam: that is Kim's allergy, not mine.")),
    ("14", "08:40", "end", dict(agent="ada", user="sam", session="s-sam-3")),
    ("15", "10:10", "write", dict(agent="orion", user="lee", file="MEMORY.md", actor="agent",
                                  session="s-lee-2", text="Lee asked for docs generated from "
                                                          "--help, checked by a test.")),
    ("15", "10:30", "end", dict(agent="orion", user="lee", session="s-lee-2")),
    ("17", "19:00", "write", dict(agent="ada", user="kim", file="USER.md", mode="replace",
                                  actor="user", session="s-kim-3",
                                  text="Name: Kim Lind. Vegetarian. Prefers messages after "
                                       "18:00.")),
    ("17", "19:10", "end", dict(agent="ada", user="kim", session="s-kim-3")),
    ("19", "08:00", "write", dict(agent="ada", user="sam", file="MEMORY.md", actor="agent",
                                  session="s-sam-4", text="Sam's sister Kim visits on "
                                                          "Sundays.")),
    ("19", "08:20", "end", dict(agent="ada", user="sam", session="s-sam-4")),
    ("21", "14:00", "write", dict(agent="orion", user="sam", file="MEMORY.md", actor="agent",
                                  session="s-sam-o2", text="Sam deploys the Flask app on a "
                                                           "Raspberry Pi.")),
    ("21", "14:30", "end", dict(agent="orion", user="sam", session="s-sam-o2")),
    ("22", "07:45", "write", dict(agent="ada", user="sam", file="MEMORY.md", actor="agent",
                                  session="s-sam-5", text="Sam is training for the Oslo "
                                                          "half-marathon in spring.")),
    ("22", "08:00", "end", dict(agent="ada", user="sam", session="s-sam-5")),
    ("23", "12:00", "write", dict(agent="ada", user="lee", file="MEMORY.md", actor="agent",
                                  session="s-lee-a2", text="Lee arrives in Oslo on 14 November "
                                                           "and stays a week.")),
    ("23", "12:10", "end", dict(agent="ada", user="lee", session="s-lee-a2")),
    ("24", "09:00", "write", dict(agent="orion", user="lee", file="MEMORY.md", actor="agent",
                                  session="s-lee-3", text="Lee wants ruff and mypy clean "
                                                          "before review.")),
    ("24", "09:20", "end", dict(agent="orion", user="lee", session="s-lee-3")),
    ("25", "18:30", "write", dict(agent="ada", user="sam", file="MEMORY.md", actor="agent",
                                  session="s-sam-6", text="Sam's dentist appointment moved "
                                                          "to 3 November.")),
    ("25", "18:45", "end", dict(agent="ada", user="sam", session="s-sam-6")),
]


def generate(home: Path) -> None:
    written: dict[tuple[str, str, int], str] = {}
    counts: dict[tuple[str, str], int] = {}
    with Memory.init(str(home)) as mem:
        for day, hhmm, command, raw in SCRIPT:
            args = dict(raw)
            with freeze_time(f"2026-10-{day}T{hhmm}:00Z"):
                if command == "write":
                    text = str(args.pop("text"))
                    result = mem.write(str(args.pop("agent")), str(args.pop("file")), text,
                                       **args)  # type: ignore[arg-type]
                    key = (result.agent, result.user or "")
                    written[(*key, counts.get(key, 0))] = result.event_id
                    counts[key] = counts.get(key, 0) + 1
                elif command == "retract":
                    ref = args.pop("ref")
                    mem.retract(str(args.pop("agent")), str(args.pop("file")),
                                [written[ref]], **args)  # type: ignore[index, arg-type]
                else:
                    mem.end_session(str(args.pop("agent")), str(args.pop("user")),
                                    **args)  # type: ignore[arg-type]


def main() -> None:
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parent.parent
    with tempfile.TemporaryDirectory() as tmp:
        generate(Path(tmp) / "home")
        target = out / "logs"
        if target.exists():
            shutil.rmtree(target)
        shutil.copytree(Path(tmp) / "home" / "logs", target)
    print(f"wrote {target}")


if __name__ == "__main__":
    main()
