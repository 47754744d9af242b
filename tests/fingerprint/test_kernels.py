"""The compiled kernels (fingerprint.kernels, numba) equal the numpy path, bit for bit (issue 19).

Each kernel is checked against the per-document reference functions (``winnow.winnow``,
``winnow.fingerprint``, ``simhash.units_simhash``) over random batches that mix empty documents,
documents shorter than k, shorter than a window, long runs of one unit (``0000...``: every k-gram
ties), small alphabets and unit ids past the mixing table. The winnowing step alone is driven with
small integer hashes full of ties, since real 64-bit hashes tie only on repeated k-grams. And an
``add`` through the kernels stores the same index as one through numpy (``WINNOWDB_KERNELS``).
"""
from __future__ import annotations

import shutil
from pathlib import Path

import duckdb
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from winnowdb.fingerprint import compiled, kernels
from winnowdb.fingerprint.batch import concat_units, fingerprint_many, simhash_many
from winnowdb.fingerprint.compiled import compiled_kernels
from winnowdb.fingerprint.simhash import units_simhash
from winnowdb.fingerprint.winnow import fingerprint, winnow
from winnowdb.normalize import normalize_as
from winnowdb.normalize.text import text_units
from winnowdb.normalize.units import Normalized

from .test_batch import FIELDS, normalized, same, unit_docs

SAMPLE = Path(__file__).resolve().parents[2] / "sample_corpus"
SETTINGS = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def test_kernels_are_used(monkeypatch):
    monkeypatch.delenv(compiled.KERNELS_ENV, raising=False)
    assert compiled_kernels() is kernels
    monkeypatch.setenv(compiled.KERNELS_ENV, "numpy")
    assert compiled_kernels() is None


@st.composite
def tied_hashes(draw):
    """Per-document hash arrays of a few small values (ties everywhere), some of them long runs."""
    docs = []
    for _ in range(draw(st.integers(0, 8))):
        if draw(st.booleans()):
            docs.append(draw(st.lists(st.integers(-2, 2), max_size=50)))
        else:
            runs = draw(st.lists(st.tuples(st.integers(0, 1), st.integers(1, 30)), max_size=5))
            docs.append([v for v, r in runs for _ in range(r)])
    return [np.array(d, dtype=np.int64) for d in docs]


@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(docs=tied_hashes(), w=st.integers(1, 12))
def test_select_docs_is_robust_winnowing_with_ties(docs, w):
    hashes, offsets = concat_units(docs)
    pos, chosen, counts = kernels.select_docs(hashes.astype(np.int64), offsets, w)
    bounds = np.concatenate(([0], np.cumsum(counts)))
    assert counts.shape == (len(docs),)
    for i, h in enumerate(docs):
        want = winnow(h, w)
        got = pos[bounds[i]:bounds[i + 1]]
        assert np.array_equal(got, want), (h.tolist(), w)
        assert np.array_equal(chosen[bounds[i]:bounds[i + 1]], h[want])


def test_select_docs_all_zero_hashes():
    """The paper's robust case: a run of equal hashes keeps one selection per window it spans."""
    h = np.zeros(40, dtype=np.int64)
    for w in (1, 2, 4, 7, 40, 41):
        pos, _, counts = kernels.select_docs(h, np.array([0, 40]), w)
        assert np.array_equal(pos, winnow(h, w))
    assert np.array_equal(kernels.select_docs(h, np.array([0, 40]), 4)[0], [3, 7, 11, 15, 19, 23, 27, 31, 35, 39])


@SETTINGS
@given(units_list=unit_docs(max_docs=10), k=st.integers(1, 9), w=st.integers(1, 8),
       salt=st.sampled_from([0, 1, 0x22, 2**64 - 1]))
def test_fingerprint_many_compiled_equals_fingerprint(units_list, k, w, salt):
    docs = [normalized(u, i) for i, u in enumerate(units_list)]
    got = fingerprint_many(docs, k, w, salt=salt, compiled=True)
    assert len(got) == len(docs)
    for i, (doc, g) in enumerate(zip(docs, got)):
        want = fingerprint(doc, k, w, salt=salt)
        for f in FIELDS:
            assert same(getattr(g, f), getattr(want, f)), (i, len(doc), f, k, w)


@pytest.mark.parametrize("normalizer,k,w", [("prose", 22, 12), ("text", 5, 4), ("words", 3, 2),
                                            ("code:python", 12, 8)])
def test_fingerprint_many_compiled_sample_corpus(normalizer, k, w):
    texts = [p.read_text(encoding="utf-8", errors="replace") for p in sorted(SAMPLE.rglob("*")) if p.is_file()]
    docs = [normalize_as(t, normalizer) for t in texts] + [normalize_as("0" * 300, normalizer)]
    numpy_rows = fingerprint_many(docs, k, w, salt=7)
    compiled_rows = fingerprint_many(docs, k, w, salt=7, compiled=True)
    assert sum(len(f) for f in numpy_rows) > 100
    for a, b in zip(numpy_rows, compiled_rows):
        for f in FIELDS:
            assert same(getattr(a, f), getattr(b, f))


def test_fingerprint_many_compiled_only_for_robust_winnowing():
    doc = Normalized(np.arange(30, dtype=np.uint64) % 4, np.arange(30), np.arange(1, 31))
    for selection, robust in (("all", True), ("mod", True), ("winnow", False)):
        got = fingerprint_many([doc], 3, 4, selection=selection, m=2, robust=robust, compiled=True)[0]
        want = fingerprint(doc, 3, 4, selection=selection, m=2, robust=robust)
        for f in FIELDS:
            assert same(getattr(got, f), getattr(want, f))
    assert fingerprint_many([], 5, 4, compiled=True) == []
    with pytest.raises(ValueError):
        kernels.winnow_docs(np.zeros(3, dtype=np.uint64), np.array([0, 3]), 0, 2)
    with pytest.raises(ValueError):
        kernels.simhash_docs(np.zeros(3, dtype=np.uint64), np.array([0, 3]), [(), ()])
    with pytest.raises(ValueError):
        kernels.simhash_docs(np.zeros(3, dtype=np.uint64), np.array([0, 3]), [(1, 2, 3)])


@SETTINGS
@given(units_list=st.lists(st.one_of(
    st.lists(st.integers(0, 3), max_size=12),
    st.lists(st.integers(0, 2**40), max_size=600)), max_size=8))
def test_simhash_many_compiled_equals_units_simhash(units_list):
    arrays = [np.array(u, dtype=np.uint64) for u in units_list]
    assert simhash_many(arrays, compiled=True) == [units_simhash(u) for u in arrays]


@SETTINGS
@given(units_list=st.lists(st.lists(st.integers(0, 40), max_size=300), max_size=6), data=st.data())
def test_simhash_many_skip_compiled_equals_numpy(units_list, data):
    """Units left out first (a prose document's separators): up to two values per document."""
    arrays = [np.array(u, dtype=np.uint64) for u in units_list]
    skip = [tuple(data.draw(st.lists(st.integers(0, 40), max_size=2, unique=True))) for _ in arrays]
    want = [units_simhash(u[~np.isin(u, np.array(s, dtype=np.uint64))]) for u, s in zip(arrays, skip)]
    assert simhash_many(arrays, skip=skip) == want
    assert simhash_many(arrays, skip=skip, compiled=True) == want


def test_simhash_many_compiled_long_documents_and_ties():
    """More than 255 features (the byte lanes flushed mid-document), and an even split of votes."""
    rng = np.random.default_rng(3)
    arrays = [rng.integers(0, 60, size=n).astype(np.uint64) for n in (0, 1, 3, 4, 5, 258, 259, 260, 5000)]
    arrays.append(np.array([1, 2, 3, 4, 1, 2, 3, 4], dtype=np.uint64))
    assert simhash_many(arrays, compiled=True) == [units_simhash(u) for u in arrays]
    texts = [p.read_text(encoding="utf-8", errors="replace") for p in sorted(SAMPLE.rglob("*")) if p.is_file()]
    units = [text_units(t) for t in texts]
    assert simhash_many(units, compiled=True) == simhash_many(units)


def _index_rows(db: Path) -> dict[str, list]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        return {
            "fingerprints": con.execute("SELECT * FROM fingerprints ORDER BY ALL").fetchall(),
            "documents": con.execute("SELECT path, fingerprints, hashes, simhash, normalized_hash "
                                     "FROM documents ORDER BY path").fetchall(),
            "shared": con.execute("SELECT * FROM shared_hashes ORDER BY ALL").fetchall(),
        }
    finally:
        con.close()


def test_add_through_kernels_stores_the_numpy_index(tmp_path, monkeypatch):
    """An add big enough for the compiled path (and its worker processes) stores the same rows."""
    import winnowdb
    from winnowdb.ingest.prepare import PARALLEL_MIN_BYTES

    corpus = tmp_path / "corpus"
    shutil.copytree(SAMPLE, corpus / "sample")
    rng = np.random.default_rng(5)
    words = np.array("the of and a to in is was for on that with as by at from his her it an".split())
    size = sum(p.stat().st_size for p in corpus.rglob("*") if p.is_file())
    i = 0
    while size < PARALLEL_MIN_BYTES + 200_000:
        text = " ".join(rng.choice(words, size=int(rng.integers(50, 3000))))
        (corpus / f"gen{i:04d}.txt").write_text(text)
        size += len(text)
        i += 1
    rows = {}
    for mode in ("numpy", "compiled"):
        if mode == "numpy":
            monkeypatch.setenv(compiled.KERNELS_ENV, "numpy")
        else:
            monkeypatch.delenv(compiled.KERNELS_ENV, raising=False)
        db = tmp_path / f"{mode}.duckdb"
        with winnowdb.open(db) as idx:
            idx.add([corpus], jobs=2)
        rows[mode] = _index_rows(db)
    assert len(rows["numpy"]["documents"]) == i + sum(1 for p in SAMPLE.rglob("*") if p.is_file())
    assert rows["numpy"] == rows["compiled"]


#: characters of every kind the prose normalizer tells apart: letters, digits, white space
#: (ASCII and not), punctuation, symbols, combining marks, invisible format characters (the soft
#: hyphen, zero-width joiner), a letter past the BMP, one that folds to two letters
PROSE_CHARS = list("ab Z9 ,.-\n\t\r'\"") + ["\u00a0", "\u3000", "\u0301", "\u0308", "\u00ad", "\u200d", "\u2014",
                                           "é", "日", "\u00a9", "ß", "\U0001d400", "€"]


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=st.text(st.sampled_from(PROSE_CHARS), max_size=60), strip_start=st.booleans(), strip_end=st.booleans())
def test_prose_compiled_equals_numpy(text, strip_start, strip_end):
    from winnowdb.normalize.prose import normalize_prose

    want = normalize_prose(text, strip_start=strip_start, strip_end=strip_end)
    got = normalize_prose(text, strip_start=strip_start, strip_end=strip_end, compiled=True)
    for f in ("units", "start", "stop"):
        assert same(getattr(got, f), getattr(want, f)), (text, f)


def test_prose_kernel_runs_on_the_fast_path():
    """The compiled prose loop takes texts in the BMP without multi-letter folds (the property
    test above compares outputs, some of which come from the numpy path)."""
    from winnowdb.normalize.fold import EXPANDS, joiner_table, single_table
    from winnowdb.normalize.prose import PROSE_MARK, PROSE_SPACE, WHITESPACE
    from winnowdb.normalize.units import code_points

    space = np.zeros(0x10000, dtype=np.bool_)
    space[list(WHITESPACE)] = True
    for text, fast in (("a\u0301\u00adb c\u200d, d", True), ("Stra\u00dfe", False), ("x \U0001d400", None)):
        cps = code_points(text)
        if fast is None:  # past the BMP: normalize_prose never asks the kernel
            assert int(cps.max()) >= 0x10000
            continue
        got = kernels.prose_units(cps, single_table(cps), space, joiner_table(), True, True, PROSE_SPACE, PROSE_MARK,
                                  EXPANDS)
        assert (got is not None) == fast, text


def test_prose_compiled_sample_corpus():
    from winnowdb.normalize.prose import normalize_prose

    texts = [p.read_text(encoding="utf-8", errors="replace") for p in sorted(SAMPLE.rglob("*")) if p.is_file()]
    texts += ["", " ", "  lead and trail  ", "--", "a\u0301\u00adb c\u200d, d"]
    for text in texts:
        want, got = normalize_prose(text), normalize_prose(text, compiled=True)
        for f in ("units", "start", "stop"):
            assert same(getattr(got, f), getattr(want, f)), (text[:40], f)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(docs=tied_hashes())
def test_first_in_docs_equals_first_of_each_hash(docs):
    from winnowdb.ingest.prepare import first_of_each_hash

    hashes, offsets = concat_units(docs)
    first, distinct = kernels.first_in_docs(hashes.astype(np.int64), offsets)
    assert first.dtype == np.bool_ and distinct.shape == (len(docs),)
    for i, h in enumerate(docs):
        want_first, want_distinct = first_of_each_hash(h)
        assert np.array_equal(first[offsets[i]:offsets[i + 1]], want_first)
        assert distinct[i] == want_distinct


def test_first_in_docs_real_hashes():
    from winnowdb.ingest.prepare import first_of_each_hash

    rng = np.random.default_rng(9)
    docs = [rng.integers(-2**63, 2**63 - 1, size=n, dtype=np.int64) for n in (0, 1, 700, 3000)]
    docs.append(np.repeat(docs[2][:50], 7))  # repeated real hashes
    hashes, offsets = concat_units(docs)
    first, distinct = kernels.first_in_docs(hashes.view(np.int64), offsets)
    for i, h in enumerate(docs):
        want_first, want_distinct = first_of_each_hash(h)
        assert np.array_equal(first[offsets[i]:offsets[i + 1]], want_first) and distinct[i] == want_distinct


def test_kernels_that_cannot_load_leave_the_numpy_path(monkeypatch):
    """numba missing (ImportError), unable to compile or cache (any other error), or a kernel
    whose output differs from the numpy path's: an add works on the numpy path, same output."""
    import sys

    docs = [normalize_as("The tide came in over the flats, and the gulls went with it.", "prose")]
    want = fingerprint_many(docs, 5, 4)

    def broken(*args, **kwargs):
        raise RuntimeError("cannot cache function: no locator available")

    def wrong(units, uoff, skip=None):  # as stale machine code would: not the numpy path's values
        return np.zeros(len(uoff) - 1, dtype=np.int64)

    for how in ("import", "compile", "stale"):
        compiled.reset()
        with monkeypatch.context() as m:
            if how == "import":  # as if numba could not be imported
                import winnowdb.fingerprint

                m.setitem(sys.modules, "winnowdb.fingerprint.kernels", None)
                m.delattr(winnowdb.fingerprint, "kernels", raising=False)
            elif how == "compile":
                m.setattr(kernels, "winnow_docs", broken)
            else:  # the self-check compares each kernel with the numpy path
                m.setattr(kernels, "simhash_docs", wrong)
            assert compiled_kernels() is None
            got = fingerprint_many(docs, 5, 4, compiled=True)
        assert all(same(getattr(a, f), getattr(b, f)) for a, b in zip(got, want) for f in FIELDS)
    compiled.reset()
    assert compiled_kernels() is kernels
