"""An import's body: read as a stream, split into lines, every line validated, the bytes kept in a
spooled temporary file (memory up to SPOOL_MEMORY, then disk) for the second pass that writes.

Everything here happens before any database work, so a bad file costs no transaction, and a slow
upload holds no database connection.
"""

from __future__ import annotations

import asyncio
import tempfile
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass, field
from typing import IO, TypeVar

from app.errors import AppError, PayloadTooLarge
from app.limits import Limits
from app.transfer.format import (
    VERSION,
    End,
    Header,
    MessageRecord,
    Record,
    SessionRecord,
    SummaryRecord,
    UserRecord,
    line_error,
    parse_record,
)

SPOOL_MEMORY = 4 * 1024 * 1024
# Lines are validated this many at a time off the event loop (parsing megabytes is CPU work).
BATCH_LINES = 1000
BATCH_BYTES = 4 * 1024 * 1024
READ_CHUNK = 1024 * 1024

Line = tuple[int, bytes]
T = TypeVar("T")


class LineSplitter:
    """Bytes in, numbered lines out; a line over `max_line_bytes` is refused as soon as it is."""

    def __init__(self, max_line_bytes: int) -> None:
        self.max_line = max_line_bytes
        self.number = 0
        self._partial = bytearray()

    def feed(self, chunk: bytes) -> list[Line]:
        out: list[Line] = []
        start = 0
        while (end := chunk.find(b"\n", start)) != -1:
            self._partial += chunk[start:end]
            out.append(self._emit())
            start = end + 1
        self._partial += chunk[start:]
        self._check(self.number + 1, len(self._partial))
        return out

    def finish(self) -> list[Line]:
        return [self._emit()] if self._partial else []

    def _emit(self) -> Line:
        self.number += 1
        raw = bytes(self._partial).rstrip(b"\r")
        if self.number == 1:
            raw = raw.removeprefix(b"\xef\xbb\xbf")  # a byte order mark some editors write
        self._partial.clear()
        self._check(self.number, len(raw))
        return self.number, raw

    def _check(self, number: int, size: int) -> None:
        if size > self.max_line:
            msg = f"is longer than {self.max_line} bytes (ENGRAM_MAX_BODY_BYTES)"
            raise PayloadTooLarge(
                f"line {number}: {msg}",
                errors=[{"loc": ["line", number], "msg": msg, "type": "too_large"}],
                limit=self.max_line,
                line=number,
            )


@dataclass
class FileCheck:
    """What no single line can say: the header comes first and `end` last with the right count;
    every message and summary belongs to a session of the file and lies within its `last_seq`."""

    header: Header | None = None
    end: End | None = None
    user: UserRecord | None = None
    records: int = 0
    sessions: dict[str, int] = field(default_factory=dict)  # session -> its last_seq
    # session -> (line, field, the highest seq a message or summary of it reaches there)
    reach: dict[str, tuple[int, str, int]] = field(default_factory=dict)
    first_use: dict[str, int] = field(default_factory=dict)

    def add(self, number: int, record: Record) -> None:
        if self.header is None:
            if not isinstance(record, Header):
                raise line_error(number, "the first line must be the header (type engram.export)", "header")
            if record.version != VERSION:
                raise line_error(
                    number,
                    f"version {record.version} is not supported; this server reads {VERSION}",
                    "version",
                    ["version"],
                )
            self.header = record
            return
        if self.end is not None:
            raise line_error(number, "nothing may follow the end line", "after_end")
        if isinstance(record, Header):
            raise line_error(number, "a second header", "header")
        if isinstance(record, End):
            if record.records != self.records:
                raise line_error(
                    number,
                    f"the file says {record.records} records, but it holds {self.records}",
                    "count",
                    ["records"],
                )
            self.end = record
            return
        self.records += 1
        if isinstance(record, UserRecord):
            if self.user is not None:
                raise line_error(number, "a second user record", "duplicate")
            self.user = record
        elif isinstance(record, SessionRecord):
            if record.session_id in self.sessions:
                raise line_error(number, "a second record for this session", "duplicate", ["session_id"])
            self.sessions[record.session_id] = record.last_seq
        elif isinstance(record, MessageRecord | SummaryRecord):
            name, seq = (
                ("seq", record.seq) if isinstance(record, MessageRecord) else ("to_seq", record.to_seq)
            )
            self.first_use.setdefault(record.session_id, number)
            known = self.reach.get(record.session_id)
            if known is None or seq > known[2]:
                self.reach[record.session_id] = (number, name, seq)

    def finish(self, number: int) -> None:
        if self.header is None:
            raise line_error(max(number, 1), "the file is empty; the first line must be the header", "header")
        if self.end is None:
            raise line_error(number, "the file ends without its end line (cut short?)", "end")
        for session_id, line in self.first_use.items():
            if session_id not in self.sessions:
                msg = f"no session record for {session_id}"
                raise line_error(line, msg, "unknown_session", ["session_id"])
        for session_id, (line, name, seq) in sorted(self.reach.items(), key=lambda kv: kv[1][0]):
            last = self.sessions[session_id]
            if seq > last:
                raise line_error(line, f"{seq} is beyond its session's last_seq {last}", "seq", [name])


def _parse_batch(
    lines: list[Line], limits: Limits | None
) -> tuple[list[tuple[int, Record]], AppError | None]:
    """The batch's records up to its first bad line, and that line's problem (blank lines skipped)."""
    out: list[tuple[int, Record]] = []
    for n, raw in lines:
        if raw.strip():
            try:
                out.append((n, parse_record(raw, line=n, limits=limits)))
            except AppError as exc:
                return out, exc
    return out, None


class Upload:
    """A validated import body, readable again (as records) for the writing pass."""

    def __init__(self, spool: IO[bytes], check: FileCheck, max_line_bytes: int) -> None:
        self._spool = spool
        self.check = check
        self._max_line = max_line_bytes

    async def batches(self, prepare: Callable[[list[tuple[int, Record]]], T]) -> AsyncIterator[T]:
        """The records again, in order, a batch at a time: parsed and handed to `prepare` off the
        event loop (both are CPU work on megabytes)."""
        self._spool.seek(0)
        for lines in _batched(self._read_lines()):
            yield await asyncio.to_thread(self._prepared, lines, prepare)

    def _prepared(self, lines: list[Line], prepare: Callable[[list[tuple[int, Record]]], T]) -> T:
        # The first pass checked every line, limits included: this one only rebuilds the records.
        records, error = _parse_batch(lines, None)
        if error is not None:  # unreachable unless the spool changed under us
            raise error
        return prepare(records)

    def _read_lines(self) -> Iterator[Line]:
        splitter = LineSplitter(self._max_line)
        while chunk := self._spool.read(READ_CHUNK):
            yield from splitter.feed(chunk)
        yield from splitter.finish()

    def close(self) -> None:
        self._spool.close()


def _batched(lines: Iterator[Line]) -> Iterator[list[Line]]:
    batch: list[Line] = []
    size = 0
    for line in lines:
        batch.append(line)
        size += len(line[1])
        if len(batch) >= BATCH_LINES or size >= BATCH_BYTES:
            yield batch
            batch, size = [], 0
    if batch:
        yield batch


async def receive(
    body: AsyncIterator[bytes], *, max_bytes: int, max_line_bytes: int, limits: Limits
) -> Upload:
    """Read and validate the whole body (the first pass). Raises a problem for the first bad
    line, a body over `max_bytes` or a line over `max_line_bytes`."""
    spool: IO[bytes] = tempfile.SpooledTemporaryFile(max_size=SPOOL_MEMORY)  # noqa: SIM115
    try:
        splitter = LineSplitter(max_line_bytes)
        check = FileCheck()
        pending: list[Line] = []
        pending_bytes = seen = 0

        async def validate(lines: list[Line]) -> None:
            # Problems are reported for the first bad line, whether its fault is its own or its place.
            records, error = await asyncio.to_thread(_parse_batch, lines, limits)
            for number, record in records:
                check.add(number, record)
            if error is not None:
                raise error

        async for chunk in body:
            seen += len(chunk)
            if seen > max_bytes:
                raise PayloadTooLarge(
                    f"The import body exceeds {max_bytes} bytes (ENGRAM_MAX_IMPORT_BYTES).", limit=max_bytes
                )
            spool.write(chunk)
            pending.extend(splitter.feed(chunk))
            pending_bytes += len(chunk)
            if len(pending) >= BATCH_LINES or pending_bytes >= BATCH_BYTES:
                await validate(pending)
                pending, pending_bytes = [], 0
        pending.extend(splitter.finish())
        await validate(pending)
        check.finish(splitter.number)
        return Upload(spool, check, max_line_bytes)
    except BaseException:
        spool.close()
        raise
