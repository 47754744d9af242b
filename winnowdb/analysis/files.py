"""What the index knows about files on disk: labels, files that are gone, files changed since
they were indexed (``query`` and ``compare`` show the indexed text of an indexed file, so their
line numbers refer to that version)."""
from __future__ import annotations

import os
from pathlib import Path
from typing import Collection

__all__ = ["labels", "missing_under", "changed_since_indexed"]


def labels(store) -> list[str]:
    """The labels of the indexed documents (``add --label``), sorted."""
    return [r[0] for r in store.rows("labels")]


def missing_under(store, folders: list[str | os.PathLike], listed: Collection[str] = ()) -> list[str]:
    """Indexed documents under ``folders`` whose files no longer exist (deleted or renamed
    since they were added: their old text still pairs until they are removed), sorted.
    ``listed``: paths known to exist (the files a walk of the folders just found), not checked again."""
    roots = sorted({str(Path(f).resolve()).rstrip(os.sep) + os.sep for f in folders})
    if not roots:
        return []
    import numpy as np

    with store.relations(folder_roots={"root": np.array(roots, dtype=object)}):
        paths = [r[0] for r in store.rows("documents_under")]
    present = listed if isinstance(listed, (set, frozenset, dict)) else set(listed)
    return sorted(p for p in paths if p not in present and not os.path.exists(p))


def changed_since_indexed(store, paths: list[str | os.PathLike]) -> list[str]:
    """Those of ``paths`` that are indexed files whose bytes on disk differ from what was
    indexed (or that are gone)."""
    from ..ingest.read import content_hash, name_problem

    wanted = {str(p): str(Path(p).resolve()) for p in paths if name_problem(p) is None}
    stored = store.documents_by_path(sorted(set(wanted.values())))
    changed = []
    for given, resolved in wanted.items():
        if resolved not in stored:
            continue
        try:
            data = Path(resolved).read_bytes()
        except OSError:
            changed.append(given)
            continue
        if content_hash(data) != stored[resolved][1]:
            changed.append(given)
    return changed
