"""``winnowdb add`` making a new index starts its worker processes before it opens the index
(``ingest.prepare.start_workers``), as soon as its walk has found enough to read to need them, so
they load the compiled kernels while the rest is walked and the index is made.

What must hold: the index is the one an add in one process makes; the pre-started workers are
the ones that read (no second pool); they are stopped whatever happens, also when the index
cannot be made; an add too small for workers, or with ``--jobs 1``, starts none.
"""
from __future__ import annotations

import multiprocessing
import random

import duckdb
import pytest
from conftest import ok, one_line_error

from winnowdb.ingest import prepare
from winnowdb.ingest.workers import OrderedPool

WORDS = ["amber", "basalt", "cinder", "delta", "ember", "fjord", "granite", "harbor", "island", "juniper",
         "kelp", "lagoon", "meadow", "nimbus", "orchid", "prairie", "quartz", "river", "summit", "tundra"]


def _corpus(root, files: int = 12, words: int = 40_000):
    """``files`` documents of random words (~300 kB each: over ``PARALLEL_MIN_BYTES`` together),
    every one quoting the same passage."""
    rng = random.Random(7)
    quote = " ".join(rng.choice(WORDS) for _ in range(200))
    root.mkdir()
    for i in range(files):
        body = [rng.choice(WORDS) for _ in range(words)]
        (root / f"doc{i:02d}.txt").write_text(" ".join(body[:1000]) + f" {quote} " + " ".join(body[1000:]))
    assert sum(p.stat().st_size for p in root.iterdir()) >= prepare.PARALLEL_MIN_BYTES
    assert files >= prepare.PARALLEL_MIN_FILES
    return root


@pytest.fixture
def pools(monkeypatch) -> list:
    """Every ``OrderedPool`` made while the test runs (the real class, counted)."""
    made: list = []
    real = OrderedPool.__init__

    def counted(self, *args, **kwargs):
        made.append(kwargs.get("warm"))
        real(self, *args, **kwargs)

    monkeypatch.setattr(OrderedPool, "__init__", counted)
    return made


def _rows(db, sql: str) -> set:
    con = duckdb.connect(str(db), read_only=True)
    try:
        return set(con.execute(sql).fetchall())
    finally:
        con.close()


def test_a_new_index_read_by_prestarted_workers_is_the_one_made_in_process(cli, tmp_path, pools):
    corpus = _corpus(tmp_path / "corpus")
    ok(cli("add", corpus, "--db", tmp_path / "workers.duckdb"))
    assert pools == [prepare.warm_kernels]  # one pool, started before the index, and it read
    ok(cli("add", corpus, "--db", tmp_path / "alone.duckdb", "--jobs", "1"))
    assert len(pools) == 1  # in process: none
    assert not multiprocessing.active_children()
    for sql in ("SELECT hash, doc, pos FROM fingerprints",
                "SELECT doc, path, normalized_hash, simhash, fingerprints FROM documents",
                "SELECT * FROM shared_hashes"):
        workers, alone = _rows(tmp_path / "workers.duckdb", sql), _rows(tmp_path / "alone.duckdb", sql)
        assert workers and workers == alone, sql
    pairs = ok(cli("pairs", "--db", tmp_path / "workers.duckdb", "--top", "0", "--format", "csv")).stdout
    assert len(pairs.strip().splitlines()) == 1 + 12 * 11 // 2  # every two documents share the quote


def test_prestarted_workers_are_stopped_when_the_index_cannot_be_made(cli, tmp_path, pools):
    corpus = _corpus(tmp_path / "corpus")
    one_line_error(cli("add", corpus, "--db", tmp_path / "no-such-folder" / "x.duckdb"), "does not exist")
    assert pools == [prepare.warm_kernels]  # they were started (the walk came first) ...
    assert not multiprocessing.active_children()  # ... and are gone


def test_an_index_that_exists_is_opened_before_any_worker_starts(cli, tmp_path, pools, monkeypatch):
    corpus = _corpus(tmp_path / "corpus")
    db = tmp_path / "index.duckdb"
    ok(cli("add", corpus / "doc00.txt", "--db", db))  # small: in process
    assert pools == []
    prestarted = []
    real_start = prepare.start_workers
    monkeypatch.setattr(prepare, "start_workers", lambda *a: prestarted.append(a) or real_start(*a))
    ok(cli("add", corpus, "--db", db))
    # one pool, started by the add (not before the index was opened): after its files were
    # compared, warming up (the kernels loaded before any task) as a pre-started one does
    assert prestarted == [] and pools == [prepare.warm_kernels]
    assert not multiprocessing.active_children()


def test_start_workers_only_for_an_add_that_runs_in_workers():
    big, many = 10 * prepare.PARALLEL_MIN_BYTES, 10 * prepare.PARALLEL_MIN_FILES
    assert prepare.start_workers(1, many, big) is None
    assert prepare.start_workers(2, prepare.PARALLEL_MIN_FILES - 1, big) is None
    assert prepare.start_workers(2, many, prepare.PARALLEL_MIN_BYTES - 1) is None
    pool = prepare.start_workers(2, many, big)
    assert pool is not None
    with pool:
        pass
    assert not multiprocessing.active_children()


def _ready() -> None:
    global _WARM
    _WARM = "warm"


def _failing_warm() -> None:
    raise RuntimeError("cannot warm")


_WARM = "cold"


def _state(x: int) -> tuple[str, int]:
    return _WARM, x


def test_each_worker_warms_before_its_first_task_and_a_failed_warm_is_harmless():
    with OrderedPool(_state, 2, warm=_ready) as pool:
        assert list(pool.imap(range(8))) == [("warm", x) for x in range(8)]
    with OrderedPool(_state, 2, warm=_failing_warm) as pool:
        assert list(pool.imap(range(8))) == [("cold", x) for x in range(8)]


def test_workers_start_while_the_walk_goes_on(cli, tmp_path, monkeypatch):
    # as soon as the walk has found enough to read (PARALLEL_MIN_FILES files of
    # PARALLEL_MIN_BYTES), the workers start and load their kernels while the rest is walked
    from winnowdb.ingest import walk

    corpus = _corpus(tmp_path / "corpus", files=30, words=20_000)
    events: list[str] = []
    real_iter, real_init = walk.iter_files, OrderedPool.__init__

    def iter_files(paths):
        for item in real_iter(paths):
            events.append("file")
            yield item

    def init(self, *args, **kwargs):
        events.append("pool")
        real_init(self, *args, **kwargs)

    monkeypatch.setattr(walk, "iter_files", iter_files)
    monkeypatch.setattr(OrderedPool, "__init__", init)
    ok(cli("add", corpus, "--db", tmp_path / "early.duckdb"))
    assert events.count("pool") == 1 and events.count("file") == 30
    assert events.index("pool") < events.index("file") + 29  # before the walk's last file
    assert events[:events.index("pool")].count("file") >= prepare.PARALLEL_MIN_FILES
    assert not multiprocessing.active_children()
    pairs = ok(cli("pairs", "--db", tmp_path / "early.duckdb", "--top", "0", "--format", "csv")).stdout
    assert len(pairs.strip().splitlines()) == 1 + 30 * 29 // 2
