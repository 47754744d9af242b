"""winnowdb: find copied text and code with winnowing fingerprints in a DuckDB index.

    import winnowdb
    with winnowdb.open("winnowdb.duckdb") as idx:
        idx.add(["corpus/"])
        for hit in idx.query("doc.txt"):
            print(hit["path"], hit["containment"])
        for pair in idx.pairs(top=20):
            print(pair["a"], pair["b"], pair["shared"])

Heavy modules (numpy, duckdb) load only when an index is opened, so the CLI starts fast.
"""
from __future__ import annotations

from .version import __version__

__all__ = ["open", "Index", "WinnowError", "__version__"]


def open(path=None, **kwargs):  # noqa: A001 - mirrors the built-in, as sqlite3.connect does
    """Open (creating when missing) the index at ``path``; see ``winnowdb.index.open_index``."""
    from .index import open_index

    return open_index(path, **kwargs)


def __getattr__(name):
    if name == "Index":
        from .index import Index

        return Index
    if name == "WinnowError":
        from .errors import WinnowError

        return WinnowError
    raise AttributeError(name)
