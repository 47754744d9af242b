"""``winnowdb check``: verify that an index is whole and consistent.

The index is opened read-only, directly with DuckDB (not through ``Store.open``, which refuses
some of the states this should report). Checked, each by one query in ``sql/check_*.sql`` or
against the code's own definitions:

* the tables, columns and keys are the ones this version creates (``sql/create_tables.sql``);
* settings: every key once, the required keys present, values valid, the schema version and
  hash version the ones this winnowdb reads and computes;
* no two rows share a document id or a path (the keys refuse them, unless a table was rebuilt
  without its key); every document has exactly one stored text of its
  recorded length; its recorded fingerprint count equals its fingerprint rows, and every
  fingerprint's position and text span lie inside it;
* no fingerprints, texts or text family hashes belong to no document;
* the kept statistics (each document's distinct hashes, submission ids, the document frequencies
  of shared hashes, the distinct-hash and boilerplate counts) equal a count over the stored rows;
* every stored value can be read (DuckDB verifies block checksums as it reads).

Not problems, but reported as notes: code fingerprinted by an older code tokenizer (new code
matches it less well until ``winnowdb upgrade`` fingerprints it again); code documents without
the text family of the pair score (an index made before it; ``winnowdb upgrade`` adds it); rows of the clusters
snapshot whose document is gone (left by an older winnowdb; ``winnowdb clusters`` rewrites them);
documents whose text is not stored (the empty text ``winnowdb import`` stores when an export
without texts cannot be read back from the files: scores work, passages cannot be shown);
documents an add committed but was stopped before storing their fingerprints (the next add does).

``check_index`` returns a ``CheckReport``; the CLI prints it and exits 1 when there are problems.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from ..errors import WinnowError
from . import sqlfiles

__all__ = ["Problem", "CheckReport", "check_index", "CHECKS", "MAX_EXAMPLES"]

#: (check name, sql file, how to describe its rows)
CHECKS = [
    ("settings keys", "check_settings_duplicates", "setting {key!r} is stored {copies} times"),
    ("document ids", "check_duplicate_doc_ids", "document id {doc} is used by {copies} rows"),
    ("paths", "check_duplicate_paths", "{path} is indexed {copies} times"),
    ("fingerprint counts", "check_fingerprint_counts",
     "document {doc} ({path}) records {recorded} fingerprints but has {stored} fingerprint rows"),
    ("orphan fingerprints", "check_orphan_fingerprints",
     "{fingerprint_rows} fingerprint rows belong to document id {doc}, which does not exist"),
    ("orphan texts", "check_orphan_texts",
     "{text_rows} stored texts belong to document id {doc}, which does not exist"),
    ("orphan text family", "check_orphan_code_text",
     "{hash_rows} text family hashes belong to document id {doc}, which does not exist"),
    ("texts", "check_text_rows", lambda r: (
        f"document {r['doc']} ({r['path']}) has no stored text" if r["text_rows"] == 0 else
        f"document {r['doc']} ({r['path']}) has {r['text_rows']} stored texts" if r["text_rows"] > 1 else
        f"document {r['doc']} ({r['path']}) has a stored text of {r['text_chars']} characters; "
        f"{r['chars']} recorded")),
    ("fingerprint positions", "check_fingerprint_positions",
     "document {doc} ({path}) has {bad_rows} fingerprints outside its text"),
    ("document values", "check_document_values", "document {doc} ({path}) has impossible values: {problem}"),
    ("distinct hashes per document", "check_document_hashes",
     "document {doc} ({path}) records {recorded} distinct hashes but has {stored}"),
    ("submission ids", "check_submission_ids", "submission {submission}: {ids}"),
    ("document frequencies", "check_shared_hashes",
     "hash {hash}: kept document frequency {kept}, counted {counted}"),
    ("kept counts", "check_kept_counts", "{what}: kept {kept}, counted {counted}"),
    ("common hashes", "check_common_hashes",
     "hash {hash}: in common_hashes with df {kept}, kept document frequency {df} (max-df {max_df})"),
    ("text family frequencies", "check_code_text_df",
     "text family hash {hash}: kept document frequency {kept}, counted {counted}"),
]

MAX_EXAMPLES = 5


@dataclass
class Problem:
    """One failed check: its name, how many things are wrong, and up to a few examples."""

    check: str
    count: int
    examples: list[str] = field(default_factory=list)

    def lines(self) -> list[str]:
        out = [f"{self.check}: {self.count} problem{'s' if self.count != 1 else ''}"]
        out += [f"  {e}" for e in self.examples]
        if self.count > len(self.examples):
            out.append(f"  ... and {self.count - len(self.examples)} more")
        return out


@dataclass
class CheckReport:
    """The outcome of ``check_index``."""

    path: str
    checks: int = 0
    problems: list[Problem] = field(default_factory=list)
    totals: dict = field(default_factory=dict)
    settings: dict = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)  # advice that does not make the index unhealthy

    @property
    def ok(self) -> bool:
        return not self.problems

    def add(self, check: str, examples: list[str], count: int | None = None) -> None:
        if examples or count:
            self.problems.append(Problem(check, count if count is not None else len(examples),
                                         examples[:MAX_EXAMPLES]))

    def to_dict(self) -> dict:
        return {"index": self.path, "ok": self.ok, "checks": self.checks, "totals": self.totals,
                "notes": self.notes, "problems": [{"check": p.check, "count": p.count, "examples": p.examples}
                             for p in self.problems]}


def _expected_schema() -> tuple[dict[str, list[tuple[str, str]]], set[tuple[str, str, str]]]:
    """(table -> [(column, type)], {(table, key type, columns)}) as ``sql/create_tables.sql``
    creates them."""
    import duckdb

    con = duckdb.connect()
    try:
        con.execute(sqlfiles.load("create_tables"))
        return _columns(con), _keys(con)
    finally:
        con.close()


def _keys(con) -> set[tuple[str, str, str]]:
    return {tuple(r) for r in con.execute(sqlfiles.load("table_keys")).fetchall()}


def _columns(con) -> dict[str, list[tuple[str, str]]]:
    out: dict[str, list[tuple[str, str]]] = {}
    for table, column, dtype in con.execute(sqlfiles.load("table_columns")).fetchall():
        out.setdefault(table, []).append((column, dtype))
    return out


def _older_schema(report: CheckReport, con) -> bool:
    """Report an index of an older schema (whose tables differ by design) as one problem."""
    from .schema import SCHEMA_VERSION

    version = dict(con.execute(sqlfiles.load("settings_all")).fetchall()).get("schema_version", "")
    if version.isdigit() and 0 < int(version) < SCHEMA_VERSION:
        report.add("settings", [f"schema version {version} is older than this winnowdb's ({SCHEMA_VERSION}): "
                                f"run `winnowdb upgrade`"])
        return True
    return False


def _check_settings(report: CheckReport, settings: dict[str, str]) -> None:
    from ..settings import IndexSettings
    from .schema import SCHEMA_VERSION

    values = IndexSettings(settings)
    bad = values.missing()
    version = settings.get("schema_version")
    if version is not None:
        if not version.isdigit():
            bad.append(f"schema_version {version!r} is not a number")
        elif int(version) > SCHEMA_VERSION:
            bad.append(f"schema version {version} is newer than this winnowdb reads ({SCHEMA_VERSION}): "
                       f"upgrade winnowdb")
        elif int(version) < SCHEMA_VERSION:
            bad.append(f"schema version {version} is older than this winnowdb's ({SCHEMA_VERSION}): "
                       f"run `winnowdb upgrade`")
    report.add("settings", bad + values.invalid())


def check_index(path: str | os.PathLike, on_check: Callable[[int, int], None] | None = None) -> CheckReport:
    """Check the index at ``path``; raises ``WinnowError`` only when it cannot be opened at all.
    ``on_check(done, total)`` is called as the consistency queries run (a few minutes at
    1,000,000 documents: each reads the whole index)."""
    import duckdb

    from .dbfile import connect_index, describe_duckdb_error, disconnect_index, refuse_non_duckdb

    path = str(path)
    if not Path(path).exists():
        raise WinnowError(f"no index at {path}")
    if Path(path).is_dir():
        raise WinnowError(f"{path} is a directory, not an index file")
    refuse_non_duckdb(path)
    try:
        con = connect_index(path, read_only=True)
    except duckdb.Error as exc:
        raise WinnowError(describe_duckdb_error(path, exc, read_only=True)) from None
    report = CheckReport(path)
    try:
        # 1. tables and columns
        report.checks += 1
        (expected, expected_keys), found = _expected_schema(), _columns(con)
        if "settings" not in found:
            raise WinnowError(f"{path} is a DuckDB file but not a winnowdb index (no settings table)")
        if _older_schema(report, con):
            return report  # its tables are an older schema's: `upgrade` makes them this one's
        bad = []
        for table, columns in expected.items():
            if table not in found:
                bad.append(f"table {table} is missing")
                continue
            have = dict(found[table])
            for col, dtype in columns:
                if col not in have:
                    bad.append(f"column {table}.{col} is missing")
                elif have[col] != dtype:
                    bad.append(f"column {table}.{col} is {have[col]}, expected {dtype}")
        report.add("tables", bad)
        if bad:
            return report  # the queries below assume the tables are there
        report.checks += 1
        lost = {"INDEX": "lookups read every row; run `winnowdb upgrade`"}
        report.add("keys", [f"table {table} has lost its {kind} ({cols}): {lost.get(kind, 'duplicates can get in')}"
                            for table, kind, cols in sorted(expected_keys - _keys(con))])
        # 2. settings
        report.checks += 1
        settings: dict[str, str] = {}
        for key, value in con.execute(sqlfiles.load("settings_all")).fetchall():
            settings.setdefault(key, value)
        report.settings = settings
        _check_settings(report, settings)
        # 3. one query per consistency rule
        for i, (name, file, template) in enumerate(CHECKS):
            if on_check is not None:
                on_check(i, len(CHECKS) + 1)
            report.checks += 1
            try:
                cur = con.execute(sqlfiles.load(file))
                cols = [d[0] for d in cur.description]
                rows = [dict(zip(cols, r)) for r in cur.fetchall()]
            except duckdb.Error as exc:
                report.add(name, [f"cannot run the check: {_first_line(exc)}"])
                continue
            describe = template if callable(template) else (lambda r, t=template: t.format(**r))
            report.add(name, [describe(r) for r in rows[:MAX_EXAMPLES]], len(rows))
        # 4. read everything once
        if on_check is not None:
            on_check(len(CHECKS), len(CHECKS) + 1)
        report.checks += 1
        try:
            cur = con.execute(sqlfiles.load("check_storage_scan"))
            cols = [d[0] for d in cur.description]
            report.totals = dict(zip(cols, cur.fetchall()[0]))
        except duckdb.Error as exc:
            report.add("storage", [f"cannot read the stored data: {_first_line(exc)}"])
        _note_old_code_tokens(report, con, settings)
        _note_no_code_text(report, con, settings)
        _note_stale_clusters(report, con)
        _note_unstored_texts(report, con)
        _note_pending(report, con)
        _note_removed(report, con)
        _note_unrecorded_runs(report, con)
        return report
    except duckdb.Error as exc:
        report.add("storage", [f"cannot read the index: {_first_line(exc)}"])
        return report
    finally:
        disconnect_index(con)


def _note_old_code_tokens(report: CheckReport, con, settings: dict[str, str]) -> None:
    import duckdb

    from ..settings import CODE_TOKENS_VERSION as TOKENS_VERSION
    from .schema import stale_code_count

    try:
        n = stale_code_count(con, settings)
    except duckdb.Error:
        return
    if n:
        old = settings.get("code_tokens_version", "the first code tokenizer")
        report.notes.append(f"{n} code document{'s were' if n != 1 else ' was'} fingerprinted by an older "
                            f"code tokenizer ({old}; this winnowdb has {TOKENS_VERSION}): new code matches "
                            "it less well until `winnowdb upgrade` fingerprints it again")


def _note_no_code_text(report: CheckReport, con, settings: dict[str, str]) -> None:
    import duckdb

    from ..settings import CODE_TEXT_DEFAULTS

    if all(key in settings for key in CODE_TEXT_DEFAULTS):  # recorded (0 and 0: made without it)
        return
    try:
        n = int(con.execute(sqlfiles.load("code_documents_count")).fetchall()[0][0])
    except duckdb.Error:
        return
    if n:
        report.notes.append(f"{n} code document{'s have' if n != 1 else ' has'} no text family (made by an older "
                            "winnowdb): their pairs are scored by their code tokens alone until `winnowdb "
                            "upgrade` computes it from the stored texts")


def _note_stale_clusters(report: CheckReport, con) -> None:
    import duckdb

    try:
        if "clusters" not in {r[0] for r in con.execute(sqlfiles.load("table_names")).fetchall()}:
            return
        n = con.execute(sqlfiles.load("check_stale_cluster_rows")).fetchall()[0][0]
    except duckdb.Error:
        return
    if n:
        report.notes.append(f"the clusters table (the last `winnowdb clusters` run) has {n} row{'s' if n != 1 else ''} "
                            "of documents no longer indexed, left by an older winnowdb: run `winnowdb "
                            "clusters` again to refresh it")


def _note_unstored_texts(report: CheckReport, con) -> None:
    import duckdb

    try:
        rows = con.execute(sqlfiles.load("check_unstored_texts")).fetchall()
    except duckdb.Error:
        return
    if rows:
        n = len(rows)
        report.notes.append(f"{n} document{'s have' if n != 1 else ' has'} no stored text (e.g. {rows[0][1]}): "
                            "imported from an export made without --texts, their files not read back; pairs "
                            "and scores are complete, but compare and report cannot show their passages")


def _note_unrecorded_runs(report: CheckReport, con) -> None:
    """Notes on how the fingerprints are laid out: as an older winnowdb wrote them, or in runs
    whose merge is due (an add's merge was interrupted)."""
    import duckdb

    from .merge import merge_due, recorded_runs, unrecorded

    try:
        old = unrecorded(con)
        due = not old and merge_due(recorded_runs(con))
    except duckdb.Error:
        return
    if old:
        report.notes.append("the fingerprints are stored as an older winnowdb wrote them (in DuckDB's default "
                            "row groups, a run per add): `winnowdb upgrade` rewrites them as one run in small row "
                            "groups, which makes queries faster")
    elif due:
        report.notes.append("the fingerprints of the last adds are stored as several runs whose merge is due (an "
                            "add's merge was interrupted): the next add that stores documents, or `winnowdb "
                            "upgrade`, merges them, which makes queries faster")


def _note_pending(report: CheckReport, con) -> None:
    import duckdb

    try:
        rows = con.execute(sqlfiles.load("check_pending")).fetchall()
    except duckdb.Error:
        return
    if rows:
        n = len(rows)
        report.notes.append(f"{n} document{'s' if n != 1 else ''} (e.g. {rows[0][1]}) {'were' if n != 1 else 'was'} "
                            "committed by an add that was stopped before it stored their fingerprints: "
                            "queries do not see them yet; the next `winnowdb add` stores them from their "
                            "texts")


def _note_removed(report: CheckReport, con) -> None:
    import duckdb

    try:
        documents, rows = con.execute(sqlfiles.load("documents_removed_rows")).fetchall()[0]
    except duckdb.Error:
        return
    if documents:
        report.notes.append(f"{documents} removed document{'s' if documents != 1 else ''} still "
                            f"{'have' if documents != 1 else 'has'} fingerprint rows stored (a `remove` that "
                            "deletes them after it commits was stopped): no read counts them; the next "
                            "`winnowdb add` or `remove` deletes them")


def _first_line(exc: Exception) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__
