"""Relative time in a fact, read against when the fact was written.

``resolve(text, written, now)`` turns "in July", "next Tuesday", "tomorrow",
"next week", "next month" and "3 November" into absolute dates, and when the
moment they name is over at ``now``, puts the sentence in the past tense
("Sam is traveling to Singapore in July", written in May 2026, becomes "Sam
traveled to Singapore in July 2026" once July 2026 is over).  Deterministic
and English-only on purpose: what it does not recognise it leaves alone.
"""

from __future__ import annotations

import calendar
import re
from datetime import date, datetime, timedelta

MONTHS = list(calendar.month_name)[1:]
WEEKDAYS = list(calendar.day_name)
_MONTH = "|".join(MONTHS)
_WEEKDAY = "|".join(WEEKDAYS)

IN_MONTH = re.compile(rf"\bin ({_MONTH})\b(?! \d{{4}})")
DAY_MONTH = re.compile(rf"\b(\d{{1,2}}) ({_MONTH})\b(?! \d{{4}})")
NEXT_WEEKDAY = re.compile(rf"\b(?:next|this coming) ({_WEEKDAY})\b")
TOMORROW = re.compile(r"\btomorrow\b")
TODAY = re.compile(r"\b(?:today|tonight)\b")
NEXT_WEEK = re.compile(r"\bnext week\b")
NEXT_MONTH = re.compile(r"\bnext month\b")

IRREGULAR = {"going": "went", "flying": "flew", "meeting": "met", "leaving": "left",
             "coming": "came", "seeing": "saw", "having": "had", "getting": "got",
             "taking": "took", "doing": "did", "running": "ran", "making": "made",
             "buying": "bought", "driving": "drove", "writing": "wrote", "giving": "gave",
             "sitting": "sat", "swimming": "swam", "beginning": "began", "riding": "rode"}
PROGRESSIVE = re.compile(r"\b(is|are) (\w+ing)\b")
TO_BE = {" is ": " was ", " are ": " were ", " has ": " had ", " have ": " had ",
         " will be ": " was "}


def _long(d: date) -> str:
    return f"{WEEKDAYS[d.weekday()]} {d.day} {MONTHS[d.month - 1]} {d.year}"


def _month_after(written: date, month: int) -> int:
    """The year of the next ``month`` on or after the written date."""
    return written.year if month >= written.month else written.year + 1


def _end_of_month(year: int, month: int) -> date:
    return date(year, month, calendar.monthrange(year, month)[1])


def resolve(text: str, written: datetime, now: datetime) -> tuple[str, date | None]:
    """Return the text with relative time made absolute, and the last day it
    refers to (None when it names no time)."""
    day = written.date()
    ends: list[date] = []

    def in_month(m: re.Match[str]) -> str:
        month = MONTHS.index(m.group(1)) + 1
        year = _month_after(day, month)
        ends.append(_end_of_month(year, month))
        return f"in {m.group(1)} {year}"

    def day_month(m: re.Match[str]) -> str:
        month = MONTHS.index(m.group(2)) + 1
        d = int(m.group(1))
        if d > calendar.monthrange(day.year, month)[1]:
            return m.group(0)
        year = day.year if (month, d) >= (day.month, day.day) else day.year + 1
        ends.append(date(year, month, d))
        return f"{d} {m.group(2)} {year}"

    def next_weekday(m: re.Match[str]) -> str:
        target = WEEKDAYS.index(m.group(1))
        ahead = (target - day.weekday()) % 7 or 7
        d = day + timedelta(days=ahead)
        ends.append(d)
        return f"on {_long(d)}"

    def tomorrow(_m: re.Match[str]) -> str:
        d = day + timedelta(days=1)
        ends.append(d)
        return f"on {_long(d)}"

    def today(_m: re.Match[str]) -> str:
        ends.append(day)
        return f"on {_long(day)}"

    def next_week(_m: re.Match[str]) -> str:
        monday = day + timedelta(days=7 - day.weekday())
        ends.append(monday + timedelta(days=6))
        return f"in the week of {_long(monday)}"

    def next_month(_m: re.Match[str]) -> str:
        year, month = (day.year + 1, 1) if day.month == 12 else (day.year, day.month + 1)
        ends.append(_end_of_month(year, month))
        return f"in {MONTHS[month - 1]} {year}"

    out = IN_MONTH.sub(in_month, text)
    out = DAY_MONTH.sub(day_month, out)
    out = NEXT_WEEKDAY.sub(next_weekday, out)
    out = TOMORROW.sub(tomorrow, out)
    out = TODAY.sub(today, out)
    out = NEXT_WEEK.sub(next_week, out)
    out = NEXT_MONTH.sub(next_month, out)
    out = re.sub(r"\b(?:is|are) on on\b", lambda m: m.group(0)[:-3], out)
    end = max(ends) if ends else None
    if end is not None and end < now.date():
        out = past_tense(out)
    return out, end


def past_tense(text: str) -> str:
    """'is traveling' -> 'traveled', 'is on' -> 'was on', 'has' -> 'had'."""
    def progressive(m: re.Match[str]) -> str:
        verb = m.group(2).lower()
        return IRREGULAR.get(verb, verb[:-3] + "ed")

    out, n = PROGRESSIVE.subn(progressive, text, count=1)
    if n:
        return out
    padded = f" {text} "
    for present, past in TO_BE.items():
        if present in padded:
            return padded.replace(present, past, 1)[1:-1]
    return text
