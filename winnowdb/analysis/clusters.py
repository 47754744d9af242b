"""Broder's syntactic clustering: link similar documents, take connected components, store and report them.

The pipeline follows "Syntactic Clustering of the Web" (Broder, Glassman, Manasse, Zweig 1997):

1. *Duplicates are folded.* Identical, lexically equivalent and fingerprint equivalent documents
   (``winnowdb.duplicates``) are represented by one document, the smallest doc id of the group.
2. *Pairs are linked.* Either
   ``method="exact"``: every pair of representatives sharing fingerprints is counted (the paper's
   <ID, ID, count> phase, ``sql/cluster_pairs.sql``) and linked when its resemblance reaches
   ``min_resemblance`` (or, with ``min_containment``, when either document is that much contained
   in the other); or
   ``method="super"``: the fast path. Representatives sharing a super shingle (a run of
   ``length`` consecutive hashes of their sorted MIN_s sketches, ``sql/super_shingle_candidates.sql``)
   are candidates, with no pair counting; a candidate is linked when its MIN_s resemblance
   estimate reaches ``min_resemblance`` (the paper's "if we want a higher threshold we can compute
   their actual resemblance"). Short documents (fewer than ``length`` usable hashes) are not
   found, and containment is not detected: use the exact method for those.
3. *Connected components* are the clusters (union-find, done as vectorized min-label hooking with
   pointer jumping in numpy). Clusters are of submissions, as pairs are (``add
   --submission-depth``): the nodes are submissions, linked when a document of one is linked to,
   or folded into, a document of another -- a duplicate only when it has usable material (two
   empty files, or two unchanged copies of the starter code, link nothing); a link inside one
   submission links nothing. Every
   document is in its submission's cluster. Where each document is its own submission (the
   default), this is Broder's clustering of documents, folded duplicates joining their
   representative's cluster.
4. *Stored*: the ``clusters`` table (one row per document: its cluster id, the smallest doc id
   in the cluster; see ``sql/cluster_table_create.sql``) is replaced in one transaction.
5. *Reported*: each cluster of two or more submissions with its members and its tightest and
   loosest pair: the most and the least similar two members of different submissions (exact
   resemblance, counted over the pairs inside the cluster only, ``sql/cluster_member_pairs.sql``).
   Resemblance is not transitive: in a chain A~B~C the loosest pair may share nothing.

Very common hashes (in more than ``max_df`` documents, counted after duplicates are folded) and
boilerplate hashes are ignored throughout, as in the core.
"""
from __future__ import annotations

import datetime as _dt
import time
from dataclasses import dataclass, field

import numpy as np

from ..errors import WinnowError
from .duplicates import Representatives, representatives
from .sketches import DEFAULT_S, DEFAULT_SUPER_LENGTH, prepared, prepared_estimates, prepared_super_candidates

__all__ = ["METHODS", "Clustering", "cluster", "connected_components"]

METHODS = ("exact", "super")


def connected_components(n: int, a, b) -> np.ndarray:
    """Component label of each of ``n`` nodes given edges ``a[i] -- b[i]`` (indices 0..n-1).

    The label of a component is its smallest node. Vectorized union-find: each round hooks the
    larger root of every edge whose ends are in different trees onto the smaller root (minimum
    over all such edges), then compresses every path completely by pointer jumping. Parents only
    ever decrease, so no cycle can form; rounds stop when every edge lies inside one tree.
    """
    parent = np.arange(n, dtype=np.int64)
    a = np.asarray(a, dtype=np.int64)
    b = np.asarray(b, dtype=np.int64)
    if a.shape != b.shape:
        raise ValueError("edge arrays differ in length")
    if a.size and (min(a.min(), b.min()) < 0 or max(a.max(), b.max()) >= n):
        raise ValueError("edge endpoint out of range")
    while a.size:
        pa, pb = parent[a], parent[b]
        split = pa != pb
        if not split.any():
            break
        a, b, pa, pb = a[split], b[split], pa[split], pb[split]
        np.minimum.at(parent, np.maximum(pa, pb), np.minimum(pa, pb))
        while True:  # pointer jumping until every node points at its root
            grand = parent[parent]
            if np.array_equal(grand, parent):
                break
            parent = grand
    return parent


@dataclass
class Clustering:
    """The result of one clustering run."""

    method: str
    min_resemblance: float
    min_containment: float | None
    max_df: int
    documents: int  # ordinary documents
    representatives: int  # after folding duplicates
    candidate_pairs: int  # pairs examined: above threshold (exact) or sharing a super shingle (super)
    linked_pairs: int  # links used for the components
    doc: np.ndarray  # int64, every ordinary document
    cluster: np.ndarray  # int64, its cluster id (smallest doc id in the cluster)
    representative: np.ndarray  # int64, the document it was folded into (itself if none)
    clusters: list[dict] = field(default_factory=list)  # clusters of >= 2 documents, largest first
    stored: bool = False
    seconds: dict = field(default_factory=dict)

    @property
    def clustered_documents(self) -> int:
        return int(sum(c["size"] for c in self.clusters))


def _check(min_resemblance: float, min_containment: float | None, method: str, s: int, length: int) -> None:
    if method not in METHODS:
        raise WinnowError(f"unknown clustering method {method!r} (choose from {', '.join(METHODS)})")
    if not 0.0 <= float(min_resemblance) <= 1.0:
        raise WinnowError(f"min-resemblance must be between 0 and 1, not {min_resemblance}")
    if min_containment is not None and not 0.0 < float(min_containment) <= 1.0:
        raise WinnowError(f"min-containment must be above 0 and at most 1, not {min_containment}")
    if method == "super":
        if min_containment is not None:
            raise WinnowError("super shingles cannot detect containment (a containing document's extra "
                              "hashes break the runs of its sketch); use --method exact with --min-containment")
        if int(s) < 1 or int(length) < 1:
            raise WinnowError("sketch size and super-shingle length must be positive whole numbers")
        if int(length) > int(s):
            raise WinnowError(f"super-shingle length {length} is longer than the sketch ({s} hashes)")


def cluster(reader, *, min_resemblance: float = 0.5, min_containment: float | None = None,
            method: str = "exact", s: int = DEFAULT_S, length: int = DEFAULT_SUPER_LENGTH,
            max_df: int | None = None, store: bool = True, details: bool = True) -> Clustering:
    """Cluster the ordinary documents of an open index's ``sides.Reader`` (see the module docstring).

    ``store`` writes the ``clusters`` table (needs an index opened writable); ``details`` builds
    the per-cluster report (members, tightest and loosest pair).
    """
    _check(min_resemblance, min_containment, method, s, length)
    if store and reader.store.read_only:
        raise WinnowError(f"cannot store clusters in {reader.store.path}: the index is open read-only")
    times: dict[str, float] = {}
    t0 = t = time.perf_counter()
    max_df = reader.max_df(max_df)
    reps = representatives(reader)
    rep_of = reps.fingerprint
    members = np.unique(rep_of)  # sorted; every representative is its own representative
    times["duplicates"] = time.perf_counter() - t

    t = time.perf_counter()
    with prepared(reader, docs=members, max_df=max_df, s=s if method == "super" else None):
        times["usable_hashes" if method == "exact" else "sketches"] = time.perf_counter() - t
        t = time.perf_counter()
        if method == "exact":
            tbl = reader.store.columns("cluster_pairs", min_resemblance=float(min_resemblance),
                                       min_containment=None if min_containment is None else float(min_containment))
            ea = np.asarray(tbl["a"], dtype=np.int64)
            eb = np.asarray(tbl["b"], dtype=np.int64)
            candidates = int(ea.shape[0])
            times["pairs"] = time.perf_counter() - t
        else:
            ca, cb = prepared_super_candidates(reader, int(length))
            candidates = int(ca.shape[0])
            times["super_shingles"] = time.perf_counter() - t
            t = time.perf_counter()
            if candidates:
                est = prepared_estimates(reader, ca, cb, int(s))
                keep = est["resemblance"] >= float(min_resemblance)
                ea, eb = est["a"][keep], est["b"][keep]
            else:
                ea = eb = np.empty(0, dtype=np.int64)
            times["estimates"] = time.perf_counter() - t

        t = time.perf_counter()
        sub_of = _submission_index(reps)
        row_a, row_b = np.searchsorted(reps.doc, ea), np.searchsorted(reps.doc, eb)
        cross = sub_of[row_a] != sub_of[row_b]  # a link inside one submission links nothing
        ea, eb, row_a, row_b = ea[cross], eb[cross], row_a[cross], row_b[cross]
        # a folded duplicate ties its submission to its representative's only when they share
        # usable material: two empty files, or two unchanged copies of the starter code, are
        # identical but say nothing about copying between their submissions
        with_usable = np.unique(reader.store.columns("usable_documents")["doc"].astype(np.int64))
        tied = np.isin(rep_of, with_usable)
        cluster_id, size, subs = _submission_clusters(reps, sub_of, row_a, row_b, tied)
        times["components"] = time.perf_counter() - t

        result = Clustering(method=method, min_resemblance=float(min_resemblance),
                            min_containment=None if min_containment is None else float(min_containment),
                            max_df=int(max_df), documents=len(reps), representatives=int(members.shape[0]),
                            candidate_pairs=candidates, linked_pairs=int(ea.shape[0]), doc=reps.doc,
                            cluster=cluster_id, representative=rep_of)
        if details:
            t = time.perf_counter()
            result.clusters = _describe(reader, reps, cluster_id, size, subs, sub_of)
            times["report"] = time.perf_counter() - t
    if store:
        t = time.perf_counter()
        _store(reader.store, result, size)
        result.stored = True
        times["store"] = time.perf_counter() - t
    times["total"] = time.perf_counter() - t0
    result.seconds = times
    return result


def _submission_index(reps: Representatives) -> np.ndarray:
    """For each document (row of ``reps``), the index of its submission."""
    return np.unique(np.array(reps.submission, dtype=object), return_inverse=True)[1].astype(np.int64)


def _submission_clusters(reps: Representatives, sub_of: np.ndarray, row_a: np.ndarray, row_b: np.ndarray,
                         tied: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(cluster id, cluster size in documents, cluster size in submissions) of every document.

    Nodes are submissions; edges are the links between documents of two submissions (rows
    ``row_a[i]``, ``row_b[i]`` of ``reps``) and the tie of every folded duplicate to its
    representative, where ``tied`` (default: all) says so. A cluster's id is its smallest doc id.
    """
    n = int(sub_of.max()) + 1 if sub_of.shape[0] else 0
    rep_row = np.searchsorted(reps.doc, reps.fingerprint)
    if tied is not None:
        rep_row = np.where(tied, rep_row, np.arange(rep_row.shape[0]))
    labels = connected_components(n, np.concatenate((sub_of[row_a], sub_of)),
                                  np.concatenate((sub_of[row_b], sub_of[rep_row])))
    first_doc = np.full(n, np.iinfo(np.int64).max, dtype=np.int64)
    np.minimum.at(first_doc, labels[sub_of], reps.doc)
    cluster_id = first_doc[labels[sub_of]]
    _, inverse, counts = np.unique(cluster_id, return_inverse=True, return_counts=True)
    subs = np.bincount(labels, minlength=n)[labels[sub_of]]
    return cluster_id, counts[inverse], subs


def _store(store, res: Clustering, size: np.ndarray) -> None:
    n = res.doc.shape[0]
    table = {  # numpy columns, in cluster_table_create.sql's order (an Arrow table would import pandas)
        "doc": res.doc.astype(np.int32),
        "cluster": res.cluster.astype(np.int32),
        "representative": res.representative.astype(np.int32),
        "cluster_size": size.astype(np.int32),
        "method": np.full(n, res.method, dtype=object),
        "min_resemblance": np.full(n, res.min_resemblance, dtype=np.float64),
        # None (no containment rule) stays NULL: an object column of None, not NaN
        "min_containment": (np.full(n, None, dtype=object) if res.min_containment is None
                            else np.full(n, res.min_containment, dtype=np.float64)),
        "max_df": np.full(n, res.max_df, dtype=np.int64),
        "clustered_at": np.full(n, np.datetime64(_dt.datetime.now(), "us")),
    }
    with store.transaction():
        store.run("cluster_table_create")
        store.run("cluster_table_clear")
        with store.relations(new_clusters=table):
            store.run("cluster_table_insert")


def _pair(paths: dict[int, str], a: int, b: int, resemblance: float, containment_a: float,
          containment_b: float, shared: int | None, kind: str) -> dict:
    return {"a": paths[a], "b": paths[b], "doc_a": int(a), "doc_b": int(b), "kind": kind,
            "resemblance": float(resemblance), "containment_a": float(containment_a),
            "containment_b": float(containment_b), "shared": None if shared is None else int(shared)}


_DUPLICATE_KINDS = ("identical", "lexical", "fingerprint")


def _describe(reader, reps: Representatives, cluster_id: np.ndarray, size: np.ndarray, subs: np.ndarray,
              sub_of: np.ndarray) -> list[dict]:
    """Clusters of two or more submissions: members, tightest and loosest pair of members from
    different submissions; largest first."""
    multi = subs >= 2
    if not multi.any():
        return []
    paths = reps.paths()
    sub_of_doc = dict(zip(reps.doc.tolist(), sub_of.tolist()))
    is_rep = reps.doc == reps.fingerprint
    # representatives in clusters with two or more representatives: count their pairs exactly
    rep_rows = np.flatnonzero(multi & is_rep)
    rep_cluster = cluster_id[rep_rows]
    uniq, rep_counts = np.unique(rep_cluster, return_counts=True)
    reps_in = dict(zip(uniq.tolist(), rep_counts.tolist()))
    # pairs of representatives from different submissions, per cluster: all pairs minus those
    # inside one submission
    same: dict[int, int] = {}
    groups, counts = np.unique(np.stack((rep_cluster, sub_of[rep_rows])), axis=1, return_counts=True)
    for c, k in zip(groups[0].tolist(), counts.tolist()):
        same[c] = same.get(c, 0) + k * (k - 1) // 2
    cross_pairs = {c: m * (m - 1) // 2 - same.get(c, 0) for c, m in reps_in.items()}
    several = np.isin(rep_cluster, uniq[rep_counts >= 2])
    pairs_by_cluster: dict[int, dict] = {}
    if several.any():
        assignment = {"doc": reps.doc[rep_rows[several]].astype(np.int32),
                      "cluster": rep_cluster[several].astype(np.int32)}
        with reader.store.relations(cluster_assignment=assignment):  # reads the prepared usable_hashes
            tbl = reader.store.columns("cluster_member_pairs")
        pc = np.asarray(tbl["cluster"], dtype=np.int64)
        if pc.shape[0]:
            order = np.lexsort((np.asarray(tbl["b"]), np.asarray(tbl["a"]), -np.asarray(tbl["resemblance"]), pc))
            cols = {k: np.asarray(v)[order] for k, v in tbl.items()}
            pc = cols["cluster"].astype(np.int64)
            bounds = np.flatnonzero(np.concatenate(([True], pc[1:] != pc[:-1], [True])))
            for lo, hi in zip(bounds[:-1], bounds[1:]):
                pairs_by_cluster[int(pc[lo])] = {k: v[lo:hi] for k, v in cols.items()}

    out = []
    rows = np.flatnonzero(multi)
    rows = rows[np.lexsort((reps.doc[rows], cluster_id[rows]))]
    bounds = np.flatnonzero(np.concatenate(([True], cluster_id[rows][1:] != cluster_id[rows][:-1], [True])))
    for lo, hi in zip(bounds[:-1], bounds[1:]):
        crow = rows[lo:hi]
        cid = int(cluster_id[crow[0]])
        docs = reps.doc[crow]
        all_folded = crow[~is_rep[crow]]
        # duplicate pairs reported are those across two submissions
        folded = all_folded[sub_of[all_folded] != sub_of[np.searchsorted(reps.doc, reps.fingerprint[all_folded])]]
        dup = dup_loose = None
        if folded.shape[0]:  # folded duplicates: the finest kind is the tightest pair, the coarsest the loosest
            rep_rows = np.searchsorted(reps.doc, reps.fingerprint[folded])
            rank = np.where(reps.identical[folded] == reps.identical[rep_rows], 0,
                            np.where(reps.lexical[folded] == reps.lexical[rep_rows], 1, 2))
            dup, dup_loose = (_pair(paths, int(reps.doc[rep_rows[i]]), int(reps.doc[folded[i]]), 1.0, 1.0, 1.0,
                                    int(reps.fingerprints[folded[i]]), _DUPLICATE_KINDS[int(rank[i])])
                              for i in (int(np.argmin(rank)), int(np.argmax(rank))))
        m = reps_in.get(cid, 0)
        got = pairs_by_cluster.get(cid)
        tight, loose = dup, dup_loose
        if got is not None:
            best = _pair(paths, int(got["a"][0]), int(got["b"][0]), got["resemblance"][0], got["containment_a"][0],
                         got["containment_b"][0], got["shared"][0], "similar")
            worst = _pair(paths, int(got["a"][-1]), int(got["b"][-1]), got["resemblance"][-1],
                          got["containment_a"][-1], got["containment_b"][-1], got["shared"][-1], "similar")
            if got["a"].shape[0] < cross_pairs[cid]:
                worst = _missing_pair(paths, reps.doc[crow[is_rep[crow]]], got["a"], got["b"], sub_of_doc)
            tight = dup if dup is not None and dup["resemblance"] >= best["resemblance"] else best
            loose = worst
        elif cross_pairs.get(cid, 0):  # representatives of several submissions, none sharing a usable hash
            rdocs = reps.doc[crow[is_rep[crow]]]
            loose = _missing_pair(paths, rdocs, np.empty(0, np.int64), np.empty(0, np.int64), sub_of_doc)
            tight = dup if dup is not None else loose
        member_subs = [reps.submission[i] for i in crow.tolist()]
        out.append({"cluster": cid, "size": int(docs.shape[0]), "submissions": sorted(set(member_subs)),
                    "member_submissions": member_subs, "representatives": int(m),
                    "duplicates": int(all_folded.shape[0]), "members": [paths[int(x)] for x in docs.tolist()],
                    "docs": docs.tolist(), "tightest": tight, "loosest": loose})
    out.sort(key=lambda c: (-c["size"], c["cluster"]))
    return out


def _missing_pair(paths: dict[int, str], rdocs: np.ndarray, a: np.ndarray, b: np.ndarray,
                  sub_of_doc: dict[int, int]) -> dict:
    """A pair of representatives of different submissions that shares no usable hash
    (resemblance 0); there must be one."""
    rdocs = np.sort(rdocs).tolist()
    partners: dict[int, set] = {int(x): {d for d in rdocs if sub_of_doc[d] == sub_of_doc[x]} for x in rdocs}
    for x, y in zip(a.tolist(), b.tolist()):
        partners[int(x)].add(int(y))
        partners[int(y)].add(int(x))
    x = min((d for d in partners if len(partners[d]) < len(rdocs)), key=lambda d: (len(partners[d]), d))
    y = next(int(d) for d in rdocs if d not in partners[x])
    a_, b_ = min(x, y), max(x, y)
    return _pair(paths, a_, b_, 0.0, 0.0, 0.0, 0, "similar")
