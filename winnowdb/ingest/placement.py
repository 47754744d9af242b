"""Where each file of an ``add`` belongs: its submission and its label.

``--submission-depth`` makes every folder at that depth below a given path one submission (MOSS
``-d``); ``--label`` tags documents (a year, for archive mode). An option not given keeps what the
index already says, so re-adding a folder never rewrites what was set before.
"""
from __future__ import annotations

from pathlib import Path

__all__ = ["Placement", "submission_of"]


def submission_of(path: Path, root: Path | None, depth: int | None) -> str:
    """The submission of a file found under the folder argument ``root``: the folder ``depth``
    levels below it (the file itself when it lies higher, or without a depth)."""
    if depth is None or root is None:
        return str(path)
    try:
        parts = path.relative_to(root).parts
    except ValueError:
        return str(path)
    if len(parts) <= depth:
        return str(path)
    return str(root.joinpath(*parts[:depth]))


class Placement:
    """Where one file of an ``add`` belongs: its (submission, label).

    Given options decide: ``--submission-depth`` (``submission_of``) and ``--label``. An option
    not given keeps what the index already says, so re-adding a folder to pick up new or changed
    files never rewrites submissions or labels set before: an indexed file keeps its own; a new
    file inside the folder of an existing submission joins it (a late file of a student's
    submission) and takes its label; any other file is its own submission, unlabelled.
    """

    def __init__(self, store, stored: dict[str, tuple[str | None, str]], label: str | None,
                 depth: int | None) -> None:
        self.label, self.depth = label, depth
        #: path -> (label, submission) of the indexed documents among this add's files
        self.stored = stored
        #: folder submission (not a file that is its own) -> the label all its files share, or None
        self.folders: dict[str, str | None] = store.folder_submissions()

    def __call__(self, spath: str, root: str | None) -> tuple[str, str | None]:
        """(submission, label) of the file at resolved path ``spath``, found under the resolved
        folder argument ``root`` (None: named itself)."""
        before = self.stored.get(spath)
        if self.depth is not None:
            submission = submission_of(Path(spath), Path(root) if root is not None else None, self.depth)
        elif before is not None:
            submission = before[1]
        elif self.folders:
            submission = next((str(d) for d in Path(spath).parents if str(d) in self.folders), spath)
        else:
            submission = spath
        label: str | None
        if self.label is not None:
            label = self.label
        elif before is not None:
            label = before[0]
        else:  # a new file takes the label of the folder submission it belongs to, if any
            label = self.folders.get(submission)
        return submission, label
