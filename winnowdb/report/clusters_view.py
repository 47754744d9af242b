"""``duplicates`` and ``clusters`` for people and programs: groups of documents as a table (a cell
lists its members, one path per line, below the folder they share), as JSON, or as CSV with one
row per member."""
from __future__ import annotations

from typing import Sequence

from .paths import below, common_folder, folder_note, relative_path
from .tables import emit_rows
from .writers import write_json, write_json_rows

__all__ = ["show_duplicates", "show_clusters", "members_cell", "pair_cell", "shown_folder",
           "DUPLICATE_FIELDS", "CLUSTER_CSV"]

DUPLICATE_FIELDS = ["level", "group", "size", "representative", "members", "fingerprints"]
CLUSTER_CSV = ["cluster", "size", "doc", "path", "submission", "tightest_a", "tightest_b", "tightest_resemblance",
               "tightest_kind", "loosest_a", "loosest_b", "loosest_resemblance", "loosest_kind"]


def shown_folder(path_lists: list[list[str]], limit: int, also: Sequence[str] = ()) -> tuple[str, list[str]]:
    """The folder shared by the paths a table shows (the first ``limit`` of each list, and every
    path in ``also``: ``paths.common_folder``) and its caption. Paths, folder and cells are left
    raw: ``tables.emit_rows`` makes them safe for the terminal."""
    shown = [p for paths in path_lists for p in paths[:limit]] + list(also)
    folder = common_folder(relative_path(p) for p in shown)
    return folder, ([folder_note(folder)] if folder else [])


def members_cell(paths: list[str], limit: int, folder: str = "") -> str:
    """The first ``limit`` member paths, one per line below ``folder``, and how many more."""
    shown = [below(relative_path(p), folder) for p in paths[:limit]]
    if len(paths) > limit:
        shown.append(f"… and {len(paths) - limit} more")
    return "\n".join(shown)


def pair_cell(pair: dict | None, folder: str = "") -> str:
    """A tightest or loosest pair: its resemblance (or duplicate kind), then its two paths."""
    if pair is None:
        return ""
    how = f"{100 * pair['resemblance']:.1f}%" if pair["kind"] == "similar" else pair["kind"]
    return f"{how}\n{below(relative_path(pair['a']), folder)}\n{below(relative_path(pair['b']), folder)}"


def show_duplicates(console, groups: list[dict], fmt: str, *, max_members: int = 10) -> None:
    """Duplicate groups: JSON (the groups), CSV (one row per member) or a table."""
    if fmt == "json":
        write_json_rows(groups, DUPLICATE_FIELDS)
        return
    if fmt == "csv":
        rows = [{"level": g["level"], "group": g["group"], "size": g["size"], "doc": d, "path": p,
                 "representative": g["representative"]}
                for g in groups for d, p in zip(g["docs"], g["members"])]
        emit_rows(console, rows, ["level", "group", "size", "doc", "path", "representative"], "csv")
        return
    folder, notes = shown_folder([g["members"] for g in groups], max_members)
    rows = [{"level": g["level"], "size": g["size"], "fingerprints": g["fingerprints"],
             "members": members_cell(g["members"], max_members, folder)} for g in groups]
    emit_rows(console, rows, ["level", "size", "fingerprints", "members"], "table",
              title="duplicate documents", empty="no duplicate documents", notes=notes)


def show_clusters(console, clusters: list[dict], fmt: str, *, max_members: int = 10) -> None:
    """Clusters: JSON (the clusters), CSV (one row per member, with the cluster's tightest and
    loosest pair) or a table."""
    if fmt == "json":
        write_json([{k: v for k, v in c.items() if k not in ("docs", "member_submissions")} for c in clusters])
        return
    if fmt == "csv":
        rows = []
        for c in clusters:
            t, lo = c["tightest"] or {}, c["loosest"] or {}
            for d, p, sub in zip(c["docs"], c["members"], c["member_submissions"]):
                rows.append({"cluster": c["cluster"], "size": c["size"], "doc": d, "path": p, "submission": sub,
                             "tightest_a": t.get("a"), "tightest_b": t.get("b"),
                             "tightest_resemblance": t.get("resemblance"), "tightest_kind": t.get("kind"),
                             "loosest_a": lo.get("a"), "loosest_b": lo.get("b"),
                             "loosest_resemblance": lo.get("resemblance"), "loosest_kind": lo.get("kind")})
        emit_rows(console, rows, CLUSTER_CSV, "csv")
        return
    pair_paths = [p for c in clusters for pair in (c["tightest"], c["loosest"]) if pair for p in (pair["a"], pair["b"])]
    folder, notes = shown_folder([c["members"] for c in clusters], max_members, pair_paths)
    rows = [{"cluster": c["cluster"], "size": c["size"], "members": members_cell(c["members"], max_members, folder),
             "tightest pair": pair_cell(c["tightest"], folder), "loosest pair": pair_cell(c["loosest"], folder)}
            for c in clusters]
    emit_rows(console, rows, ["cluster", "size", "members", "tightest pair", "loosest pair"], "table",
              title="clusters of similar documents", empty="no two documents are similar enough to cluster",
              notes=notes)
