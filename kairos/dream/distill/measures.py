"""Values of a kind a record keeps that :func:`records.values` did not read.

A later note gives a record's field a new value of one of these kinds, told
in other words, and the older line stayed beside it:

- **an address**, a street and its number ("Lindenstraße 14" -> "Birkenweg
  2"): the place a thing is at;
- **a counter reading** ("last service at 84,200 km" -> "odometer 96.500
  km"): read only from a thousand up (a trip's "35 km" is no reading), and a
  newer reading must be higher (a counter does not go back: a lower one is
  another vehicle's, or a trip);
- **payment terms** ("30 days net", "net 30", "Zahlungsziel 14 Tage"): the
  days, said with "net" or the terms' own word (a bare "14 days" is a while);
- **a phone number** ("0160 332 1180" -> "new mobile: 0157 8801 2234"), of
  the same line (a mobile is not the office's number, nor a fax);
- **a date moved** ("planned for 2026-12-20" -> "verschoben auf 27.12."): a
  day is a value only for a line that says it moved (:data:`MOVED`) — two
  lines with two days are two events, unless the newer says one moved.

Each is a :class:`records.Value`; :func:`records.revalued` decides, as for
money or a dose, whether the newer gives the same thing's field another value
(the same thing named on both sides, nothing that makes it no change).
English and German.  Pure: no I/O.
"""

from __future__ import annotations

import re

# A street and its number.  Not a place one parks or a platform ("Parkplatz 5", "Bahnsteig
# 3"), a word that only ends like a street ("Spring 2026", "During 2020"), nor a year.
_STREET = re.compile(
    r"(?-i:\b(?!(?:Park|Stell|Liege|Sitz|Arbeits|Spiel|Sport|Bahn|Flug|Camping|Zelt)(?:platz|steig))"
    r"[A-ZÄÖÜ][\wäöüß-]{2,}?)(?:straße|strasse|str\.|weg|gasse|platz|allee|ring|damm|ufer|chaussee|"
    r"steig|pfad)\s+(\d{1,3}\s?[a-z]?)\b(?![.,]\d)|"
    r"\b(\d{1,4}[a-z]?)\s+(?-i:[A-Z][a-z][\w-]*)\s+(?:street|st\.|road|rd\.|avenue|ave\.?|lane|way|drive|close)\b|"
    r"(?-i:\b[A-ZÄÖÜ][\wäöüß-]+)\s+(?:straße|strasse|weg|gasse|platz|allee|street|road|avenue|lane)\s+"
    r"(\d{1,3}\s?[a-z]?)\b(?![.,]\d)", re.I)
_READING = re.compile(r"(?<![\d.,])(\d{1,3}(?:[.,\s]\d{3})+|\d{4,7})\s*(km|mi|miles|kwh|m³|h)\b", re.I)
_NOT_A_READING = re.compile(r"\b(?:next|due|every|each|per|within|until|by|after|nächste\w*|fällig|"
                            r"alle|jede\w*|bis|spätestens|limit|max\w*|range|reichweite|trip|fahrt|tour)\b",
                            re.I)
_TERMS = re.compile(r"\b(\d{1,3})\s*(?:days?|tage?n?)\s*(?:net|netto)\b|\b(?:net|netto)\s*(\d{1,3})\b|"
                    r"\b(?:zahlungsziel|payment terms?|zahlungsfrist)\s*:?\s*(\d{1,3})\s*(?:days?|tage?n?)\b",
                    re.I)
_MONTHS = {m: n for n, ms in enumerate((
    "jan januar january", "feb februar february", "mar mär märz march maerz", "apr april",
    "may mai", "jun juni june", "jul juli july", "aug august", "sep sept september",
    "oct okt oktober october", "nov november", "dec dez dezember december"), 1) for m in ms.split()}
_MONTH = "|".join(sorted(_MONTHS, key=len, reverse=True))
_DATE = re.compile(
    rf"\b(?:\d{{4}})-(\d\d)-(\d\d)\b|\b(\d{{1,2}})\.(\d{{1,2}})\.(?:\d{{2,4}})?(?!\d)|"
    rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\.?\s+(?:of\s+)?({_MONTH})\b\.?|\b({_MONTH})\.?\s+(\d{{1,2}})(?:st|nd|rd|th)?\b",
    re.I)
# A phone number: from 0 or +, seven digits or more, in groups ("0421 66 55 120", "+49 176 22349981").
_PHONE = re.compile(r"(?<![\w+.,/-])(?:\+\d{1,3}[\s/-]?|0)\d{1,5}(?:[\s/-]?\d{1,5}){0,5}(?![\w.,/-]*\d)")
_NOT_A_PHONE = re.compile(r"\b(?:iban|bic|konto\w*|account|acct|steuer\w*|tax|ust|vat|id|versicherung\w*|"
                          r"insurance|policy|police|kunden\w*|customer|vertrag\w*|contract|order|bestell\w*|"
                          r"ref|reference|aktenzeichen|az|invoice|rechnung\w*|serial|seriennummer|pin|"
                          r"tracking|sendung\w*|passport|pass|ausweis\w*)\b", re.I)
_SLASH_DATE = re.compile(r"\b\d{1,2}/\d{1,2}/\d{2,4}\b")
# What a number is of: a mobile, a landline, a fax (two of them are two numbers).
_LINES = {"mobile": "mobile", "mobil": "mobile", "handy": "mobile", "cell": "mobile", "whatsapp": "mobile",
          "fax": "fax", "office": "office", "büro": "office", "work": "office", "dienstlich": "office",
          "home": "home", "privat": "home", "festnetz": "home", "landline": "home"}
# A day said to have moved: the only lines whose dates are values.
# ("moved", "pushed", "shifted" only to a day: "Tom moved to Hamburg on 1 April" moved house.)
MOVED = re.compile(
    r"\b(?:postponed|rescheduled|delayed|brought forward|put off|verschoben|verlegt|vorgezogen|"
    r"neuer termin|new date)\b[^.;]{0,25}?\b(?:to|until|till|auf|zum|on|am|for|for the)\b"
    rf"|\b(?:moved|pushed(?: back)?|shifted)\s+(?:back\s+)?(?:to|until|till|on|for)\s+(?:the\s+)?"
    rf"(?:\d|(?:{_MONTH})\b|(?:mon|tues|wednes|thurs|fri|satur|sun)day\b|next\b|tomorrow\b)", re.I)


def _digits(text: str) -> str:
    return re.sub(r"\D", "", text)


def found(text: str, start: int, end: int) -> list[tuple[str, str, int, int, str]]:
    """The values of these kinds in ``text[start:end]``: (kind, amount, start, end, unit)."""
    span = text[start:end]
    out: list[tuple[str, str, int, int, str]] = []
    for m in _STREET.finditer(span):
        number = next(g for g in m.groups() if g)
        out.append(("address", re.sub(r"\W", "", m.group(0).lower()).replace("strasse", "straße") +
                    "|" + number.replace(" ", "").lower(), start + m.start(), start + m.end(), ""))
    for m in _READING.finditer(span):
        unit = {"miles": "mi"}.get(m.group(2).lower(), m.group(2).lower())
        if _NOT_A_READING.search(re.split(r"[,;(]|\.\s", span[:m.start()])[-1]):
            continue  # "next service at 114,200 km", "every 15,000 km": a plan or an interval
        # a counter's word on the line: "drove 1,200 km to Rome" is a trip, not a reading
        if re.search(r"\b(?:meter|zähler\w*|\w*stand|reading|hours|betriebsstunden|odometer|mileage|tacho|"
                     r"laufleistung|service|serviced|inspektion|inspection|wartung)\b", span, re.I):
            out.append(("reading", _digits(m.group(1)), start + m.start(), start + m.end(), unit))
    for m in _PHONE.finditer(span):
        # not an IBAN, a tax or policy number, an order or a date ("IBAN DE89 3704 0044 …",
        # "Steuer-ID 01 234 567 890", "Versicherungsnr. 0815 4711 22", "01/04/2026")
        if 7 <= len(_digits(m.group(0))) <= 15 and not _NOT_A_PHONE.search(
                span[max(0, m.start() - 30):m.start()]) and not _SLASH_DATE.search(m.group(0)):
            before = re.findall(r"[\wäöü]+", span[max(0, m.start() - 30):m.start()].lower())[-3:]
            line = next((_LINES[w] for w in reversed(before) if w in _LINES), "")
            out.append(("phone", _digits(m.group(0)).lstrip("0"), start + m.start(), start + m.end(), line))
    for m in _TERMS.finditer(span):
        out.append(("terms", next(g for g in m.groups() if g), start + m.start(), start + m.end(), ""))
    if MOVED.search(text) or re.search(r"\b(?:planned|scheduled|geplant|angesetzt|due)\b", text, re.I):
        for m in _DATE.finditer(span):
            g = m.groups()
            if g[0]:
                month, day = int(g[0]), int(g[1])
            elif g[2]:
                day, month = int(g[2]), int(g[3])
            elif g[4]:
                day, month = int(g[4]), _MONTHS[g[5].lower()]
            else:
                day, month = int(g[7]), _MONTHS[g[6].lower()]
            if 1 <= month <= 12 and 1 <= day <= 31:
                out.append(("date", f"{month:02d}-{day:02d}", start + m.start(), start + m.end(), ""))
    return out


def goes_on(old: str, new: str, kind: str) -> bool:
    """Whether a new value of a kind can follow the old: a counter only goes up."""
    if kind == "reading":
        return int(new) > int(old)
    return True


__all__ = ["MOVED", "found", "goes_on"]
