"""The default --max-df: computed by the ``default_max_df`` view, remembered after each write.

The view counts every fingerprint's document frequency over the whole index (a quarter of the
submissions, lowered where common fingerprints would make pair counting explode): seconds on an
index of ten million fingerprints, and every ``query``, ``compare``, ``report``, ``stats`` and
``clusters`` needs the value. So, on indexes of ``CACHE_MIN_FINGERPRINTS`` or more, the writes
(``add``, ``remove``, ``upgrade``) store it in the settings table under ``CACHE_KEY`` as
``value@token``, where the token sums up the documents and fingerprints it was computed for. A
reader uses the stored value only when the token still matches the index, so a value can never
be stale, whoever changed the index since (another winnowdb version, or plain SQL).
"""
from __future__ import annotations

__all__ = ["CACHE_KEY", "CACHE_MIN_FINGERPRINTS", "default_max_df", "remember", "content_token"]

#: settings key under which the default --max-df is remembered (value@content token)
CACHE_KEY = "default_max_df_cache"
#: indexes with fewer fingerprint rows compute the default --max-df when asked (under about a
#: second); above it, `add` pays that once so that every later command does not
CACHE_MIN_FINGERPRINTS = 4_000_000


def content_token(store) -> str:
    """A cheap token of everything the default --max-df depends on (``sql/content_token.sql``)."""
    return ":".join(str(x) for x in store.rows("content_token")[0])


def _computed(store) -> int:
    return int(store.value("default_max_df_value"))


def default_max_df(store) -> int:
    """The default --max-df of an open ``Store``: the remembered value when the index has not
    changed since it was stored, else computed by the view."""
    cached = store.settings.get(CACHE_KEY)
    if cached:
        value, _, token = cached.partition("@")
        if value.isdigit() and token == content_token(store):
            return int(value)
    return _computed(store)


def remember(store, on_compute=None) -> None:
    """After a write: store the default --max-df with the index's content token (large indexes
    only; on smaller ones a remembered value is dropped, reads compute it). ``on_compute(rows)``
    is called first when the value is computed (for a progress display: it takes seconds)."""
    rows = int(store.value("fingerprint_rows"))
    if rows < CACHE_MIN_FINGERPRINTS:
        if CACHE_KEY in store.settings:
            store.delete_setting(CACHE_KEY)
        return
    if on_compute is not None:
        on_compute(int(rows))
    token = content_token(store)
    store.set_setting(CACHE_KEY, f"{_computed(store)}@{token}")
