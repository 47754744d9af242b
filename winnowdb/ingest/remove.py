"""``remove``: drop documents from the index by path (a folder removes everything indexed under it).

A path given matches a stored path that equals it or lies under it as a folder (the stored path
starts with it and a separator). Both sides are matched through sets of the folders above each
stored path, computed once per folder: time linear in the paths, whatever their number (the
10,000 files of a year removed from a 1,000,000-document index compared every given path with
every stored one, 10^10 string tests, before).
"""
from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

from ..store.writes import remove_documents

__all__ = ["remove_paths", "matcher", "unmatched_paths"]


def remove_paths(store, paths: list[str | os.PathLike]) -> list[str]:
    """Remove the documents at or under ``paths`` in one transaction; their paths, sorted."""
    matches = matcher(paths)
    gone = [(d, p) for d, p in store.rows("document_paths") if matches(p)]
    remove_documents(store, [d for d, _ in gone])
    return sorted(p for _, p in gone)


def matcher(paths: Iterable[str | os.PathLike]) -> Callable[[str], bool]:
    """Whether a stored (resolved) path is one of ``paths`` or lies under one of them."""
    wanted = {str(Path(p).resolve()) for p in paths}
    folders = {w.rstrip(os.sep) for w in wanted}  # a folder given, as a stored path's prefix before a separator
    under: dict[str, bool] = {}  # stored folder -> whether it is, or lies under, a folder given

    def matches(path: str) -> bool:
        if path in wanted:
            return True
        folder = os.path.dirname(path)
        hit = under.get(folder)
        if hit is None:
            hit = under[folder] = any(f in folders for f in _folder_keys(folder))
        return hit

    return matches


def unmatched_paths(paths: Iterable[str | os.PathLike], gone: Iterable[str]) -> list[str]:
    """The ``paths`` (as given) that match none of the removed documents' paths ``gone``: neither
    one of them nor a folder above one (``remove`` names them, as ``rm`` would)."""
    gone = set(gone)
    folders = {key for folder in {os.path.dirname(g) for g in gone} for key in _folder_keys(folder)}
    out = []
    for p in paths:
        w = str(Path(p).resolve())
        if w not in gone and w.rstrip(os.sep) not in folders:
            out.append(os.fspath(p))
    return out


def _folder_keys(folder: str) -> Iterator[str]:
    """A stored path's folder and every folder above it, each without its trailing separator (the
    root as ""): a path lies under a folder ``w`` given exactly when ``w.rstrip(os.sep)`` is one
    of its folder's keys."""
    yield folder.rstrip(os.sep)
    i = folder.find(os.sep)
    while i >= 0:
        yield folder[:i]
        i = folder.find(os.sep, i + 1)
