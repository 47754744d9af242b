"""Room in memory for a transaction's deletes (store/room.py): DuckDB pins the version info of the
rows a transaction deletes until it ends, so a transaction that deletes rows across a big table
needs memory above a bulk write's cap; the room raises the limit by what the rows it is told of
can pin, never above the index's limit nor below the one before, and restores it."""
from __future__ import annotations

import duckdb
import pytest

import winnowdb
from winnowdb.store.limits import MEMORY_ENV, memory_bytes
from winnowdb.store.room import DELETE_ROW_GROUP_BYTES, DELETE_VECTOR_BYTES, expect_deletes, room_for_deletes


def _limit(store) -> int:
    """DuckDB's memory limit as it reads back (rounded to a tenth of a MiB)."""
    value = memory_bytes(str(store.value("memory_limit_now")))
    assert value is not None
    return value


def near(value: int):
    """Within what DuckDB's rounding of a limit it reads back, set again, may lose (0.1 MiB)."""
    return pytest.approx(value, abs=2**18)


def _filled(path, rows: int):
    """An index whose shared_hashes holds ``rows`` rows on disk (checkpointed)."""
    idx = winnowdb.open(path)
    with idx.store.transaction() as con:
        con.execute("INSERT INTO shared_hashes SELECT range, 2 FROM range(?)", [rows])
    idx.store.run("checkpoint")
    return idx


def _delete_one_row_a_vector(store) -> None:
    with store.transaction() as con:
        expect_deletes(store, "shared_hashes", None)
        con.execute("DELETE FROM shared_hashes WHERE hash % 2048 = 7")


ROWS = 4_000_000  # 1,954 vectors of 2,048 rows, 489 row groups of 8,192


def test_deletes_across_a_table_fail_without_room(tmp_path):
    # under a limit that the table's blocks alone fit, deleting one row in each vector fails (an
    # add to a 1,000,000-document index failed so, in its statistics, under a bulk write's 384 MB)
    with _filled(tmp_path / "i.duckdb", ROWS) as idx:
        idx.store.connection.execute("SET memory_limit = '32MB'")
        with pytest.raises(duckdb.OutOfMemoryException):
            _delete_one_row_a_vector(idx.store)


def test_deletes_across_a_table_succeed_in_their_room(tmp_path):
    with _filled(tmp_path / "i.duckdb", ROWS) as idx:
        store = idx.store
        store.connection.execute("SET memory_limit = '32MB'")
        before = _limit(store)
        with room_for_deletes(store) as room:
            _delete_one_row_a_vector(store)
            assert room is not None and room.limit == before + 489 * DELETE_ROW_GROUP_BYTES + 1954 * DELETE_VECTOR_BYTES
            store.run("checkpoint")  # the committed deletes' version info is let go when written
        assert _limit(store) == near(before)  # restored
        assert store.connection.execute("SELECT count(*) FROM shared_hashes").fetchall()[0][0] == ROWS - 1954


def test_the_room_grows_with_the_rows_it_is_told_of(tmp_path, monkeypatch):
    monkeypatch.delenv(MEMORY_ENV, raising=False)
    with _filled(tmp_path / "i.duckdb", 100_000) as idx:  # 13 row groups, 49 vectors
        store = idx.store
        store.connection.execute("SET memory_limit = '100MB'")
        before = _limit(store)
        with room_for_deletes(store, {"fingerprints": None}):  # fingerprints: empty, nothing to pin
            assert _limit(store) == near(before)
            expect_deletes(store, "shared_hashes", 3)
            assert _limit(store) == near(before + 3 * (DELETE_ROW_GROUP_BYTES + DELETE_VECTOR_BYTES))
            expect_deletes(store, "shared_hashes", 20)  # 23 rows: in at most 13 row groups
            assert _limit(store) == near(before + 13 * DELETE_ROW_GROUP_BYTES + 23 * DELETE_VECTOR_BYTES)
            expect_deletes(store, "shared_hashes", None)  # any: the whole table
            assert _limit(store) == near(before + 13 * DELETE_ROW_GROUP_BYTES + 49 * DELETE_VECTOR_BYTES)
        assert _limit(store) == near(before)
        expect_deletes(store, "shared_hashes", None)  # no room open: nothing changes
        assert _limit(store) == near(before)


@pytest.mark.parametrize(("opened", "opened_bytes"), [
    ("101MB", 101 * 10**6),  # never above the limit the index was opened with
    ("50MB", 50 * 10**6),  # nor below the limit before
    ("1G", 10**9),  # read as DuckDB reads it, 953.6 MiB (the room once took it for no limit at all)
])
def test_the_room_stays_between_the_limit_before_and_the_one_opened_with(tmp_path, monkeypatch, opened,
                                                                        opened_bytes):
    monkeypatch.setenv(MEMORY_ENV, opened)
    with _filled(tmp_path / "i.duckdb", 100_000) as idx:  # 13 row groups, 49 vectors
        store = idx.store
        store.connection.execute("SET memory_limit = '100MB'")  # a bulk write's cap, say
        before = _limit(store)
        need = 13 * DELETE_ROW_GROUP_BYTES + 49 * DELETE_VECTOR_BYTES
        with room_for_deletes(store, {"shared_hashes": None}):
            assert _limit(store) == near(max(before, min(opened_bytes, before + need)))
        assert _limit(store) == near(before)


def test_rooms_give_the_index_its_own_limit_back_exactly(tmp_path, monkeypatch):
    # a limit reads back rounded down ('2.6 GiB' for 2.7): set again from what it read, it would
    # shrink room by room
    monkeypatch.setenv(MEMORY_ENV, "2.7GiB")
    with _filled(tmp_path / "i.duckdb", 100_000) as idx:
        store = idx.store
        setting = store.value("memory_limit_now")
        for _ in range(3):
            with room_for_deletes(store, {"shared_hashes": 5}):
                pass
            assert store.value("memory_limit_now") == setting


def test_a_room_inside_a_room_hands_its_rows_to_the_outer_one(tmp_path, monkeypatch):
    monkeypatch.delenv(MEMORY_ENV, raising=False)
    with _filled(tmp_path / "i.duckdb", 100_000) as idx:
        store = idx.store
        store.connection.execute("SET memory_limit = '100MB'")
        with room_for_deletes(store) as outer:
            with room_for_deletes(store, {"shared_hashes": 2}) as inner:
                assert inner is outer and outer is not None and outer.rows == {"shared_hashes": 2}
                assert _limit(store) == near(outer.before + 2 * (DELETE_ROW_GROUP_BYTES + DELETE_VECTOR_BYTES))


def test_a_read_only_index_opens_no_room(tmp_path):
    with _filled(tmp_path / "i.duckdb", 1000):
        pass
    with winnowdb.open(tmp_path / "i.duckdb", read_only=True) as idx:
        with room_for_deletes(idx.store) as room:
            assert room is None


def test_a_merge_after_a_write_that_deleted_across_a_table_runs_in_its_own_limit(tmp_path, monkeypatch):
    # committed deletes keep their version info pinned until a checkpoint: a merge that lowered
    # the limit right after an add's statistics failed ("could not free up enough memory for the
    # new limit"), at 1,000,000 documents, once its third new year made a merge due
    from winnowdb.store import merge

    with _filled(tmp_path / "i.duckdb", ROWS) as idx:
        store = idx.store
        store.connection.execute("SET memory_limit = '400MB'")
        _delete_one_row_a_vector(store)  # ~150 MB pinned, committed
        monkeypatch.setattr(merge, "MERGE_MEMORY_MB", 64)
        merge.merge(store)
        assert store.connection.execute("SELECT count(*) FROM shared_hashes").fetchall()[0][0] == ROWS - 1954
