"""A restore's entries made into stored rows, on two cores.

A restore from the logs (:mod:`kairos.engine.restore`) spends most of its
time on work that no entry's result depends on another's for: cutting the
entry out of the text and checking that it is its fields' rendering
(:func:`~kairos.domain.logfast.read_entry`), hashing its content, checking
its MAC, and writing the row the library would store for it
(:func:`fast_row`).  What does depend on order — each stream's hash chain,
positions rising, MACs present from some position on, the inserts — is
cheap.  So :class:`BlockReader` hands some of a day file's blocks (a
megabyte of whole entries each) to a second process, forked with
everything it needs already loaded, while this process reads the others and
does the ordered checks and the inserts: a restore takes both cores.

Nothing is decided in the other process.  It returns a block only when
every entry in it was read fast; any other block (an entry written by hand,
damaged, not UTF-8) is read here, by the same function as a one-core
restore, so that it fails with the same message at the same line.
``tests/test_restore.py`` holds both ways to the same rows and errors.
"""

from __future__ import annotations

import dataclasses
import marshal
import multiprocessing
import os
from collections import deque
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from json.encoder import encode_basestring
from typing import Any, NamedTuple

from eventsourcing.persistence import DatetimeAsISO

from kairos.domain.events import EVENT_TYPES, MemoryStream
from kairos.domain.logfast import Fast
from kairos.domain.logformat import Entry
from kairos.engine.logread import Block, fast_blocks, read_block
from kairos.engine.store import StoredRow

Encode = Callable[[Any], bytes]

# Logs smaller than this are read on one core: forking costs more than it saves.
TWO_CORES_FROM = 4 << 20
# Blocks read ahead of the one handed out (a megabyte each), and how many of
# them the other process may have at once: enough that neither process waits
# for the other, few enough that memory stays a few megabytes.
WINDOW = 8
AWAY = 2


class Prepared(NamedTuple):
    """An entry read fast, with what a restore checks and stores of it."""

    position: int
    line: int
    stream: str
    version: int
    prev: str
    hash: str
    hash_holds: bool  # its content gives its hash
    mac: str | None
    mac_holds: bool  # with the key given: its MAC holds (False without a key)
    time: str
    row: StoredRow


def prepare(entry: Fast, key: bytes | None, encode: Encode) -> Prepared:
    """What a restore needs of an entry read fast (the same in either process)."""
    return Prepared(entry.position, entry.line, entry.stream, entry.version, entry.prev,
                    entry.hash, entry.content_hash() == entry.hash, entry.mac,
                    key is not None and entry.mac_holds(key), entry.time,
                    fast_row(entry, encode))


def prepared_block(block: Block, key: bytes | None, encode: Encode) -> list[Prepared | Entry]:
    """A block's entries, each read fast made :class:`Prepared`, any other
    parsed (:func:`~kairos.engine.logread.read_block`, whose errors it raises)."""
    return [prepare(e, key, encode) if isinstance(e, Fast) else e for e in read_block(*block)]


# -- the other process -----------------------------------------------------------------

_worker: tuple[bytes | None, Encode] | None = None  # the key and encoder, set when forked


def _start(key: bytes | None, encode: Encode) -> None:
    global _worker
    _worker = (key, encode)


def _prepare_elsewhere(block: Block) -> bytes | None:
    """In the other process: the block's prepared entries as plain tuples
    (marshalled: an order of magnitude cheaper to send than objects), or
    None when one of them is not read fast or the block does not read."""
    assert _worker is not None
    try:
        entries = prepared_block(block, *_worker)
    except Exception:  # noqa: BLE001 - read again here, where it raises as it should
        return None
    prepared = [tuple(e) for e in entries if isinstance(e, Prepared)]
    return marshal.dumps(prepared) if len(prepared) == len(entries) else None


class BlockReader:
    """Reads day files for a restore as :func:`prepared_block` would, block
    by block, with a second process where it pays (see the module)."""

    def __init__(self, key: bytes | None, encode: Encode, *, log_bytes: int) -> None:
        self.key, self.encode = key, encode
        self.elsewhere = 0  # entries the other process read
        self.pool: ProcessPoolExecutor | None = None
        if log_bytes >= TWO_CORES_FROM and _two_cores():
            self.pool = ProcessPoolExecutor(1, multiprocessing.get_context("fork"), _start,
                                            (key, encode))

    def close(self) -> None:
        if self.pool is not None:
            self.pool.shutdown(wait=True, cancel_futures=True)

    def __call__(self, path: str, day: str, size: int | None) -> Iterator[Prepared | Entry]:
        """A day file's entries (its first ``size`` bytes), in file order."""
        if self.pool is None:
            for block in fast_blocks(path, day, size):
                yield from prepared_block(block, self.key, self.encode)
            return
        # Blocks read ahead, in file order, each [block, its future if the
        # other process has it, its entries once read here]; handed out in
        # order.  While the first is still away, this process reads the
        # next block it kept, so that neither process waits for the other.
        window: deque[list[Any]] = deque()
        blocks = fast_blocks(path, day, size)
        while True:
            while len(window) < WINDOW and (read := next(blocks, None)) is not None:
                away = sum(1 for _, f, _ in window if f is not None and not f.done())
                window.append([read, self.pool.submit(_prepare_elsewhere, read)
                               if away < AWAY else None, None])
            if not window:
                return
            first = window[0]
            while first[1] is not None and not first[1].done():
                kept = next((w for w in window if w[1] is None and w[2] is None), None)
                if kept is None:
                    break
                kept[2] = prepared_block(kept[0], self.key, self.encode)
            block, future, entries = window.popleft()
            yield from entries if entries is not None else self._take(block, future)

    def _take(self, block: Block, future: Future[bytes | None] | None
              ) -> list[Prepared] | list[Prepared | Entry]:
        done = future.result() if future is not None else None
        if done is not None:
            entries = [Prepared._make(t) for t in marshal.loads(done)]
            self.elsewhere += len(entries)
            return entries
        return prepared_block(block, self.key, self.encode)


def _two_cores() -> bool:
    cores = os.sched_getaffinity(0) if hasattr(os, "sched_getaffinity") else range(
        os.cpu_count() or 1)
    return len(cores) > 1 and "fork" in multiprocessing.get_all_start_methods()


# -- rows without event objects -----------------------------------------------------

_TIMESTAMP = DatetimeAsISO.name  # the library's transcoding of a datetime
_NOT_STATE = frozenset({"originator_id", "originator_version"})  # columns of their own


@dataclasses.dataclass(frozen=True)
class _Shape:
    """How the library stores an event type: its topic, and its state's
    fields after the timestamp in the order the event object holds them (the
    mapper encodes ``vars(event)``), with ``class_version`` when the type
    has one (the mapper adds it last)."""

    topic: str
    fields: tuple[str, ...]
    class_version: str


def _shape(cls: type) -> _Shape:
    fields = tuple(f.name for f in dataclasses.fields(cls) if f.name not in _NOT_STATE)
    assert fields[0] == "timestamp", fields
    version = getattr(cls, "class_version", 1)
    return _Shape(getattr(cls, "TOPIC"), fields[1:],  # noqa: B009 - set on every event class
                  f',"class_version":{version}' if version > 1 else "")


_SHAPES: dict[str, _Shape] = {str(kind): _shape(cls) for kind, cls in EVENT_TYPES.items()}


def iso_time(time: str) -> str:
    """``datetime.isoformat()`` of a UTC time given as
    :func:`~kairos.domain.hashing.format_time` writes it (the stored form):
    ``+00:00`` for the ``Z``, and no fraction when it is zero."""
    if time[20:26] == "000000":
        return time[:19] + "+00:00"
    return time[:26] + "+00:00"


def fast_row(fast: Fast, encode: Callable[[Any], bytes]) -> StoredRow:
    """The row the library stores for the event of an entry read fast: what
    :meth:`~kairos.engine.store.Store.stored_row` gives for the parsed event.
    Its JSON written out as the library's encoder writes it (no spaces, no
    ASCII escaping, fields in the object's order): strings with the JSON
    encoder's own escaping, any other value by ``encode`` itself."""
    shape = _SHAPES[fast.type_name]
    values = {**fast.payload, "originator_topic": MemoryStream.TOPIC,
              "event_id": fast.event_id, "prev": fast.prev, "hash": fast.hash}
    items = [f'{{"timestamp":{{"_type_":"{_TIMESTAMP}","_data_":"{iso_time(fast.time)}"}}']
    for name in shape.fields:
        value = values[name]
        if isinstance(value, str):
            items.append(f'"{name}":{encode_basestring(value)}')
        elif value is None:
            items.append(f'"{name}":null')
        else:
            items.append(f'"{name}":{encode(value).decode()}')
    state = ",".join(items) + shape.class_version + "}"
    return (fast.position, fast.stream.replace("-", ""), fast.version, shape.topic,
            state.encode())
