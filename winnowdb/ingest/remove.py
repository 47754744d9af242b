"""``remove``: drop documents from the index by path (a folder removes everything indexed under it)."""
from __future__ import annotations

import os
from pathlib import Path

from ..store.writes import remove_documents

__all__ = ["remove_paths"]


def remove_paths(store, paths: list[str | os.PathLike]) -> list[str]:
    """Remove the documents at or under ``paths`` in one transaction; their paths, sorted."""
    wanted = [str(Path(p).resolve()) for p in paths]
    gone = [(d, p) for d, p in store.rows("document_paths")
            if any(p == w or p.startswith(w.rstrip(os.sep) + os.sep) for w in wanted)]
    remove_documents(store, [d for d, _ in gone])
    return sorted(p for _, p in gone)
