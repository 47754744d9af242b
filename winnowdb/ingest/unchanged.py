"""Which files an add may take for unchanged without reading them: by their size and times.

A re-add of a folder (``winnowdb add corpus/`` again, with a few files new or edited) reads only
what changed: a file whose size, modification time and status change time are still those
recorded when it was indexed (``documents.mtime_ns``, ``documents.ctime_ns``), and whose
placement (kind, label, submission) is the same, is unchanged. Every other indexed file is read
and its content hash compared, as before; one found unchanged that way gets its times recorded,
so the next add need not read it.

The times recorded are those of the walk's ``stat`` (``walk.Listed``), and only when the open
file still had that size and those times just before it was read (``read.Source.stamp``): a file
replaced in between by another version is recorded without times. And only when its modification
time had settled, ``SETTLED_NS`` or more before the walk looked (``Listed.seen_ns``): a file
written twice within a clock tick of the file system just before the walk might keep the time of
the first write with the content of the second, so such a time is not trusted (recorded NULL:
the file is read next time). A write after the walk's ``stat`` gives the file a newer time.

The status change time is what makes a restored modification time visible: ``touch -d``,
``cp -p``, ``rsync -a`` and ``tar``/``unzip`` set the modification time a file had elsewhere (a
zip's files may all carry the same one), but the status change time is the kernel's own, set to
now by any write or metadata change, and no user can set it back. (This is ``git``'s check too,
which also compares inodes; ``rsync``'s default compares size and modification time only.) What
stays unseen is a system clock set back, or a file system without such times.
"""
from __future__ import annotations

from .walk import Listed

__all__ = ["SETTLED_NS", "recorded_times", "same_file"]

#: how long before the walk a file's modification time must be for it to be recorded (2 s: the
#: coarsest clock tick of the usual file systems, FAT's)
SETTLED_NS = 2_000_000_000


def recorded_times(listed: Listed, stamp: tuple) -> tuple[int, int]:
    """(mtime_ns, ctime_ns) to record for a file the walk listed and that was then read with
    ``stamp`` (``read.Source.stamp``: size and times of the open file): the walk's, when the read
    saw the same and the modification time had settled; else (0, 0): not recorded (NULL)."""
    if tuple(stamp) != (listed.size, listed.mtime_ns, listed.ctime_ns):
        return 0, 0
    if not (0 < listed.mtime_ns <= listed.seen_ns - SETTLED_NS) or listed.ctime_ns <= 0:
        return 0, 0
    return listed.mtime_ns, listed.ctime_ns


def same_file(listed: Listed, stored_bytes: int, stored_mtime: int | None, stored_ctime: int | None) -> bool:
    """Whether a listed file still has the size and (recorded) times stored for it."""
    return (bool(stored_mtime) and bool(stored_ctime) and listed.size == stored_bytes
            and listed.mtime_ns == stored_mtime and listed.ctime_ns == stored_ctime)
