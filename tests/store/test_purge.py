"""Removals whose fingerprint deletes would pin too much memory (store/purge.py): the documents are
removed in one transaction, their fingerprint rows deleted after it, a span of hash buckets at a
time. The index must end exactly as a removal in one transaction leaves it; while rows are left
(a removal stopped half-way), every read must answer as if they were gone, `check` must pass and
say so, and the next write must delete them."""
from __future__ import annotations

import random
import shutil
from pathlib import Path

import duckdb
import pytest

import winnowdb
from winnowdb.store import purge
from winnowdb.store.buckets import BUCKETS
from winnowdb.store.check import check_index

#: every base table of an index, with the columns that differ between two builds of it left out
TABLES = {"documents": "* EXCLUDE (added_at, mtime_ns, ctime_ns)", "fingerprints": "*", "shared_hashes": "*",
          "common_hashes": "*", "boilerplate_hashes": "*", "code_text_df": "*", "code_text_hashes": "*",
          "document_texts": "*", "documents_pending": "* EXCLUDE (added_at, mtime_ns, ctime_ns)",
          "documents_removed": "*", "meta": "*"}


#: what ``Index.stats`` says of the file rather than of the index's contents
FILE_KEYS = {"index", "file_bytes", "size_bytes"}


def _corpus(root: Path) -> Path:
    """40 essays in words of a small vocabulary (many shared fingerprints), a few of which copy a
    passage of another, and a boilerplate-free folder layout."""
    rng = random.Random(7)
    vocab = ["".join(rng.choice("abcdefghijklmnop") for _ in range(rng.randint(2, 7))) for _ in range(400)]
    texts = [" ".join(rng.choice(vocab) for _ in range(500)) for _ in range(40)]
    for i in range(0, 40, 5):  # essay i + 1 copies a passage of essay i
        texts[i + 1] += " " + texts[i][200:1400]
    root.mkdir()
    for i, text in enumerate(texts):
        (root / f"e{i:02d}.txt").write_text(text, encoding="utf-8")
    return root


@pytest.fixture()
def built(tmp_path):
    """A corpus and two identical indexes of it (one to change each way)."""
    corpus = _corpus(tmp_path / "essays")
    a, b = tmp_path / "a.duckdb", tmp_path / "b.duckdb"
    with winnowdb.open(a) as idx:
        idx.add([corpus], jobs=1)
    shutil.copyfile(a, b)
    return corpus, a, b


def _tables(db: Path) -> dict[str, list]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        return {t: sorted(con.execute(f"SELECT {cols} FROM {t}").fetchall(), key=repr) for t, cols in TABLES.items()}
    finally:
        con.close()


def _spans(monkeypatch) -> list:
    """The spans ``purge`` deletes from here on (``delete_span`` wrapped, not replaced)."""
    seen: list = []
    real = purge.delete_span

    def counted(store, span, rows, **kwargs):
        seen.append(span)
        return real(store, span, rows, **kwargs)

    monkeypatch.setattr(purge, "delete_span", counted)
    return seen


def _changed(corpus: Path, names: list[str]) -> None:
    for name in names:
        path = corpus / name
        path.write_text(path.read_text(encoding="utf-8") + " and one more line of text", encoding="utf-8")


@pytest.mark.parametrize("how", ["remove", "replace"])
def test_a_deferred_removal_leaves_the_index_a_removal_in_one_transaction_leaves(built, monkeypatch, how):
    corpus, a, b = built
    names = [f"e{i:02d}.txt" for i in range(0, 40, 3)]
    spans = _spans(monkeypatch)

    def change(db: Path) -> None:
        with winnowdb.open(db) as idx:
            if how == "remove":
                assert len(idx.remove([corpus / n for n in names])) == len(names)
            else:
                idx.add([corpus], jobs=1)

    if how == "replace":
        _changed(corpus, names)
    change(a)  # the memory limit allows these deletes in one transaction
    assert spans == []
    for name in ("DEFER_SHARE", "SPAN_SHARE"):  # now the limit allows almost no deletes
        monkeypatch.setattr(purge, name, 10**9)
    change(b)
    assert spans == [(p, p) for p in range(BUCKETS)]  # a bucket per span, all of them, in order
    assert _tables(b) == _tables(a)
    assert _tables(b)["documents_removed"] == []
    assert check_index(b).ok


def test_reads_ignore_the_rows_a_stopped_removal_left_and_the_next_write_deletes_them(built, monkeypatch, tmp_path):
    corpus, a, b = built
    gone = [corpus / f"e{i:02d}.txt" for i in range(0, 40, 4)]
    with winnowdb.open(a) as idx:  # the reference: removed in one transaction
        idx.remove(gone)
    for name in ("DEFER_SHARE", "SPAN_SHARE"):
        monkeypatch.setattr(purge, name, 10**9)
    real, calls = purge.delete_span, []

    def stopped(store, span, rows, **kwargs):  # a Ctrl-C before the third span
        calls.append(span)
        if len(calls) == 3:
            raise KeyboardInterrupt
        return real(store, span, rows, **kwargs)

    monkeypatch.setattr(purge, "delete_span", stopped)
    with winnowdb.open(b) as idx, pytest.raises(KeyboardInterrupt):
        idx.remove(gone)
    monkeypatch.setattr(purge, "delete_span", real)

    con = duckdb.connect(str(b), read_only=True)
    left = con.execute("SELECT COUNT(*) FROM fingerprints f WHERE NOT EXISTS "
                       "(SELECT 1 FROM documents d WHERE d.doc = f.doc)").fetchall()[0][0]
    waiting = con.execute("SELECT COUNT(*) FROM documents_removed").fetchall()[0][0]
    con.close()
    assert left > 0 and waiting == len(gone)
    report = check_index(b)
    assert report.ok, report.to_dict()
    assert any(f"{len(gone)} removed documents still have fingerprint rows" in n for n in report.notes), report.notes

    probes = [corpus / f"e{i:02d}.txt" for i in (1, 2, 5, 6, 11)] + gone[:2]
    with winnowdb.open(a, read_only=True) as ref, winnowdb.open(b, read_only=True) as idx:
        assert idx.pairs(top=0) == ref.pairs(top=0)
        for probe in probes:
            assert idx.query(probe, top=0) == ref.query(probe, top=0), probe
        mine, theirs = ({k: v for k, v in i.stats().items() if k not in FILE_KEYS} for i in (idx, ref))
        assert mine == theirs

    new = tmp_path / "new"
    new.mkdir()
    (new / "late.txt").write_text((corpus / "e06.txt").read_text(encoding="utf-8")[:2000], encoding="utf-8")
    for db in (a, b):  # the next write, on both
        with winnowdb.open(db) as idx:
            idx.add([new], jobs=1)
    assert _tables(b) == _tables(a)
    assert check_index(b).ok and not any("removed documents" in n for n in check_index(b).notes)


def test_spans_cover_every_bucket_once_in_order():
    for pinned, limit in [(0, 1), (1, 1), (10, 3), (10**12, 1), (5, 10**9), (64, 1), (65, 1), (100, 7)]:
        spans = purge.spans_for(pinned, limit)
        covered = [p for first, last in spans for p in range(first, last + 1)]
        assert covered == list(range(BUCKETS)), (pinned, limit)
        assert all(first <= last for first, last in spans)
        n = len(spans)
        assert n == min(BUCKETS, max(1, -(-pinned // limit))), (pinned, limit)
