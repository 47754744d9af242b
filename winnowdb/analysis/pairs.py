"""``pairs``: all-vs-all copying, MOSS-style: every pair of submissions sharing fingerprints.

``sql/pairs.sql`` counts Broder's <ID, ID, count> after the exclusions (boilerplate, hashes in
more than ``max_df`` submissions) and ranks the pairs by their score (docs/score.md); archive
mode (``new_label``) keeps only the pairs with at least one side labelled new. Rows come back as
dicts, or are written as CSV or JSON by DuckDB itself (``write_pairs``: no Python row per pair).
"""
from __future__ import annotations

import os

__all__ = ["pairs", "write_pairs", "pair_parameters"]


def pair_parameters(*, min_shared: int = 1, max_df: int | None = None, new_label: str | None = None,
                    min_score: float | None = None) -> dict:
    """The bound parameters of ``sql/pairs.sql``: ``max_df`` None or not positive means the
    index's default, which the query computes itself; ``min_score`` None keeps every score."""
    cap = int(max_df) if max_df is not None and max_df > 0 else None
    return {"max_df": cap, "min_shared": max(1, int(min_shared)), "new_label": new_label,
            "min_score": float(min_score) if min_score is not None else None}


def pairs(store, *, min_shared: int = 1, top: int = 50, max_df: int | None = None,
          new_label: str | None = None, min_score: float | None = None) -> list[dict]:
    """The pairs as dicts (a, b, shared, fingerprints_a, fingerprints_b, containment_a,
    containment_b, resemblance, text_containment, score), the likeliest copies (highest score)
    first; ``top=0``: every pair (scoring at least ``min_score``, when given)."""
    return store.records("pairs", limit=top, **pair_parameters(min_shared=min_shared, max_df=max_df,
                                                                new_label=new_label, min_score=min_score))


def write_pairs(store, path: str | os.PathLike, columns: list[str], fmt: str = "csv", *, min_shared: int = 1,
                top: int = 50, max_df: int | None = None, new_label: str | None = None,
                min_score: float | None = None) -> int:
    """``pairs()`` (the given columns, same order and options) written by DuckDB to the file
    ``path`` as CSV or a JSON array (``fmt``); the number of pairs."""
    return store.write_rows("pairs", path, columns, fmt, limit=top,
                            **pair_parameters(min_shared=min_shared, max_df=max_df, new_label=new_label,
                                              min_score=min_score))
