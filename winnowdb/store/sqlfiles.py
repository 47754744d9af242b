"""Load the SQL files that answer winnowdb's questions (``sql/*.sql``), one query per file.

Queries use named parameters written ``$name``; callers bind them (never string-splice a value
into SQL). ``as_view`` turns a query file into a view body by substituting SQL expressions for
its parameters (used for the convenience views in a DuckDB index); ``for_spark`` rewrites the
parameter markers into Spark SQL's ``:name`` form. Queries may also read relations the caller
registers for the moment (``registered``: numpy column dicts, e.g. a query's fingerprints).

Every one of these reads SQL through one small lexer, ``tokens``: a ``$name``, a ``;`` or a
``CREATE VIEW`` inside a string literal, a quoted identifier or a comment is not code.
"""
from __future__ import annotations

import contextlib
import re
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from importlib.abc import Traversable

__all__ = ["sql_dir", "load", "as_view", "for_spark", "temporary_views", "parameters", "bind", "with_limit",
           "tokens", "split_statements", "registered", "index_views", "duckdb_only", "DUCKDB_ONLY"]

#: the header line of a query file that runs on DuckDB only (the index's catalog or bookkeeping),
#: with the reason after it: such a file is exempt from the portability rules (docs/spark.md)
DUCKDB_ONLY = "-- DuckDB only:"


def sql_dir() -> Path | Traversable:
    """The folder of SQL files: ``winnowdb/sql`` in the installed package, found through
    importlib.resources (the wheel ships the source tree's top-level ``sql/`` there; a Path for a
    package installed as files, a Traversable for one imported from an archive), else the
    source tree's top-level ``sql/`` (a checkout or an editable install)."""
    from importlib.resources import files

    packaged = files(__name__.split(".")[0]) / "sql"
    if packaged.is_dir():
        return packaged
    source = Path(__file__).resolve().parents[2] / "sql"
    if source.is_dir():
        return source
    raise FileNotFoundError("winnowdb's sql/ folder is missing from the installation")


@lru_cache(maxsize=None)
def load(name: str) -> str:
    """The text of ``sql/<name>.sql``."""
    return (sql_dir() / f"{name}.sql").read_text(encoding="utf-8")


def duckdb_only(name: str) -> bool:
    """Whether ``sql/<name>.sql`` says in its header that it runs on DuckDB only."""
    return any(line.startswith(DUCKDB_ONLY) for line in load(name).splitlines() if line.startswith("--"))


def parameters(sql: str) -> set[str]:
    """Names of the ``$name`` parameters a query uses (in its code: not in strings or comments)."""
    return {text[1:] for kind, text in tokens(sql) if kind == PARAMETER}


def bind(sql: str, values: dict) -> dict:
    """The subset of ``values`` that the query uses (DuckDB rejects unused named parameters)."""
    used = parameters(sql)
    missing = used - values.keys()
    if missing:
        raise KeyError(f"missing SQL parameters: {sorted(missing)}")
    return {k: v for k, v in values.items() if k in used}


def with_limit(sql: str, limit: int) -> str:
    """The query with ``LIMIT n`` appended (it must end with its ORDER BY clause); its comments
    and final semicolon removed."""
    return _FINAL.sub("", _strip_comments(sql)) + f"\nLIMIT {int(limit)}"


_FINAL = re.compile(r"[\s;]+\Z")


def as_view(name: str, expressions: dict[str, str]) -> str:
    """Query ``name`` with each ``$param`` replaced by a SQL expression (for CREATE VIEW), and its
    comments removed."""
    toks = [(CODE, f"({expressions[text[1:]]})") if kind == PARAMETER else (kind, text)
            for kind, text in _without_comments(tokens(load(name)))]
    return _text(toks)


_CREATE_VIEW = re.compile(r"\bCREATE(\s+OR\s+REPLACE)?\s+VIEW\b", re.IGNORECASE)
_MATERIALIZED = re.compile(r"\bAS\s+MATERIALIZED\s*\(", re.IGNORECASE)


def for_spark(sql: str) -> str:
    """The same SQL for Spark SQL: ``:name`` parameter markers, and views made session-local.

    Three mechanical rewrites, in code only (not in string literals, quoted identifiers or
    comments): ``$name`` becomes ``:name``; ``CREATE [OR REPLACE] VIEW`` becomes ``CREATE [OR
    REPLACE] TEMP VIEW`` (Spark reads an exported index through temporary views, and a permanent
    view may not refer to them); and a common table expression's ``AS MATERIALIZED (`` becomes
    ``AS (`` (a DuckDB planning hint: compute the CTE once, before the joins that use it; Spark
    has no such keyword). Comments are dropped, so nothing in a comment is rewritten. Everything
    else in ``sql/`` is written to run unchanged on both engines (docs/spark.md lists the rules).
    """
    out = []
    for kind, text in _without_comments(tokens(sql)):
        if kind == CODE:
            text = _MATERIALIZED.sub("AS (", _temporary(text))
        elif kind == PARAMETER:
            text = ":" + text[1:]
        out.append(text)
    return "".join(out)


def temporary_views(sql: str) -> str:
    """``CREATE [OR REPLACE] VIEW`` made ``CREATE [OR REPLACE] TEMP VIEW``: views that live in one
    connection or session (a read-only DuckDB open, a Spark session). Code only; comments kept."""
    return "".join(_temporary(text) if kind == CODE else text for kind, text in tokens(sql))


def _temporary(code: str) -> str:
    return _CREATE_VIEW.sub(lambda m: "CREATE" + (" OR REPLACE" if m.group(1) else "") + " TEMP VIEW", code)


# --------------------------------------------------------------------------- the lexer
#: token kinds
CODE, STRING, IDENTIFIER, COMMENT, PARAMETER, SEMICOLON = (
    "code", "string", "identifier", "comment", "parameter", "semicolon")

_TOKEN = re.compile(r"""
    (?P<string>'(?:[^']|'')*(?:'|\Z))                 # 'text', '' inside; unterminated: to the end
  | (?P<dollar>\$\$.*?(?:\$\$|\Z)                      # $$text$$ (DuckDB)
      | \$(?P<tag>[A-Za-z_][A-Za-z0-9_]*)\$.*?(?:\$(?P=tag)\$|\Z))  # $tag$text$tag$ (DuckDB)
  | (?P<identifier>"(?:[^"]|"")*(?:"|\Z) | `(?:[^`]|``)*(?:`|\Z))  # "name" (DuckDB), `name` (Spark)
  | (?P<line_comment>--[^\n]*)                        # to the line end (the line end is code)
  | (?P<block_comment>/\*)                            # to its matching */ (they nest): see tokens()
  | (?P<parameter>\$[A-Za-z_][A-Za-z0-9_]*)            # $name
  | (?P<semicolon>;)
  | (?P<code>(?:[A-Za-z0-9_][A-Za-z0-9_$]*            # names and numbers ($ inside one: a$b)
               | [^'"`$;/A-Za-z0-9_-]+ | -(?!-) | /(?!\*))+  # and the rest, up to a token above
      | \$)                                           # a $ that starts none ($1)
""", re.VERBOSE | re.DOTALL)
_BLOCK = re.compile(r"/\*|\*/")


@lru_cache(maxsize=512)
def tokens(sql: str) -> tuple[tuple[str, str], ...]:
    """``sql`` as (kind, text) tokens, losslessly (their texts joined are ``sql``).

    Kinds: ``string`` ('...' with '' inside, and DuckDB's $$...$$ / $tag$...$tag$), ``identifier``
    ("..." or `...`), ``comment`` (-- to the line end, or /* */, nested as DuckDB and Spark nest
    them), ``parameter`` ($name; not $1, nor the $ inside a name such as a$b), ``semicolon``, and
    ``code`` for the rest (adjacent code is one token). An unterminated string, identifier or
    comment runs to the end. Backslashes escape nothing (E'...' strings are not supported).
    """
    out: list[tuple[str, str]] = []
    pos = 0
    while pos < len(sql):
        m = _TOKEN.match(sql, pos)
        assert m is not None  # some alternative matches at every position (code takes the rest)
        kind = STRING if m.group("dollar") is not None else m.lastgroup
        assert kind is not None  # every alternative is a named group
        end = m.end()
        if kind == "block_comment":
            depth = 1
            for b in _BLOCK.finditer(sql, end):
                depth += 1 if b.group() == "/*" else -1
                if depth == 0:
                    end = b.end()
                    break
            else:
                end = len(sql)
        kind = COMMENT if kind in ("line_comment", "block_comment") else kind
        text = sql[pos:end]
        if kind == CODE and out and out[-1][0] == CODE:
            out[-1] = (CODE, out[-1][1] + text)
        else:
            out.append((kind, text))
        pos = end
    return tuple(out)


def _without_comments(toks) -> list[tuple[str, str]]:
    """The tokens with their comments removed: a line that held only comments goes whole (its
    line end too), a line that kept code loses the blanks its comments leave at its end, and a
    block comment inside a line becomes one space (so it still separates what it separated).
    Adjacent code is merged into one token."""
    out: list[tuple[str, str]] = []

    def add(kind: str, text: str) -> None:
        if out and kind == CODE and out[-1][0] == CODE:
            out[-1] = (CODE, out[-1][1] + text)
        elif text:
            out.append((kind, text))

    def strip_line_end() -> None:  # the blanks at the end of what ``out`` holds
        if out and out[-1][0] == CODE:
            out[-1] = (CODE, out[-1][1].rstrip(" \t"))

    commented = False  # whether the line being read had a comment
    for kind, text in toks:
        if kind == COMMENT:
            commented = True
            strip_line_end()
            if text.startswith("/*"):
                add(CODE, " ")
            continue
        if kind == CODE and commented and "\n" in text:
            first, rest = text.split("\n", 1)
            if first.strip(" \t"):
                add(CODE, first.rstrip(" \t") + "\n")
            else:
                strip_line_end()
                if not _line_is_blank(out):
                    add(CODE, "\n")
            commented = False
            text = rest
        add(kind, text)
    if commented:
        strip_line_end()
    return [t for t in out if t[1]]


def _line_is_blank(out: list[tuple[str, str]]) -> bool:
    """Whether ``out`` ends in a blank line: nothing but blanks since its last line end."""
    for kind, text in reversed(out):
        if kind != CODE:
            return False
        _, newline, tail = text.rpartition("\n")
        if tail.strip(" \t"):
            return False
        if newline:
            return True
    return True


def _text(toks) -> str:
    return "".join(text for _, text in toks)


@lru_cache(maxsize=512)
def _strip_comments(sql: str) -> str:
    """``sql`` without its comments (``_without_comments``)."""
    return _text(_without_comments(tokens(sql)))


def split_statements(sql: str) -> list[str]:
    """The statements of ``sql``: split at the semicolons in code, stripped, empty ones left out
    (comments stay with the statement they are in)."""
    out: list[str] = []
    current: list[str] = []
    for kind, text in tokens(sql):
        if kind == SEMICOLON:
            out.append("".join(current))
            current = []
        else:
            current.append(text)
    out.append("".join(current))
    return [s.strip() for s in out if _strip_comments(s).strip()]


@contextlib.contextmanager
def registered(con, **tables):
    """Register tables with the DuckDB connection ``con`` under the given names for the duration
    of a ``with`` block (unregistered however it ends).

    Pass dicts of equal-length numpy arrays (column name -> array) rather than Arrow tables:
    DuckDB scans both in bulk, but an Arrow table makes DuckDB import pandas (about 0.3 s)."""
    done = []
    try:
        for name, table in tables.items():
            con.register(name, table)
            done.append(name)
        yield con
    finally:
        for name in done:
            try:
                con.unregister(name)
            except Exception:  # pragma: no cover - best effort cleanup (the connection may be closed)
                pass


def index_views() -> str:
    """The SQL that creates every convenience view of an index: ``create_views.sql`` and the
    ``pairs`` view (``pairs.sql`` with its defaults). The same views over an index file or over
    exported Parquet files (``export.duckdb_views``)."""
    body = as_view("pairs", {"max_df": "NULL", "min_shared": "1", "new_label": "NULL", "min_score": "NULL"})
    return load("create_views").rstrip().rstrip(";") + f";\nCREATE OR REPLACE VIEW pairs AS {body}"
