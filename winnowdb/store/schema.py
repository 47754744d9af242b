"""The index's schema: its tables made once, its views made by each open, its version upgraded.

* ``create_index`` makes the tables (``sql/create_tables.sql``) and stores the settings of a new
  index, in one transaction.
* ``create_views`` (re)creates the convenience views with this version's definitions
  (``sqlfiles.index_views``) and records a digest of them, so a read-only open of an index written
  by another version uses this version's views (as temporary views).
* ``check_version`` refuses a newer schema and upgrades an older one with ``MIGRATIONS``, in one
  transaction: all or nothing.

Two key/value tables: ``settings`` (how the index fingerprints, fixed at creation: what users may
rely on) and ``meta`` (winnowdb's own bookkeeping: ``META_KEYS``).
"""
from __future__ import annotations

import datetime as _dt
import hashlib
import re
from typing import Callable, Mapping

import duckdb

from ..errors import WinnowError
from . import sqlfiles

__all__ = ["SCHEMA_VERSION", "MIGRATIONS", "VIEWS_DIGEST", "META_KEYS", "RUNS_KEY", "COMMON_KEY", "create_index",
           "create_views", "check_version", "read_settings", "write_setting", "remove_setting", "read_meta",
           "write_meta", "stale_code_count", "upgrade", "restore_path_index", "fill_text_df"]

SCHEMA_VERSION = 10


def _v1_to_v2(con) -> None:
    con.execute(sqlfiles.load("migrate_1_to_2"))


def _v2_to_v3(con) -> None:
    con.execute(sqlfiles.load("migrate_2_to_3"))


def _v3_to_v4(con) -> None:
    con.execute(sqlfiles.load("migrate_3_to_4"))
    value = read_meta(con).get("default_max_df")
    if value is not None and value.isdigit():  # else the next write fills it
        con.execute(sqlfiles.load("common_hashes_fill"), {"max_df": int(value)})
        write_meta(con, COMMON_KEY, int(value))


def _v4_to_v5(con) -> None:
    con.execute(sqlfiles.load("migrate_4_to_5"))


def _v5_to_v6(con) -> None:
    con.execute(sqlfiles.load("migrate_5_to_6"))


def _v6_to_v7(con) -> None:
    con.execute(sqlfiles.load("migrate_6_to_7"))


def _v7_to_v8(con) -> None:
    con.execute(sqlfiles.load("migrate_7_to_8"))


def _v8_to_v9(con) -> None:
    con.execute(sqlfiles.load("migrate_8_to_9"))
    fill_text_df(con)


def _v9_to_v10(con) -> None:
    con.execute(sqlfiles.load("migrate_9_to_10"))


def fill_text_df(con) -> None:
    """Count ``code_text_df`` again from the text family's rows (inside the caller's transaction):
    a write that changes the documents or their text family ends here, or in ``text_df``, which
    changes the rows of its documents' hashes alone (``stats.remember_default_max_df``,
    ``ingest.code_text``). A full count (970 code files, 850,000 rows: ~70 ms; it grows with the
    index), where every code query and pairs run counted it before schema 9."""
    con.execute(sqlfiles.load("code_text_df_clear"))
    con.execute(f"INSERT INTO code_text_df {sqlfiles.load('code_text_df_counted')}")



#: Schema upgrades. ``MIGRATIONS[v]`` turns a schema-``v`` index into schema ``v + 1`` given an open
#: connection inside a transaction; a writable open runs every step from the index's version up to
#: ``SCHEMA_VERSION`` and records the new version in the same transaction, so an upgrade is
#: all-or-nothing. 1 -> 2: the meta table, keys, kept statistics (``sql/migrate_1_to_2.sql``);
#: 2 -> 3: the code documents' text family, empty until ``winnowdb upgrade`` fills it
#: (``sql/migrate_2_to_3.sql``, ``ingest/code_text.py``); 3 -> 4: the common hashes kept apart
#: (``sql/migrate_3_to_4.sql``, filled for the remembered default max-df); 4 -> 5: no UNIQUE
#: index on the documents' paths (``sql/migrate_4_to_5.sql``); 5 -> 6: the files' modification
#: times, NULL until the next add reads them (``sql/migrate_5_to_6.sql``, ``ingest/unchanged.py``);
#: 6 -> 7: the fingerprints' spans in the original text dropped (``sql/migrate_6_to_7.sql``);
#: 7 -> 8: an index on the documents' paths (``sql/migrate_7_to_8.sql``); 8 -> 9: the text family's
#: document frequencies kept in the table code_text_df, a view before (``sql/migrate_8_to_9.sql``,
#: filled by ``fill_text_df``); 9 -> 10: the removed documents whose fingerprint rows are still to
#: be deleted (``sql/migrate_9_to_10.sql``, ``store/purge.py``). A later step that
#: drops, renames or retypes a column of documents drops ``documents_path`` first and makes it
#: again (DuckDB refuses those on a table an index depends on; ADD COLUMN works).
MIGRATIONS: dict[int, Callable[[duckdb.DuckDBPyConnection], None]] = {
    1: _v1_to_v2, 2: _v2_to_v3, 3: _v3_to_v4, 4: _v4_to_v5, 5: _v5_to_v6, 6: _v6_to_v7,
    7: _v7_to_v8, 8: _v8_to_v9, 9: _v9_to_v10}

#: meta key holding a digest of the SQL of the views stored in the index (``create_views``)
VIEWS_DIGEST = "views_digest"
#: winnowdb's bookkeeping in the meta table, and what each means
#: the meta entry listing the row counts of the fingerprint runs stored since the last merge
#: (store/merge.py); an index without it was written before runs were recorded
RUNS_KEY = "fingerprint_runs"
#: the meta entry holding the max-df whose common hashes the common_hashes table holds (those in
#: more submissions); absent: the table serves no max-df (store/stats.py)
COMMON_KEY = "common_hashes_max_df"
META_KEYS = {
    VIEWS_DIGEST: "a digest of this version's view SQL and the stored views (create_views)",
    "max_removed_doc": "the highest document id ever removed: ids are never given again",
    "distinct_hashes": "how many distinct fingerprint hashes the ordinary documents hold",
    "default_max_df": "the default --max-df, remembered by each write (store/stats.py)",
    RUNS_KEY: "the fingerprint runs stored since the last merge: rows@first doc id (store/merge.py)",
    COMMON_KEY: "the max-df whose more common hashes common_hashes holds (store/stats.py)",
}


def read_settings(con) -> dict[str, str]:
    """Every stored setting (key -> value)."""
    return dict(con.execute(sqlfiles.load("settings_all")).fetchall())


def read_meta(con) -> dict[str, str]:
    """winnowdb's bookkeeping (key -> value); empty for an index whose schema predates it."""
    try:
        return dict(con.execute(sqlfiles.load("meta_all")).fetchall())
    except duckdb.CatalogException:
        return {}


def write_meta(con, key: str, value) -> None:
    """Store one meta value, replacing the old one (inside the caller's transaction)."""
    con.execute(sqlfiles.load("meta_delete"), {"key": key})
    con.execute(sqlfiles.load("meta_insert"), {"key": key, "value": str(value)})


def write_setting(con, key: str, value: str) -> None:
    """Store one setting, replacing its value (inside the caller's transaction)."""
    remove_setting(con, key)
    con.execute(sqlfiles.load("setting_insert"), {"key": key, "value": str(value)})


def remove_setting(con, key: str) -> None:
    """Remove one setting (inside the caller's transaction)."""
    con.execute(sqlfiles.load("setting_delete"), {"key": key})


def create_index(con, settings: dict[str, str]) -> None:
    """Make the tables of a new index and store its settings, in one transaction."""
    from ..version import __version__

    con.begin()
    con.execute(sqlfiles.load("create_tables"))
    values = {k: v for k, v in settings.items() if k not in META_KEYS}
    values.update(schema_version=str(SCHEMA_VERSION), created_by=f"winnowdb {__version__}",
                  created_at=_dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"))
    con.executemany(sqlfiles.load("setting_insert"), [{"key": k, "value": str(v)} for k, v in values.items()])
    write_meta(con, "distinct_hashes", 0)
    write_meta(con, RUNS_KEY, "")  # no runs yet: every add's run is recorded (store/merge.py)
    con.commit()


def create_views(con, meta: dict[str, str], *, temporary: bool = False) -> str | None:
    """(Re)create the convenience views with this version's definitions.

    A writable open stores them in the index; returns the digest of this version's view SQL and
    of the stored definitions as DuckDB keeps them when it differs from the stored ``views_digest``
    (``meta``; the caller stores it). A read-only open (``temporary``) whose digest differs -- another
    winnowdb version wrote its views since, with or without a digest, or the index predates it --
    creates this version's views as temporary views of the connection, which take precedence over
    the stored ones; so an index last written by another version is always read with this
    version's views, and one written by this version lists each view once in ``SHOW TABLES``.
    """
    sql = sqlfiles.index_views()
    names = sorted(set(re.findall(r"CREATE OR REPLACE VIEW (\w+)", sql)))
    if temporary:
        if meta.get(VIEWS_DIGEST) != _views_digest(con, names):
            con.execute(sqlfiles.temporary_views(sql))
        return None
    con.execute(sql)
    digest = _views_digest(con, names)
    return digest if meta.get(VIEWS_DIGEST) != digest else None


def _views_digest(con, names: list[str]) -> str:
    """A digest of this version's view SQL and of the stored (not temporary) definitions of
    the views ``names``: it matches only views this version stored and nobody changed since."""
    wanted = set(names)
    rows = [r for r in con.execute(sqlfiles.load("views_stored")).fetchall() if r[0] in wanted]
    return hashlib.blake2b(repr((sqlfiles.index_views(), rows)).encode(), digest_size=16).hexdigest()


def check_version(con, settings: Mapping[str, str], path: str, read_only: bool) -> int | None:
    """Refuse a schema this winnowdb cannot read; upgrade an older one in place (writable opens).
    Returns the version upgraded from, or None."""
    try:
        version = int(settings.get("schema_version", "0"))
    except ValueError:
        raise WinnowError(f"{path}: unreadable schema version {settings.get('schema_version')!r}") from None
    if version > SCHEMA_VERSION:
        raise WinnowError(f"{path} was made by a newer winnowdb (schema {version}; this "
                          f"version reads up to {SCHEMA_VERSION}): upgrade winnowdb to use it")
    if version == SCHEMA_VERSION:
        return None
    missing = [v for v in range(version, SCHEMA_VERSION) if v not in MIGRATIONS]
    if missing:
        raise WinnowError(f"{path} has schema version {version}, which this winnowdb cannot "
                          f"upgrade (it reads schema {SCHEMA_VERSION}); re-create the index by "
                          f"running `winnowdb add` on the files again with a new --db")
    if read_only:
        raise WinnowError(f"{path} has schema version {version}; this winnowdb uses schema "
                          f"{SCHEMA_VERSION}: run `winnowdb upgrade --db {path}` (or any "
                          f"command that writes, such as add) to upgrade it in place")
    upgrade(con, version)
    return version


def upgrade(con, version: int) -> None:
    """Run the migrations from schema ``version`` to ``SCHEMA_VERSION`` in one transaction."""
    con.begin()
    try:
        for v in range(version, SCHEMA_VERSION):
            MIGRATIONS[v](con)
        write_setting(con, "schema_version", str(SCHEMA_VERSION))
        con.commit()
    except BaseException:
        con.rollback()
        raise


def stale_code_count(con, settings: dict[str, str]) -> int:
    """How many code documents an older code tokenizer fingerprinted: 0 when the index records
    this winnowdb's ``CODE_TOKENS_VERSION`` (an index made before the version was recorded
    counts as older). ``winnowdb upgrade`` fingerprints them again."""
    from ..settings import CODE_TOKENS_VERSION

    if settings.get("code_tokens_version") == CODE_TOKENS_VERSION:
        return 0
    return int(con.execute(sqlfiles.load("code_documents_count")).fetchall()[0][0])


def restore_path_index(con) -> bool:
    """Make the index of the documents' paths (``documents_path``, schema 8) again where it is
    missing (dropped by hand, or documents rebuilt without it; ``check`` reports it): True if it
    was made. ``winnowdb upgrade`` calls it."""
    have = {(table, kind, cols) for table, kind, cols in con.execute(sqlfiles.load("table_keys")).fetchall()}
    if ("documents", "INDEX", "path") in have:
        return False
    con.execute(sqlfiles.load("migrate_7_to_8"))
    return True
