"""Checks of what callers pass in, before anything is written: text and dates.

Pure functions: each returns the value in its one accepted form, or raises
:class:`~kairos.errors.BadInput` saying what is wrong.
"""

from __future__ import annotations

import re
from datetime import UTC, date, datetime

from kairos.domain.hashing import format_time
from kairos.errors import BadInput


def check_text(text: str | bytes, what: str = "text", *, limit: int | None = None) -> str:
    """Return the text as str, or raise :class:`BadInput` (empty, NUL, not
    UTF-8, or longer than ``limit`` bytes of UTF-8)."""
    if limit is not None and len(text) > limit:  # str: characters <= bytes
        raise BadInput(f"{what} is {len(text.encode('utf-8') if isinstance(text, str) else text)}"
                       f" bytes, over the {limit}-byte bound of one write: nothing written")
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError:
            raise BadInput(f"{what} is not valid UTF-8") from None
    if not isinstance(text, str):
        raise BadInput(f"{what} must be a string")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise BadInput(f"{what} is not valid UTF-8 (it holds a lone surrogate)") from None
    if "\x00" in text:
        raise BadInput(f"{what} contains a NUL character")
    if not text.strip():
        raise BadInput(f"{what} is empty")
    if limit is not None and len(text) * 4 > limit and len(text.encode("utf-8")) > limit:
        raise BadInput(f"{what} is {len(text.encode('utf-8'))} bytes, over the {limit}-byte "
                       "bound of one write: nothing written")
    return text


# An idempotency key: what a tool-call id looks like (letters, digits and a
# few marks), bounded; it is written in the log entry of its write.
KEY = re.compile(r"[\x21-\x7e]{1,256}")


def check_key(key: str) -> str:
    """Return a valid idempotency key, or raise :class:`BadInput`."""
    if not isinstance(key, str) or KEY.fullmatch(key) is None:
        raise BadInput("an idempotency key is 1-256 printable ASCII characters without spaces")
    return key


_YEAR_OR_MONTH = re.compile(r"\d{4}(?:-(?:0[1-9]|1[0-2]))?")


def parse_when(value: str | datetime, *, since: bool = False) -> datetime:
    """An ISO 8601 date or date-time; naive values are taken as UTC.  With
    ``since`` (the start of a range), a year ("2026") or a month
    ("2026-03") alone is its first moment; elsewhere (an end, a moment)
    it would be a guess, and is refused.

    :raises BadInput: when the value does not parse.
    """
    if isinstance(value, datetime):
        dt = value
    else:
        text = value.strip()
        if _YEAR_OR_MONTH.fullmatch(text):
            if not since:
                raise BadInput(f"{value!r} is a year or a month: give a full date (a year or a "
                               "month alone is taken only where a range starts, as --since)")
            text += "-01" if len(text) == 7 else "-01-01"
        try:
            dt = datetime.fromisoformat(text.replace("Z", "+00:00"))
        except ValueError:
            raise BadInput(f"unparsable date {value!r}: use ISO 8601, e.g. 2026-11-02T09:00:00Z") from None
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=UTC)
    return dt.astimezone(UTC)


def parse_day(value: str) -> str:
    try:
        return date.fromisoformat(value).isoformat()
    except ValueError:
        raise BadInput(f"unparsable date {value!r}: use YYYY-MM-DD") from None


def when_text(value: str | datetime | None, *, since: bool = False) -> str | None:
    """:func:`parse_when` as the index stores times (None stays None)."""
    return None if value is None else format_time(parse_when(value, since=since))
