"""``stats``: the index's size, its measured fingerprint density against 2/(w+1), and the most
common fingerprints, each shown in the text of a document that has it."""
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
    texts = {}
    for row in common:
        doc = row["example_doc"]
        if doc not in texts:
            texts[doc] = store.rows("document_text", doc=doc)[0]
        path, text = texts[doc]
        row["example_path"] = path
        row["example_text"] = text[row["example_start"]:row["example_end"]]
    return {"index": store.path, "settings": dict(settings), **summary, "density": density,
            "default_max_df": reader.max_df(None), "common": common}
