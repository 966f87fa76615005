"""Numbered items and their state: a ticket, an order, a case going from open to closed.

Support and work notes track a thing by its number, tersely, one state after
another: "ticket 5512: open, waiting on cust", "5512 - cust replied, in
progress", "5512 solved/closed 18.6.".  No subject, no attribute a claim could
read: the number is the subject and the state is the attribute.  The newest
state of an item replaces the older ones — but only a line *about* the item
(it begins with its number, after its noun) and only one that says a state,
on both sides: "5512: cust on Android 14" says none, and stays.  English and
German.  Pure: no I/O.
"""

from __future__ import annotations

import re

# A line about an item begins with its number, or its noun and number: "ticket 5512:",
# "#5512", "Bestellung 4471", "INC-4411".  Three digits or more (a time, a date, a count
# of things is not a number of an item).
_ITEM = re.compile(r"^\W*(?:(?P<noun>tickets?|tkt|case|issue|bug|order|invoice|pr|pull request|req|"
                   r"request|incident|inc|fall|auftrag|bestellung|rechnung|vorgang|anfrage)\s*[#:]?\s*)?"
                   r"(?P<id>#?\d{3,}|[A-Z]{2,}-\d+)(?![\d.,:/]*\d)(?!\s*(?:[%€$£]|(?:kg|km|eur|euro|"
                   r"usd|chf|mg|ml|min|h)\b))", re.I)
_YEAR = re.compile(r"^(?:19|20)\d\d$")
# The states an item goes through, open to closed.
_STATE = re.compile(r"\b(?:open|opened|re-?opened|waiting|pending|in progress|on hold|escalated|assigned|"
                    r"closed|solved|resolved|fixed|done|merged|shipped|delivered|cancell?ed|refunded|"
                    r"paid|offen|geöffnet|wieder eröffnet|geschlossen|erledigt|gelöst|"
                    r"in bearbeitung|wartet|wartend|eskaliert|versandt|versendet|geliefert|zugestellt|"
                    r"bezahlt|storniert|erstattet)\b", re.I)


def item_of(text: str) -> str | None:
    """The number of the item a line is about ("5512"), or None; a bare
    number that may be a year ("2026: …") is none."""
    m = _ITEM.match(text)
    if m is None:
        return None
    number = m.group("id").lstrip("#").upper()
    if _YEAR.match(number) and not m.group("noun"):
        return None
    return number


def says_state(text: str) -> bool:
    return _STATE.search(text) is not None


def new_state(older: str, newer: str) -> bool:
    """Whether ``newer`` gives a later state of the item ``older`` gave one of."""
    item = item_of(newer)
    return item is not None and item == item_of(older) and says_state(older) and says_state(newer)


__all__ = ["item_of", "new_state", "says_state"]
