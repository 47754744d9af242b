"""`pairs` and `near-dups` as JSON and CSV: written by DuckDB (COPY ... TO a named pipe) and
streamed to standard output, with the values, types and field order the Python writers gave.

Everything runs on real indexes: the sample corpus, and a generated corpus of 90 documents that
share passages in 3,000-odd pairs (more than one DuckDB vector of 2,048 rows). The proof that the
rows never become Python objects comes from DuckDB itself: its query log, read through a second
connection to the same database instance, shows the pairs query only inside a COPY, and a real
process prints the very bytes DuckDB's COPY writes (Python's json module writes other bytes).
"""
from __future__ import annotations

import csv
import io
import json
import os
import random
import signal
import subprocess
import sys
import time

import duckdb
import pytest
from conftest import ok, random_words, sigint_default

from winnowdb.store.dbfile import connect_index, disconnect_index

PAIR_FIELDS = ["a", "b", "score", "shared", "containment_a", "containment_b", "resemblance"]
NEAR_FIELDS = ["a", "b", "distance", "simhash_a", "simhash_b"]
WINNOWDB = [sys.executable, "-m", "winnowdb"]


@pytest.fixture(scope="module")
def many_pairs_db(tmp_path_factory):
    """An index of 90 generated documents, each made of its own words and 8 of 45 shared
    passages: about 3,200 pairs."""
    import winnowdb

    root = tmp_path_factory.mktemp("many_pairs")
    docs = root / "docs"
    docs.mkdir()
    passages = [" ".join(random_words(1000 + i, 14)) + "." for i in range(45)]
    rng = random.Random(3)
    for d in range(90):
        parts = [" ".join(random_words(5000 + d, 25))] + rng.sample(passages, 8)
        rng.shuffle(parts)
        (docs / f"doc{d:03d}.txt").write_text("\n\n".join(parts) + "\n", encoding="utf-8")
    db = root / "many.duckdb"
    with winnowdb.open(db) as idx:
        assert idx.add([docs], jobs=1).added == 90
    return db


def csv_rows(text: str) -> list[dict]:
    return list(csv.DictReader(io.StringIO(text)))


def same_values(json_rows: list[dict], csv_text: str, fields: list[str]) -> None:
    """The JSON rows are the CSV rows, value for value, with JSON's types: strings, integers,
    floats (exactly, every digit), null for an empty field; keys in the documented order."""
    table = csv_rows(csv_text)
    assert len(json_rows) == len(table)
    for j, c in zip(json_rows, table):
        assert list(j) == fields == list(c)
        for f in fields:
            v = j[f]
            if c[f] == "":
                assert v is None or v == "", (f, v)
            elif isinstance(v, str):
                assert v == c[f]
            elif isinstance(v, bool) or not isinstance(v, (int, float)):
                raise AssertionError(f"{f}: {v!r} is not a number or a string")
            elif isinstance(v, int):
                assert v == int(c[f])
            else:
                assert v == float(c[f]) and repr(v) == repr(float(c[f]))


@pytest.mark.parametrize("top", ["0", "3"])
def test_pairs_json_is_the_csv_value_for_value(cli, index_db, top):
    rows = json.loads(ok(cli("pairs", "--db", index_db, "-f", "json", "--top", top)).stdout)
    assert rows and all(isinstance(r["shared"], int) and isinstance(r["resemblance"], float) for r in rows)
    same_values(rows, ok(cli("pairs", "--db", index_db, "-f", "csv", "--top", top)).stdout, PAIR_FIELDS)
    assert len(rows) == (3 if top == "3" else len(rows))


def test_pairs_json_of_thousands_of_pairs(cli, many_pairs_db):
    out = ok(cli("pairs", "--db", many_pairs_db, "-f", "json", "--top", "0")).stdout
    rows = json.loads(out)
    assert len(rows) > 2048  # more than one DuckDB vector: the order holds across them
    same_values(rows, ok(cli("pairs", "--db", many_pairs_db, "-f", "csv", "--top", "0")).stdout, PAIR_FIELDS)
    with duckdb.connect(str(many_pairs_db), read_only=True) as con:  # the Python API's rows, the same
        names = [d[0] for d in con.execute("SELECT * FROM pairs").description]
        expected = [dict(zip(names, r)) for r in con.execute("SELECT * FROM pairs").fetchall()]
    assert rows == [{f: r[f] for f in PAIR_FIELDS} for r in expected]


def test_near_dups_json_is_the_csv_value_for_value(cli, index_db):
    import winnowdb

    for hamming in (3, 12):
        rows = json.loads(ok(cli("near-dups", "--db", index_db, "--hamming", hamming, "-f", "json")).stdout)
        assert rows and all(isinstance(r["simhash_a"], int) for r in rows)
        csv_text = ok(cli("near-dups", "--db", index_db, "--hamming", hamming, "-f", "csv")).stdout
        same_values(rows, csv_text, NEAR_FIELDS)
        with winnowdb.open(index_db, read_only=True) as idx:  # the rows the Python API gives
            assert rows == [{f: r[f] for f in NEAR_FIELDS} for r in idx.near_duplicates(hamming=hamming, top=0)]


def test_empty_results_are_an_empty_array(cli, index_db, tmp_path):
    r = ok(cli("pairs", "--db", index_db, "-f", "json", "--min-shared", "1000000"))
    assert r.stdout == "[]\n"
    r = ok(cli("pairs", "--db", index_db, "-f", "csv", "--min-shared", "1000000"))
    assert r.stdout == ",".join(PAIR_FIELDS) + "\n"
    (tmp_path / "one.txt").write_text("Nothing here is like anything else in this folder.\n", encoding="utf-8")
    (tmp_path / "two.txt").write_text("Quite different words, and quite a different meaning.\n", encoding="utf-8")
    ok(cli("add", tmp_path, "--db", tmp_path / "two.duckdb"))
    r = ok(cli("near-dups", "--db", tmp_path / "two.duckdb", "--hamming", "0", "-f", "json"))
    assert r.stdout == "[]\n"
    r = ok(cli("near-dups", "--db", tmp_path / "two.duckdb", "--hamming", "0", "-f", "csv"))
    assert r.stdout == ",".join(NEAR_FIELDS) + "\n"
    r = ok(cli("pairs", "--db", index_db, "-f", "json", "--new", "no such label"))
    assert r.stdout == "[]\n" and "no document is labelled" in r.stderr


def test_the_pairs_query_runs_only_inside_copy(cli, many_pairs_db):
    # A second read-only connection to the same file shares the CLI's DuckDB instance (one process
    # attaches a file once: store.dbfile.connect_index), so DuckDB's own query log sees every
    # statement the command runs: the pairs query appears only as a COPY, never as a SELECT
    # whose rows Python fetches.
    con = connect_index(str(many_pairs_db), read_only=True)
    try:
        con.execute("CALL enable_logging('QueryLog')")
        rows = json.loads(ok(cli("pairs", "--db", many_pairs_db, "-f", "json", "--top", "0")).stdout)
        logged = [m for (m,) in con.execute("SELECT message FROM duckdb_logs WHERE type = 'QueryLog'").fetchall()]
    finally:
        disconnect_index(con)
    assert len(rows) > 2048
    pair_queries = [q for q in logged if "joinable" in q]  # a CTE name of sql/pairs.sql
    assert len(pair_queries) == 1, logged
    assert pair_queries[0].lstrip().startswith("COPY (SELECT") and "FORMAT json, ARRAY true" in pair_queries[0]


def test_a_real_process_prints_what_duckdb_copy_writes(many_pairs_db, tmp_path):
    env = dict(os.environ)
    env.pop("WINNOWDB_DB", None)
    done = subprocess.run([*WINNOWDB, "pairs", "--db", str(many_pairs_db), "-f", "json", "--top", "0"],
                          capture_output=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    # the same rows written by DuckDB's COPY from plain DuckDB (the index's pairs view)
    by_duckdb = tmp_path / "copy.json"
    with duckdb.connect(str(many_pairs_db), read_only=True) as con:
        con.execute(f"COPY (SELECT {', '.join(PAIR_FIELDS)} FROM pairs) TO ? (FORMAT json, ARRAY true)",
                    [str(by_duckdb)])
    assert done.stdout == by_duckdb.read_bytes()
    # which is not how Python's json module writes (", " and ": " between items, no tabs)
    first = done.stdout.splitlines()[1]
    assert first.startswith(b'\t{"a":"') and b'","b":"' in first
    assert len(json.loads(done.stdout)) > 2048


def test_a_reader_that_goes_away_or_ctrl_c_ends_the_stream(many_pairs_db):
    env = dict(os.environ)
    env.pop("WINNOWDB_DB", None)
    cmd = [*WINNOWDB, "pairs", "--db", str(many_pairs_db), "-f", "json", "--top", "0"]
    # `| head -c 100`: the command ends quietly with status 0
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    assert len(p.stdout.read(100)) == 100
    p.stdout.close()
    assert p.wait(timeout=60) == 0
    assert p.stderr.read() == b""
    # Ctrl-C while the output waits for a reader that does not read (it is larger than a pipe
    # holds): status 130 and one line, at once
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, preexec_fn=sigint_default)
    assert p.stdout.read(1) == b"["
    time.sleep(1)
    p.send_signal(signal.SIGINT)
    assert p.wait(timeout=60) == 130  # a hang fails here; how fast is not a test's business
    assert p.stderr.read().decode().strip() == "error: interrupted"
    p.stdout.close()
