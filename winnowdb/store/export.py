"""An index as Parquet, for Spark (or any engine): ``winnowdb export --parquet DIR`` and back.

The layout (the same whether DuckDB exported an index or the Spark fingerprint job wrote it)::

    DIR/_winnowdb.json                    manifest: format, version, settings, buckets, row counts
    DIR/settings/part-*.parquet           key, value
    DIR/documents/part-*.parquet          the documents table, column for column
    DIR/fingerprints/bucket=B/*.parquet   hash (signed BIGINT), doc, pos
    DIR/document_texts/part-*.parquet     doc, text (only with ``--texts``)
    DIR/<table>/part-*.parquet            any further table of the index (clusters, ...)

Fingerprints are partitioned by ``bucket = ((hash % N) + N) % N`` (``N`` = ``buckets`` in the
manifest): every occurrence of one hash lies in one bucket, so a bucket is a self-contained unit
of the hash join, and the expression is the same in DuckDB, Spark SQL and Python. The bucket is
only a directory name; the files hold exactly the index's columns and types (hashes stay signed
64-bit integers). Every table directory holds at least one file, so an empty table still has a
schema.

``duckdb_views`` makes a DuckDB connection read such a directory under the index's table names
(then ``create_views.sql`` and every query file run on it unchanged); ``import_parquet`` builds a
DuckDB index from it; ``import_pairs`` loads a Spark ``pairs`` result into an index for browsing.
"""
from __future__ import annotations

import datetime as _dt
import json
import os
import shutil
from pathlib import Path
from typing import Any, Callable

from ..errors import WinnowError
from . import sqlfiles
from .sqlfiles import registered

__all__ = ["FORMAT", "FORMAT_VERSION", "MANIFEST", "DEFAULT_BUCKETS", "bucket_sql", "export_parquet",
           "read_manifest", "write_manifest", "check_current", "DERIVED", "table_glob", "exported_tables",
           "duckdb_views", "import_parquet", "import_pairs", "CORE_TABLES", "PARTITIONED",
           "FINGERPRINT_COLUMNS", "RECOUNTED", "LOCAL_COLUMNS", "summary", "READ_IN_PLACE", "IMPORT_TEXT_DOCUMENTS"]

FORMAT = "winnowdb-parquet"
#: 2: documents carry sub and hashes, and a DuckDB export holds the kept statistics (meta,
#: shared_hashes, boilerplate_hashes) and documents_pending (winnowdb 0.2, index schema 2)
#: 3: fingerprints without start_offset and end_offset (index schema 7; an older winnowdb refuses it)
FORMAT_VERSION = 3
#: the oldest format read in place (``check_current``): 2 has every column today's queries read
READ_IN_PLACE = 2
MANIFEST = "_winnowdb.json"
DEFAULT_BUCKETS = 16
#: tables every export has; document_texts is optional (``--texts``)
CORE_TABLES = ("settings", "documents", "fingerprints")
PARTITIONED = {"fingerprints": "bucket"}
#: an export's fingerprint columns (before schema 7 they also held start_offset and end_offset:
#: exports of then are read as ever, those two columns left out)
FINGERPRINT_COLUMNS = ("hash", "doc", "pos")
#: tables of an index that an export may lack (``winnowdb spark fingerprint`` writes only the core
#: tables): each is then read as the query file that counts it from the core tables
DERIVED = {"shared_hashes": "shared_hashes_counted", "boilerplate_hashes": "boilerplate_hashes_counted",
           "meta": "meta_counted", "documents_pending": "documents_pending_none",
           "code_text_hashes": "code_text_hashes_none", "common_hashes": "common_hashes_none",
           "code_text_df": "code_text_df_counted"}
#: columns an export leaves out, as they describe this machine's files, not the index: the files'
#: times (``ingest.unchanged``), NULL in an imported index until an add reads the files
LOCAL_COLUMNS = {"documents": ("mtime_ns", "ctime_ns"), "documents_pending": ("mtime_ns", "ctime_ns")}
#: tables whose rows ``import_parquet`` counts anew instead of copying (meta's other keys are copied)
RECOUNTED = ("shared_hashes", "boilerplate_hashes", "common_hashes", "code_text_df")
#: an import without texts reads its documents' files back this many at a time (one insert each),
#: never holding all their texts at once (1,000,000 documents: 2.7 GB of text)
IMPORT_TEXT_DOCUMENTS = 20_000


def bucket_sql(buckets: int, column: str = "hash") -> str:
    """The portable SQL expression of a hash's bucket (non-negative, DuckDB and Spark alike)."""
    n = int(buckets)
    return f"(({column} % {n}) + {n}) % {n}"


def _lit(path: str | os.PathLike) -> str:
    """A path as a SQL string literal, for the one place a path cannot be a bound parameter: the
    body of a CREATE VIEW (DuckDB: "Unexpected prepared parameter. This type of statement can't
    be prepared!"; a view is stored as text and run later, with no parameters to bind). COPY ...
    TO ? and read_parquet(?) in queries, CREATE TABLE ... AS and INSERT ... SELECT are bound
    (verified on DuckDB 2.0.1, tests/store/test_export_paths.py)."""
    return "'" + str(path).replace("'", "''") + "'"


def _prepare(out: Path, overwrite: bool) -> None:
    if out.exists():
        if not out.is_dir():
            raise WinnowError(f"{out} exists and is not a directory")
        if any(out.iterdir()):
            if not overwrite:
                raise WinnowError(f"{out} is not empty (use --overwrite to replace it)")
            if not (out / MANIFEST).exists():
                raise WinnowError(f"{out} is not empty and holds no winnowdb export; not overwriting it")
            shutil.rmtree(out)
    out.mkdir(parents=True, exist_ok=True)


def write_manifest(out: Path, settings: dict[str, str], buckets: int, tables: dict[str, int],
                   written_by: str) -> dict:
    from ..version import __version__

    manifest = {
        "format": FORMAT, "version": FORMAT_VERSION, "winnowdb": __version__, "written_by": written_by,
        "written_at": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        "buckets": int(buckets), "bucket_expression": bucket_sql(buckets),
        "settings": settings,
        "tables": {name: {"rows": rows, "partitioned_by": PARTITIONED.get(name)} for name, rows in tables.items()},
    }
    (out / MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    return manifest


def read_manifest(directory: str | os.PathLike) -> dict:
    """The manifest of an export directory (a WinnowError when it is not one)."""
    path = Path(directory) / MANIFEST
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise WinnowError(f"{directory} is not a winnowdb Parquet export (no {MANIFEST})") from None
    except (OSError, ValueError) as exc:
        raise WinnowError(f"{path}: unreadable manifest ({exc})") from None
    if manifest.get("format") != FORMAT:
        raise WinnowError(f"{directory} is not a winnowdb Parquet export")
    if int(manifest.get("version", 0)) > FORMAT_VERSION:
        raise WinnowError(f"{directory} was written by a newer winnowdb (export format "
                          f"{manifest.get('version')}); upgrade winnowdb to read it")
    return manifest


def check_current(manifest: dict, directory: str | os.PathLike) -> None:
    """Refuse an export of an older format for reading in place (its documents lack columns every
    query uses); ``import_parquet`` still reads it."""
    if int(manifest.get("version", 0)) < READ_IN_PLACE:
        raise WinnowError(f"{directory}: an export written by winnowdb {manifest.get('winnowdb', '0.1')} "
                          f"(format {manifest.get('version')}, now {FORMAT_VERSION}): import it "
                          f"(`winnowdb import`) and export it again")


def table_glob(directory: str | os.PathLike, table: str) -> str:
    """The Parquet files of one exported table, as a glob (partitioned tables one level deeper)."""
    sub = "*/*.parquet" if table in PARTITIONED else "*.parquet"
    return str(Path(directory) / table / sub)


def exported_tables(directory: str | os.PathLike) -> list[str]:
    """Names of the tables in an export directory (sub-directories holding Parquet files)."""
    root = Path(directory)
    names = []
    for sub in sorted(p for p in root.iterdir() if p.is_dir() and not p.name.startswith(("_", "."))):
        if any(sub.rglob("*.parquet")):
            names.append(sub.name)
    return names


# --------------------------------------------------------------------------- DuckDB -> Parquet
def export_parquet(con, out_dir: str | os.PathLike, *, buckets: int = DEFAULT_BUCKETS, texts: bool = False,
                   overwrite: bool = False) -> dict:
    """Write the index open on DuckDB connection ``con`` to ``out_dir`` as Parquet; the manifest.

    Every base table is written (``document_texts`` only with ``texts``); fingerprints are
    partitioned into ``buckets`` hash buckets.
    """
    if int(buckets) < 1:
        raise WinnowError(f"buckets must be a positive whole number, not {buckets}")
    out = Path(out_dir)
    _prepare(out, overwrite)
    tables = [r[0] for r in con.execute(
        "SELECT table_name FROM information_schema.tables "
        "WHERE table_schema = 'main' AND table_type = 'BASE TABLE' ORDER BY table_name").fetchall()]
    if "settings" not in tables or "fingerprints" not in tables:
        raise WinnowError("not a winnowdb index (no settings or fingerprints table)")
    if not texts:
        tables = [t for t in tables if t != "document_texts"]
    rows: dict[str, int] = {}
    for table in tables:
        quoted = '"' + table.replace('"', '""') + '"'
        target = out / table
        target.mkdir()
        if table == "fingerprints":
            cols = ", ".join(FINGERPRINT_COLUMNS)
            con.execute(
                f"COPY (SELECT {cols}, {bucket_sql(buckets)} AS bucket FROM fingerprints) TO ? "
                f"(FORMAT parquet, PARTITION_BY (bucket), OVERWRITE_OR_IGNORE, FILENAME_PATTERN 'part-{{i}}')",
                [str(target)])
            if not any(target.rglob("*.parquet")):  # an empty table still gets a schema
                (target / "bucket=0").mkdir()
                con.execute(f"COPY (SELECT {cols} FROM fingerprints LIMIT 0) TO ? (FORMAT parquet)",
                            [str(target / "bucket=0" / "part-0.parquet")])
        else:
            local = [c for c in LOCAL_COLUMNS.get(table, ()) if c in _columns(con, table)]
            picked = f"* EXCLUDE ({', '.join(local)})" if local else "*"
            con.execute(f"COPY (SELECT {picked} FROM {quoted}) TO ? (FORMAT parquet)", [str(target / "part-0.parquet")])
        rows[table] = int(con.execute(f"SELECT COUNT(*) FROM {quoted}").fetchall()[0][0])
    settings = dict(con.execute(sqlfiles.load("settings_all")).fetchall())
    return write_manifest(out, settings, buckets, rows, "winnowdb export (DuckDB)")


# --------------------------------------------------------------------------- Parquet -> DuckDB
def duckdb_views(con, directory: str | os.PathLike, *, create_views: bool = True) -> list[str]:
    """Views named after the exported tables over the Parquet files, in DuckDB connection ``con``.

    With ``create_views`` the index's convenience views (``sqlfiles.index_views``: fingerprint_df,
    boilerplate_hashes, ..., pairs) are created on top, so every ``sql/`` query runs as on an index.
    Returns the table names.
    """

    check_current(read_manifest(directory), directory)
    names = exported_tables(directory)
    for name in names:
        cols = ", ".join(FINGERPRINT_COLUMNS) if name == "fingerprints" else "*"
        con.execute(f'CREATE OR REPLACE VIEW "{name}" AS SELECT {cols} FROM '  # a view: _lit, not bound
                    f"read_parquet({_lit(table_glob(directory, name))}, hive_partitioning = false)")
    for name, counted in DERIVED.items():
        if name not in names:
            con.execute(f"CREATE OR REPLACE VIEW {name} AS {sqlfiles.load(counted)}")
    if create_views:
        con.execute(sqlfiles.index_views())
    return names


def _count_statistics(con, on_step: Callable[[str, int, int], None] | None = None) -> None:
    """Count an imported index's kept statistics anew (inside the import's transaction), a bucket
    of hashes at a time: shared_hashes, boilerplate_hashes and meta.distinct_hashes."""
    from .buckets import BUCKETS, hash_range
    from .schema import write_meta

    con.execute(sqlfiles.load("import_statistics"))
    distinct = 0
    for p in range(BUCKETS):
        if on_step is not None:
            on_step("counting the statistics", p, BUCKETS)
        low, high = hash_range(p)
        for name in ("import_shared_hashes_span", "import_boilerplate_hashes_span", "import_distinct_hashes_span"):
            sql = sqlfiles.load(name)
            rows = con.execute(sql, sqlfiles.bind(sql, {"low": low, "high": high})).fetchall()
        distinct += int(rows[0][0])
    write_meta(con, "distinct_hashes", distinct)


def import_parquet(directory: str | os.PathLike, db: str | os.PathLike, *, read_text=None,
                   on_step: Callable[[str, int, int], None] | None = None) -> dict:
    """A new DuckDB index at ``db`` holding an exported (or Spark-fingerprinted) index.

    Documents, fingerprints and settings are copied; texts too when exported, otherwise (given
    ``read_text(path, content_hash)``, e.g. ``ingest.read.read_unchanged``) each document's file
    is read again from its path so ``compare`` can show passages: only a file whose bytes still
    have the stored content hash. A text not stored -- a
    file that cannot be read or has changed since it was fingerprinted (its passages would point
    at the wrong characters), or every file without ``read_text`` -- is stored as the empty text,
    the index's mark of a text it does not hold (``check`` notes it; compare and report say the
    passages cannot be shown); documents with characters that got one are counted under
    ``texts_missing``. Returns row counts. ``on_step(what, done, total)`` is called as it goes
    (tables copied, texts read, buckets of statistics counted: minutes at 1,000,000 documents).
    """
    import duckdb

    from .dbfile import connect_index, disconnect_index
    from .schema import COMMON_KEY, RUNS_KEY, SCHEMA_VERSION, write_meta, write_setting

    read_manifest(directory)
    if Path(db).exists():
        raise WinnowError(f"{db} exists: import into a new index file")
    names = exported_tables(directory)
    con = connect_index(str(db))  # fingerprints in the row groups lookups need (dbfile)
    try:
        con.begin()
        con.execute(sqlfiles.load("create_tables"))
        existing = {r[0] for r in con.execute(sqlfiles.load("table_names")).fetchall()}
        counts = {}
        for i, name in enumerate(names):
            if on_step is not None:
                on_step("copying the tables", i, len(names))
            if name in RECOUNTED:
                continue
            src = _import_source(con, directory, name)
            if name in existing:
                con.execute(f'INSERT INTO "{name}" BY NAME {src}', [table_glob(directory, name)])
            else:
                con.execute(f'CREATE TABLE "{name}" AS {src}', [table_glob(directory, name)])
            counts[name] = int(con.execute(f'SELECT COUNT(*) FROM "{name}"').fetchall()[0][0])
        twice = con.execute(sqlfiles.load("check_duplicate_paths")).fetchall()
        if twice:  # no key refuses it (schema 5): an index holds a path once, add keeps it so
            raise WinnowError(f"import failed: the export holds {twice[0][0]} {twice[0][1]} times "
                              f"({len(twice)} path{'s' if len(twice) != 1 else ''} more than once); "
                              "an index holds each path once")
        if "document_texts" not in names:
            import numpy as np

            docs = con.execute(sqlfiles.load("import_documents_to_read")).fetchnumpy()
            missing = 0
            for start in range(0, len(docs["doc"]), IMPORT_TEXT_DOCUMENTS):
                if on_step is not None:
                    on_step("reading the texts", start, len(docs["doc"]))
                part = slice(start, start + IMPORT_TEXT_DOCUMENTS)
                texts = []
                for path, digest, chars in zip(docs["path"][part], docs["content_hash"][part], docs["chars"][part]):
                    text = read_text(str(path), str(digest)) if read_text is not None else None
                    texts.append(text if text is not None else "")
                    missing += text is None and chars > 0
                with registered(con, imported_texts={"doc": np.asarray(docs["doc"][part], dtype=np.int32),
                                                     "text": np.array(texts, dtype=object)}):
                    con.execute(sqlfiles.load("insert_imported_texts"))
            counts["document_texts"] = len(docs["doc"])
            if missing:
                counts["texts_missing"] = int(missing)
        con.execute(sqlfiles.load("documents_count_hashes"))
        _count_statistics(con, on_step)
        con.execute(sqlfiles.load("meta_delete"), {"key": COMMON_KEY})  # common_hashes is filled below
        write_setting(con, "schema_version", str(SCHEMA_VERSION))
        con.commit()
    except (duckdb.Error, WinnowError) as exc:
        disconnect_index(con)
        for leftover in (Path(db), Path(f"{db}.wal")):
            leftover.unlink(missing_ok=True)
        if isinstance(exc, WinnowError):
            raise
        raise WinnowError(f"import failed: {str(exc).splitlines()[0]}") from None
    disconnect_index(con)
    from .database import Store
    from .stats import remember_default_max_df

    store = Store.open(db)  # a writable open creates the index's views (pairs, fingerprint_df, ...)
    try:
        with store.transaction() as tx:
            remember_default_max_df(store)  # and common_hashes, which is not copied
            # the fingerprints were imported ordered by hash, in this version's row groups: one run
            write_meta(tx, RUNS_KEY, str(counts.get("fingerprints", 0) or ""))
    finally:
        store.close()
    return counts


def _columns(con, table: str) -> set[str]:
    """The column names of a table of the index open on ``con``."""
    return {r[1] for r in con.execute(sqlfiles.load("table_columns")).fetchall() if r[0] == table}


def _import_source(con, directory: str | os.PathLike, name: str) -> str:
    """The SELECT that reads exported table ``name`` (its one parameter: the files' glob) as the
    index's table: fingerprints ordered by hash (as every add stores them); documents without
    their ``LOCAL_COLUMNS`` (an export leaves them out; Spark's may not); documents of an older
    export get their submission's id (sub) and hashes = -1 (counted once the fingerprints are in)."""
    source = "read_parquet(?, hive_partitioning = false)"
    if name == "fingerprints":
        return f"SELECT {', '.join(FINGERPRINT_COLUMNS)} FROM {source} ORDER BY hash, doc, pos"
    if name not in ("documents", "documents_pending"):
        return f"SELECT * FROM {source}"
    columns = {r[0] for r in con.execute(f"DESCRIBE SELECT * FROM {source}", [table_glob(directory, name)]).fetchall()}
    local = [c for c in LOCAL_COLUMNS[name] if c in columns]  # left NULL (inserted BY NAME)
    picked = f"* EXCLUDE ({', '.join(local)})" if local else "*"
    extra = ""
    if name == "documents":
        extra += "" if "sub" in columns else ", MIN(doc) OVER (PARTITION BY submission) AS sub"
        extra += "" if "hashes" in columns else ", CAST(-1 AS BIGINT) AS hashes"
    return f"SELECT {picked}{extra} FROM {source}"


def import_pairs(con, pairs_dir: str | os.PathLike, *, table: str = "spark_pairs") -> int:
    """Load a ``winnowdb spark pairs`` result into table ``table`` of an index; the row count.

    The table is replaced; it is ordered as ``pairs.sql`` orders its rows. The index's own
    tables and views (``documents``, ``pairs``, ...) are refused: replacing one would wreck it.
    """
    import re

    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", table):
        raise WinnowError(f"not a plain table name: {table!r}")
    own = set(re.findall(r"CREATE (?:OR REPLACE )?(?:TABLE|VIEW) (?:IF NOT EXISTS )?(\w+)",
                         sqlfiles.load("create_tables") + sqlfiles.index_views()
                         + sqlfiles.load("cluster_table_create"), flags=re.IGNORECASE))
    if table.lower() in {name.lower() for name in own}:
        raise WinnowError(f"{table} is one of the index's own tables or views: choose another --table "
                          f"(default spark_pairs)")
    files = sorted(Path(pairs_dir).glob("*.parquet"))
    if not files:
        raise WinnowError(f"{pairs_dir}: no Parquet files (expected the OUT of `winnowdb spark pairs`)")
    source = str(Path(pairs_dir) / "*.parquet")
    columns = {r[0] for r in con.execute("DESCRIBE SELECT * FROM read_parquet(?)", [source]).fetchall()}
    first = "score DESC, " if "score" in columns else ""  # pairs of an older winnowdb have no score
    con.execute(f"CREATE OR REPLACE TABLE {table} AS SELECT * FROM read_parquet(?) "
                f"ORDER BY {first}GREATEST(containment_a, containment_b) DESC, shared DESC, a, b", [source])
    return int(con.execute(f"SELECT COUNT(*) FROM {table}").fetchall()[0][0])


def summary(manifest: dict[str, Any]) -> str:
    """One line describing an export (for the CLI)."""
    t = manifest["tables"]
    parts = [f"{name} {info['rows']}" for name, info in t.items()]
    return f"{', '.join(parts)} rows; fingerprints in {manifest['buckets']} hash buckets"
