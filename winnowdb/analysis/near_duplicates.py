"""Near-duplicate documents: simhashes within Hamming distance k, found in SQL (Manku et al. §3).

The Hamming distance problem: among N 64-bit simhashes, find those that differ from a query in at
most k bits (online mode), or every such pair (batch mode). Comparing everything with everything
costs N per query and N²/2 per batch; the paper avoids that with *tables*.

Block layouts. Split the 64 bit positions into r blocks. Two simhashes that differ in at most k
bits differ in at most k blocks, so they agree exactly on at least r - k of them: on one of the
C(r, k) ways of choosing r - k blocks. Each choice is one *table*, here one 64-bit **mask** (its
blocks' bits). Within the k blocks a table leaves out, the same argument applies again (the
16-table design of the paper's Example 3.1: 4 blocks, then the remaining 48 bits in 4 blocks), so
a layout is a list of block counts per level, ``levels = (r1, r2, ...)``, and its tables are every
combination of chosen blocks across the levels. Guarantee: any two simhashes within distance k
agree on every bit of at least one mask. SQL finds the candidates with an equality join on
``(table, simhash & mask)`` and verifies each with a popcount of the XOR.

Choosing the layout (§3.1.2). More tables mean more matched bits p per table, so fewer chance
candidates (about N / 2^p per probe and table), but every table costs one pass over the N
simhashes. ``choose_layout`` picks, among the layouts with at most ``MAX_TABLES`` tables, the
one of least estimated work, counting one unit per (document, table) key and one per expected
chance candidate:

* batch (all pairs): sum over tables of N + N(N-1)/2 / 2^p. For k = 3 this is the paper's
  4 tables of 16 bits up to about 130,000 documents (n is rounded up to a power of two), then
  10 tables of 25-26 bits (5 blocks, any 2 of them), the 16-table design from about 7 * 10^7
  and 20 tables from about 1.3 * 10^8. Brute force (one table of no bits) is a candidate too;
  it wins only for a handful of documents, or for a large k.
* online (one query): sum over tables of N + N / 2^p: the fewest tables, i.e. k + 1 blocks of
  about 64/(k+1) bits at every index size (``online_layout``), which keeps the candidates of a
  query of 1,000,000 documents at about 15 per table for k = 3.

The masks travel to SQL as the relation ``simhash_masks(block, mask)`` (``masks_table``),
registered on the DuckDB connection (on Spark: a temporary view), so the block columns are
computed in SQL from ``documents.simhash`` and never go stale: nothing is stored.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import combinations
from math import comb
from pathlib import Path

import numpy as np

from ..errors import WinnowError

__all__ = ["Layout", "block_masks", "make_layout", "layouts", "choose_layout", "online_layout", "masks_table",
           "check_hamming", "near_duplicates_of", "near_simhash", "near_duplicate_pairs",
           "write_near_duplicate_pairs", "brute_force_pairs", "DEFAULT_HAMMING", "MAX_HAMMING", "MAX_TABLES",
           "query_simhash", "MAX_CANDIDATES", "check_candidates"]

#: the paper's choice for 64-bit simhashes (precision and recall both near 0.75 on the web)
DEFAULT_HAMMING = 3
#: the largest distance accepted (beyond it "near" means little: random pairs differ in ~32 bits)
MAX_HAMMING = 32
#: the largest number of tables (masks) a chosen layout may have
MAX_TABLES = 256
#: the most candidate pairs a pair search verifies (``check_candidates``): about 10 s of DuckDB's
#: join here, and a hash table of the pairs within the distance that fits in memory or a modest
#: spill. Real text makes far fewer (6,801 files: 25,246; 38,000 generated Java files: 2.8M);
#: 100,000 documents generated from one vocabulary made 9.3 billion, and the search filled the disk
MAX_CANDIDATES = 200_000_000
_FULL = (1 << 64) - 1


def check_hamming(k) -> int:
    """``k`` as an int, or a one-line error when it is not a distance between 0 and MAX_HAMMING."""
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)):
        raise WinnowError(f"the Hamming distance must be a whole number, not {k!r}")
    if not 0 <= int(k) <= MAX_HAMMING:
        raise WinnowError(f"the Hamming distance must be between 0 and {MAX_HAMMING}, not {k}")
    return int(k)


def _signed(mask: int) -> int:
    return mask - (1 << 64) if mask >= 1 << 63 else mask


def _split(bits: list[int], r: int) -> list[list[int]]:
    """``bits`` in ``r`` consecutive blocks of sizes as equal as possible (larger ones first)."""
    n = len(bits)
    out, start = [], 0
    for i in range(r):
        size = n // r + (1 if i < n % r else 0)
        out.append(bits[start:start + size])
        start += size
    return out


def _min_rest(bits: int, r: int, k: int) -> int:
    """Fewest bits the k blocks a table leaves out can have (what the next level gets)."""
    q, rem = divmod(bits, r)
    return k * q + max(0, k - (r - rem))


def _masks(bits: tuple[int, ...], k: int, levels: tuple[int, ...]) -> list[int]:
    if not levels:
        return [0]
    r = levels[0]
    blocks = _split(list(bits), r)
    out: list[int] = []
    for chosen in combinations(range(r), r - k):
        mask = 0
        for i in chosen:
            for b in blocks[i]:
                mask |= 1 << b
        rest = tuple(b for i in range(r) if i not in chosen for b in blocks[i])
        out.extend(mask | sub for sub in _masks(rest, k, levels[1:]))
    return out


@lru_cache(maxsize=None)
def block_masks(k: int, levels: tuple[int, ...]) -> tuple[int, ...]:
    """The masks (unsigned 64-bit ints) of a layout: ``levels`` gives the blocks per level; each
    level must have more than ``k`` blocks and at most as many as there are bits left for it.
    ``levels = ()`` is the one empty mask (every pair is a candidate: brute force)."""
    bits = 64
    for r in levels:
        if r <= k or r > bits:
            raise ValueError(f"a level of {r} blocks cannot hold k={k} differences in {bits} bits")
        bits = _min_rest(bits, r, k)
    return tuple(_masks(tuple(range(64)), k, tuple(levels)))


@dataclass(frozen=True)
class Layout:
    """A block layout: tables (masks) such that simhashes within distance ``k`` agree on all the
    bits of at least one mask."""

    k: int
    levels: tuple[int, ...]
    masks: tuple[int, ...] = field(repr=False)

    @property
    def tables(self) -> int:
        return len(self.masks)

    @property
    def bits(self) -> list[int]:
        """Matched bits per table (the paper's p_i)."""
        return [bin(m).count("1") for m in self.masks]

    def expected_candidates(self, n: int, *, batch: bool) -> float:
        """Chance candidates expected for ``n`` random simhashes (all pairs, or one query)."""
        probes = n * (n - 1) / 2 if batch else float(n)
        return sum(probes / 2.0 ** p for p in self.bits)

    def cost(self, n: int, *, batch: bool) -> float:
        """Estimated work: one unit per (document, table) key and per expected chance candidate."""
        return self.tables * float(n) + self.expected_candidates(n, batch=batch)

    def describe(self) -> str:
        if not self.levels:
            return f"k={self.k}: no blocks (every pair compared)"
        parts, bits = [], 64
        for r in self.levels:
            sizes = [bits // r + (1 if i < bits % r else 0) for i in range(r)]
            same = len(set(sizes)) == 1
            size_text = f"{sizes[0]} bits" if same else f"{min(sizes)}-{max(sizes)} bits"
            parts.append(f"{bits} bits in {r} blocks of {size_text}, any {r - self.k} equal")
            bits = sum(sorted(sizes)[-self.k:])  # most bits the next level may have
        lo, hi = min(self.bits), max(self.bits)
        p = f"{lo}" if lo == hi else f"{lo}-{hi}"
        return f"k={self.k}: {'; then '.join(parts)} -> {self.tables} tables matching {p} bits each"

    def columns(self) -> dict:
        """The masks as the relation ``simhash_masks(block INTEGER, mask BIGINT)``, a dict of numpy
        columns: what DuckDB scans here (an Arrow table would make DuckDB import pandas)."""
        import numpy as np

        return {"block": np.arange(self.tables, dtype=np.int32),
                "mask": np.array([_signed(m) for m in self.masks], dtype=np.int64)}

    def table(self):
        """The masks as the Arrow relation ``simhash_masks(block INTEGER, mask BIGINT)`` (for
        Spark's ``createDataFrame`` and other Arrow consumers)."""
        import pyarrow as pa

        return pa.table(self.columns())  # int32 / int64 numpy columns keep their types


def make_layout(k: int, levels: tuple[int, ...]) -> Layout:
    return Layout(k, tuple(levels), block_masks(k, tuple(levels)))


def _level_options(k: int, bits: int, max_tables: int, depth: int):
    """Every tuple of block counts (up to ``depth`` levels) with at most ``max_tables`` tables."""
    yield ()
    if depth == 0:
        return
    for r in range(k + 1, bits + 1):
        t = comb(r, k)
        if t > max_tables:
            break
        rest = _min_rest(bits, r, k)
        for tail in _level_options(k, rest, max_tables // t, depth - 1):
            yield (r,) + tail


def layouts(k: int, *, max_tables: int = MAX_TABLES, depth: int = 3) -> list[Layout]:
    """Every layout for distance ``k`` with at most ``max_tables`` tables (including brute force)."""
    k = check_hamming(k)
    return [make_layout(k, lv) for lv in _level_options(k, 64, max_tables, depth)]


@lru_cache(maxsize=None)
def _choose(k: int, n: int, batch: bool) -> Layout:
    best = None
    for lay in layouts(k):
        if not lay.levels and not batch:
            continue  # one query: always use blocks
        key = (lay.cost(n, batch=batch), lay.tables)
        if best is None or key < best[0]:
            best = (key, lay)
    # brute force (no levels) is always a layout, and for k <= MAX_HAMMING a blocked one too
    assert best is not None
    return best[1]


def choose_layout(k: int, n: int, *, batch: bool) -> Layout:
    """The layout of least estimated work for distance ``k`` over ``n`` simhashes (see the module
    docstring). ``n`` is rounded up to a power of two, so nearby sizes share a layout."""
    k = check_hamming(k)
    n = max(2, int(n))
    return _choose(k, 1 << (n - 1).bit_length(), bool(batch))


def online_layout(k: int) -> Layout:
    """The layout for one query: k + 1 blocks, any one equal (what ``choose_layout`` picks for
    ``batch=False`` at every size: each table costs a pass over the simhashes, so fewest wins)."""
    return make_layout(check_hamming(k), (k + 1,))


def masks_table(layout: Layout):
    return layout.table()


# ---------------------------------------------------------------------------------------- search
#: the LIMIT that means "every row" (the largest LIMIT Spark accepts)
_ALL_ROWS = 2**31 - 1


def _limit(top) -> int:
    return int(top) if top and int(top) > 0 else _ALL_ROWS


def _document_count(reader) -> int:
    return int(reader.store.value("simhash_document_count"))


def query_simhash(reader, source: str | os.PathLike) -> tuple[int, str | None]:
    """(simhash, submission to exclude) of ``source``: the stored simhash of an indexed document,
    else the simhash of the file's text (then nothing is excluded)."""
    from ..ingest.document import document_simhash
    from ..ingest.read import read_query_file, require_storable_name

    p = str(Path(source).resolve())
    require_storable_name(p)
    rows = reader.store.rows("simhash_of_document", path=p)
    if rows:
        return int(rows[0][0]), rows[0][1]
    src = read_query_file(source, if_directory="is a directory: --simhash compares one document at a time")
    return document_simhash(src.text), None


def near_duplicates_of(reader, source: str | os.PathLike, *, hamming: int = DEFAULT_HAMMING, top: int = 10,
                       layout: Layout | None = None) -> list[dict]:
    """Indexed documents whose simhash is within ``hamming`` bits of ``source``'s, nearest first.

    ``source`` is a file, indexed or not (an indexed one does not find its own submission). Each
    hit: path, distance, simhash. ``layout`` overrides the automatic choice (for tests).
    """
    k = check_hamming(hamming)
    value, exclude = query_simhash(reader, source)
    if value == 0:
        raise WinnowError(f"{source}: no letters or digits, so no simhash to compare")
    return near_simhash(reader, value, hamming=k, exclude=exclude, top=top, layout=layout)


def near_simhash(reader, value: int, *, hamming: int = DEFAULT_HAMMING, exclude: str | None = None,
                 top: int = 0, layout: Layout | None = None) -> list[dict]:
    """Indexed documents whose simhash is within ``hamming`` bits of the simhash ``value`` (a
    signed or unsigned 64-bit int), nearest first; ``exclude`` names a submission to leave out."""
    k = check_hamming(hamming)
    value = _signed(int(value) & _FULL)
    # online, the cost model picks k + 1 blocks at every index size (tests check it), so the
    # index need not be counted first
    lay = layout or online_layout(k)
    with reader.store.relations(simhash_masks=lay.columns()):
        return reader.store.records("near_duplicates_of", simhash=value, hamming=k, exclude=exclude,
                                    limit_rows=_limit(top))


def near_duplicate_pairs(reader, *, hamming: int = DEFAULT_HAMMING, top: int = 0,
                         layout: Layout | None = None) -> list[dict]:
    """Every pair of indexed documents (in different submissions) whose simhashes are within
    ``hamming`` bits, nearest first. Each pair: a, b (paths, a < b), distance, simhash_a,
    simhash_b. ``top=0`` returns every pair; ``layout`` overrides the automatic choice."""
    k = check_hamming(hamming)
    lay = layout or choose_layout(k, _document_count(reader), batch=True)
    with reader.store.relations(simhash_masks=lay.columns()):
        check_candidates(reader, k)
        return reader.store.records("near_duplicate_pairs", hamming=k, limit_rows=_limit(top))


def write_near_duplicate_pairs(reader, path: str | os.PathLike, columns: list[str], fmt: str = "csv", *,
                               hamming: int = DEFAULT_HAMMING, top: int = 0, layout: Layout | None = None) -> int:
    """``near_duplicate_pairs`` (the given columns, same order and options) written by DuckDB to
    the file ``path`` as CSV or a JSON array (``fmt``); the number of pairs."""
    k = check_hamming(hamming)
    lay = layout or choose_layout(k, _document_count(reader), batch=True)
    with reader.store.relations(simhash_masks=lay.columns()):
        check_candidates(reader, k)
        return reader.store.write_rows("near_duplicate_pairs", path, columns, fmt, hamming=k, limit_rows=_limit(top))


def check_candidates(reader, hamming: int) -> None:
    """Refuse a pair search that would verify more than ``MAX_CANDIDATES`` candidate pairs (the
    layout's masks registered as ``simhash_masks``), with what to do instead: the block search
    assumes simhashes spread over their 64 bits, and documents that nearly all share one make
    every pair a candidate (and most of them an answer)."""
    candidates = int(reader.store.value("near_duplicate_candidates"))
    if candidates > MAX_CANDIDATES:
        raise WinnowError(
            f"the documents' simhashes are too alike for a pair search: {candidates:,} candidate pairs to "
            f"check within {hamming} bits (at most {MAX_CANDIDATES:,}), so most documents are near-duplicates "
            "of many others; `winnowdb clusters` groups them, `winnowdb duplicates` finds exact copies, and "
            "`winnowdb query FILE --simhash` looks up one document")


# ------------------------------------------------------------------------------------ reference
def brute_force_pairs(simhashes: np.ndarray, k: int, *, chunk: int = 2048) -> set[tuple[int, int]]:
    """Every index pair (i < j) of ``simhashes`` within distance ``k``, by comparing all pairs
    (numpy, in chunks). The reference the block search is tested and benchmarked against."""
    from ..fingerprint.simhash import hamming_many

    x = np.asarray(simhashes, dtype=np.int64)
    n = x.shape[0]
    out: set[tuple[int, int]] = set()
    for start in range(0, n, chunk):
        block = x[start:start + chunk]
        d = hamming_many(block[:, None], x[None, :])
        ii, jj = np.nonzero(d <= k)
        ii = ii + start
        keep = ii < jj
        out.update(zip(ii[keep].tolist(), jj[keep].tolist()))
    return out
