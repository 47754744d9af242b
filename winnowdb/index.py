"""The Python API: an ``Index`` with add / remove / query / pairs / compare / stats / sql.

A thin face over the stages: writing goes to ``ingest`` (``add``, ``remove``, ``upgrade``),
reading to ``analysis`` (through one ``analysis.sides.Reader``), and both to the index file in
``store``. Results are plain Python data (dicts with the documented field names), which the CLI
renders. Heavy modules (numpy, the fingerprinting code) load only when a command needs them.
"""
from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any, Collection

from .errors import WinnowError
from .settings import DEFAULTS, LETTERS_DEFAULTS, IndexSettings
from .settings import text_normalizer as reads_text_with
from .store.database import DEFAULT_DB, Store

if TYPE_CHECKING:
    from .analysis.compare import Comparison
    from .analysis.sides import Reader
    from .ingest.batches import AddSummary

__all__ = ["Index", "open_index", "default_db", "DEFAULTS", "LETTERS_DEFAULTS"]


def default_db() -> str:
    """The index a command uses without ``--db``: ``$WINNOWDB_DB``, else ./winnowdb.duckdb."""
    return os.environ.get("WINNOWDB_DB") or DEFAULT_DB


class Index:
    """An open winnowdb index. Create with ``winnowdb.open(path)``."""

    def __init__(self, store: Store):
        self.store = store
        self._reader: Reader | None = None

    # ----------------------------------------------------------------- basics
    @property
    def path(self) -> str:
        return self.store.path

    @property
    def settings(self) -> dict[str, str]:
        return dict(self.store.settings)

    @property
    def k(self) -> int:
        return self.store.settings.integer("k")

    @property
    def w(self) -> int:
        return self.store.settings.integer("w")

    @property
    def reader(self) -> Reader:
        """The read path over this index (``analysis.sides.Reader``), for the analysis modules."""
        if self._reader is None:
            from .analysis.sides import Reader

            self._reader = Reader(self.store)
        return self._reader

    def close(self) -> None:
        self.store.close()

    def for_adding(self, adding_bytes: int) -> "Index":
        """This index, ready for an add of ``adding_bytes`` bytes of input (``winnowdb add`` walks
        its input after opening an index that exists, so that a bad ``--db`` is reported at once):
        when that add will make the index large while it is attached with the small row groups, it
        is closed and opened again with the large ones (``store.layout.row_group_rows``); else ``self``."""
        from .store.layout import planned_row_group_rows

        store = self.store
        if store.is_memory or store.read_only or \
                planned_row_group_rows(store.path, adding_bytes) == planned_row_group_rows(store.path):
            return self
        self.close()
        return open_index(store.path, adding_bytes=adding_bytes)

    def interrupt(self) -> None:
        """Stop what this index is doing in another thread (e.g. ``write_pairs``: it raises there)."""
        self.store.interrupt()

    def __enter__(self) -> "Index":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    # ----------------------------------------------------------------- writing
    def add(self, paths: list[str | os.PathLike], *, label: str | None = None, boilerplate: bool = False,
            submission_depth: int | None = None, language: str | None = None, on_start=None,
            on_file=None, on_finish=None, on_merge=None, jobs: int | None = None,
            listing: list | None = None, workers=None) -> AddSummary:
        """Index files and directories (recursively); unchanged files are skipped.

        ``language`` makes every file of this add code in that language (any Pygments name or
        alias; default: code files by extension, everything else text).
        ``jobs`` processes fingerprint files (default: one per CPU; 1 = in this process only).
        ``on_finish(fingerprints)`` is called when every file is read and the fingerprints are
        being stored (ordered by hash, with the statistics brought up to date: a few seconds on
        tens of millions of fingerprints); ``on_merge(done, of)`` as the fingerprint runs of
        several adds are merged into one, when this add makes that due (``store.merge``).
        ``listing``: ``ingest.walk.walk(paths)``, when the caller has walked them already (``winnowdb
        add`` does, to size the index's row groups: ``for_adding``); ``workers``: the processes
        ``ingest.prepare.start_workers`` started for it before the index was opened (a new index:
        every file walked will be read), used instead of new ones and stopped when reading is
        done (the caller stops them if the add never reads).
        """
        from .ingest.pipeline import add_paths

        language = self.reader.language(language)
        self._code_tokens_version_if_no_code()
        return add_paths(self.store, [str(p) for p in paths], label=label, boilerplate=boilerplate,
                         submission_depth=submission_depth, language=language, on_start=on_start,
                         on_file=on_file, on_finish=on_finish, on_merge=on_merge, jobs=jobs, listing=listing,
                         workers=workers)

    def old_fingerprint_layout(self) -> bool:
        """Whether the fingerprints are stored as a winnowdb before run records wrote them (in
        DuckDB's default row groups, a run per add): ``winnowdb upgrade`` rewrites them, and
        queries get faster (``store.merge``)."""
        from .store.merge import unrecorded

        return unrecorded(self.store.connection)

    def _code_tokens_version_if_no_code(self) -> None:
        """An index holding no code yet records this winnowdb's code tokenizer before code is
        added (else code added now would count as tokenized by the version it records)."""
        from .settings import CODE_TOKENS_VERSION

        if self.store.settings.get("code_tokens_version") != CODE_TOKENS_VERSION \
                and not self.store.value("code_documents_count"):
            self.store.set_setting("code_tokens_version", CODE_TOKENS_VERSION)

    def stale_code_tokens(self) -> bool:
        """Whether the index holds code fingerprinted by an older code tokenizer than this one
        (an index made before ``code_tokens_version`` existed counts as older): new code files
        may then match the stored ones less well. ``upgrade_code_tokens`` fixes it."""
        from .ingest.retokenize import stale_code_documents

        return stale_code_documents(self.store) > 0

    def code_text_missing(self) -> bool:
        """Whether the index holds code documents but no text family for them (made before the
        pair score had it): their pairs are scored by their code tokens alone until ``winnowdb
        upgrade`` computes it (``ingest.code_text.fill_code_text``)."""
        from .ingest.code_text import needs_code_text

        return needs_code_text(self.store) and int(self.store.value("code_documents_count")) > 0

    def upgrade_code_tokens(self) -> int:
        """Fingerprint code from an older tokenizer again, from the stored texts (``winnowdb
        upgrade``); returns how many documents were redone (0 when none were stale).

        A document whose text is not stored (an index imported without texts) is read from its
        file when that is unchanged; if some cannot be, the others are still redone and then
        ``WinnowError`` names them (they keep their old fingerprints)."""
        from .ingest.retokenize import retokenize_code, stale_code_documents, without_text_message

        if not stale_code_documents(self.store):
            return 0
        result = retokenize_code(self.store)
        if result.without_text:
            raise WinnowError(without_text_message(result.without_text, result.done))
        return result.done

    def remove(self, paths: list[str | os.PathLike]) -> list[str]:
        """Remove documents by path (a directory removes everything indexed under it)."""
        from .ingest.remove import remove_paths

        return remove_paths(self.store, paths)

    # ----------------------------------------------------------------- reading
    def pairs(self, *, min_shared: int = 1, top: int = 50, max_df: int | None = None,
              new_label: str | None = None, min_score: float | None = None) -> list[dict]:
        """All-vs-all pairs of submissions sharing fingerprints, most likely copies first.

        Each pair: a, b, shared, fingerprints_a, fingerprints_b, containment_a, containment_b,
        resemblance, text_containment (code: the larger containment of the text family; else
        None) and score (in [0, 1], the ranking: docs/score.md). ``top=0`` returns every pair;
        ``min_score`` keeps those scoring at least that.
        """
        from .analysis.pairs import pairs

        return pairs(self.store, min_shared=min_shared, top=top, max_df=max_df, new_label=new_label,
                     min_score=min_score)

    def write_pairs(self, path: str | os.PathLike, columns: list[str], fmt: str = "csv", *, min_shared: int = 1,
                    top: int = 50, max_df: int | None = None, new_label: str | None = None,
                    min_score: float | None = None) -> int:
        """``pairs()`` (the given columns, same order and options) written by DuckDB to the file
        ``path`` as CSV or a JSON array (``fmt``): no Python row per pair. Returns how many pairs."""
        from .analysis.pairs import write_pairs

        return write_pairs(self.store, path, columns, fmt, min_shared=min_shared, top=top, max_df=max_df,
                           new_label=new_label, min_score=min_score)

    def write_pairs_csv(self, path: str | os.PathLike, columns: list[str], **options: Any) -> int:
        """``write_pairs`` as CSV (kept for callers of earlier versions)."""
        return self.write_pairs(path, columns, "csv", **options)

    def query(self, source: str | os.PathLike, *, top: int = 10, max_df: int | None = None,
              min_shared: int = 1, language: str | None = None) -> list[dict]:
        """Indexed submissions sharing fingerprints with the file ``source``: the ``top``
        likeliest copies (highest score) first.

        Each hit: path, shared, query_fingerprints, fingerprints, containment (how much of the
        query is found in the hit), contained (how much of the hit is found in the query),
        resemblance, text_containment (code: the text family's; else None) and score (in [0, 1]:
        the pair score of the query and the hit, docs/score.md). ``language`` tokenizes a file
        that is not indexed as code in that language (as ``add --language``; default: by its
        extension).
        """
        from .analysis.query import query_hits

        return query_hits(self.reader, source, top=top, max_df=max_df, min_shared=min_shared, language=language)

    def query_sketch(self, source: str | os.PathLike, *, s: int = 100, top: int = 10,
                     max_df: int | None = None, min_shared: int = 1, language: str | None = None) -> list[dict]:
        """Indexed submissions ranked by Broder's MIN_s estimate of their resemblance with ``source``.

        Only the ``s`` smallest fingerprints of each side are compared (``analysis.sketches``).
        Each hit: path, sketch_shared, sketch_size, resemblance (the estimate).
        """
        from .analysis.sketches import query_sketch

        return query_sketch(self.reader, source, s=s, top=top, max_df=max_df, min_shared=min_shared,
                            language=language)

    def simhash_query(self, source: str | os.PathLike, *, hamming: int = 3, top: int = 10) -> list[dict]:
        """Indexed documents whose simhash is within ``hamming`` bits of ``source``'s, nearest first
        (Manku et al.'s block search, ``analysis.near_duplicates``). Each hit: path, distance, simhash.
        """
        from .analysis.near_duplicates import near_duplicates_of

        return near_duplicates_of(self.reader, source, hamming=hamming, top=top)

    def near_duplicates(self, *, hamming: int = 3, top: int = 0) -> list[dict]:
        """Every pair of documents (in different submissions) with simhashes within ``hamming``
        bits, nearest first. Each pair: a, b, distance, simhash_a, simhash_b. ``top=0``: all."""
        from .analysis.near_duplicates import near_duplicate_pairs

        return near_duplicate_pairs(self.reader, hamming=hamming, top=top)

    def write_near_duplicates(self, path: str | os.PathLike, columns: list[str], fmt: str = "csv", *,
                              hamming: int = 3, top: int = 0) -> int:
        """``near_duplicates()`` (the given columns, same order and options) written by DuckDB to
        the file ``path`` as CSV or a JSON array (``fmt``). Returns how many pairs."""
        from .analysis.near_duplicates import write_near_duplicate_pairs

        return write_near_duplicate_pairs(self.reader, path, columns, fmt, hamming=hamming, top=top)

    def compare(self, a: str | os.PathLike, b: str | os.PathLike, *, max_df: int | None = None,
                language: str | None = None) -> Comparison:
        """The passages two files (or submissions, indexed or not) share, and their scores.
        ``language``: as in ``query``, for a side that is not indexed."""
        return self.compare_many([(a, b)], max_df=max_df, language=language)[0]

    def compare_many(self, pairs: list[tuple[str | os.PathLike, str | os.PathLike]], *,
                     max_df: int | None = None, language: str | None = None) -> list[Comparison]:
        """``compare`` for many pairs at once (each side read once, the index scanned once)."""
        from .analysis.compare import compare_many

        return compare_many(self.reader, pairs, max_df=max_df, language=language)

    def missing_under(self, folders: list[str | os.PathLike], listed: Collection[str] = ()) -> list[str]:
        """Indexed documents under ``folders`` whose files no longer exist, sorted (``listed``:
        paths known to exist, e.g. the files the add just walked, are not checked again)."""
        from .analysis.files import missing_under

        return missing_under(self.store, folders, listed)

    def labels(self) -> list[str]:
        """The labels of the indexed documents (``add --label``), sorted."""
        from .analysis.files import labels

        return labels(self.store)

    def changed_since_indexed(self, paths: list[str | os.PathLike]) -> list[str]:
        """Those of ``paths`` that are indexed files whose bytes on disk differ from what was
        indexed (or that are gone): ``compare`` and ``query`` show the indexed text of an
        indexed file, so their line numbers refer to that version."""
        from .analysis.files import changed_since_indexed

        return changed_since_indexed(self.store, paths)

    def stats(self, top_common: int = 10) -> dict:
        """Index size, measured density against the expected 2/(w+1), most common fingerprints."""
        from .analysis.stats import index_stats

        return index_stats(self.reader, top_common)

    def sql(self, query: str) -> tuple[list[str], list[tuple]]:
        """Run ad-hoc SQL; returns (column names, rows)."""
        return self.store.user_sql(query)


def open_index(path: str | os.PathLike | None = None, *, k: int | None = None, w: int | None = None,
               code_k: int | None = None, code_w: int | None = None,
               normalizer: str | None = None, text_normalizer: str | None = None,
               selection: str | None = None, mod_m: int | None = None, code_text: bool | None = None,
               read_only: bool = False, create: bool = True, adding_bytes: int = 0) -> Index:
    """Open the index at ``path`` (default ``$WINNOWDB_DB`` or ./winnowdb.duckdb).

    A missing index is created (unless ``create=False`` or ``read_only``) with the given k, w and
    normalizer (defaults in ``settings.DEFAULTS``; ``LETTERS_DEFAULTS`` for k and w when the
    normalizer is ``text`` or ``words``). ``text_normalizer`` is how an ``auto`` or ``code`` index
    reads files that are not code (default ``prose``). For an existing index, any k/w/normalizer
    given must match the ones it was created with. ``selection`` is how fingerprints are kept:
    ``winnow`` (default), ``all`` (every k-gram) or ``mod`` (hashes that are 0 mod ``mod_m``).
    ``code_text=False`` makes an index without the code's text family (cheaper to add to and to
    pair; code pairs are then scored by their tokens alone: docs/score.md). ``adding_bytes``: the
    size of the files an add is about to index (``ingest.walk.listed_bytes``; ``Index.for_adding``
    passes it): an index that add will make large is written in the row groups of a large one from
    its start (``store.layout.row_group_rows``).
    """
    path = str(path) if path is not None else default_db()
    options = dict(k=k, w=w, code_k=code_k, code_w=code_w, normalizer=normalizer, selection=selection,
                   mod_m=mod_m)
    IndexSettings.check_options(text_normalizer=text_normalizer, **options)
    # what a new index gets (a new file, or an empty DuckDB file made an index), and what an
    # existing one must have been created with
    settings = IndexSettings.for_new_index(text_normalizer=text_normalizer, code_text=code_text, **options)
    store = Store.open(path, read_only=read_only, create=create and not read_only, settings=settings,
                       given=IndexSettings.given(code_text=code_text, **options),
                       adding_bytes=0 if read_only else adding_bytes)
    if text_normalizer is not None:  # indexes made before prose existed record none: text
        reads = reads_text_with(store.settings)
        if reads != text_normalizer:
            store.close()
            raise WinnowError(f"index {path} reads text with the {reads} normalizer, not {text_normalizer}; "
                              f"settings are fixed per index (use another --db)")
    return Index(store)
