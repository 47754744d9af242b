"""Texts are stored so that one can be read alone (``dbfile.texts_readable_one_by_one``): DuckDB
would compress long texts with ZSTD, a vector of 2,048 of them at a time, and a query reading
its hits' texts would decompress every text in their vectors."""
from __future__ import annotations

import random

import duckdb

import winnowdb

WORDS = ["index", "value", "result", "count", "total", "buffer", "offset", "length", "record", "parse"]


def _code(rng: random.Random, lines: int = 300) -> str:
    out = []
    for i in range(lines):
        a, b, c = rng.choice(WORDS), rng.choice(WORDS), rng.choice(WORDS)
        out.append(f"    {a}_{i % 7} = compute_{b}({c}, {i})  # update the {a} from the {c}")
    return "def generated():\n" + "\n".join(out) + "\n"


def _text_compressions(con) -> set:
    return {c for (c,) in con.execute(
        "SELECT DISTINCT compression FROM pragma_storage_info('document_texts') "
        "WHERE column_name = 'text' AND segment_type = 'VARCHAR'").fetchall()}


def test_long_texts_are_not_stored_with_zstd(tmp_path):
    rng = random.Random(3)
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    texts = [_code(rng) for _ in range(60)]
    for i, text in enumerate(texts):
        (corpus / f"m{i:02d}.py").write_text(text)
    db = tmp_path / "i.duckdb"
    with winnowdb.open(db) as idx:
        idx.add([corpus])
    con = duckdb.connect(str(db), read_only=True)
    try:
        stored = _text_compressions(con)
        assert sorted(t for (t,) in con.execute("SELECT text FROM document_texts").fetchall()) == sorted(texts)
    finally:
        con.close()
    assert stored and "ZSTD" not in stored, stored
    # the same texts in a table DuckDB compresses as it likes: ZSTD, which the index must not get
    plain = duckdb.connect(str(tmp_path / "plain.duckdb"))
    try:
        plain.execute("CREATE TABLE document_texts (doc INTEGER, text VARCHAR)")
        plain.executemany("INSERT INTO document_texts VALUES (?, ?)", list(enumerate(texts)))
        plain.execute("CHECKPOINT")
        assert "ZSTD" in _text_compressions(plain)
    finally:
        plain.close()
