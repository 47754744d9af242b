"""Room in DuckDB's memory for what a transaction's deletes pin until it ends.

DuckDB keeps the version info of the rows a transaction deletes in memory, pinned, until the
transaction ends (and, once committed, until a checkpoint writes it): about
``DELETE_ROW_GROUP_BYTES`` for each row group it deletes a row from and ``DELETE_VECTOR_BYTES``
more for each vector. Rows deleted across a big table pin more than a bulk write's memory cap:
an add of 10,000 documents to a 1,000,000-document index replaced the shared_hashes rows of the
hashes it shares, across that table's 20,080 vectors, and failed with DuckDB's "Out of Memory
Error" under the 384 MB of ``writes.bulk_writes`` (bench/RESULTS.md, Scale).

``room_for_deletes`` opens a room for one transaction; whatever deletes inside it says first how
many rows it may delete from which table (``expect_deletes``), and the room raises DuckDB's
limit by what that many rows can pin (never above the limit the index was opened with,
``dbfile.index_memory_bytes``; none where that is not a size). A write that deletes few rows
raises it little, so DuckDB's buffer pool does not grow with the index for nothing.
"""
from __future__ import annotations

import os
from contextlib import contextmanager
from typing import Iterator

import duckdb

from .dbfile import index_memory_bytes
from .layout import LARGE_ROW_GROUP_ROWS
from .limits import apply_memory_limit, memory_bytes

__all__ = ["DeleteRoom", "room_for_deletes", "expect_deletes", "weighing_room", "DELETE_ROW_GROUP_BYTES",
           "DELETE_VECTOR_BYTES", "VECTOR_ROWS"]

#: what DuckDB pins, until a transaction that deletes rows ends, for each row group of a table it
#: deletes a row from, and for each vector (``VECTOR_ROWS`` rows) more: the deletes' version info,
#: held for the commit and for a rollback, never evicted. Measured with DuckDB 2.0.1: deleting
#: one row in each of the 1,953 vectors of a table of 4M rows needed a limit of 160 MB in 8,192-row
#: groups (489 groups), 96 MB in 32,768-row groups and 48 MB in 122,880; one row in each row group
#: of 8,192 rows, 160 MB; at 1,000,000 documents, one row in each of shared_hashes' 20,080 vectors
#: (1,343 groups) pinned 551 MB
DELETE_ROW_GROUP_BYTES = 256 * 2**10
DELETE_VECTOR_BYTES = 32 * 2**10
#: DuckDB's vector: the rows its version info covers
VECTOR_ROWS = 2048

_open: dict[str, "DeleteRoom"] = {}  # real path of an index file -> the room open for its transaction
# (one per file: every store of a file in a process shares its DuckDB instance and memory limit;
# rooms are opened by the thread that writes, one write at a time)


def _key(store) -> str:
    return os.path.realpath(store.path)


class DeleteRoom:
    """The room of one transaction: the rows it may delete so far, per table, and the memory
    limit they need."""

    def __init__(self, store) -> None:
        self.store = store
        self.sizes = {str(name): int(rows or 0) for name, rows in store.rows("table_rows")}
        self.groups: dict[str, int] = {}  # the row groups of a table, counted when first needed
        self.setting = str(store.value("memory_limit_now"))
        self.before = memory_bytes(self.setting)
        self.opened = index_memory_bytes(store.path)
        # no room where the limits are not sizes: the limit stays as it is
        self.cap = None if self.opened is None or self.before is None else max(self.opened, self.before)
        self.limit = self.before
        self.rows: dict[str, int] = {}

    def row_groups(self, table: str) -> int:
        """The row groups ``table`` is stored in (a table written in groups of more than one
        size, as an index that grew past 2 GB, has more than its rows over one size give)."""
        if table not in self.groups:
            self.groups[table] = int(self.store.value("table_row_groups", table=table) or 0)
        return self.groups[table]

    def pinned_bytes(self, table: str, rows: int) -> int:
        """The most deleting ``rows`` rows of ``table`` can pin (each may be in a vector and a
        row group of its own, as far as the table has them)."""
        size = self.sizes.get(table, 0)
        vectors = min(-(-size // VECTOR_ROWS), rows)
        groups = rows if rows <= -(-size // LARGE_ROW_GROUP_ROWS) else min(self.row_groups(table), rows)
        return groups * DELETE_ROW_GROUP_BYTES + vectors * DELETE_VECTOR_BYTES

    def expect(self, table: str, rows: int | None) -> None:
        """The transaction may delete ``rows`` more rows of ``table`` (None: any of them)."""
        if self.cap is None or self.before is None or self.limit is None:
            return
        size = self.sizes.get(table, 0)
        self.rows[table] = min(size, self.rows.get(table, 0) + (size if rows is None else max(0, int(rows))))
        want = min(self.cap, self.before + sum(self.pinned_bytes(t, r) for t, r in self.rows.items()))
        if want > self.limit:
            self.store.connection.execute("SET memory_limit = ?", [f"{want}B"])
            self.limit = want

    def restore(self) -> None:
        """The limit before the room, where DuckDB can go back to it (committed deletes keep their
        version info until a checkpoint writes them: until then the limit stays). The index's own
        limit is set again as it was opened (``limits.apply_memory_limit``); another (a bulk
        write's cap) from what it read back, which its block sets again when it ends."""
        if self.limit is None or self.before is None or self.limit <= self.before:
            return
        con = self.store.connection
        try:
            if self.opened is not None and self.before == self.opened:
                con.execute("RESET memory_limit")
                apply_memory_limit(con)
            else:
                con.execute("SET memory_limit = ?", [self.setting])
            self.limit = self.before
        except duckdb.Error:
            pass


@contextmanager
def room_for_deletes(store, most_rows: dict[str, int | None] | None = None) -> Iterator[DeleteRoom | None]:
    """A room for the deletes of the transaction the block holds (open it around the
    transaction), with ``most_rows`` expected from the start (table -> rows, None: any). Inside
    another room of the same index, that room takes them; on a read-only or in-memory index,
    nothing."""
    if store.read_only or store.is_memory:
        yield None
        return
    outer = _open.get(_key(store))
    if outer is not None:
        for table, rows in (most_rows or {}).items():
            outer.expect(table, rows)
        yield outer
        return
    room = DeleteRoom(store)
    _open[_key(store)] = room
    try:
        for table, rows in (most_rows or {}).items():
            room.expect(table, rows)
        yield room
    finally:
        del _open[_key(store)]
        room.restore()


def expect_deletes(store, table: str, rows: int | None) -> None:
    """Say, before deleting, that the transaction may delete ``rows`` rows of ``table`` (None:
    any): the open room makes room for them. Without an open room, nothing."""
    if store.is_memory:
        return
    room = _open.get(_key(store))
    if room is not None:
        room.expect(table, rows)


def weighing_room(store) -> DeleteRoom | None:
    """The room open for the index's transaction, else a new one that is not opened: to weigh
    what deletes would pin (``DeleteRoom.pinned_bytes``) against the most it can raise the limit
    to (``DeleteRoom.cap``). None on a read-only or in-memory index."""
    if store.read_only or store.is_memory:
        return None
    return _open.get(_key(store)) or DeleteRoom(store)
