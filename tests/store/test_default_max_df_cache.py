"""The default --max-df is remembered after each write, with a token of the index's content, so
read-only commands on a big index do not count every fingerprint's document frequency again.
It must never be stale: whatever changes the documents or fingerprints (add, remove, upgrade,
or plain SQL) changes the token, and the value is then computed afresh."""
from __future__ import annotations

import duckdb
import pytest

import winnowdb
from winnowdb.store import max_df as max_df_mod

from conftest import random_words


def _view_value(db) -> int:
    con = duckdb.connect(str(db), read_only=True)
    try:
        return con.execute("SELECT max_df FROM default_max_df").fetchall()[0][0]
    finally:
        con.close()


def _cached(db) -> str | None:
    con = duckdb.connect(str(db), read_only=True)
    try:
        rows = con.execute("SELECT value FROM settings WHERE key = ?", [max_df_mod.CACHE_KEY]).fetchall()
        return rows[0][0] if rows else None
    finally:
        con.close()


@pytest.fixture
def corpus(tmp_path):
    """60 essays, each of the first 40 carrying one shared paragraph (so df ranges widely)."""
    shared = " ".join(random_words(1, 80))
    root = tmp_path / "docs"
    root.mkdir()
    for i in range(60):
        (root / f"e{i:02d}.txt").write_text(" ".join(random_words(100 + i, 150)) + " " + (shared if i < 40 else ""))
    return root


def test_the_remembered_value_is_the_views_and_follows_every_change(corpus, tmp_path, monkeypatch):
    monkeypatch.setattr(max_df_mod, "CACHE_MIN_FINGERPRINTS", 0)  # remember even for a small index
    db = tmp_path / "index.duckdb"
    with winnowdb.open(db) as idx:
        idx.add([corpus])
    first = _cached(db)
    assert first is not None and int(first.split("@")[0]) == _view_value(db) == 15  # 60 submissions / 4
    with winnowdb.open(db, read_only=True) as idx:
        assert idx.store.default_max_df() == 15

    extra = tmp_path / "more"
    extra.mkdir()
    for i in range(20):
        (extra / f"x{i}.txt").write_text(" ".join(random_words(500 + i, 100)))
    with winnowdb.open(db) as idx:
        idx.add([extra])
    assert _cached(db) != first and int(_cached(db).split("@")[0]) == _view_value(db) == 20

    with winnowdb.open(db) as idx:
        idx.remove([extra])
    assert int(_cached(db).split("@")[0]) == _view_value(db) == 15


def test_a_value_remembered_for_other_content_is_not_used(corpus, tmp_path, monkeypatch):
    monkeypatch.setattr(max_df_mod, "CACHE_MIN_FINGERPRINTS", 0)
    db = tmp_path / "index.duckdb"
    with winnowdb.open(db) as idx:
        idx.add([corpus])
    value, _, token = _cached(db).partition("@")
    con = duckdb.connect(str(db))
    con.execute("UPDATE settings SET value = ? WHERE key = ?", [f"999@{token}", max_df_mod.CACHE_KEY])
    con.close()
    with winnowdb.open(db, read_only=True) as idx:
        assert idx.store.default_max_df() == 999  # the remembered value is what is used ...
    con = duckdb.connect(str(db))  # ... until the content changes behind winnowdb's back
    con.execute("UPDATE fingerprints SET hash = hash + 1 WHERE doc = (SELECT MIN(doc) FROM documents)")
    con.close()
    with winnowdb.open(db, read_only=True) as idx:
        assert idx.store.default_max_df() == _view_value(db) == int(value)
    con = duckdb.connect(str(db))
    con.execute("UPDATE settings SET value = ? WHERE key = ?", [f"999@{token}", max_df_mod.CACHE_KEY])
    con.execute("UPDATE documents SET submission = 'elsewhere' WHERE doc = (SELECT MAX(doc) FROM documents)")
    con.close()
    with winnowdb.open(db, read_only=True) as idx:
        assert idx.store.default_max_df() == _view_value(db)


def test_small_indexes_compute_it_when_asked(corpus, tmp_path):
    db = tmp_path / "index.duckdb"
    with winnowdb.open(db) as idx:
        idx.add([corpus])
        assert idx.store.default_max_df() == 15
    assert _cached(db) is None  # far below CACHE_MIN_FINGERPRINTS: nothing stored
    assert max_df_mod.CACHE_MIN_FINGERPRINTS >= 100_000


def test_add_says_when_it_counts_and_its_time_includes_the_count(corpus, tmp_path, monkeypatch):
    """On a large index, `add` announces the count (the CLI shows it in its progress display)
    and the time it reports covers it: the count can take longer than the files themselves."""
    import time

    db = tmp_path / "index.duckdb"
    calls: list[int] = []
    with winnowdb.open(db) as idx:
        idx.add([corpus], on_finish=calls.append)
    assert calls == []  # a small index: nothing counted, nothing announced

    monkeypatch.setattr(max_df_mod, "CACHE_MIN_FINGERPRINTS", 0)
    computed = max_df_mod._computed

    def slow(con):
        time.sleep(0.5)
        return computed(con)

    monkeypatch.setattr(max_df_mod, "_computed", slow)
    extra = tmp_path / "more"
    extra.mkdir()
    (extra / "x.txt").write_text(" ".join(random_words(900, 100)))
    with winnowdb.open(db) as idx:
        summary = idx.add([extra], on_finish=calls.append)
        rows = idx.store.connection.execute("SELECT COUNT(*) FROM fingerprints").fetchall()[0][0]
    assert calls == [rows]
    assert summary.seconds >= 0.5
