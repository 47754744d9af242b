"""Bulk writes (store/writes.py): an add's commits checkpoint less often and DuckDB keeps at most
``BULK_MEMORY_MB`` of blocks in memory; both settings come back when the block ends. A transaction
that deletes rows gets room in memory for what the deletes pin (``room_for_deletes``)."""
from __future__ import annotations

import duckdb
import pytest

import winnowdb
from winnowdb.store.dbfile import MEMORY_ENV, memory_bytes
from winnowdb.store.writes import (
    BULK_MEMORY_MB,
    DELETE_ROW_GROUP_BYTES,
    DELETE_VECTOR_BYTES,
    bulk_writes,
    room_for_deletes,
)


@pytest.mark.parametrize("text,expected", [
    ("18.8 GiB", int(18.8 * 2**30)), ("512.0 MiB", 512 * 2**20), ("1.5 GB", 1_500_000_000),
    ("1000 bytes", 1000), ("16383.9 PiB", int(16383.9 * 2**50)), ("unlimited", None), ("3 parsecs", None),
])
def test_memory_bytes_reads_duckdbs_sizes(text, expected):
    assert memory_bytes(text) == expected


def _setting(store, name: str) -> str:
    return str(store.connection.execute("SELECT current_setting(?)", [name]).fetchall()[0][0])


def test_bulk_writes_caps_memory_and_restores_the_settings(tmp_path):
    with winnowdb.open(tmp_path / "i.duckdb") as idx:
        store = idx.store
        memory, threshold = _setting(store, "memory_limit"), _setting(store, "checkpoint_threshold")
        with bulk_writes(store):
            inside = memory_bytes(_setting(store, "memory_limit"))
            assert inside is not None and inside <= BULK_MEMORY_MB * 2**20
            assert _setting(store, "checkpoint_threshold") != threshold
        assert (_setting(store, "memory_limit"), _setting(store, "checkpoint_threshold")) == (memory, threshold)
        with pytest.raises(KeyError):  # restored however the block ends
            with bulk_writes(store):
                raise KeyError("x")
        assert (_setting(store, "memory_limit"), _setting(store, "checkpoint_threshold")) == (memory, threshold)


def test_bulk_writes_never_raises_a_lower_limit(tmp_path):
    with winnowdb.open(tmp_path / "i.duckdb") as idx:
        store = idx.store
        store.connection.execute("SET memory_limit = '100MB'")
        with bulk_writes(store):
            assert memory_bytes(_setting(store, "memory_limit")) <= 100_000_000


def test_bulk_writes_leave_room_for_the_largest_value(tmp_path):
    # storing a 200 MB text took DuckDB two blocks of its size: a fixed cap made a huge file an
    # "Out of Memory Error" (tests/reliability/test_big.py stores one)
    with winnowdb.open(tmp_path / "i.duckdb") as idx:
        store = idx.store
        store.connection.execute("SET memory_limit = '8GB'")
        with bulk_writes(store, largest_value=300 * 2**20):
            assert memory_bytes(_setting(store, "memory_limit")) >= 4 * 300 * 2**20
        with bulk_writes(store):
            assert memory_bytes(_setting(store, "memory_limit")) <= BULK_MEMORY_MB * 2**20


@pytest.mark.parametrize("text,expected", [("8GB", 8 * 10**9), ("500MB", 500 * 10**6), ("2 GiB", 2 * 2**30),
                                           ("1.5gb", 1_500_000_000), ("GB", None), ("", None)])
def test_memory_bytes_reads_the_sizes_users_give(text, expected):
    assert memory_bytes(text) == expected


def _filled(path, rows: int):
    """An index whose shared_hashes holds ``rows`` rows on disk (checkpointed)."""
    idx = winnowdb.open(path)
    with idx.store.transaction() as con:
        con.execute("INSERT INTO shared_hashes SELECT range, 2 FROM range(?)", [rows])
    idx.store.run("checkpoint")
    return idx


def _delete_one_row_a_vector(store) -> None:
    with store.transaction() as con:
        con.execute("DELETE FROM shared_hashes WHERE hash % 2048 = 7")


def test_deletes_across_a_table_need_room_in_memory(tmp_path):
    # DuckDB pins the version info of a transaction's deletes until it ends, for every row group
    # and vector they touch: under a limit that the table's blocks alone fit, deleting one row in
    # each vector fails; room_for_deletes makes the room (an add to a 1,000,000-document index
    # failed so in its statistics, under a bulk write's 384 MB)
    rows = 4_000_000  # 1,954 vectors, 489 row groups of 8,192
    with _filled(tmp_path / "a.duckdb", rows) as idx:
        idx.store.connection.execute("SET memory_limit = '32MB'")
        with pytest.raises(duckdb.OutOfMemoryException):
            _delete_one_row_a_vector(idx.store)
    with _filled(tmp_path / "b.duckdb", rows) as idx:
        store = idx.store
        store.connection.execute("SET memory_limit = '32MB'")
        with room_for_deletes(store, {"shared_hashes": None}):
            inside = memory_bytes(_setting(store, "memory_limit"))
            _delete_one_row_a_vector(store)
            store.run("checkpoint")  # the committed deletes' version info is let go when written
        assert inside >= 32 * 10**6 + 489 * DELETE_ROW_GROUP_BYTES + 1954 * DELETE_VECTOR_BYTES - 2**20
        assert store.value("memory_limit_now") == "30.5 MiB"  # restored
        assert store.connection.execute("SELECT count(*) FROM shared_hashes").fetchall()[0][0] == rows - 1954


def test_room_for_deletes_counts_only_what_may_be_deleted(tmp_path, monkeypatch):
    with _filled(tmp_path / "i.duckdb", 100_000) as idx:
        store = idx.store
        store.connection.execute("SET memory_limit = '100MB'")
        with room_for_deletes(store, {"shared_hashes": 3, "fingerprints": None}):  # fingerprints: empty
            assert memory_bytes(_setting(store, "memory_limit")) == \
                pytest.approx(100 * 10**6 + 3 * (DELETE_ROW_GROUP_BYTES + DELETE_VECTOR_BYTES), abs=2**20)
        with room_for_deletes(store, {"shared_hashes": 0, "boilerplate_hashes": None}):  # nothing to make room for
            assert memory_bytes(_setting(store, "memory_limit")) == pytest.approx(100 * 10**6, abs=2**20)
        monkeypatch.setenv(MEMORY_ENV, "101MB")  # never above the limit the index is opened with
        with room_for_deletes(store, {"shared_hashes": None}):
            assert memory_bytes(_setting(store, "memory_limit")) == pytest.approx(101 * 10**6, abs=2**20)
        monkeypatch.setenv(MEMORY_ENV, "50MB")  # nor below the limit before
        with room_for_deletes(store, {"shared_hashes": None}):
            assert memory_bytes(_setting(store, "memory_limit")) == pytest.approx(100 * 10**6, abs=2**20)
