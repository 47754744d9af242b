"""Whether ``add``'s batch path runs the compiled kernels (``fingerprint.kernels``, numba) or numpy.

The kernels are loaded once per process, on first use: numba imported and the kernels compiled
(or loaded from numba's cache), so the cost falls on the add that needs them (in each of its
worker processes, which is where they run), and checked against the numpy path once. The numpy
path gives the same output: it is the fallback when numba cannot be imported or a kernel cannot
be compiled or fails the check, and ``WINNOWDB_KERNELS=numpy`` selects it (for comparisons).
A compiled module of another stage (``normalize.code_kernel``) is kept here too
(``compiled_extra``), so that it follows the same switch and ``reset``.
"""
from __future__ import annotations

import os
from typing import Callable

__all__ = ["KERNELS_ENV", "compiled_kernels", "compiled_extra", "reset"]

#: set to ``numpy`` to keep ``add`` on the numpy path (for comparisons: the results are the same)
KERNELS_ENV = "WINNOWDB_KERNELS"
_KERNELS: dict[str, object] = {}


def compiled_kernels():
    """The ``fingerprint.kernels`` module, compiled (or loaded from numba's cache), checked and
    ready; or None when ``WINNOWDB_KERNELS=numpy`` is set, numba cannot be imported, a kernel
    cannot be compiled or loaded, or one gives other output than the numpy path (``_self_check``:
    numba's cache is keyed on kernels.py alone, so a change elsewhere could leave stale code)."""
    if os.environ.get(KERNELS_ENV, "").strip().lower() == "numpy":
        return None
    if "module" not in _KERNELS:
        try:
            from . import kernels

            _KERNELS["module"] = kernels if _self_check(kernels) else None
        except Exception:  # numba missing, or unable to compile or cache (no writable folder, an
            _KERNELS["module"] = None  # LLVM error): the numpy path gives the same output
    return _KERNELS["module"]


def compiled_extra(name: str, load: Callable[[], object]):
    """Another compiled module (one outside this package, e.g. ``normalize.code_kernel``), as
    ``load()`` returns it once it has loaded and checked it (None: unusable), kept until ``reset``;
    None whenever ``compiled_kernels`` is, or when ``load`` raises."""
    if compiled_kernels() is None:
        return None
    if name not in _KERNELS:
        try:
            _KERNELS[name] = load()
        except Exception:  # cannot compile or load: the numpy path gives the same output
            _KERNELS[name] = None
    return _KERNELS[name]


def reset() -> None:
    """Forget the kernels loaded (or found unusable): the next ``compiled_kernels`` loads them again."""
    _KERNELS.clear()


def _self_check(kernels) -> bool:
    """Every kernel run once on a small sample, which compiles it here (inside the fallback):
    winnowing and simhashes give what the numpy path gives (they are the ones that take constants
    from other modules), the others a known answer."""
    import numpy as np

    from .hashing import kgram_hashes
    from .simhash import units_simhash
    from .winnow import winnow

    rng = np.random.default_rng(0)
    docs = [rng.integers(0, n, size=size).astype(np.uint64) for n, size in ((5, 300), (70000, 200), (3, 2), (9, 0))]
    uoff = np.concatenate(([0], np.cumsum([d.shape[0] for d in docs])))
    units = np.concatenate(docs)
    pos, hashes, counts = kernels.winnow_docs(units, uoff, 7, 4, 0x22)
    want_pos = [winnow(kgram_hashes(d, 7, 0x22), 4) for d in docs]
    want_hashes = [kgram_hashes(d, 7, 0x22)[p] for d, p in zip(docs, want_pos)]
    if not (counts.tolist() == [p.shape[0] for p in want_pos] and np.array_equal(pos, np.concatenate(want_pos))
            and np.array_equal(hashes, np.concatenate(want_hashes))):
        return False
    if kernels.simhash_docs(units, uoff).tolist() != [units_simhash(d) for d in docs]:
        return False
    first, distinct = kernels.first_in_docs(np.array([5, 3, 5, 5, 2, 2], dtype=np.int64), np.array([0, 4, 6]))
    if first.tolist() != [True, True, False, False, True, False] or distinct.tolist() != [2, 1]:
        return False
    single = np.zeros(0x10000, dtype=np.uint32)
    single[97:100] = np.arange(97, 100)
    space = np.zeros(0x10000, dtype=np.bool_)
    space[32] = True
    got = kernels.prose_units(np.array([97, 98, 32, 44, 99, 32], dtype=np.uint32), single, space, None, True, True,
                              0x20, 0x2E, 0xFFFFFFFF)  # "ab ,c ": a, b, a mark for " ,", c
    return got is not None and [g.tolist() for g in got] == [[97, 98, 0x2E, 99], [0, 1, 2, 4], [1, 2, 4, 5]]
