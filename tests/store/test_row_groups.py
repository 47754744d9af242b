"""An index file is attached with small row groups (store/dbfile.py ``connect_index``): every table
an add writes is stored in groups of at most ``ROW_GROUP_ROWS`` rows, so a query's hashes reach
few rows. One process attaches a file once and shares it between its opens, as ``duckdb.connect``
shares one instance per path; the last close detaches it, leaving a complete file. A new file
gets small blocks unless its first add will make it large (``planned_block_bytes``).
"""
from __future__ import annotations

import os
import random
from pathlib import Path

import duckdb
import pytest

import winnowdb
from winnowdb.errors import WinnowError
from winnowdb.store.dbfile import CATALOG, connect_index, disconnect_index
from winnowdb.store.layout import (
    LARGE_BLOCK_BYTES,
    LARGE_INDEX_BYTES,
    LARGE_ROW_GROUP_ROWS,
    ROW_GROUP_ROWS,
    SMALL_BLOCK_BYTES,
    planned_block_bytes,
    row_group_rows,
)


def _essays(root: Path, n: int = 120) -> Path:
    rng = random.Random(5)
    words = ["".join(rng.choice("abcdefghijklmnop") for _ in range(rng.randint(3, 9))) for _ in range(3000)]
    root.mkdir()
    for i in range(n):
        (root / f"e{i:03d}.txt").write_text(" ".join(rng.choice(words) for _ in range(700)) + "\n")
    return root


def _row_groups(con, table: str) -> list[int]:
    """The number of rows in each row group of ``table`` (from its first column's data segments)."""
    rows = con.execute(
        "SELECT row_group_id, SUM(count) FROM pragma_storage_info(?) WHERE column_path = '[0]' "
        "GROUP BY row_group_id ORDER BY row_group_id", [table]).fetchall()
    return [int(n) for _, n in rows]


@pytest.fixture(scope="module")
def big_index(tmp_path_factory) -> Path:
    base = tmp_path_factory.mktemp("rowgroups")
    corpus = _essays(base / "corpus")
    db = base / "index.duckdb"
    with winnowdb.open(db) as idx:
        idx.add([corpus])
    return db


def test_an_add_writes_row_groups_of_at_most_row_group_rows(big_index):
    con = duckdb.connect(str(big_index), read_only=True)  # plain DuckDB reads the file as it is
    try:
        total = con.execute("SELECT COUNT(*) FROM fingerprints").fetchall()[0][0]
        groups = _row_groups(con, "fingerprints")
        texts = _row_groups(con, "document_texts")
    finally:
        con.close()
    assert total > 3 * ROW_GROUP_ROWS  # enough rows that DuckDB's default (122,880) would be one group
    assert sum(groups) == total
    assert len(groups) >= total // ROW_GROUP_ROWS
    assert max(groups) <= ROW_GROUP_ROWS
    assert max(texts) <= ROW_GROUP_ROWS


def test_a_query_reads_few_of_the_fingerprints_row_groups(big_index):
    # the point of small row groups: a handful of looked-up hashes reads a handful of groups
    with winnowdb.open(big_index, read_only=True) as idx:
        con = idx.store.connection
        hashes = [h for (h,) in con.execute("SELECT DISTINCT hash FROM fingerprints ORDER BY hash "
                                            "LIMIT 3 OFFSET 20000").fetchall()]
        plan = con.execute("EXPLAIN ANALYZE SELECT COUNT(*) FROM fingerprints WHERE hash IN (?, ?, ?)",
                           hashes).fetchall()[0][1]
    line = next(ln for ln in plan.splitlines() if "Row Groups Scanned" in ln)
    scanned, total = (int(x) for x in line.split(":")[1].strip(" │").split("/"))
    assert total >= 4 and scanned <= 3, line


def test_opens_in_one_process_share_the_attached_file(big_index, tmp_path):
    db = tmp_path / "copy.duckdb"
    db.write_bytes(big_index.read_bytes())
    a = winnowdb.open(db)
    b = winnowdb.open(db)  # a second writable open of the same file shares the first's attachment
    try:
        assert a.store.connection.execute("SELECT current_database()").fetchall()[0][0] == CATALOG
        a.store.set_setting("note", "written through a")
        assert b.store.connection.execute("SELECT value FROM settings WHERE key = 'note'").fetchall() == \
            [("written through a",)]
        a.close()
        assert b.stats()["documents"] == 120  # still attached for b
    finally:
        b.close()
    # the last close detached it: plain DuckDB opens it, complete, with no WAL left
    assert not Path(str(db) + ".wal").exists()
    con = duckdb.connect(str(db))
    try:
        assert con.execute("SELECT value FROM settings WHERE key = 'note'").fetchall() == [("written through a",)]
    finally:
        con.close()


def test_a_read_only_open_while_this_process_writes_is_one_clear_error(big_index, tmp_path):
    db = tmp_path / "copy.duckdb"
    db.write_bytes(big_index.read_bytes())
    with winnowdb.open(db):
        with pytest.raises(WinnowError, match="already open for writing in this process"):
            winnowdb.open(db, read_only=True)
    with winnowdb.open(db, read_only=True) as idx:  # once closed, it opens either way
        assert idx.stats()["documents"] == 120


def test_spills_go_next_to_the_index(big_index):
    con = connect_index(str(big_index), read_only=True)
    try:
        assert con.execute("SELECT current_setting('temp_directory')").fetchall()[0][0] == str(big_index) + ".tmp"
        assert os.path.samefile(con.execute("SELECT path FROM duckdb_databases() WHERE database_name = ?",
                                            [CATALOG]).fetchall()[0][0], big_index)
    finally:
        disconnect_index(con)


def test_a_large_index_file_is_written_in_larger_row_groups():
    # checking many row groups' zone maps costs too: past LARGE_INDEX_BYTES, groups grow
    assert row_group_rows(0) == row_group_rows(LARGE_INDEX_BYTES - 1) == ROW_GROUP_ROWS
    assert row_group_rows(LARGE_INDEX_BYTES) == row_group_rows(10**11) == LARGE_ROW_GROUP_ROWS > ROW_GROUP_ROWS


def test_the_row_group_size_is_chosen_when_the_file_is_attached(big_index, tmp_path, monkeypatch):
    from winnowdb.store import layout

    db = tmp_path / "copy.duckdb"
    db.write_bytes(big_index.read_bytes())
    monkeypatch.setattr(layout, "LARGE_INDEX_BYTES", 1)  # this small file counts as large
    with winnowdb.open(db) as idx:
        idx.store.connection.execute("CREATE TABLE t AS SELECT range AS i FROM range(100000)")
        groups = _row_groups(idx.store.connection, "t")
    assert max(groups) == LARGE_ROW_GROUP_ROWS and len(groups) == 4


def test_an_add_that_makes_a_large_index_writes_large_row_groups_from_its_start(tmp_path, monkeypatch, cli):
    # an index built by one add of a big corpus is never reopened small: `add` walks its input
    # first, attaches the file for the size it found, then reads the files that walk listed
    from winnowdb.ingest.walk import listed_bytes, walk
    from winnowdb.store import layout

    corpus = _essays(tmp_path / "corpus")
    size = sum(f.stat().st_size for f in corpus.iterdir())
    (tmp_path / "corpus" / "nested").mkdir()
    assert listed_bytes(walk([corpus, tmp_path / "missing"])) == size  # a missing path is skipped, counted 0
    dbs = {name: tmp_path / f"{name}.duckdb" for name in ("api", "cli", "cli_small")}
    for db in dbs.values():
        winnowdb.open(db).close()  # empty indexes
    empty = os.path.getsize(dbs["api"])
    # this corpus's index (about 3x its text) makes the file large
    monkeypatch.setattr(layout, "LARGE_INDEX_BYTES", empty + 2 * size)
    with winnowdb.open(dbs["api"]) as idx:  # told nothing: a small file, small groups
        idx.add([corpus])
        small = _row_groups(idx.store.connection, "fingerprints")
    r = cli("add", corpus, "--db", dbs["cli"])
    assert r.exit_code == 0, r.output
    with winnowdb.open(dbs["cli"], read_only=True) as idx:
        large = _row_groups(idx.store.connection, "fingerprints")
    assert sum(small) == sum(large) > LARGE_ROW_GROUP_ROWS
    assert max(small) == ROW_GROUP_ROWS and max(large) == LARGE_ROW_GROUP_ROWS
    monkeypatch.setattr(layout, "LARGE_INDEX_BYTES", empty + 4 * size)  # too little input to make it large
    assert cli("add", corpus, "--db", dbs["cli_small"]).exit_code == 0
    with winnowdb.open(dbs["cli_small"], read_only=True) as idx:
        assert max(_row_groups(idx.store.connection, "fingerprints")) == ROW_GROUP_ROWS


def _block_size(db: Path) -> int:
    con = duckdb.connect(str(db), read_only=True)  # plain DuckDB: the block size is the file's own
    try:
        return int(con.execute("SELECT block_size FROM pragma_database_size() "
                               "WHERE database_name = current_database()").fetchall()[0][0])
    finally:
        con.close()


def test_a_new_index_file_gets_blocks_sized_for_its_first_add(tmp_path, monkeypatch, cli):
    # a fresh query reads whole blocks: small ones for the small row groups, DuckDB's default
    # for a file its first add makes large; an index keeps its blocks as it grows
    from winnowdb.store import layout

    assert SMALL_BLOCK_BYTES < LARGE_BLOCK_BYTES == 262144  # DuckDB's default
    assert planned_block_bytes(0) == planned_block_bytes(LARGE_INDEX_BYTES // 3) == SMALL_BLOCK_BYTES
    assert planned_block_bytes(LARGE_INDEX_BYTES) == LARGE_BLOCK_BYTES
    corpus = _essays(tmp_path / "corpus")
    size = sum(f.stat().st_size for f in corpus.iterdir())
    monkeypatch.setattr(layout, "LARGE_INDEX_BYTES", 2 * size)  # this corpus's index counts as large
    dbs = {name: tmp_path / f"{name}.duckdb" for name in ("api", "large", "small")}
    with winnowdb.open(dbs["api"]) as idx:  # told nothing: a small file
        idx.add([corpus])
    assert cli("add", corpus, "--db", dbs["large"]).exit_code == 0
    monkeypatch.setattr(layout, "LARGE_INDEX_BYTES", 4 * size)  # too little input to make it large
    assert cli("add", corpus, "--db", dbs["small"]).exit_code == 0
    blocks = {name: _block_size(db) for name, db in dbs.items()}
    assert blocks == {"api": SMALL_BLOCK_BYTES, "large": LARGE_BLOCK_BYTES, "small": SMALL_BLOCK_BYTES}
    with winnowdb.open(dbs["large"], read_only=True) as idx:  # made large from its start, in one open
        assert max(_row_groups(idx.store.connection, "fingerprints")) == LARGE_ROW_GROUP_ROWS
    monkeypatch.setattr(layout, "LARGE_INDEX_BYTES", 1)  # grown large: new row groups, the same blocks
    more = _essays(tmp_path / "more", 30)
    r = cli("add", more, "--db", dbs["small"])
    assert r.exit_code == 0, r.output
    assert _block_size(dbs["small"]) == SMALL_BLOCK_BYTES
    with winnowdb.open(dbs["small"], read_only=True) as idx:
        assert max(_row_groups(idx.store.connection, "fingerprints")) == LARGE_ROW_GROUP_ROWS
        assert idx.query(more / "e007.txt", top=1)[0]["path"].endswith("e007.txt")
    assert cli("check", "--db", dbs["small"]).exit_code == 0
