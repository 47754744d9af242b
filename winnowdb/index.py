"""The Python API: an ``Index`` object with add / remove / query / pairs / compare / stats / sql.

It ties the pipeline together (sources -> normalize -> fingerprint -> store -> sql) and returns
plain Python data (dicts with the documented field names), which the CLI renders.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .errors import WinnowError
from .sources import read_query_file
from .sqlfiles import registered
from .store import DEFAULT_DB, Store

if TYPE_CHECKING:  # the fingerprinting modules (and numpy) are imported when first needed, so
    # commands that only read the index (pairs, sql, ...) start faster
    from .indexer import AddSummary
    from .passages import Passage

__all__ = ["Index", "open_index", "DEFAULTS", "Side", "Comparison"]

#: Defaults for a new index. Text is read as prose: k and w count normalized characters (letters
#: and digits, and one unit for the spaces or punctuation between two words): k = 22 is about four
#: words, below which matches are mostly common phrases; every shared passage of
#: t = w + k - 1 = 33 units (about six words) is found. For code, code_k and code_w count tokens:
#: every shared run of 19 tokens (two or three statements) is found. Chosen on the labelled sets
#: in ../shared/eval (bench/results/quality.md, bench/results/text_normalizations.md have the
#: sweeps): a smaller k finds slightly more heavily edited copies but makes common phrases, and
#: so pair counting, much costlier; a smaller w ranks short documents (a few hundred words)
#: slightly better (w = 6: clough AUC 0.979 against 0.977 averaged over hash salts) but stores
#: more fingerprints (density 2/(w+1): twice as many at w = 6) and makes pairs that much slower.
DEFAULTS = {"k": 22, "w": 12, "code_k": 12, "code_w": 8, "normalizer": "auto", "selection": "winnow",
            "mod_m": 1}
#: k and w defaults of an index whose text is read by the ``text`` normalizer (letters and
#: digits only: the Winnowing paper's) or the ``words`` normalizer (k and w count words)
LETTERS_DEFAULTS = {"k": 16, "w": 12}


def default_db() -> str:
    return os.environ.get("WINNOWDB_DB") or DEFAULT_DB


@dataclass
class Side:
    """One side of a comparison: a display name, its documents' texts, and fingerprint rows.

    ``unstored``: its documents whose text the index does not hold (``import`` of an export
    without texts stores an empty one): their scores count, their passages cannot be shown."""

    name: str
    texts: dict[int, str]
    paths: dict[int, str]
    fingerprints: dict  # numpy columns: hash, doc, pos, start_offset, end_offset
    unstored: frozenset = frozenset()


@dataclass
class Comparison:
    """Two sides and the passages they share."""

    a: Side
    b: Side
    passages: list[Passage]
    score: dict


class Index:
    """An open winnowdb index. Create with ``winnowdb.open(path)``."""

    def __init__(self, store: Store):
        self.store = store

    # ----------------------------------------------------------------- basics
    @property
    def path(self) -> str:
        return self.store.path

    @property
    def settings(self) -> dict[str, str]:
        return dict(self.store.settings)

    @property
    def k(self) -> int:
        return self.store.setting_int("k")

    @property
    def w(self) -> int:
        return self.store.setting_int("w")

    def close(self) -> None:
        self.store.close()

    def __enter__(self) -> "Index":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def _max_df(self, max_df: int | None) -> int:
        if max_df is None or max_df <= 0:
            return self.store.default_max_df()
        return int(max_df)

    # ----------------------------------------------------------------- writing
    def add(self, paths: list[str | os.PathLike], *, label: str | None = None, boilerplate: bool = False,
            submission_depth: int | None = None, language: str | None = None, on_start=None,
            on_file=None, on_finish=None, jobs: int | None = None) -> AddSummary:
        """Index files and directories (recursively); unchanged files are skipped.

        ``language`` makes every file of this add code in that language (any Pygments name or
        alias; default: code files by extension, everything else text).
        ``jobs`` processes fingerprint files (default: one per CPU; 1 = in this process only).
        ``on_finish(fingerprints)`` is called before the default --max-df of a large index is
        computed and remembered (``winnowdb.max_df``: seconds on tens of millions of
        fingerprints); the summary's ``seconds`` include that work.
        """
        import time

        from .indexer import add_paths
        from .interrupts import interrupts_ignored
        from .max_df import remember as remember_max_df

        language = self._language(language)
        self._code_tokens_version_if_no_code()
        summary = add_paths(self.store, [str(p) for p in paths], label=label, boilerplate=boilerplate,
                            submission_depth=submission_depth, language=language, on_start=on_start,
                            on_file=on_file, jobs=jobs)
        if summary.saved and not summary.interrupted:
            t0 = time.perf_counter()
            with interrupts_ignored():  # everything is committed; this only saves later commands work
                remember_max_df(self.store, on_compute=on_finish)
            summary.seconds += time.perf_counter() - t0
        return summary

    def _code_tokens_version_if_no_code(self) -> None:
        """An index holding no code yet records this winnowdb's code tokenizer before code is
        added (else code added now would count as tokenized by the version it records)."""
        from .codetokens import TOKENS_VERSION

        if self.store.settings.get("code_tokens_version") != TOKENS_VERSION and not self.store.con.execute(
                "SELECT COUNT(*) FROM documents WHERE normalizer LIKE 'code:%'").fetchall()[0][0]:
            self.store.set_setting("code_tokens_version", TOKENS_VERSION)

    def stale_code_tokens(self) -> bool:
        """Whether the index holds code fingerprinted by an older code tokenizer than this one
        (an index made before ``code_tokens_version`` existed counts as older): new code files
        may then match the stored ones less well. ``upgrade_code_tokens`` fixes it."""
        from .retokenize import stale_code_documents

        return stale_code_documents(self.store) > 0

    def upgrade_code_tokens(self) -> int:
        """Fingerprint code from an older tokenizer again, from the stored texts (``winnowdb
        upgrade``); returns how many documents were redone (0 when none were stale).

        A document whose text is not stored (an index imported without texts) is read from its
        file when that is unchanged; if some cannot be, the others are still redone and then
        ``WinnowError`` names them (they keep their old fingerprints)."""
        from .retokenize import retokenize_code, stale_code_documents, without_text_message

        if not stale_code_documents(self.store):
            return 0
        result = retokenize_code(self.store)
        if result.without_text:
            raise WinnowError(without_text_message(result.without_text, result.done))
        return result.done

    def remove(self, paths: list[str | os.PathLike]) -> list[str]:
        """Remove documents by path (a directory removes everything indexed under it)."""
        wanted = [str(Path(p).resolve()) for p in paths]
        rows = self.store.con.execute("SELECT doc, path FROM documents").fetchall()
        gone = [(d, p) for d, p in rows
                if any(p == w or p.startswith(w.rstrip(os.sep) + os.sep) for w in wanted)]
        self.store.remove_docs([d for d, _ in gone])
        if gone:
            from .max_df import remember as remember_max_df

            remember_max_df(self.store)
        return sorted(p for _, p in gone)

    # ----------------------------------------------------------------- reading
    def pairs(self, *, min_shared: int = 1, top: int = 50, max_df: int | None = None,
              new_label: str | None = None) -> list[dict]:
        """All-vs-all pairs of submissions sharing fingerprints, most copied first.

        Each pair: a, b, shared, fingerprints_a, fingerprints_b, containment_a, containment_b,
        resemblance. ``top=0`` returns every pair.
        """
        cap = int(max_df) if max_df is not None and max_df > 0 else None  # None: auto, computed in SQL
        cur = self.store.run("pairs", limit=top, max_df=cap,
                             min_shared=max(1, int(min_shared)), new_label=new_label)
        return _records(cur)

    def write_pairs_csv(self, path: str | os.PathLike, columns: list[str], *, min_shared: int = 1,
                        top: int = 50, max_df: int | None = None, new_label: str | None = None) -> None:
        """``pairs()`` (the given columns, same order and options) written as a CSV file by DuckDB."""
        cap = int(max_df) if max_df is not None and max_df > 0 else None
        self.store.write_csv("pairs", path, columns, limit=top, max_df=cap,
                             min_shared=max(1, int(min_shared)), new_label=new_label)

    def query(self, source: str | os.PathLike, *, top: int = 10, max_df: int | None = None,
              min_shared: int = 1, language: str | None = None) -> list[dict]:
        """Indexed submissions sharing fingerprints with the file ``source``, ranked.

        Each hit: path, shared, query_fingerprints, fingerprints, containment (how much of the
        query is found in the hit), contained (how much of the hit is found in the query),
        resemblance. ``language`` tokenizes a file that is not indexed as code in that language
        (as ``add --language``; default: by its extension).
        """
        side = self._side(source, language)
        con = self.store.con
        with registered(con, query_fingerprints={"hash": side.fingerprints["hash"]}):
            exclude = self._submission_of(source)
            cur = self.store.run("query_hits", top=int(top) if top and top > 0 else None,
                                 max_df=self._max_df(max_df), exclude=exclude,
                                 min_shared=max(1, int(min_shared)))
            return _records(cur)

    def query_sketch(self, source: str | os.PathLike, *, s: int = 100, top: int = 10,
                     max_df: int | None = None, min_shared: int = 1, language: str | None = None) -> list[dict]:
        """Indexed submissions ranked by Broder's MIN_s estimate of their resemblance with ``source``.

        Only the ``s`` smallest fingerprints of each side are compared (``winnowdb.sketches``).
        Each hit: path, sketch_shared, sketch_size, resemblance (the estimate).
        """
        from .sketches import query_sketch

        return query_sketch(self, source, s=s, top=top, max_df=max_df, min_shared=min_shared,
                            language=language)

    def simhash_query(self, source: str | os.PathLike, *, hamming: int = 3, top: int = 10) -> list[dict]:
        """Indexed documents whose simhash is within ``hamming`` bits of ``source``'s, nearest first
        (Manku et al.'s block search, ``winnowdb.near_duplicates``). Each hit: path, distance, simhash.
        """
        from .near_duplicates import near_duplicates_of

        return near_duplicates_of(self, source, hamming=hamming, top=top)

    def near_duplicates(self, *, hamming: int = 3, top: int = 0) -> list[dict]:
        """Every pair of documents (in different submissions) with simhashes within ``hamming``
        bits, nearest first. Each pair: a, b, distance, simhash_a, simhash_b. ``top=0``: all."""
        from .near_duplicates import near_duplicate_pairs

        return near_duplicate_pairs(self, hamming=hamming, top=top)

    def compare(self, a: str | os.PathLike, b: str | os.PathLike, *, max_df: int | None = None,
                language: str | None = None) -> Comparison:
        """The passages two files (or submissions, indexed or not) share, and their scores.
        ``language``: as in ``query``, for a side that is not indexed."""
        from .comparisons import compare_many

        return compare_many(self, [(a, b)], max_df=max_df, language=language)[0]

    def missing_under(self, folders: list[str | os.PathLike]) -> list[str]:
        """Indexed documents under ``folders`` whose files no longer exist (deleted or renamed
        since they were added: their old text still pairs until they are removed), sorted."""
        roots = sorted({str(Path(f).resolve()).rstrip(os.sep) + os.sep for f in folders})
        if not roots:
            return []
        paths = [r[0] for r in self.store.con.execute(
            "SELECT DISTINCT d.path FROM documents d JOIN (SELECT UNNEST(?::VARCHAR[]) AS root) r "
            "ON starts_with(d.path, r.root)", [roots]).fetchall()]
        return sorted(p for p in paths if not os.path.exists(p))

    def labels(self) -> list[str]:
        """The labels of the indexed documents (``add --label``), sorted."""
        return [r[0] for r in self.store.con.execute(
            "SELECT DISTINCT label FROM documents WHERE label IS NOT NULL ORDER BY label").fetchall()]

    def changed_since_indexed(self, paths: list[str | os.PathLike]) -> list[str]:
        """Those of ``paths`` that are indexed files whose bytes on disk differ from what was
        indexed (or that are gone): ``compare`` and ``query`` show the indexed text of an
        indexed file, so their line numbers refer to that version."""
        from .sources import content_hash

        from .sources import name_problem

        wanted = {str(p): str(Path(p).resolve()) for p in paths if name_problem(p) is None}
        stored = self.store.documents_by_path(sorted(set(wanted.values())))
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

    def compare_many(self, pairs: list[tuple[str | os.PathLike, str | os.PathLike]], *,
                     max_df: int | None = None, language: str | None = None) -> list[Comparison]:
        """``compare`` for many pairs at once (each side read once, the index scanned once)."""
        from .comparisons import compare_many

        return compare_many(self, pairs, max_df=max_df, language=language)

    def stats(self, top_common: int = 10) -> dict:
        """Index size, measured density against the expected 2/(w+1), most common fingerprints."""
        s = self.store
        summary = _records(s.run("index_summary"))[0]
        cfg = s.settings
        code_k, code_w = int(cfg.get("code_k", self.k)), int(cfg.get("code_w", self.w))
        density = [{"family": fam, "documents": n, "density": d,
                    "expected": 2.0 / ((code_w if fam == "code" else self.w) + 1)}
                   for fam, n, d in s.run("window_density", k=self.k, code_k=code_k).fetchall()]
        common = _records(s.run("common_fingerprints", limit_rows=int(top_common)))
        texts = {}
        for row in common:
            doc = row["example_doc"]
            if doc not in texts:
                texts[doc] = s.con.execute(
                    "SELECT d.path, t.text FROM documents d JOIN document_texts t ON t.doc = d.doc "
                    "WHERE d.doc = ?", [doc]).fetchall()[0]
            path, text = texts[doc]
            row["example_path"] = path
            row["example_text"] = text[row["example_start"]:row["example_end"]]
        return {"index": self.path, "settings": self.settings, **summary,
                "density": density,
                "default_max_df": s.default_max_df(), "common": common}

    def sql(self, query: str) -> tuple[list[str], list[tuple]]:
        """Run ad-hoc SQL; returns (column names, rows)."""
        import duckdb

        try:
            cur = self.store.con.execute(query)
        except duckdb.Error as exc:
            raise WinnowError(f"SQL error: {str(exc).splitlines()[0]}") from None
        if cur is None:  # nothing but white space, comments or semicolons
            raise WinnowError("no SQL statement to run (e.g. winnowdb sql \"SELECT COUNT(*) FROM documents\")")
        if cur.description is None:
            return [], []
        return [d[0] for d in cur.description], cur.fetchall()

    # ----------------------------------------------------------------- helpers
    def _submission_of(self, source: str | os.PathLike) -> str | None:
        from .sources import require_storable_name

        p = str(Path(source).resolve())
        require_storable_name(p)
        row = self.store.con.execute(
            "SELECT submission FROM documents WHERE path = ? OR submission = ? LIMIT 1", [p, p]).fetchall()
        return row[0][0] if row else None

    def _side(self, source: str | os.PathLike, language: str | None = None) -> Side:
        """Fingerprints and texts of ``source``: from the index when it is indexed (a file or a
        submission), else from the file (``comparisons.read_sides``)."""
        from .comparisons import read_sides

        return read_sides(self, [source], language)[str(source)]

    def _language(self, language: str | None) -> str | None:
        """``language`` by the name files of that language get, or a one-line error
        (``languages.forced_language``: an unknown name, or an index reading all as text/words)."""
        if language is None:
            return None
        from .languages import forced_language

        try:
            return forced_language(language, self.store.settings.get("normalizer", "text"))
        except ValueError as exc:
            raise WinnowError(str(exc)) from None

    def _file_side(self, source: str | os.PathLike, language: str | None = None) -> Side:
        """The side of a file that is not indexed: read and fingerprinted under the index's settings.

        Fingerprints are numpy columns (DuckDB scans a dict of numpy arrays without importing
        pandas, which it does for any Arrow object: 0.4 s of every query or compare).
        """
        import numpy as np

        p = str(Path(source).resolve())
        src = read_query_file(source, if_directory="is a directory that is not an indexed submission")
        try:
            from . import segmented  # reliability (issue 4): huge files in bounded memory

            if segmented.is_huge(src.text, self.store.settings, p):
                fps = segmented.fingerprints_of(src.text, self.store.settings, path=p)
            else:
                from .indexer import fingerprint_source

                _, _, fps = fingerprint_source(src.text, self.store.settings, path=p,
                                               language=self._language(language))
        except ValueError as exc:
            raise WinnowError(str(exc)) from None
        table = {"hash": fps.hash.astype(np.int64), "doc": np.full(len(fps), -1, dtype=np.int32),
                 "pos": fps.pos.astype(np.int32), "start_offset": fps.start.astype(np.int32),
                 "end_offset": fps.stop.astype(np.int32)}
        return Side(str(source), {-1: src.text}, {-1: p}, table)


def _records(cur) -> list[dict]:
    cols = [d[0] for d in cur.description]
    return [dict(zip(cols, r)) for r in cur.fetchall()]


def open_index(path: str | os.PathLike | None = None, *, k: int | None = None, w: int | None = None,
               code_k: int | None = None, code_w: int | None = None,
               normalizer: str | None = None, text_normalizer: str | None = None,
               selection: str | None = None, mod_m: int | None = None,
               read_only: bool = False, create: bool = True) -> Index:
    """Open the index at ``path`` (default ``$WINNOWDB_DB`` or ./winnowdb.duckdb).

    A missing index is created (unless ``create=False`` or ``read_only``) with the given k, w and
    normalizer (defaults in ``DEFAULTS``; ``LETTERS_DEFAULTS`` for k and w when the normalizer is
    ``text`` or ``words``). ``text_normalizer`` is how an ``auto`` or ``code`` index reads files
    that are not code (default ``prose``). For an existing index, any k/w/normalizer given must
    match the ones it was created with. ``selection`` is how fingerprints are kept: ``winnow``
    (default), ``all`` (every k-gram) or ``mod`` (hashes that are 0 mod ``mod_m``).
    """
    path = str(path) if path is not None else default_db()
    for name, val in (("k", k), ("w", w), ("code_k", code_k), ("code_w", code_w)):
        if val is not None and int(val) < 1:
            raise WinnowError(f"{name} must be a positive whole number, not {val}")
    # the fingerprinting modules (and numpy) are imported only when an index is made or settings
    # are given: opening an index to read it stays light
    if normalizer is not None or text_normalizer is not None:
        from .normalizers import NORMALIZERS, TEXT_NORMALIZERS

        if normalizer is not None and normalizer not in NORMALIZERS:
            raise WinnowError(f"unknown normalizer {normalizer!r} (choose from {', '.join(NORMALIZERS)})")
        if text_normalizer is not None and text_normalizer not in TEXT_NORMALIZERS:
            raise WinnowError(f"unknown text normalizer {text_normalizer!r} "
                              f"(choose from {', '.join(TEXT_NORMALIZERS)})")
        if text_normalizer is not None and normalizer in TEXT_NORMALIZERS and text_normalizer != normalizer:
            raise WinnowError(f"--normalizer {normalizer} reads every file as {normalizer}: "
                              f"--text-normalizer {text_normalizer} does not apply")
    if selection is not None:
        from .fingerprint import SELECTIONS

        if selection not in SELECTIONS:
            raise WinnowError(f"unknown selection {selection!r} (choose from {', '.join(SELECTIONS)})")
    if mod_m is not None and int(mod_m) < 1:
        raise WinnowError(f"mod_m must be a positive whole number, not {mod_m}")
    if selection == "mod" and mod_m is None:
        mod_m = 8
    wanted = {"k": k, "w": w, "code_k": code_k, "code_w": code_w, "normalizer": normalizer,
              "selection": selection, "mod_m": mod_m}
    settings = None
    if not Path(path).exists():
        from .normalizers import TEXT_NORMALIZERS

        chosen = normalizer or DEFAULTS["normalizer"]
        text_normalizer = chosen if chosen in TEXT_NORMALIZERS else text_normalizer or "prose"
        defaults = {**DEFAULTS, **(LETTERS_DEFAULTS if text_normalizer != "prose" else {})}
        settings = {key: (val if val is not None else defaults[key]) for key, val in wanted.items()}
        settings["text_normalizer"] = text_normalizer
        from .codetokens import TOKENS_VERSION
        from .fingerprint import HASH_VERSION
        from .simhash import SIMHASH_VERSION

        settings.update(hash_version=HASH_VERSION, simhash_version=SIMHASH_VERSION,
                        code_tokens_version=TOKENS_VERSION)
    else:
        settings = {key: val for key, val in wanted.items() if val is not None}
    store = Store.open(path, read_only=read_only, create=create and not read_only, settings=settings)
    if text_normalizer is not None:  # indexes made before prose existed record none: text
        from .normalizers import text_normalizer as reads_text_with

        if reads_text_with(store.settings) != text_normalizer:
            store.close()
            raise WinnowError(f"index {path} reads text with the {reads_text_with(store.settings)} normalizer, "
                              f"not {text_normalizer}; settings are fixed per index (use another --db)")
    return Index(store)
