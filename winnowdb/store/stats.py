"""The statistics an index keeps up to date, so no command recounts the whole index.

* ``shared_hashes``: every hash found in two or more submissions, with its document frequency
  (df: how many submissions, as pair counting counts them). A hash not there is in at most one.
* ``meta.distinct_hashes``: how many distinct hashes the ordinary documents hold.
* ``boilerplate_hashes``: the hashes of boilerplate documents.
* ``meta.default_max_df``: the default --max-df (the ``default_max_df`` view's rule, over the
  histogram of ``shared_hashes``), remembered by each write so reads never compute it.
* ``common_hashes``: the ``shared_hashes`` rows in more submissions than the max-df
  ``meta.common_hashes_max_df`` (the default one when it was last remembered): what a query
  excludes as too common, read from a few rows instead of every df (1M documents: 2M of 41M).
  Kept with ``shared_hashes`` row for row, and filled again when the default max-df changes.

Every write keeps them exact, in its own transaction. The common case is cheap: an add's new
documents, in submissions new to the index (a file of its own, or a folder with
``--submission-depth``), only add to the counts of their hashes (one per new submission holding
one), so a bucket of new rows needs the counts of its hashes among the stored rows: read from
``shared_hashes`` for those in two or more submissions, counted from the stored rows for the
others, each in one submission at most (one query that DuckDB's zone maps keep to that bucket's
range of hashes: rows are stored ordered by hash, ``runs``; none when the index holds no
ordinary document yet).
Removing (or replacing) ordinary documents that are every document of their submissions only
takes away from the counts of their hashes (``removal``). Everything else -- other removals and
replacements, a new file of an existing submission, code fingerprinted again -- has the counts
of the hashes it touches counted again exactly from the stored rows.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from . import sqlfiles, text_df
from .buckets import span_range
from .room import expect_deletes
from .schema import COMMON_KEY, read_meta, write_meta

__all__ = ["Update", "Tally", "df_of", "replace_shared", "default_max_df", "remember_default_max_df", "common_floor",
           "NO_COMMON_FLOOR", "SHARED_BATCH_ROWS"]

#: the ``common_floor`` of an index whose common_hashes serves no max-df: above any max-df, so the
#: queries read the too common hashes from shared_hashes
NO_COMMON_FLOOR = 2**62

if TYPE_CHECKING:
    import numpy as np

def _hashes(values) -> dict:
    import numpy as np

    return {"hash": np.asarray(values, dtype=np.int64)}


def df_of(store, hashes: np.ndarray, low: int | None = None, high: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(hash, df) over the stored ordinary documents, for those of ``hashes`` stored at all."""
    import numpy as np

    if hashes.shape[0] == 0:
        return np.empty(0, np.int64), np.empty(0, np.int64)
    if low is None:
        low, high = int(hashes.min()), int(hashes.max())
    with store.relations(hashes_wanted=_hashes(hashes)):
        got = store.columns("hash_df_stored", low=low, high=high)
    return got["hash"].astype(np.int64), got["df"].astype(np.int64)


def replace_shared(store, hashes: np.ndarray, df_hash: np.ndarray, df: np.ndarray, low: int, high: int,
                    later: list | None = None) -> None:
    """``shared_hashes`` rows of ``hashes`` replaced by those of (df_hash, df) with df >= 2.
    ``later``: the new rows are appended to it instead, for ``_insert_shared`` to insert with
    others in one statement (an add's spans: one insert, not one per span)."""
    import numpy as np

    con = store.connection
    if hashes.shape[0]:
        floor = _kept_floor(con)  # common_hashes follows shared_hashes row for row
        expect_deletes(store, "shared_hashes", hashes.shape[0])
        if floor is not None:
            expect_deletes(store, "common_hashes", hashes.shape[0])
        with store.relations(hashes_wanted=_hashes(hashes)):
            con.execute(sqlfiles.load("shared_hashes_delete"), {"low": low, "high": high})
            if floor is not None:
                con.execute(sqlfiles.load("common_hashes_delete"), {"low": low, "high": high})
    keep = df >= 2
    if keep.any():
        if later is None:
            _insert_shared(store, [(df_hash[keep], df[keep])])
        else:
            later.append((df_hash[keep], df[keep].astype(np.int32)))


def _insert_shared(store, rows: list[tuple[np.ndarray, np.ndarray]]) -> None:
    """Insert ``shared_hashes`` rows (pieces of hash and df columns; no hash stored already),
    and the ``common_hashes`` rows among them."""
    import numpy as np

    if not rows:
        return
    con = store.connection
    floor = _kept_floor(con)
    hashes = np.concatenate([h for h, _ in rows]) if len(rows) > 1 else rows[0][0]
    df = np.concatenate([d for _, d in rows]) if len(rows) > 1 else rows[0][1]
    with store.relations(new_shared_hashes={"hash": hashes, "df": df.astype(np.int32)}):
        con.execute(sqlfiles.load("shared_hashes_insert"))
        if floor is not None:
            con.execute(sqlfiles.load("common_hashes_insert"), {"max_df": floor})


#: shared_hashes rows an ``Update`` holds for one insert before it inserts them (12 MB: a
#: 100,000-document add inserts its 3.6 million rows in 4 statements instead of 64)
SHARED_BATCH_ROWS = 1_000_000


@dataclass
class Tally:
    """What a span of buckets of new rows adds to the statistics (``Update.tally``), numpy
    columns: the distinct ``hashes`` of the rows counted the cheap way, sorted, each with the
    number of new documents that hold it (``counts``); the hashes counted again exactly
    (``exact``), and the distinct hashes of boilerplate rows (``boilerplate``). Into an index
    with nothing stored, a hash one new document alone holds only counts toward
    ``distinct_hashes``: such hashes are left out of ``hashes`` and counted in ``singles`` (one
    value): a big first add's tallies are 6-9x smaller (1M / 100k generated documents)."""

    hashes: np.ndarray
    counts: np.ndarray
    exact: np.ndarray
    boilerplate: np.ndarray
    singles: np.ndarray

    FIELDS = ("hashes", "counts", "exact", "boilerplate", "singles")


class Update:
    """The statistics' update for one add (or one upgrade step), a span of buckets at a time.

    ``before()`` reads what it must before anything changes; ``partition(span, rows)`` is called
    for each span of buckets (``buckets.spans``) of new rows while they do not count yet (not
    stored, or stored for documents still pending, which ``hash_df_stored`` does not see): it is
    ``tally(rows)``, which needs no read and may run anywhere, then ``apply(span, tally)``;
    ``stored(span)`` once they count (stored, and their documents in ``documents``); ``after()``
    finishes (the held ``shared_hashes`` rows, boilerplate, counters, the remembered default
    max-df)."""

    #: set by ``partition`` for ``stored``, per span of buckets: its hashes counted exactly, how
    #: many of them were stored before, and its hash range
    _pending_exact: dict[tuple[int, int], tuple[np.ndarray, int, int, int]]

    def __init__(self, store, new_docs: np.ndarray, *, replaced: np.ndarray, rewritten: bool) -> None:
        import numpy as np

        self.store = store
        self.new_docs = np.asarray(new_docs, dtype=np.int32)
        self.replaced = replaced
        self.rewritten = rewritten
        self.delta = 0  # change of meta.distinct_hashes
        self.text_gone: np.ndarray | None = None  # the text family's hashes of the documents replaced
        self.new_subs = False  # set by before()
        self.new_boilerplate = False
        self._pending_exact = {}
        self._new_shared: list[tuple[np.ndarray, np.ndarray]] = []  # rows apply() inserts later

    def before(self) -> None:
        import numpy as np

        store = self.store
        info = {}
        if self.new_docs.shape[0]:
            with store.relations(new_docs={"doc": self.new_docs}):
                info = store.columns("new_document_kinds", rewritten=self.rewritten)
        docs = info.get("doc", np.empty(0, np.int32)).astype(np.int64)
        # none stored (a fresh index): no hash has a stored df to add to, nothing to look up
        self.stored_before = bool(store.value("ordinary_documents_stored"))
        self.base = int(docs.min()) if docs.shape[0] else 0
        size = int(docs.max()) - self.base + 1 if docs.shape[0] else 0
        # per new document (indexed by doc - base): ordinary, and in a submission new to the index
        self.ordinary = np.zeros(size, dtype=bool)
        self.fast = np.zeros(size, dtype=bool)
        self.sub = np.zeros(size, dtype=np.int64)
        self.shared_subs = False  # two fast new documents in one submission: tally counts by submission
        if docs.shape[0]:
            self.ordinary[docs - self.base] = info["ordinary"].astype(bool)
            self.fast[docs - self.base] = info["fast"].astype(bool)
            self.sub[docs - self.base] = info["sub"].astype(np.int64)
            fast_subs = info["sub"][info["fast"].astype(bool)]
            self.shared_subs = bool(np.unique(fast_subs).shape[0] < fast_subs.shape[0])
            self.new_boilerplate = bool((~info["ordinary"].astype(bool)).any())
        # every new document ordinary and in a submission new to the index: text_df.grow counts
        # their text family
        self.new_subs = docs.shape[0] == self.new_docs.shape[0] and bool(info.get("new_sub", np.ones(0, bool)).all())

    def partition(self, span: tuple[int, int], rows: dict) -> None:
        """Bring the statistics of the hashes of a span of buckets (first, last) up to date for
        ``rows`` (not counted yet: see the class docstring); those counted exactly are finished by
        ``stored(span)``. ``tally`` then ``apply``."""
        self.apply(span, self.tally(rows))

    def tally(self, rows: dict) -> Tally:
        """What ``rows`` (numpy columns hash, doc, first: a span's new rows, ``first`` marking
        each document's one row of a hash that counts) add to the statistics, from the rows
        alone: no read, so it may run in another thread while DuckDB stores (``runs``)."""
        import numpy as np

        at = rows["doc"].astype(np.int64) - self.base
        ordinary = self.ordinary[at]
        fast = self.fast[at] & ordinary
        h = rows["hash"]
        # hashes of new rows whose counts must be counted again exactly (see module docstring)
        exact = np.unique(h[ordinary & ~fast])
        fast_rows = fast & rows["first"]
        if exact.shape[0]:
            fast_rows &= ~np.isin(h, exact, assume_unique=False)
        counted = h[fast_rows]
        if self.shared_subs:  # a hash counts once per submission, not once per document of it
            subs = self.sub[at[fast_rows]]
            order = np.lexsort((subs, counted))
            counted, subs = counted[order], subs[order]
            once = np.ones(counted.shape[0], dtype=bool)
            once[1:] = (counted[1:] != counted[:-1]) | (subs[1:] != subs[:-1])
            counted = counted[once]
        u, counts = np.unique(counted, return_counts=True)
        singles = 0
        if not self.stored_before:  # no stored df to add to: a count of 1 stays 1 (not shared)
            several = counts >= 2
            singles = int(u.shape[0] - np.count_nonzero(several))
            u, counts = u[several], counts[several]
        boilerplate = np.unique(h[~ordinary]) if (~ordinary).any() else np.empty(0, np.int64)
        return Tally(u.astype(np.int64), counts.astype(np.int64), exact.astype(np.int64),
                     boilerplate.astype(np.int64), np.array([singles], dtype=np.int64))

    def apply(self, span: tuple[int, int], tally: Tally) -> None:
        """``partition`` of a span whose rows are ``tally``-ed: the counts of its hashes among
        the stored rows are read and the statistics written."""
        import numpy as np

        store = self.store
        low, high = span_range(span)
        u, exact = tally.hashes, tally.exact
        self.delta += int(tally.singles[0])
        if u.shape[0]:
            old_h, old_df = self._stored_df(u, low, high)
            df = tally.counts.copy()
            at_old = np.searchsorted(u, old_h)
            df[at_old] += old_df
            self.delta += int(u.shape[0] - old_h.shape[0])
            touched_before = old_h[old_df >= 2]
            replace_shared(store, touched_before, u, df, low, high, later=self._new_shared)
            if sum(h.shape[0] for h, _ in self._new_shared) >= SHARED_BATCH_ROWS:
                self.flush()
        if exact.shape[0]:
            before_h, _ = self._stored_df(exact, low, high)
            self._pending_exact[span] = (exact, before_h.shape[0], low, high)
        if tally.boilerplate.shape[0]:  # boilerplate: its distinct hashes, once each
            with store.relations(new_boilerplate=_hashes(tally.boilerplate)):
                store.connection.execute(sqlfiles.load("boilerplate_hashes_insert"), {"low": low, "high": high})

    def _stored_df(self, hashes: np.ndarray, low: int, high: int) -> tuple[np.ndarray, np.ndarray]:
        """``df_of`` the stored rows, not read when ``before`` found no ordinary document: the df
        kept in ``shared_hashes`` where there is one (this add has not touched the span's rows of
        it yet: ``apply`` replaces them after this read), the stored rows counted for the others
        (each in one submission at most, so few rows; a hash in thousands of documents is never
        counted again)."""
        import numpy as np

        if not self.stored_before or hashes.shape[0] == 0:
            return np.empty(0, np.int64), np.empty(0, np.int64)
        with self.store.relations(hashes_wanted=_hashes(hashes)):
            got = self.store.columns("hash_df_before_add", low=low, high=high)
        return got["hash"].astype(np.int64), got["df"].astype(np.int64)

    def flush(self) -> None:
        """Insert the ``shared_hashes`` rows ``apply`` holds (``after`` does, before it reads
        the table; ``stored`` may run before, as it touches other hashes: a span's hashes counted
        again exactly are never among those counted the cheap way)."""
        rows, self._new_shared = self._new_shared, []
        _insert_shared(self.store, rows)

    def stored(self, span: tuple[int, int]) -> None:
        """Once the span's rows count: its exactly counted hashes, counted again."""
        if span not in self._pending_exact:
            return
        exact, before, low, high = self._pending_exact.pop(span)
        after_h, after_df = df_of(self.store, exact, low, high)
        self.delta += int(after_h.shape[0] - before)
        replace_shared(self.store, exact, after_h, after_df, low, high)

    def after(self) -> None:
        store = self.store
        con = store.connection
        self.flush()
        con.execute(sqlfiles.load("documents_count_hashes"))  # huge documents: counted once stored
        if self.delta:
            meta = read_meta(con)
            write_meta(con, "distinct_hashes", int(meta.get("distinct_hashes", 0)) + self.delta)
        touched = None  # an upgrade's rewrite: the text family counted again whole, as it may change
        if not self.rewritten:
            import numpy as np

            gone = self.text_gone if self.text_gone is not None else np.empty(0, np.int64)
            new = text_df.counts(store, self.new_docs)
            if self.new_subs and gone.shape[0] == 0:
                text_df.grow(store, new)
                touched = gone  # none left to count
            else:
                touched = np.union1d(gone, new["hash"])
        remember_default_max_df(store, touched)


def remember_default_max_df(store, text_hashes: np.ndarray | None = None) -> None:
    """Store the default --max-df the index's statistics give now (inside the caller's
    transaction): every read takes it from ``meta`` instead of counting. ``common_hashes`` is
    filled again for it when it was kept for another max-df, or for none. ``code_text_df``, the
    text family's document frequencies, is counted again (``text_df.recount``) for
    ``text_hashes``, the hashes of the text family of the documents the transaction added,
    replaced or removed that ``text_df`` did not bring up to date itself (none: nothing
    counted), or whole when that is None."""
    con = store.connection
    text_df.recount(store, text_hashes)
    value = int(con.execute(sqlfiles.load("default_max_df_value")).fetchall()[0][0])
    write_meta(con, "default_max_df", value)
    if _kept_floor(con) != value:
        expect_deletes(store, "common_hashes", None)
        con.execute(sqlfiles.load("common_hashes_clear"))
        con.execute(sqlfiles.load("common_hashes_fill"), {"max_df": value})
        write_meta(con, COMMON_KEY, value)


def _kept_floor(con) -> int | None:
    """The max-df common_hashes is kept for (``meta.common_hashes_max_df``); None: none yet."""
    value = read_meta(con).get(COMMON_KEY)
    return int(value) if value is not None and value.isdigit() else None


def common_floor(store) -> int:
    """The ``$common_floor`` of the queries that exclude too common hashes (query_found.sql,
    query_hit_sizes.sql): they read common_hashes for a max-df at least this, else shared_hashes."""
    floor = _kept_floor(store.connection)
    return NO_COMMON_FLOOR if floor is None else floor


def default_max_df(store) -> int:
    """The default --max-df: remembered by the last write (computed by the view when an index
    written by an older version has none)."""
    value = read_meta(store.connection).get("default_max_df")
    if value is not None and value.isdigit():
        return int(value)
    return int(store.value("default_max_df_value"))
