"""Reading a day file without holding it in memory.

A day file can hold a million entries (432 MB in one day).  Every reader
here reads either the file's end, backwards, a few kilobytes at a time
(where the logs end: every open pays it, so it must not grow with the
file), or the whole file front to back in blocks cut at entry boundaries
(verification, rebuilds, a restore): memory is bounded by the block size and
the largest entry, never by the file.

Cutting at entry boundaries is safe because no content can start a line
with ``## `` (free text and JSON blocks are indented), so ``\\n## `` is
always the start of an entry's header line.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator

from kairos.domain.logfast import Fast, read_entry
from kairos.domain.logformat import Entry, LogFormatError, file_header, parse_entries

# How much of a file's end is read to find its last entry (most entries are
# far smaller; a larger one is found by reading sixteen times more, and so on).
END_CHUNK = 4096
# Bytes read at a time when a file is streamed front to back.
BLOCK = 1 << 20
HEADER_AT = re.compile(rb"\n## (\d+) ")
_BEFORE_HEADER = re.compile(rb"\n(?=## \d+ )")


def blocks(path: str, size: int | None = None, block: int | None = None) -> Iterator[bytes]:
    """The file's bytes (its first ``size``) in consecutive pieces, each cut
    just before an entry's header line or at the end: joined, they are the
    file.  A piece holds at least one whole line; one entry larger than a
    block makes its piece larger."""
    block = block or BLOCK
    remaining = size
    carry = b""
    with open(path, "rb") as f:
        while True:
            want = block if remaining is None else min(block, remaining)
            data = f.read(want) if want > 0 else b""
            if remaining is not None:
                remaining -= len(data)
            if not data:
                if carry:
                    yield carry
                return
            buf = carry + data if carry else data
            cut = buf.rfind(b"\n## ")
            if cut < 0:
                carry = buf
                continue
            yield buf[:cut + 1]
            carry = buf[cut + 1:]


def count_lines(path: str, size: int) -> int:
    """The newlines in a file's first ``size`` bytes, read a block at a time."""
    count = 0
    with open(path, "rb") as f:
        while size > 0:
            data = f.read(min(BLOCK, size))
            if not data:
                break
            size -= len(data)
            count += data.count(b"\n")
    return count


def _after_header(path: str, day: str, size: int | None) -> Iterator[bytes]:
    """A day file's blocks (its first ``size`` bytes), the first without the
    file's header; none when the header is not yet whole (a failed append
    created the file).

    :raises LogFormatError: the file does not start with its header.
    """
    header = file_header(day).encode()
    pieces = blocks(path, size)
    piece = next(pieces, b"")
    if len(piece) < len(header) and header.startswith(piece):
        return
    if not piece.startswith(header):
        raise LogFormatError(f"expected the header '# Kairos log {day}'", 1)
    yield piece[len(header):]
    yield from pieces


def _with_sentinels(path: str, day: str, size: int | None
                    ) -> Iterator[tuple[bytes, bytes | None, int]]:
    """Each block of a day file after its header, with the first line of
    the block after it (None for the last block: a parser reads up to that
    line to know where the block's last entry ends) and the block's first
    line number."""
    pieces = _after_header(path, day, size)
    piece = next(pieces, None)
    if piece is None:
        return
    line = 3
    for after in pieces:
        yield piece, after[:after.find(b"\n") + 1] if b"\n" in after else after + b"\n", line
        line += piece.count(b"\n")
        piece = after
    yield piece, None, line


def iter_entries(path: str, day: str, size: int | None = None) -> Iterator[Entry]:
    """The entries of a day file (its first ``size`` bytes), parsed a block
    at a time: the entries :func:`kairos.domain.logformat.parse_day` gives,
    and the same error at the same line — raised when the streaming reaches
    it, after the entries before it were yielded.

    :raises LogFormatError: as ``parse_day``.
    :raises UnicodeDecodeError: a piece is not UTF-8.
    """
    for piece, sentinel, line in _with_sentinels(path, day, size):
        if sentinel is None:
            yield from parse_entries(piece.decode("utf-8"), line)
        else:
            yield from parse_entries((piece + sentinel).decode("utf-8"), line,
                                     stop=piece.count(b"\n"))


def iter_fast(path: str, day: str, size: int | None = None) -> Iterator[Fast | Entry]:
    """:func:`iter_entries` for a restore: each entry that is exactly the
    rendering of its fields comes read fast (:func:`~kairos.domain.logfast.read_entry`),
    any other parsed as ``iter_entries`` parses it — and so fails as it does:
    the same error at the same line, raised when the streaming reaches the
    block it is in, before any entry of that block is yielded.

    :raises LogFormatError: as ``parse_day``.
    :raises UnicodeDecodeError: a piece is not UTF-8.
    """
    for piece, sentinel, line in _with_sentinels(path, day, size):
        if sentinel is None:
            yield from _read_piece(piece.decode("utf-8"), "", line)
        else:
            text = (piece + sentinel).decode("utf-8")  # fails where iter_entries fails
            follow = sentinel.decode("utf-8")
            yield from _read_piece(text[:len(text) - len(follow)], follow, line)


def _read_piece(text: str, sentinel: str, line: int) -> list[Fast | Entry]:
    """The entries of a piece of whole entries (``sentinel``: the line that
    follows it), each read fast when it can be, else parsed; the whole
    piece before any is handed out, as :func:`iter_entries` does."""
    if not text.endswith("\n"):  # empty, or a file's last piece cut short
        return list(parse_entries(text, line)) if text else []
    out: list[Fast | Entry] = []
    start = 0
    while start < len(text):
        cut = text.find("\n## ", start)
        end = len(text) if cut < 0 else cut + 1
        chunk = text[start:end]
        fast = read_entry(chunk, line)
        lines = chunk.count("\n")
        if fast is not None:
            out.append(fast)
        else:  # parsed with the line after it, as the whole piece would be
            follow = text[end:text.find("\n", end) + 1] if end < len(text) else sentinel
            out.extend(parse_entries(chunk + follow, line, stop=lines))
        line += lines
        start = end
    return out


def file_places(path: str, size: int | None = None) -> Iterator[tuple[int, int]]:
    """(position, line) of every entry header in a file, in file order, a
    block at a time; each block in two passes in C (a split before every
    header, a search for the header numbers), not a Python step per line."""
    line = 1
    tail = b""  # the newline that ends the previous block: a header may follow it
    for piece in blocks(path, size):
        data = tail + piece
        pieces = _BEFORE_HEADER.split(data)
        at = line - (1 if tail else 0)
        for number, part in zip(HEADER_AT.findall(data), pieces, strict=False):
            at += part.count(b"\n") + 1
            yield int(number), at
        line += piece.count(b"\n")
        tail = b"\n" if piece.endswith(b"\n") else b""


# -- the end of a file ----------------------------------------------------------------
def _end_regions(path: str, size: int) -> Iterator[tuple[int, bytes]]:
    """(offset, bytes): ever larger ends of a file's first ``size`` bytes
    (4 KB, then 16 times more each time), the last of them the whole."""
    chunk = END_CHUNK
    with open(path, "rb") as f:
        while True:
            start = max(0, size - chunk)
            f.seek(start)
            yield start, f.read(size - start)
            if start == 0:
                return
            chunk *= 16


def tail_region(path: str, size: int) -> tuple[int, bytes]:
    """(offset, bytes): the end of a file's first ``size`` bytes that holds
    its last two entry headers (the whole file when it has fewer)."""
    for start, data in _end_regions(path, size):
        last = data.rfind(b"\n## ")
        if start == 0 or (last > 0 and data.rfind(b"\n## ", 0, last) >= 0):
            return start, data
    raise AssertionError("the last region is the whole file")


def complete_prefix(path: str, day: str, size: int | None = None
                    ) -> tuple[int, Entry | None, bytes]:
    """How many leading bytes of a day file hold whole entries, the last of
    them, and the bytes after (a torn entry), reading only the file's end.

    Only the last entry can be torn (entries are appended in order, each
    write fsynced), so only the region from the last entry header is parsed.
    """
    if size is None:
        size = os.path.getsize(path)
    base, data = tail_region(path, size)
    good, last = _complete_prefix(data, day, base)
    return base + good, last, data[good:]


def _complete_prefix(data: bytes, day: str, base: int) -> tuple[int, Entry | None]:
    header = file_header(day).encode()
    if base == 0 and not data.startswith(header):
        if header.startswith(data):
            return 0, None  # torn while the file was being created
        raise LogFormatError(f"expected the header '# Kairos log {day}'", 1)
    start = data.rfind(b"\n## ")
    if base == 0 and start < len(header) - 1:
        return len(header), None
    start += 1
    region = data[start:]
    entry = parse_one(region)
    if entry is not None:
        return len(data), entry
    # The region may be a whole entry followed by the start of a torn one.
    end = region.find(b"\n\n", region.find(b"\n- hash: "))
    if end != -1:
        end += 2
        first = parse_one(region[:end])
        if first is not None:
            return start + end, first
    return start, _last_whole_before(data, start)


def parse_one(region: bytes) -> Entry | None:
    try:
        parsed = parse_entries(region.decode("utf-8"))
    except (UnicodeDecodeError, LogFormatError, TypeError):
        return None
    return parsed[-1] if len(parsed) == 1 else None


def _last_whole_before(data: bytes, start: int) -> Entry | None:
    prev = data.rfind(b"\n## ", 0, start - 1)
    if prev == -1:
        return None
    return parse_one(data[prev + 1:start])


def last_position(path: str, day: str, size: int | None = None) -> int | None:
    """The position of a day file's last entry (in its first ``size`` bytes),
    reading only its end; 0 when it holds only its header, None when its end
    is not a whole entry (torn)."""
    if size is None:
        size = os.path.getsize(path)
    for start, data in _end_regions(path, size):
        at = data.rfind(b"\n## ")
        if at >= 0 and (start > 0 or at >= len(file_header(day)) - 1):
            entry = parse_one(data[at + 1:])
            return entry.position if entry is not None else None
        if start == 0:  # no entry header at all
            return 0 if data == file_header(day).encode() else None
    raise AssertionError("the last region is the whole file")


def first_position(path: str, day: str) -> int | None:
    """The position of a day file's first entry (None: no entry header)."""
    with open(path, "rb") as f:
        data = f.read(len(file_header(day)) + 32)
    m = HEADER_AT.match(data, len(file_header(day)) - 1)
    return int(m.group(1)) if m else None


class DayReader:
    """A day file's first ``size`` bytes, consumed front to back in the
    sizes a caller asks for (one rendered entry at a time, in verification).

    Keeps no file open between reads (a verification may have thousands of
    day files on the go) and at most about one block in memory.  With
    ``strip`` a block's ``- mac:`` lines are removed before it is handed out
    (blocks are cut before entry headers, so a mac line is never split).
    ``line``: the 1-based line (of what was handed out) the next byte is on.
    """

    def __init__(self, path: str, size: int, strip: re.Pattern[bytes] | None = None):
        self.path, self.size, self.strip = path, size, strip
        self.raw = 0  # file offset of the first byte not yet read
        self.buf = b""
        self.pos = 0
        self.line = 1
        self.last = b""  # the last byte handed out

    def _more(self) -> bool:
        chunk = BLOCK
        while self.raw < self.size:
            end = min(self.size, self.raw + chunk)
            with open(self.path, "rb") as f:
                f.seek(self.raw)
                data = f.read(end - self.raw)
            if len(data) < end - self.raw:  # the file shrank under us: what is there
                end = self.raw + len(data)
                self.size = end
            if end < self.size:
                cut = data.rfind(b"\n## ")
                if cut < 0:
                    chunk *= 4
                    continue
                data = data[:cut + 1]
            self.raw += len(data)
            if self.strip is not None:
                data = self.strip.sub(b"", data)
            self.buf = self.buf[self.pos:] + data
            self.pos = 0
            return True
        return False

    def take(self, n: int) -> bytes:
        """The next ``n`` bytes (fewer at the end), consumed."""
        while len(self.buf) - self.pos < n and self._more():
            pass
        got = self.buf[self.pos:self.pos + n]
        self.pos += len(got)
        self.line += got.count(b"\n")
        if got:
            self.last = got[-1:]
        return got

    def peek(self, n: int) -> bytes:
        """The next ``n`` bytes (fewer at the end), not consumed."""
        while len(self.buf) - self.pos < n and self._more():
            pass
        return self.buf[self.pos:self.pos + n]

    def rest(self) -> Iterator[bytes]:
        """What was not consumed, a block at a time, consumed."""
        while self.pos < len(self.buf) or self._more():
            got = self.buf[self.pos:]
            self.pos = len(self.buf)
            self.line += got.count(b"\n")
            self.last = got[-1:]
            yield got
