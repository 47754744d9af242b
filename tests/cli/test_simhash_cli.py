"""`winnowdb near-dups` and `winnowdb query FILE --simhash` end to end, in every output format,
and their one-line errors."""
from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
from conftest import ok, one_line_error, pair_key

PAIR_FIELDS = ["a", "b", "distance", "simhash_a", "simhash_b"]


def test_near_dups_json(cli, index_db, corpus):
    rows = json.loads(ok(cli("near-dups", "--db", index_db, "--format", "json")).stdout)
    assert [list(r) for r in rows] == [PAIR_FIELDS]
    assert {pair_key(r["a"], r["b"], corpus) for r in rows} == {frozenset({"essays/comets.txt",
                                                                           "essays/comets_dup.txt"})}
    assert rows[0]["distance"] == 0 and rows[0]["simhash_a"] == rows[0]["simhash_b"]


def test_near_dups_hamming_and_top(cli, index_db, corpus):
    rows = json.loads(ok(cli("near-dups", "--db", index_db, "--hamming", "8", "-f", "json")).stdout)
    keys = [pair_key(r["a"], r["b"], corpus) for r in rows]
    assert frozenset({"code/queue.java", "code/Queue2.java"}) in keys
    assert all(r["distance"] <= 8 for r in rows)
    assert [r["distance"] for r in rows] == sorted(r["distance"] for r in rows)
    top = json.loads(ok(cli("near-dups", "--db", index_db, "--hamming", "8", "--top", "1", "-f", "json")).stdout)
    assert top == rows[:1]


def test_near_dups_csv_and_table(cli, index_db):
    out = ok(cli("near-dups", "--db", index_db, "-f", "csv")).stdout
    rows = list(csv.DictReader(io.StringIO(out)))
    assert list(rows[0]) == PAIR_FIELDS and len(rows) == 1
    table = ok(cli("near-dups", "--db", index_db)).stdout
    assert "comets_dup.txt" in table and "distance" in table
    empty = ok(cli("near-dups", "--db", index_db, "--hamming", "0", "--top", "0")).stdout
    assert "comets_dup.txt" in empty  # distance 0 is a near-duplicate too


def test_near_dups_nothing_found(cli, tmp_path):
    (tmp_path / "a.txt").write_text("Completely different words about apples and pears in autumn.")
    (tmp_path / "b.txt").write_text("Locomotives, timetables and the history of narrow gauge railways.")
    db = tmp_path / "i.duckdb"
    ok(cli("add", tmp_path / "a.txt", tmp_path / "b.txt", "--db", db))
    result = ok(cli("near-dups", "--db", db))
    assert "no two documents" in result.stdout
    assert json.loads(ok(cli("near-dups", "--db", db, "-f", "json")).stdout) == []


def test_query_simhash(cli, index_db, corpus):
    hits = json.loads(ok(cli("query", corpus / "essays" / "comets.txt", "--simhash", "--db", index_db,
                             "-f", "json")).stdout)
    assert [Path(h["path"]).name for h in hits] == ["comets_dup.txt"]
    assert list(hits[0]) == ["path", "distance", "simhash"] and hits[0]["distance"] == 0
    # --hamming implies --simhash
    wide = json.loads(ok(cli("query", corpus / "code" / "queue.java", "--hamming", "8", "--db", index_db,
                             "-f", "json")).stdout)
    assert "Queue2.java" in {Path(h["path"]).name for h in wide}
    out = ok(cli("query", corpus / "code" / "queue.java", "--simhash", "--db", index_db, "-f", "csv")).stdout
    assert out.splitlines()[0] == "path,distance,simhash"
    table = ok(cli("query", corpus / "essays" / "tides.txt", "--simhash", "--db", index_db)).stdout
    assert "no indexed document has a simhash within 3 bits" in table


def test_query_simhash_of_a_file_outside_the_index(cli, index_db, corpus, tmp_path):
    copy = tmp_path / "mine.txt"
    copy.write_text((corpus / "essays" / "comets.txt").read_text().replace("dirty snowballs", "icy snowballs"))
    hits = json.loads(ok(cli("query", copy, "--simhash", "--db", index_db, "-f", "json")).stdout)
    assert {Path(h["path"]).name for h in hits} == {"comets.txt", "comets_dup.txt"}


def test_simhash_visible_in_sql(cli, index_db):
    out = ok(cli("sql", "SELECT COUNT(*) AS n FROM documents WHERE simhash <> 0 AND kind = 'document'",
                 "--db", index_db, "-f", "json")).stdout
    assert json.loads(out) == [{"n": 21}]


def test_errors_are_one_line(cli, index_db, tmp_path):
    one_line_error(cli("query", tmp_path / "missing.txt", "--simhash", "--db", index_db),
                   "missing.txt", "no such file")
    one_line_error(cli("near-dups", "--db", tmp_path / "none.duckdb"), "no index")
    one_line_error(cli("query", tmp_path / "missing.txt", "--simhash", "--db", tmp_path / "none.duckdb"),
                   "no index")


def test_query_simhash_errors(cli, index_db, corpus, tmp_path):
    one_line_error(cli("query", corpus / "essays", "--simhash", "--db", index_db), "directory")
    (tmp_path / "blank.txt").write_text("... --- ...\n")
    one_line_error(cli("query", tmp_path / "blank.txt", "--simhash", "--db", index_db), "no simhash")
    one_line_error(cli("query", corpus / "essays" / "bees.txt", "--simhash", "--sketch", "5", "--db", index_db),
                   "cannot be combined")


@pytest.mark.parametrize("value", ["-1", "33", "x"])
def test_bad_hamming_is_a_usage_error(cli, index_db, corpus, value):
    for args in (["near-dups"], ["query", corpus / "essays" / "bees.txt", "--simhash"]):
        result = cli(*args, "--hamming", value, "--db", index_db)
        assert result.exit_code == 2 and "Traceback" not in result.output
