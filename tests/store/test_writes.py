"""Bulk writes (store/writes.py): an add's commits checkpoint less often and DuckDB keeps at most
``BULK_MEMORY_MB`` of blocks in memory; both settings come back when the block ends."""
from __future__ import annotations

import pytest

import winnowdb
from winnowdb.store.limits import memory_bytes
from winnowdb.store.writes import BULK_MEMORY_MB, bulk_writes


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

