"""Spill folders: where a big add keeps its fingerprint rows until it stores them (``runs``).

A spill folder is made beside the index (the same disk, which must hold the index anyway), named
for the index file and the process that made it: ``.winnowdb-spill-<index file>-<pid>-<random>``.
It is removed however the add ends, except when the process is killed outright (SIGKILL, out of
memory, power loss); the next add to the same index then removes the folders of its killed
predecessors (an index has one writer at a time, and a folder whose process is still running is
never touched), so a killed add does not leave gigabytes behind for good.
"""
from __future__ import annotations

import os
import shutil
import tempfile

__all__ = ["SPILL_PREFIX", "spill_folder", "stale_spill_folders"]

SPILL_PREFIX = ".winnowdb-spill-"


def _prefix(db_path: str) -> str:
    return f"{SPILL_PREFIX}{os.path.basename(db_path)}-"


def stale_spill_folders(db_path: str) -> list[str]:
    """The spill folders beside the index at ``db_path`` that a process no longer running made
    for it (named ``spill_folder``'s way; folders of other indexes, or of another naming, are
    never listed)."""
    folder = os.path.dirname(os.path.abspath(db_path))
    prefix = _prefix(db_path)
    stale = []
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return []
    for entry in entries:
        if not entry.name.startswith(prefix) or not entry.is_dir(follow_symlinks=False):
            continue
        pid = entry.name[len(prefix):].split("-", 1)[0]
        if pid.isdigit() and not _running(int(pid)):
            stale.append(entry.path)
    return stale


def _running(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError, OSError):
        return True  # someone else's process, or cannot tell: leave its folder
    return True


def spill_folder(db_path: str) -> str:
    """A new spill folder for an add to the index at ``db_path``, beside it (after removing the
    folders killed adds to it left there), or in the temporary folder for an index kept in
    memory or beside which none can be made."""
    if db_path == ":memory:":
        return tempfile.mkdtemp(prefix=SPILL_PREFIX)
    for stale in stale_spill_folders(db_path):
        shutil.rmtree(stale, ignore_errors=True)
    try:
        return tempfile.mkdtemp(prefix=f"{_prefix(db_path)}{os.getpid()}-",
                                dir=os.path.dirname(os.path.abspath(db_path)))
    except OSError:
        return tempfile.mkdtemp(prefix=SPILL_PREFIX)
