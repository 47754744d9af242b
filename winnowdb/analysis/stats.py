"""``stats``: the index's size, its measured fingerprint density against 2/(w+1), and the most
common fingerprints, each shown in the text of a document that has it (the index stores no spans:
the example documents are fingerprinted again, ``sides.Reader.document_fingerprints``)."""
from __future__ import annotations

__all__ = ["index_stats"]


def index_stats(reader, top_common: int = 10) -> dict:
    """Index size, measured density against the expected 2/(w+1), most common fingerprints."""
    store = reader.store
    settings = store.settings
    summary = store.records("index_summary")[0]
    k, _ = settings.kw("text")
    code_k, _ = settings.kw("code")
    density = [{"family": fam, "documents": n, "density": d, "expected": 2.0 / (settings.kw(fam)[1] + 1)}
               for fam, n, d in store.rows("window_density", k=k, code_k=code_k)]
    enough = summary["shared_hashes"] >= int(top_common)
    common = store.records("common_fingerprints" if enough else "common_fingerprints_counted",
                           limit_rows=int(top_common)) if top_common else []
    docs = {}  # doc -> (path, text, chars, normalizer)
    for row in common:
        doc = row["example_doc"]
        if doc not in docs:
            docs[doc] = store.rows("document_text", doc=doc)[0]
    spans = _spans(reader, docs, common) if common else {}
    for row in common:
        path, text, _, _ = docs[row["example_doc"]]
        start, end = spans.get((row["example_doc"], row["hash"], row["example_pos"]), (0, 0))
        row.update(example_path=path, example_start=start, example_end=end, example_text=text[start:end])
    return {"index": store.path, "settings": dict(settings), **summary, "density": density,
            "default_max_df": reader.max_df(None), "common": common}


def _spans(reader, docs: dict, common: list[dict]) -> dict:
    """(doc, hash, pos) -> (start, end): the spans in the original text of the common
    fingerprints' example rows, from their documents fingerprinted again ((0, 0) where unknown)."""
    import numpy as np

    from ..errors import WinnowError

    parts = []
    for doc in sorted(docs):  # a few documents: one that cannot be read again leaves only its own out
        try:
            parts.append(reader.document_fingerprints([(doc, *docs[doc])]))
        except WinnowError:  # e.g. a normalizer this winnowdb does not know: no text to show
            continue
    if not parts:
        return {}
    fps = {c: np.concatenate([p[c] for p in parts]) for c in parts[0]}
    wanted = {(row["example_doc"], row["hash"], row["example_pos"]) for row in common}
    at = np.flatnonzero(np.isin(fps["hash"], np.array([h for _, h, _ in wanted], dtype=np.int64)))
    out: dict = {}
    for i in at.tolist():
        key = (int(fps["doc"][i]), int(fps["hash"][i]), int(fps["pos"][i]))
        if key in wanted and key not in out and fps["start_offset"][i] >= 0:
            out[key] = (int(fps["start_offset"][i]), int(fps["end_offset"][i]))
    return out
