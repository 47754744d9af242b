"""Whether ``add``'s batch path runs the compiled kernels (``fingerprint.kernels``, numba) or numpy.

The kernels are loaded once per process, on first use: numba imported and the kernels compiled
(or loaded from numba's cache), so the cost falls on the add that needs them (in each of its
worker processes, which is where they run). ``WINNOWDB_KERNELS=numpy`` keeps the numpy path,
which gives the same output: for comparisons, and the fallback when numba cannot import.
"""
from __future__ import annotations

import os

__all__ = ["KERNELS_ENV", "compiled_kernels"]

#: set to ``numpy`` to keep ``add`` on the numpy path (for comparisons: the results are the same)
KERNELS_ENV = "WINNOWDB_KERNELS"
_KERNELS: dict[str, object] = {}


def compiled_kernels():
    """The ``fingerprint.kernels`` module, compiled (or loaded from numba's cache) and ready, or
    None when numba cannot be imported or ``WINNOWDB_KERNELS=numpy`` is set."""
    if os.environ.get(KERNELS_ENV, "").strip().lower() == "numpy":
        return None
    if "module" not in _KERNELS:
        try:
            import numpy as np

            from . import kernels

            units = np.arange(8, dtype=np.uint64)
            kernels.winnow_docs(units, np.array([0, 8], dtype=np.int64), 2, 2)  # compiled here
            kernels.simhash_docs(units, np.array([0, 8], dtype=np.int64))
            _KERNELS["module"] = kernels
        except Exception:  # numba missing, or unable to compile or cache (no writable folder, an
            _KERNELS["module"] = None  # LLVM error): the numpy path gives the same output
    return _KERNELS["module"]
