"""How an index file is laid out for lookups by hash: the rows per row group it is written in and
the size of its blocks, each planned from how large the file is or will be (``store.dbfile``
attaches and makes the file with them).

Row groups. DuckDB skips the row groups whose zone maps (each column's min and max) cannot hold a
looked-up value. A query looks up a few hundred hashes that fall anywhere in the hash range, and
each one makes DuckDB read the whole row group that may hold it: with DuckDB's default of 122,880
rows, ~400 hashes read most of a 100,000-document index's fingerprints, and a query's time grew
with the index. With ``ROW_GROUP_ROWS`` (8,192) rows per group a lookup reads ~15x fewer rows; a
file past ``LARGE_INDEX_BYTES`` is written in groups of ``LARGE_ROW_GROUP_ROWS`` (32,768), since
checking the zone maps of many groups costs too (``row_group_rows``).

Blocks. To scan a column segment DuckDB reads the whole block that holds it (256 KB by default),
and a fresh process has none of them in memory. A 8,192-row group's hash segment is ~50 KB, so a
query's ~400 row groups read ~140 MB of blocks at 100,000 documents. A file planned small is made
with ``SMALL_BLOCK_BYTES`` (128 KB) blocks: a fresh CLI query of the 100,000-document index took
0.33 -> 0.30 s and 277 -> 215 MB, its add the same time (64 KB blocks read less still, but made
the add 0.24 s slower). With 32,768-row groups small blocks split every segment, which costs more
than it saves (1,000,000 documents: 0.42 -> 0.45 s), so a file planned large keeps DuckDB's
default (``planned_block_bytes``; bench/RESULTS.md, Read path). The block size is fixed when the
file is made: an index that grows large later keeps its small blocks.
"""
from __future__ import annotations

import os

__all__ = ["ROW_GROUP_ROWS", "LARGE_ROW_GROUP_ROWS", "LARGE_INDEX_BYTES", "SMALL_BLOCK_BYTES", "LARGE_BLOCK_BYTES",
           "INDEX_BYTES_PER_INPUT_BYTE", "row_group_rows", "planned_block_bytes", "planned_row_group_rows"]

#: rows per row group of every table an index's connection writes, for an index file under
#: ``LARGE_INDEX_BYTES`` (see the module docstring)
ROW_GROUP_ROWS = 8192
#: rows per row group for a larger file (``row_group_rows``)
LARGE_ROW_GROUP_ROWS = 32768
#: from this file size on (about 340,000 documents of 2.7 KB), writes use ``LARGE_ROW_GROUP_ROWS``
LARGE_INDEX_BYTES = 2 * 10**9
#: the block size of a new index file planned under ``LARGE_INDEX_BYTES`` (``planned_block_bytes``)
SMALL_BLOCK_BYTES = 131072
#: the block size of a new index file planned larger: DuckDB's default
LARGE_BLOCK_BYTES = 262144
#: about how many bytes of index a byte of input text makes (2.16 for generated text at 100,000
#: documents since schema 7 stores no spans, 2.8-2.9 before; code less): what ``connect_index``
#: plans for an add's input
INDEX_BYTES_PER_INPUT_BYTE = 2.2


def row_group_rows(file_bytes: int) -> int:
    """The rows per row group an index file of ``file_bytes`` bytes is attached with.

    DuckDB checks every row group's zone map against every looked-up hash, then reads the row
    groups that may hold one: small groups read fewer rows, large ones leave fewer groups to
    check. With 8,192 rows a lookup of ~400 hashes takes 31 ms at 100,000 documents (32,768: 38-48)
    and 137-156 ms at 1,000,000 (32,768: 78-84), and a fresh process opening 50,000 row groups
    pays ~0.5 s more (bench/results/row_group_probe_*.md). The size applies to what this
    attachment writes: an index that grows past the threshold gets the larger groups in its
    later adds and merges, and one that an add will make large (``connect_index``'s
    ``adding_bytes``) from its start."""
    return LARGE_ROW_GROUP_ROWS if file_bytes >= LARGE_INDEX_BYTES else ROW_GROUP_ROWS


def planned_block_bytes(adding_bytes: int = 0) -> int:
    """The block size a new index file is made with, for a first add of ``adding_bytes`` bytes of
    input text: ``SMALL_BLOCK_BYTES`` unless the add will make it large (``LARGE_INDEX_BYTES``)."""
    return SMALL_BLOCK_BYTES if _index_bytes_of(adding_bytes) < LARGE_INDEX_BYTES else LARGE_BLOCK_BYTES


def planned_row_group_rows(path: str, adding_bytes: int = 0) -> int:
    """The rows per row group ``connect_index`` attaches the file ``path`` with (as large as it
    is now) for an add of ``adding_bytes`` bytes of input text."""
    size = os.path.getsize(path) if os.path.exists(path) else 0
    return row_group_rows(size + _index_bytes_of(adding_bytes))


def _index_bytes_of(adding_bytes: int) -> int:
    """About how many bytes of index an add of ``adding_bytes`` bytes of input text makes."""
    return int(INDEX_BYTES_PER_INPUT_BYTE * max(0, int(adding_bytes)))
