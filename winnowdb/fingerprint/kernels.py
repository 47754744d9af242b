"""``add``'s compiled loops (numba): prose normalization, k-gram hashes with robust winnowing,
simhashes and first-of-hash masks, of many documents in one pass (issue 19). The only other
module that imports numba is ``normalize.code_kernel`` (the code tokenizer's last pass), which
uses ``fmix`` and ``mix_unit`` from here.

numpy runs each step of ``fingerprint.batch`` as a pass over the whole batch, a few dozen passes
per character in all; here one loop per document does the same work in registers:

* ``winnow_docs``: every k-gram's hash (the polynomial of ``hashing.kgram_hashes``, rolled one
  unit at a time: drop the first unit, divide by ``BASE``, add the next unit times
  ``BASE**(k-1)``, all modulo 2**64), then robust winnowing (the paper's Definition 3, as
  ``winnow.winnow``): the selection stays on the previous one while it is in the window and no
  smaller hash comes in; when it leaves, the window is scanned for its rightmost minimum. A
  document shorter than a window gets the rightmost minimum of its hashes, one shorter than k
  nothing. ``select_docs`` is the winnowing step alone, over hashes already computed.
* ``simhash_docs``: the simhash features (``simhash.feature_hashes``: every 4-gram, or the whole
  sequence when shorter), re-mixed by splitmix64, their bit votes counted in byte lanes (eight
  bits of a word at a time, in eight words held in registers, flushed every 255 features so no
  byte overflows), and the bits set where more than half the features vote
  (``simhash.simhash_from_votes``). A document's units are mixed first, in a pass of their own.
* ``first_in_docs``: which of a document's fingerprints is the first of its hash (``ingest.prepare.
  first_of_each_hash``), by one small open-addressing table per document instead of a sort.
* ``prose_units``: the ``prose`` normalizer's units of one text (``normalize.prose``) from its
  code points and the fold tables, in one pass that follows the runs of separators between words.

``winnow_docs`` and ``simhash_docs`` take the documents' unit ids concatenated, with their
boundaries, and mix each id as ``hashing.mixed_units`` does (its table below 2**16, splitmix64
past it). Every output equals the numpy path's bit for bit (tests/fingerprint/test_kernels.py,
tests/normalize/test_prose.py, tests/ingest/test_prepare_batched.py). This module is imported only by
``fingerprint.compiled`` (and ``normalize.code_kernel``, which it loads after), when an add is big
enough to pay for loading numba; ``fingerprint.batch``
keeps the numpy path when numba cannot be imported or ``WINNOWDB_KERNELS=numpy`` is set.

numba compiles these on first use and caches the machine code beside this file (or in numba's
cache folder when that is not writable), so a later process loads it in milliseconds.
"""
from __future__ import annotations

import numba
import numpy as np

from .hashing import BASE, mix_table, powers
from .simhash import FEATURE_GRAM, FEATURE_SALT

__all__ = ["winnow_docs", "select_docs", "first_in_docs", "simhash_docs", "prose_units", "fmix", "mix_unit"]

_U64 = np.uint64
_C27, _C30, _C31, _C33 = _U64(27), _U64(30), _U64(31), _U64(33)
_M1, _M2 = _U64(0xFF51AFD7ED558CCD), _U64(0xC4CEB9FE1A85EC53)
_S0, _S1, _S2 = _U64(0x9E3779B97F4A7C15), _U64(0xBF58476D1CE4E5B9), _U64(0x94D049BB133111EB)
_LANES, _BYTE = _U64(0x0101010101010101), _U64(0xFF)
_B = [pow(int(BASE), i, 1 << 64) for i in range(4)]
_B1, _B2, _B3 = _U64(_B[1]), _U64(_B[2]), _U64(_B[3])
_BASE = BASE
_BASE_INV = powers(2)[1][1]


def winnow_docs(units: np.ndarray, uoff: np.ndarray, k: int, w: int,
                salt: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(pos, hashes, counts): each document's robust-winnowing selections, in order.

    ``units`` holds the documents' unit ids concatenated, document i being
    ``units[uoff[i]:uoff[i + 1]]``, mixed here as ``hashing.mixed_units(units, salt)`` mixes
    them. ``pos`` holds each selection's k-gram index in its document, ``hashes`` its hash
    (int64), and ``counts[i]`` the number of document i's selections."""
    if k < 1 or w < 1:
        raise ValueError("k and w must be at least 1")
    bk1 = _U64(pow(int(BASE), k - 1, 1 << 64))
    salt &= 0xFFFFFFFFFFFFFFFF
    return _winnow(np.ascontiguousarray(units, dtype=_U64), np.ascontiguousarray(uoff, dtype=np.int64),
                   int(k), int(w), bk1, mix_table(salt), _U64(salt))


def select_docs(hashes: np.ndarray, offsets: np.ndarray, w: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(pos, hashes, counts) as ``winnow_docs`` gives them, of hashes already computed (int64;
    document i's are ``hashes[offsets[i]:offsets[i + 1]]``): the robust winnowing step alone."""
    if w < 1:
        raise ValueError("w must be at least 1")
    return _select_all(np.ascontiguousarray(hashes, dtype=np.int64), np.ascontiguousarray(offsets, dtype=np.int64),
                       int(w))


def first_in_docs(hashes: np.ndarray, offsets: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(first, distinct): for each hash of each document (``hashes[offsets[i]:offsets[i + 1]]``),
    whether no earlier hash of the same document equals it; and each document's number of
    distinct hashes."""
    return _first_in_docs(np.ascontiguousarray(hashes, dtype=np.int64), np.ascontiguousarray(offsets, dtype=np.int64))


def prose_units(cps: np.ndarray, single: np.ndarray, space: np.ndarray, joiners: np.ndarray | None,
                strip_start: bool, strip_end: bool, space_unit: int, mark_unit: int,
                expands: int) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """(units, start, stop) of ``normalize.prose.normalize_prose`` on its fast path, from the
    text's code points (all in the BMP) and the tables the normalizer uses: ``single`` (each code
    point's one folded letter, 0 for a separator, ``expands`` for one that folds to several
    letters), ``space`` (white space), ``joiners`` (joins the word it is written in; None when
    no code point is one). None when a code point folds to several letters (the numpy path
    handles those). A run of separators gives ``mark_unit`` when it holds a separator that is
    neither white space nor a joiner, else ``space_unit``, and a white run at the very start or
    end none when told to strip it."""
    joins = np.zeros(1, dtype=np.bool_) if joiners is None else np.ascontiguousarray(joiners, dtype=np.bool_)
    units, start, stop, ok = _prose(np.ascontiguousarray(cps, dtype=np.uint32), single, space, joins,
                                    joiners is not None, bool(strip_start), bool(strip_end), _U64(space_unit),
                                    _U64(mark_unit), np.uint32(expands))
    return (units, start, stop) if ok else None


def simhash_docs(units: np.ndarray, uoff: np.ndarray, skip=None) -> np.ndarray:
    """The simhash (int64) of each document of ``units`` (``units[uoff[i]:uoff[i + 1]]``; 0 for a
    document with no units): ``simhash.units_simhash``. ``skip[i]`` (a tuple of at most two unit
    values, or None for no skips at all) lists unit values left out of document i first (a prose
    document's separator units, so that its units are the ``text`` normalizer's)."""
    if FEATURE_GRAM != 4:  # the kernel unrolls 4-grams
        raise ValueError("simhash_docs computes 4-gram features")
    docs = max(int(np.asarray(uoff).shape[0]) - 1, 0)
    skips = np.full((docs, 2), -1, dtype=np.int64)
    if skip is not None:
        if len(skip) != docs or any(len(values) > 2 for values in skip):
            raise ValueError("skip needs at most two values per document")
        for i, values in enumerate(skip):
            skips[i, :len(values)] = values
    return _simhash(np.ascontiguousarray(units, dtype=_U64), np.ascontiguousarray(uoff, dtype=np.int64),
                    np.ascontiguousarray(skips), mix_table(FEATURE_SALT), _U64(FEATURE_SALT))


@numba.njit(cache=True, nogil=True)
def _xmx(z, a, m, b, n, c):  # xor-shift, multiply, xor-shift, multiply, xor-shift (both mixers)
    z ^= z >> a
    z *= m
    z ^= z >> b
    z *= n
    z ^= z >> c
    return z


@numba.njit(cache=True, nogil=True)
def fmix(z):  # hashing.fmix64 of one value (also normalize.code_kernel's)
    return _xmx(z, _C33, _M1, _C33, _M2, _C33)


@numba.njit(cache=True, nogil=True)
def _splitmix(z):  # hashing.splitmix64 of one value
    return _xmx(z + _S0, _C30, _S1, _C27, _S2, _C31)


@numba.njit(cache=True, nogil=True)
def _select(h, m, w, pos, out, n):  # pragma: no cover - compiled; its output is tested
    """Robust winnowing of h[:m]: appends (index, hash) of each selection at pos[n:], out[n:]."""
    if m < w:  # shorter than a window: the rightmost minimum of all
        best = 0
        for j in range(1, m):
            if h[j] <= h[best]:
                best = j
        pos[n] = best
        out[n] = h[best]
        return n + 1
    cur = -1
    for j in range(w - 1, m):
        first = j - w + 1
        if cur < first:  # the selection left the window: its rightmost minimum
            cur = first
            for i in range(first + 1, j + 1):
                if h[i] <= h[cur]:
                    cur = i
        elif h[j] < h[cur]:  # a smaller hash came in (an equal one keeps the selection)
            cur = j
        else:
            continue
        pos[n] = cur
        out[n] = h[cur]
        n += 1
    return n


@numba.njit(cache=True, nogil=True)
def _select_all(hashes, offsets, w):  # pragma: no cover - compiled; its output is tested
    docs = offsets.shape[0] - 1
    counts = np.zeros(docs, np.int64)
    pos = np.empty(hashes.shape[0], np.int64)
    out = np.empty(hashes.shape[0], np.int64)
    n = 0
    for d in range(docs):
        m = offsets[d + 1] - offsets[d]
        if m > 0:
            before = n
            n = _select(hashes[offsets[d]:offsets[d + 1]], m, w, pos, out, n)
            counts[d] = n - before
    return pos[:n], out[:n], counts


@numba.njit(cache=True, nogil=True)
def mix_unit(u, table, salt):  # hashing.mixed_units of one unit id (also normalize.code_kernel's)
    if u < _U64(0x10000):
        return table[u]
    return _splitmix(u ^ salt)


@numba.njit(cache=True, nogil=True)
def _winnow(units, uoff, k, w, bk1, table, salt):  # pragma: no cover - compiled; its output is tested
    docs = uoff.shape[0] - 1
    counts = np.zeros(docs, np.int64)
    total = 0
    longest = 1
    for d in range(docs):
        m = uoff[d + 1] - uoff[d] - k + 1
        if m > 0:
            total += m
            longest = max(longest, m)
    pos = np.empty(total, np.int64)
    out = np.empty(total, np.int64)
    h = np.empty(longest, np.int64)
    x = np.empty(longest + k - 1, np.uint64)
    kk = _U64(k)
    n = 0
    for d in range(docs):
        a = uoff[d]
        m = uoff[d + 1] - a - k + 1
        if m <= 0:
            continue
        for i in range(m + k - 1):
            x[i] = mix_unit(units[a + i], table, salt)
        a = 0
        poly = _U64(0)
        p = _U64(1)
        for i in range(k):
            poly += x[a + i] * p
            p *= _BASE
        h[0] = np.int64(fmix(poly ^ kk))
        for j in range(1, m):
            poly = (poly - x[a + j - 1]) * _BASE_INV + x[a + j + k - 1] * bk1
            h[j] = np.int64(fmix(poly ^ kk))
        before = n
        n = _select(h, m, w, pos, out, n)
        counts[d] = n - before
    return pos[:n], out[:n], counts


@numba.njit(cache=True, nogil=True)
def _simhash(units, uoff, skips, table, salt):  # pragma: no cover - compiled; its output is tested
    docs = uoff.shape[0] - 1
    result = np.zeros(docs, np.int64)
    longest = 0
    for d in range(docs):
        longest = max(longest, uoff[d + 1] - uoff[d])
    mixed = np.empty(longest, np.uint64)  # a document's kept units, mixed
    votes = np.zeros(64, np.int64)
    for d in range(docs):
        # first the kept units, mixed: then every feature reads its four from memory, and the
        # loop over features carries nothing from one to the next (2.3x faster than one loop
        # keeping the last four in a ring)
        skip_a, skip_b = skips[d, 0], skips[d, 1]
        kept = 0
        for i in range(uoff[d], uoff[d + 1]):
            u = units[i]
            if (skip_a >= 0 and u == _U64(skip_a)) or (skip_b >= 0 and u == _U64(skip_b)):
                continue
            mixed[kept] = mix_unit(u, table, salt)
            kept += 1
        if kept == 0:
            continue
        votes[:] = 0
        if kept < 4:  # the whole sequence is one feature (hashing.kgram_hashes with k = kept)
            poly = mixed[0]
            if kept > 1:
                poly += mixed[1] * _B1
            if kept > 2:
                poly += mixed[2] * _B2
            z = _splitmix(fmix(poly ^ _U64(kept)))
            for b in range(64):
                votes[b] += np.int64((z >> _U64(b)) & _U64(1))
            features = 1
        else:
            features = kept - 3
            start = 0
            while start < features:  # 255 features at most per round: no byte lane overflows
                stop = min(features, start + 255)
                # bit b of byte lane l of a_b counts the features with bit 8 * l + b set
                a0 = a1 = a2 = a3 = a4 = a5 = a6 = a7 = _U64(0)
                for j in range(start, stop):  # the feature of kept units j .. j + 3
                    poly = mixed[j] + mixed[j + 1] * _B1 + mixed[j + 2] * _B2 + mixed[j + 3] * _B3
                    z = _splitmix(fmix(poly ^ _U64(4)))
                    a0 += z & _LANES
                    a1 += (z >> _U64(1)) & _LANES
                    a2 += (z >> _U64(2)) & _LANES
                    a3 += (z >> _U64(3)) & _LANES
                    a4 += (z >> _U64(4)) & _LANES
                    a5 += (z >> _U64(5)) & _LANES
                    a6 += (z >> _U64(6)) & _LANES
                    a7 += (z >> _U64(7)) & _LANES
                for lane in range(8):
                    at, shift = 8 * lane, _U64(8 * lane)
                    votes[at] += np.int64((a0 >> shift) & _BYTE)
                    votes[at + 1] += np.int64((a1 >> shift) & _BYTE)
                    votes[at + 2] += np.int64((a2 >> shift) & _BYTE)
                    votes[at + 3] += np.int64((a3 >> shift) & _BYTE)
                    votes[at + 4] += np.int64((a4 >> shift) & _BYTE)
                    votes[at + 5] += np.int64((a5 >> shift) & _BYTE)
                    votes[at + 6] += np.int64((a6 >> shift) & _BYTE)
                    votes[at + 7] += np.int64((a7 >> shift) & _BYTE)
                start = stop
        bits = _U64(0)
        for i in range(64):
            if 2 * votes[i] > features:
                bits |= _U64(1) << _U64(i)
        result[d] = np.int64(bits)
    return result


@numba.njit(cache=True, nogil=True)
def _prose(cps, single_table, space_table, joiner_table, has_mark, strip_start, strip_end, space_unit, mark_unit,
           expands):  # pragma: no cover - compiled; its output is tested
    n = cps.shape[0]
    units = np.empty(n, np.uint64)
    start = np.empty(n, np.int64)
    stop = np.empty(n, np.int64)
    out = 0
    seen = False  # a character that is not a joiner came before
    after_letter = False  # ... and the last one was a letter or digit
    in_run = False
    run_start = 0
    marked = False
    for i in range(n + 1):
        single = np.uint32(0)
        if i < n:
            cp = cps[i]
            single = single_table[cp]
            if single == expands:
                return units[:0], start[:0], stop[:0], False
            joiner = has_mark and joiner_table[cp]
            sep = single == 0
            if joiner:
                if seen and after_letter:
                    sep = False  # part of the word before it
            else:
                seen = True
                after_letter = single != 0
        else:
            sep = False
            joiner = False
        if sep:
            if not in_run:
                in_run = True
                run_start = i
                marked = False
            if not space_table[cp] and not joiner:
                marked = True
            continue
        if in_run:  # the run ends before i: its unit, unless it is white space at an edge
            in_run = False
            if not ((strip_start and run_start == 0 and not marked) or (strip_end and i == n and not marked)):
                units[out] = mark_unit if marked else space_unit
                start[out] = run_start
                stop[out] = i
                out += 1
        if single != 0:
            units[out] = np.uint64(single)
            start[out] = i
            stop[out] = i + 1
            out += 1
    return units[:out], start[:out], stop[:out], True


@numba.njit(cache=True, nogil=True)
def _first_in_docs(hashes, offsets):  # pragma: no cover - compiled; its output is tested
    docs = offsets.shape[0] - 1
    first = np.zeros(hashes.shape[0], np.bool_)
    distinct = np.zeros(docs, np.int64)
    longest = 1
    for d in range(docs):
        longest = max(longest, offsets[d + 1] - offsets[d])
    size = 2
    while size < 2 * longest:
        size *= 2
    keys = np.empty(size, np.int64)
    used = np.zeros(size, np.bool_)
    for d in range(docs):
        a, b = offsets[d], offsets[d + 1]
        slots, bits = 2, 1
        while slots < 2 * (b - a):
            slots *= 2
            bits += 1
        shift = _U64(64 - bits)
        used[:slots] = False
        for i in range(a, b):
            key = hashes[i]
            slot = np.int64((_U64(key) * _S0) >> shift)
            while used[slot] and keys[slot] != key:
                slot = (slot + 1) & (slots - 1)
            if not used[slot]:
                used[slot] = True
                keys[slot] = key
                first[i] = True
                distinct[d] += 1
    return first, distinct
