"""The batched per-file work of ``add`` (``prepare_chunk``: files read one by one, then fingerprinted
and simhashed together, one pass per normalizer) gives exactly what the per-file path
(``prepare``) gives: the same fingerprints (hash, position), the same simhash, normalized hash,
units and distinct hashes, for every normalizer, boilerplate, skipped and unchanged files among
them, and documents of every length (empty, shorter than k, shorter than a window). The index
stores no spans: the read path fingerprints stored texts again in one pass
(``fingerprint_sources``), whose spans must be the per-file path's too."""
from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest

from winnowdb.ingest.prepare import prepare, prepare_chunk
from winnowdb.settings import IndexSettings

REPO = Path(__file__).resolve().parents[2]


def _rows_of(prep) -> dict:
    """A chunk result's rows, taken out of its chunk's piece (grouped by bucket), in (position,
    hash) order: a boilerplate document has two rows at some positions (its set-off edges)."""
    cols = prep.piece.columns
    mine = np.flatnonzero(cols["local"] == prep.local)
    mine = mine[np.lexsort((cols["hash"][mine], cols["pos"][mine]))]
    return {"hash": cols["hash"][mine], "pos": cols["pos"][mine], "first": cols["first"][mine]}


def _in_order(fps, first) -> dict:
    order = np.lexsort((fps.hash, fps.pos))
    return {"hash": fps.hash[order], "pos": fps.pos[order], "start": fps.start[order], "stop": fps.stop[order],
            "first": first[order]}


def _same(a, b) -> None:
    """``a`` from prepare_chunk (rows in its piece), ``b`` from prepare (rows in fps)."""
    assert (a.path, a.status, a.normalizer, a.normalized_hash, a.units, a.hashes, a.simhash) == \
           (b.path, b.status, b.normalizer, b.normalized_hash, b.units, b.hashes, b.simhash), a.path
    if a.status == "skipped":
        assert a.skipped == b.skipped
    assert a.fps is None and a.first is None  # a chunk's rows travel in its piece
    if b.fps is not None:
        assert a.fingerprints == len(b.fps) and a.piece is not None
        rows, want = _rows_of(a), _in_order(b.fps, b.first)
        for field in ("hash", "pos", "first"):
            assert np.array_equal(rows[field], want[field]), (a.path, field)
        assert a.src.text == b.src.text
    else:
        assert a.piece is None


@pytest.fixture()
def files(tmp_path):
    rng = random.Random(5)
    words = ["".join(rng.choice("abcdefghij") for _ in range(rng.randint(1, 8))) for _ in range(200)]
    out = sorted(str(p) for p in (REPO / "sample_corpus").rglob("*") if p.is_file())
    for i, n in enumerate([0, 1, 3, 5, 12, 40, 400, 3000]):  # empty, shorter than k, than a window, ...
        p = tmp_path / f"gen{i}.txt"
        p.write_text(" ".join(rng.choice(words) for _ in range(n)) + (", déjà vu!" if i % 2 else ""))
        out.append(str(p))
    (tmp_path / "zeros.txt").write_text("0" * 500)  # robust winnowing's ties
    (tmp_path / "binary.bin").write_bytes(b"\x00\x01\x02" * 100)
    out += [str(tmp_path / "zeros.txt"), str(tmp_path / "binary.bin")]
    return out


@pytest.mark.parametrize("normalizer", ["auto", "text", "words", "prose"])
@pytest.mark.parametrize("selection", ["winnow", "all", "mod"])
def test_a_chunk_is_prepared_exactly_as_each_file_alone(files, normalizer, selection):
    settings = IndexSettings.for_new_index(normalizer=normalizer, selection=selection)
    tasks = [(path, settings, None, False, None) for path in files]
    got = prepare_chunk(tasks, in_worker=False)
    assert len(got) == len(files)
    for a, task in zip(got, tasks):
        _same(a, prepare(*task))
    assert sum(p.status == "ok" for p in got) >= len(files) - 2


def test_boilerplate_unchanged_and_forced_language_in_a_chunk(files):
    settings = IndexSettings.for_new_index()
    first = prepare(files[0], settings, None, False, None)
    tasks = [(files[0], settings, None, False, first.src.content_hash)]  # unchanged
    tasks += [(path, settings, None, i % 3 == 0, None) for i, path in enumerate(files[1:])]
    for a, task in zip(prepare_chunk(tasks, in_worker=False), tasks):
        _same(a, prepare(*task))
    assert prepare_chunk(tasks[:1], in_worker=False)[0].status == "unchanged"
    code = [p for p in files if p.endswith(".py")]
    forced = [(path, settings, "java", False, None) for path in code]
    for a, task in zip(prepare_chunk(forced, in_worker=False), forced):
        _same(a, prepare(*task))


def test_chunks_are_bounded_in_files_and_bytes():
    """Chunks keep the tasks' order, hold at most CHUNK_FILES files and CHUNK_BYTES bytes, and a
    file bigger than that is a chunk of its own: what the workers hold at once stays bounded
    whatever the files' sizes."""
    from winnowdb.ingest.prepare import CHUNK_BYTES, CHUNK_FILES, chunked

    rng = random.Random(3)
    sizes = [rng.choice([10, 3_000, 700_000, CHUNK_BYTES + 5]) for _ in range(500)] + [1] * 200
    tasks = [(f"f{i}",) for i in range(len(sizes))]
    chunks = chunked(tasks, sizes)
    assert [t for c in chunks for t in c] == tasks
    at = 0
    for chunk in chunks:
        held = sizes[at:at + len(chunk)]
        at += len(chunk)
        assert len(chunk) <= CHUNK_FILES
        assert sum(held) <= CHUNK_BYTES or len(chunk) == 1
    assert any(len(c) == CHUNK_FILES for c in chunks)  # small files still go 64 at a time
    assert chunked(tasks[:130]) == [tasks[:64], tasks[64:128], tasks[128:130]]


@pytest.mark.parametrize("normalizer", ["auto", "text", "words", "prose"])
def test_texts_fingerprinted_together_give_each_ones_rows_and_spans(files, normalizer):
    """What the read path shows passages with (``sides.Reader.document_fingerprints``): the
    documents of one language fingerprinted in one pass, hash, position and span as alone."""
    from winnowdb.ingest.document import fingerprint_source, fingerprint_sources
    from winnowdb.ingest.read import Skipped, read_source

    settings = IndexSettings.for_new_index(normalizer=normalizer)
    texts, paths = [], []
    for path in files:
        src = read_source(path)
        if isinstance(src, Skipped):  # the binary file
            continue
        texts.append(src.text)
        paths.append(path)
    assert len(paths) >= len(files) - 1
    checked = 0
    for language in {None, "python"}:
        together = fingerprint_sources(texts, settings, paths, language=language)
        for text, path, got in zip(texts, paths, together):
            try:
                want = fingerprint_source(text, settings, path=path, language=language)
            except ValueError as exc:
                assert isinstance(got, ValueError) and str(got) == str(exc)
                continue
            assert got[0] == want[0]
            for field in ("hash", "pos", "start", "stop"):
                assert np.array_equal(getattr(got[2], field), getattr(want[2], field)), (path, field)
            checked += len(want[2])
    assert checked > 1000
