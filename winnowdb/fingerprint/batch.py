"""Fingerprints and simhashes of many documents in one pass (issue 19).

Per-document numpy calls cost microseconds each whatever the document's size, so small documents
spend much of their time in call overhead. Here the documents of a batch are concatenated into
one array, with ``offsets`` marking the boundaries (document ``i`` is
``concatenated[offsets[i]:offsets[i + 1]]``), and every step runs once over them:

* ``kgram_hashes_many``: the k-gram hashes of ``hashing.kgram_hashes``. The polynomial of a
  k-gram computed from prefix sums, multiplied by ``BASE**-start``, does not depend on where the
  document starts, so the prefix sums of the concatenation give every document's hashes; the
  k-grams that cross a boundary are dropped.
* ``winnow_many`` / ``select_many``: the selections of ``winnow.winnow`` and ``winnow.select``.
  The sliding minimum (``winnow.window_minima``) runs once over the concatenated hashes and the
  windows that cross a boundary are dropped; the robust tie rule is ``winnow.robust_ties``, the
  same code as one document's, told where each window starts and where each document's windows
  end, so it never looks across a boundary. A document shorter than a window gets the rightmost
  minimum of its hashes; one shorter than k, nothing.
* ``fingerprint_many``: ``winnow.fingerprint`` of each document.
* ``feature_hashes_many`` / ``bit_votes_many`` / ``simhash_many``: ``simhash.feature_hashes``,
  the bit votes and ``simhash.units_simhash`` of each document. The votes are counted eight
  bits at a time in byte lanes: ``(z >> b) & 0x0101010101010101`` puts bits b, b + 8, ...,
  b + 56 of a feature's mixed hash into the eight bytes of a word, and summing at most 255 such
  words never carries from one byte into the next.

A batch is worked through in blocks of whole documents of about ``BLOCK`` units each (one pass
per block), which keeps the temporary arrays small: a batch of 1,024 documents of 2.7 KB in one
pass ran slower than in blocks of 2**16 units (bench/results/batch_fingerprint.md).

Every output equals the per-document path's, bit for bit (tests/fingerprint/test_batch.py). The
cached powers of ``BASE`` (``hashing.powers``) grow to the length of the largest block.

``compiled=True`` (``add`` on a big input) runs robust winnowing and the simhashes through the
numba loops of ``fingerprint.kernels`` instead, when ``compiled.compiled_kernels()`` has them.
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .compiled import compiled_kernels
from .hashing import fmix64, mixed_units, powers, splitmix64
from .simhash import FEATURE_GRAM, FEATURE_SALT
from .winnow import Fingerprints, robust_ties, window_minima

__all__ = ["BLOCK", "concat_units", "kgram_hashes_many", "winnow_many", "select_many", "fingerprint_many",
           "feature_hashes_many", "bit_votes_many", "simhash_many"]

_U64 = np.uint64
_LANES = _U64(0x0101010101010101)
#: features summed per byte-lane word: at most 255, so no byte overflows into the next
_LANE_CHUNK = 255
#: features mixed and counted per block, so that the vote's scratch arrays stay in cache
_VOTE_BLOCK = 1 << 16
#: units (or hashes) per block of documents: a batch is worked through in blocks of whole
#: documents of at most this many (or of one document), each in one pass
#: (bench/batch_fingerprint.py --blocks measures others)
BLOCK = 1 << 16


def _offsets(counts: np.ndarray) -> np.ndarray:
    """[0, c0, c0 + c1, ...] as int64."""
    out = np.zeros(counts.shape[0] + 1, dtype=np.int64)
    np.cumsum(counts, out=out[1:])
    return out


def _blocks(offsets: np.ndarray):
    """(a, b) ranges of documents (``offsets`` their boundaries) of at most ``BLOCK`` elements
    each, or one document: whole documents, at least one per block."""
    docs = offsets.shape[0] - 1
    limit = BLOCK
    a = 0
    while a < docs:
        b = int(np.searchsorted(offsets, offsets[a] + limit, side="right")) - 1
        b = min(max(b, a + 1), docs)
        yield a, b
        a = b


def _inside(starts: np.ndarray, counts: np.ndarray, total: int) -> np.ndarray:
    """A mask of ``total`` positions, True on the runs starts[i] .. starts[i] + counts[i] - 1
    (disjoint, in order; a run of count 0 lies between its neighbours)."""
    mask = np.ones(total, dtype=bool)
    gap_lo = np.concatenate(([0], starts + counts))
    gap_hi = np.concatenate((starts, [total]))
    gaps = np.maximum(gap_hi - gap_lo, 0)
    idx = np.arange(int(gaps.sum()), dtype=np.int64)
    if idx.shape[0]:
        idx += np.repeat(gap_lo - _offsets(gaps)[:-1], gaps)
        mask[idx[idx < total]] = False
    return mask


def concat_units(units_list: Sequence[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """(all the units concatenated, offsets): document i is ``units[offsets[i]:offsets[i + 1]]``.

    Unit ids are non-negative integers; a batch mixing signed and unsigned 64-bit arrays is
    read as uint64."""
    lengths = np.fromiter((u.shape[0] for u in units_list), dtype=np.int64, count=len(units_list))
    offsets = _offsets(lengths)
    if not units_list:
        return np.empty(0, dtype=_U64), offsets
    dtype = np.result_type(*units_list)
    if dtype.kind not in "ui":
        return np.concatenate(units_list, dtype=_U64, casting="unsafe"), offsets
    return np.concatenate(units_list), offsets


def _kgram_block(units: np.ndarray, uoff: np.ndarray, k: int, salt: int) -> tuple[np.ndarray, np.ndarray]:
    """``kgram_hashes_many`` of documents already concatenated (``uoff``: their boundaries)."""
    counts = np.maximum(np.diff(uoff) - (k - 1), 0)
    offsets = _offsets(counts)
    if offsets[-1] == 0:
        return np.empty(0, dtype=np.int64), offsets
    n = int(units.shape[0])
    x = mixed_units(units, salt)
    fwd, inv = powers(n)
    with np.errstate(over="ignore"):
        prefix = np.empty(n + 1, dtype=_U64)
        prefix[0] = 0
        np.cumsum(x * fwd, dtype=_U64, out=prefix[1:])
        poly = prefix[k:] - prefix[: n - k + 1]
        poly *= inv[: n - k + 1]
        if offsets[-1] != poly.shape[0]:  # drop the k-grams that cross a boundary
            poly = poly[_inside(uoff[:-1], counts, poly.shape[0])]
        poly ^= _U64(k)
        return fmix64(poly).view(np.int64), offsets


def kgram_hashes_many(units_list: Sequence[np.ndarray], k: int, salt: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """(hashes, offsets): the 64-bit hashes (int64) of every k-gram of every document, equal to
    ``hashing.kgram_hashes(units, k, salt)`` of each, concatenated; document i's are
    ``hashes[offsets[i]:offsets[i + 1]]`` (none when it has fewer than k units)."""
    if k < 1:
        raise ValueError("k must be at least 1")
    lengths = np.fromiter((u.shape[0] for u in units_list), dtype=np.int64, count=len(units_list))
    offsets = _offsets(np.maximum(lengths - (k - 1), 0))
    hashes = np.empty(int(offsets[-1]), dtype=np.int64)
    for a, b in _blocks(_offsets(lengths)):
        h, _ = _kgram_block(*concat_units(units_list[a:b]), k, salt)
        hashes[offsets[a]:offsets[b]] = h
    return hashes, offsets


def _rightmost_minima(hashes: np.ndarray, offsets: np.ndarray, docs: np.ndarray) -> np.ndarray:
    """For each (non-empty) document of ``docs``: the index in ``hashes`` of its rightmost minimum."""
    counts = offsets[docs + 1] - offsets[docs]
    heads = _offsets(counts)[:-1]
    idx = np.arange(int(counts.sum()), dtype=np.int64)
    idx += np.repeat(offsets[docs] - heads, counts)
    vals = hashes[idx]
    mins = np.minimum.reduceat(vals, heads)
    cand = np.where(vals == np.repeat(mins, counts), idx, -1)
    return np.maximum.reduceat(cand, heads)


def _winnow_block(hashes: np.ndarray, offsets: np.ndarray, w: int, robust: bool) -> np.ndarray:
    """The sorted indices into ``hashes`` that ``winnow_many`` selects (no checks)."""
    counts = np.diff(offsets)
    nwin = np.maximum(counts - (w - 1), 0)
    woff = _offsets(nwin)
    parts = []
    if woff[-1]:
        r, m = window_minima(hashes, w)  # every window of the concatenation
        if woff[-1] == r.shape[0]:  # no window crosses a boundary: window j starts at hash j
            if robust:
                r = robust_ties(hashes, r, m)
        else:  # drop the windows that cross a boundary
            valid = _inside(offsets[:-1], nwin, r.shape[0])
            r, m = r[valid], m[valid]
            # robust_ties' first test, made here so that the windows' starts are only listed
            # when a selection moved to an equal hash: a tie the rule may break
            if robust and ((r[1:] != r[:-1]) & (m[1:] == m[:-1])).any():
                r = robust_ties(hashes, r, m, np.flatnonzero(valid), woff[1:])
        keep = np.empty(r.shape[0], dtype=bool)
        keep[0] = True
        np.not_equal(r[1:], r[:-1], out=keep[1:])  # a document's first window differs from the last
        parts.append(r[keep])
    short = np.flatnonzero((counts > 0) & (nwin == 0))
    if short.size:
        parts.append(_rightmost_minima(hashes, offsets, short))
    if not parts:
        return np.empty(0, dtype=np.int64)
    return parts[0] if len(parts) == 1 else np.sort(np.concatenate(parts))


def _select_block(hashes: np.ndarray, offsets: np.ndarray, selection: str, w: int, m: int,
                  robust: bool) -> np.ndarray:
    if selection == "winnow":
        return _winnow_block(hashes, offsets, w, robust)
    if selection == "all":
        return np.arange(hashes.shape[0], dtype=np.int64)
    return np.flatnonzero(hashes.view(_U64) % _U64(m) == 0)


def _check(selection: str, w: int, m: int) -> None:
    if selection == "winnow":
        if w < 1:
            raise ValueError("w must be at least 1")
    elif selection == "mod":
        if m < 1:
            raise ValueError("m must be at least 1")
    elif selection != "all":
        raise ValueError(f"unknown selection {selection!r}")


def select_many(hashes: np.ndarray, offsets: np.ndarray, selection: str, w: int, m: int = 1,
                robust: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """(selected, sel_offsets): ``winnow.select(h, selection, w, m)`` of each document's hashes
    (document i is ``hashes[offsets[i]:offsets[i + 1]]``; ``winnow`` is ``winnow.winnow(h, w,
    robust)``). ``selected`` holds indices into ``hashes``, sorted; document i's are
    ``selected[sel_offsets[i]:sel_offsets[i + 1]]`` (subtract ``offsets[i]`` for its own)."""
    _check(selection, w, m)
    offsets = np.asarray(offsets, dtype=np.int64)
    if selection == "winnow":
        parts = [_winnow_block(hashes[offsets[a]:offsets[b]], offsets[a:b + 1] - offsets[a], w, robust)
                 + offsets[a] for a, b in _blocks(offsets)]
        selected = np.concatenate(parts) if parts else np.empty(0, dtype=np.int64)
    else:
        selected = _select_block(hashes, offsets, selection, w, m, robust)
    return selected, np.searchsorted(selected, offsets).astype(np.int64, copy=False)


def winnow_many(hashes: np.ndarray, offsets: np.ndarray, w: int, robust: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """``select_many(hashes, offsets, "winnow", w, robust=robust)``: ``winnow.winnow`` of each
    document's hashes. Windows run over each block of concatenated documents at once; those
    crossing a boundary are dropped, and the robust tie rule never looks across one."""
    return select_many(hashes, offsets, "winnow", w, robust=robust)


def fingerprint_many(docs: Sequence, k: int, w: int, salt: int = 0, selection: str = "winnow", m: int = 1,
                     robust: bool = True, compiled: bool = False) -> list[Fingerprints]:
    """``winnow.fingerprint(doc, k, w, salt=salt, selection=selection, m=m, robust=robust)`` of
    each normalized document (``normalize.units.Normalized``), in one pass over the batch
    (robust winnowing through ``fingerprint.kernels`` when ``compiled`` and they are usable).

    The arrays of a result are views of arrays shared by its block of documents."""
    if k < 1:
        raise ValueError("k must be at least 1")
    _check(selection, w, m)
    kernels = compiled_kernels() if compiled and selection == "winnow" and robust else None
    if kernels is not None:
        return _fingerprint_compiled(kernels, docs, k, w, salt)
    lengths = np.fromiter((len(d.units) for d in docs), dtype=np.int64, count=len(docs))
    out = []
    for a, b in _blocks(_offsets(lengths)):
        block = docs[a:b]
        hashes, offsets = _kgram_block(*concat_units([d.units for d in block]), k, salt)
        selected = _select_block(hashes, offsets, selection, w, m, robust)
        sel_off = np.searchsorted(selected, offsets)
        pos = selected - np.repeat(offsets[:-1], np.diff(sel_off))
        out.extend(_per_document(block, pos, hashes[selected], sel_off, k))
    return out


def _per_document(docs: Sequence, pos: np.ndarray, hashes: np.ndarray, bounds: np.ndarray,
                  k: int) -> list[Fingerprints]:
    """Each document's ``Fingerprints`` from the selections of its block (document i's at
    ``bounds[i]:bounds[i + 1]``, ``pos`` their k-gram indexes in it)."""
    last = pos + (k - 1)
    at = np.asarray(bounds).tolist()
    out = []
    for i, doc in enumerate(docs):
        lo, hi = at[i], at[i + 1]
        p = pos[lo:hi]
        out.append(Fingerprints(hash=hashes[lo:hi], pos=p, start=doc.start[p], stop=doc.stop[last[lo:hi]]))
    return out


def _fingerprint_compiled(kernels, docs: Sequence, k: int, w: int, salt: int) -> list[Fingerprints]:
    """``fingerprint_many`` (robust winnowing) through ``kernels.winnow_docs``, the whole batch in one call."""
    if not len(docs):
        return []
    units, uoff = concat_units([d.units for d in docs])
    pos, hashes, counts = kernels.winnow_docs(units, uoff, k, w, salt)
    return _per_document(docs, pos, hashes, _offsets(counts), k)


def _features_block(units: np.ndarray, uoff: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``feature_hashes_many`` of documents already concatenated (``uoff``: their boundaries)."""
    g = FEATURE_GRAM
    lengths = np.diff(uoff)
    grams = np.maximum(lengths - (g - 1), 0)
    short = np.flatnonzero((lengths > 0) & (lengths < g))  # the whole sequence is one feature
    counts = grams.copy()
    counts[short] = 1
    offsets = _offsets(counts)
    if offsets[-1] == 0:
        return np.empty(0, dtype=np.int64), offsets
    n = int(units.shape[0])
    x = mixed_units(units, FEATURE_SALT)
    fwd, _ = powers(g)
    out = None
    with np.errstate(over="ignore"):
        if grams.any():
            # sum of x[i + j] * BASE**j, j < g: kgram_hashes' polynomial (hashing.kgram_hashes)
            poly = x[g - 1:] * fwd[g - 1]
            t = np.empty_like(poly)
            for j in range(g - 2, -1, -1):
                np.multiply(x[j: n - g + 1 + j], fwd[j], out=t)
                poly += t
            if grams.sum() != poly.shape[0]:
                poly = poly[_inside(uoff[:-1], grams, poly.shape[0])]
            poly ^= _U64(g)
            out = fmix64(poly)
        if short.size:
            size, first = lengths[short], uoff[short]
            poly = np.zeros(short.size, dtype=_U64)
            for j in range(g - 1):
                inside = size > j
                poly[inside] += x[first[inside] + j] * fwd[j]
            poly ^= size.astype(_U64)
            if out is None:
                out = fmix64(poly)
            else:  # merge: each short document's one feature at its place
                merged = np.empty(int(offsets[-1]), dtype=_U64)
                is_short = np.zeros(merged.shape[0], dtype=bool)
                is_short[offsets[short]] = True
                merged[is_short] = fmix64(poly)
                merged[~is_short] = out
                out = merged
    assert out is not None  # offsets[-1] > 0: some document has a long or a short sequence
    return out.view(np.int64), offsets


def feature_hashes_many(units_list: Sequence[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """(features, offsets): ``simhash.feature_hashes(units)`` of each document (int64),
    concatenated; document i's are ``features[offsets[i]:offsets[i + 1]]``."""
    lengths = np.fromiter((u.shape[0] for u in units_list), dtype=np.int64, count=len(units_list))
    counts = np.where(lengths >= FEATURE_GRAM, lengths - (FEATURE_GRAM - 1), np.minimum(lengths, 1))
    offsets = _offsets(counts)
    features = np.empty(int(offsets[-1]), dtype=np.int64)
    for a, b in _blocks(_offsets(lengths)):
        f, _ = _features_block(*concat_units(units_list[a:b]))
        features[offsets[a]:offsets[b]] = f
    return features, offsets


def bit_votes_many(features: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """For each document (``features[offsets[i]:offsets[i + 1]]``) and each of the 64 bits, the
    number of its features whose re-mixed hash (splitmix64) has the bit set: an int64 array of
    shape (documents, 64), row i equal to ``simhash.bit_votes`` of document i's features."""
    offsets = np.asarray(offsets, dtype=np.int64)
    docs = offsets.shape[0] - 1
    counts = np.diff(offsets)
    # chunks of at most _LANE_CHUNK features, never across a boundary
    nch = -(-counts // _LANE_CHUNK)
    choff = _offsets(nch)
    heads = np.arange(int(choff[-1]), dtype=np.int64)
    heads -= np.repeat(choff[:-1], nch)
    heads *= _LANE_CHUNK
    heads += np.repeat(offsets[:-1], nch)
    sums = np.empty((heads.shape[0], 8, 8), dtype=np.uint8)  # chunk, shift b, byte j: bit 8j + b
    z_all = np.ascontiguousarray(features).view(_U64)
    c0 = 0
    while c0 < heads.shape[0]:
        c1 = min(c0 + _VOTE_BLOCK // _LANE_CHUNK, heads.shape[0])
        lo = int(heads[c0])
        hi = int(heads[c1]) if c1 < heads.shape[0] else int(offsets[-1])
        z = splitmix64(z_all[lo:hi])
        t = np.empty_like(z)
        local = heads[c0:c1] - lo
        for b in range(8):
            np.right_shift(z, _U64(b), out=t)
            t &= _LANES
            sums[c0:c1, b, :] = np.add.reduceat(t, local).astype("<u8", copy=False).view(np.uint8).reshape(-1, 8)
        c0 = c1
    votes = np.zeros((docs, 8, 8), dtype=np.int64)
    has = nch > 0
    if has.any():
        votes[has] = np.add.reduceat(sums, choff[:-1][has], axis=0, dtype=np.int64)
    return votes.transpose(0, 2, 1).reshape(docs, 64)


def simhash_many(units_list: Sequence[np.ndarray], compiled: bool = False,
                 skip: Sequence[tuple[int, ...]] | None = None) -> list[int]:
    """``simhash.units_simhash(units)`` of each document (signed 64-bit ints; 0 for no units);
    through ``fingerprint.kernels`` when ``compiled`` and they are usable. ``skip[i]``: up to two
    unit values left out of document i first (a prose document's separators)."""
    kernels = compiled_kernels() if compiled else None
    if kernels is not None:
        if not len(units_list):
            return []
        return kernels.simhash_docs(*concat_units(units_list), skip).tolist()
    if skip is not None:
        units_list = [u[~np.isin(u, np.asarray(values, dtype=u.dtype))] if values else u
                      for u, values in zip(units_list, skip)]
    lengths = np.fromiter((u.shape[0] for u in units_list), dtype=np.int64, count=len(units_list))
    out: list[int] = []
    for a, b in _blocks(_offsets(lengths)):
        features, offsets = _features_block(*concat_units(units_list[a:b]))
        votes = bit_votes_many(features, offsets)
        total = np.diff(offsets)
        bits = (2 * votes - total[:, None]) > 0  # simhash.simhash_from_votes' rule, one row per document
        out.extend(np.packbits(bits, axis=1, bitorder="little").view("<i8")[:, 0].tolist())
    return out
