"""Broder's syntactic clustering commands: duplicates, clusters."""
from __future__ import annotations

from enum import Enum
from typing import List, Optional

import typer

from .app import DbOption, Format, FormatOption, MaxDfOption, _console, _Guard, _open, app


class Level(str, Enum):
    identical = "identical"
    lexical = "lexical"
    fingerprint = "fingerprint"


class Method(str, Enum):
    exact = "exact"
    super = "super"


def _shown_folder(path_lists: list[list[str]], limit: int, also: list[str] = ()) -> tuple[str, list[str]]:
    """The folder shared by the paths a table shows (the first ``limit`` of each list, and every
    path in ``also``: ``report.common_folder``) and its caption. Paths, folder and cells are
    left raw: ``report.emit_rows`` makes them safe for the terminal."""
    from ..report import common_folder, folder_note, relative_path

    shown = [p for paths in path_lists for p in paths[:limit]] + list(also)
    folder = common_folder(relative_path(p) for p in shown)
    return folder, ([folder_note(folder)] if folder else [])


def _members_cell(paths: list[str], limit: int, folder: str = "") -> str:
    from ..report import below, relative_path

    shown = [below(relative_path(p), folder) for p in paths[:limit]]
    if len(paths) > limit:
        shown.append(f"… and {len(paths) - limit} more")
    return "\n".join(shown)


def _pair_cell(pair: dict | None, folder: str = "") -> str:
    from ..report import below, relative_path

    if pair is None:
        return ""
    how = f"{100 * pair['resemblance']:.1f}%" if pair["kind"] == "similar" else pair["kind"]
    return f"{how}\n{below(relative_path(pair['a']), folder)}\n{below(relative_path(pair['b']), folder)}"


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
    from ..duplicates import LEVELS, find_duplicates

    levels = tuple(lv.value for lv in level) if level else LEVELS
    with _Guard():
        with _open(db, create=False, read_only=True) as idx:
            groups = find_duplicates(idx, levels)
    con = _console()
    if fmt is Format.json:
        import json

        con.out(json.dumps([{k: g[k] for k in ("level", "group", "size", "representative", "members",
                                               "fingerprints")} for g in groups], indent=2), highlight=False)
        return
    from ..report import emit_rows

    if fmt is Format.csv:
        rows = [{"level": g["level"], "group": g["group"], "size": g["size"], "doc": d, "path": p,
                 "representative": g["representative"]}
                for g in groups for d, p in zip(g["docs"], g["members"])]
        emit_rows(con, rows, ["level", "group", "size", "doc", "path", "representative"], "csv")
        return
    folder, notes = _shown_folder([g["members"] for g in groups], max_members)
    rows = [{"level": g["level"], "size": g["size"], "fingerprints": g["fingerprints"],
             "members": _members_cell(g["members"], max_members, folder)} for g in groups]
    emit_rows(con, rows, ["level", "size", "fingerprints", "members"], "table",
              title="duplicate documents", empty="no duplicate documents", notes=notes)


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
    from ..clusters import cluster

    with _Guard():
        with _open(db, create=False) as idx:
            res = cluster(idx, min_resemblance=min_resemblance, min_containment=min_containment,
                          method=method.value, s=sketch, length=super_length, max_df=max_df)
    shown = res.clusters if not top else res.clusters[:top]
    con = _console()
    err = _console(stderr=True)
    from ..report import emit_rows

    if fmt is Format.json:
        import json

        con.out(json.dumps([{k: v for k, v in c.items() if k not in ("docs", "member_submissions")}
                            for c in shown], indent=2),
                highlight=False)
    elif fmt is Format.csv:
        rows = []
        for c in shown:
            t, lo = c["tightest"] or {}, c["loosest"] or {}
            for d, p, sub in zip(c["docs"], c["members"], c["member_submissions"]):
                rows.append({"cluster": c["cluster"], "size": c["size"], "doc": d, "path": p, "submission": sub,
                             "tightest_a": t.get("a"), "tightest_b": t.get("b"),
                             "tightest_resemblance": t.get("resemblance"), "tightest_kind": t.get("kind"),
                             "loosest_a": lo.get("a"), "loosest_b": lo.get("b"),
                             "loosest_resemblance": lo.get("resemblance"), "loosest_kind": lo.get("kind")})
        emit_rows(con, rows, ["cluster", "size", "doc", "path", "submission", "tightest_a", "tightest_b",
                              "tightest_resemblance", "tightest_kind", "loosest_a", "loosest_b",
                              "loosest_resemblance", "loosest_kind"], "csv")
    else:
        pair_paths = [p for c in shown for pair in (c["tightest"], c["loosest"]) if pair for p in (pair["a"], pair["b"])]
        folder, notes = _shown_folder([c["members"] for c in shown], max_members, pair_paths)
        rows = [{"cluster": c["cluster"], "size": c["size"], "members": _members_cell(c["members"], max_members, folder),
                 "tightest pair": _pair_cell(c["tightest"], folder), "loosest pair": _pair_cell(c["loosest"], folder)}
                for c in shown]
        emit_rows(con, rows, ["cluster", "size", "members", "tightest pair", "loosest pair"], "table",
                  title="clusters of similar documents", empty="no two documents are similar enough to cluster",
                  notes=notes)
    threshold = f"resemblance >= {res.min_resemblance:g}"
    if res.min_containment is not None:
        threshold += f" or containment >= {res.min_containment:g}"
    err.print(f"{res.documents} documents ({res.representatives} after folding duplicates), "
              f"{res.linked_pairs} linked pairs ({threshold}, {res.method}), "
              f"{len(res.clusters)} clusters of 2+ holding {res.clustered_documents} documents; "
              f"stored in table clusters; {res.seconds.get('total', 0.0):.2f}s",
              markup=False, highlight=False)
