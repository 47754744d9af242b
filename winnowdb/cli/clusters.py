"""Broder's syntactic clustering commands: duplicates, clusters."""
from __future__ import annotations

from enum import Enum
from typing import List, Optional

import typer

from .app import DbOption, Format, FormatOption, Guard, MaxDfOption, app, console, open_index
from .waiting import waiting_on


class Level(str, Enum):
    identical = "identical"
    lexical = "lexical"
    fingerprint = "fingerprint"


class Method(str, Enum):
    exact = "exact"
    super = "super"


@app.command()
def duplicates(
    db: Optional[str] = DbOption,
    level: Optional[List[Level]] = typer.Option(
        None, "--level", "-l",
        help="Only these kinds (repeat the option): identical, lexical, fingerprint. Default: all."),
    max_members: int = typer.Option(10, "--max-members", min=1, help="Members listed per group in the table."),
    fmt: Format = FormatOption,
) -> None:
    """Groups of duplicate documents, Broder's three kinds, each from a hash stored at add time.

    identical: same raw bytes. lexical: same normalized text (only spacing, case, punctuation or
    markup differ). fingerprint: same set of fingerprints. Each kind contains the one before; a
    lexical group is listed only when its members are not all identical, a fingerprint group only
    when they are not all lexically equivalent. JSON: a list of groups (level, group, size,
    representative, members, fingerprints). CSV: one row per member.
    """
    from ..analysis.duplicates import LEVELS, find_duplicates

    levels = tuple(lv.value for lv in level) if level else LEVELS
    with Guard():
        with open_index(db, create=False, read_only=True) as idx:
            with waiting_on(idx.store, "finding duplicates"):
                groups = find_duplicates(idx.reader, levels)
    from ..report.clusters_view import show_duplicates

    show_duplicates(console(), groups, fmt.value, max_members=max_members)


@app.command()
def clusters(
    db: Optional[str] = DbOption,
    min_resemblance: float = typer.Option(
        0.5, "--min-resemblance", "-r", min=0.0, max=1.0,
        help="Link two documents when their resemblance (shared / union of fingerprints) is at least this."),
    min_containment: Optional[float] = typer.Option(
        None, "--min-containment", "-c", min=0.0, max=1.0,
        help="Also link two documents when either is at least this much contained in the other "
             "(above 0, up to 1; exact method only)."),
    method: Method = typer.Option(
        Method.exact, "--method", "-m",
        help="exact: count every pair sharing fingerprints (Broder's <ID,ID,count>). super: the fast "
             "path, link documents sharing a super shingle of their sketches (misses short "
             "documents and containment)."),
    sketch: int = typer.Option(100, "--sketch", "-s", min=1, metavar="S",
                               help="Sketch size for --method super: the S smallest hashes."),
    super_length: int = typer.Option(6, "--super-length", min=1, metavar="L",
                                     help="Hashes per super shingle for --method super."),
    max_df: int = MaxDfOption,
    top: int = typer.Option(50, "--top", "-n", min=0, help="Show the N largest clusters (0 = all)."),
    max_members: int = typer.Option(10, "--max-members", min=1, help="Members listed per cluster in the table."),
    fmt: Format = FormatOption,
) -> None:
    """Cluster similar documents (Broder's syntactic clustering) and store the result.

    Duplicates are folded first; pairs above the threshold are linked; connected components are
    the clusters. Like pairs, clusters are of submissions (`add --submission-depth`): two
    submissions join when a document of one is linked to a document of the other, and files of
    one submission never make a cluster by themselves. Every document's cluster is stored in the
    table `clusters` (doc, cluster, representative, cluster_size, ...) for `winnowdb sql`. Shown:
    clusters of two or more submissions, largest first, with members and the tightest and loosest
    pair (the most and least similar two members of different submissions). JSON: a list of
    clusters. CSV: one row per member.
    """
    from ..analysis.clusters import cluster

    with Guard():
        with open_index(db, create=False) as idx:
            with waiting_on(idx.store, "clustering"):
                res = cluster(idx.reader, min_resemblance=min_resemblance, min_containment=min_containment,
                              method=method.value, s=sketch, length=super_length, max_df=max_df)
    shown = res.clusters if not top else res.clusters[:top]
    from ..report.clusters_view import show_clusters

    show_clusters(console(), shown, fmt.value, max_members=max_members)
    err = console(stderr=True)
    threshold = f"resemblance >= {res.min_resemblance:g}"
    if res.min_containment is not None:
        threshold += f" or containment >= {res.min_containment:g}"
    err.print(f"{res.documents} documents ({res.representatives} after folding duplicates), "
              f"{res.linked_pairs} linked pairs ({threshold}, {res.method}), "
              f"{len(res.clusters)} clusters of 2+ holding {res.clustered_documents} documents; "
              f"stored in table clusters; {res.seconds.get('total', 0.0):.2f}s",
              markup=False, highlight=False)
