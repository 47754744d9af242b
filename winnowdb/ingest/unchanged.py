"""Which files an add may take for unchanged without reading them: by their size and time.

A re-add of a folder (``winnowdb add corpus/`` again, with a few files new or edited) reads only
what changed: a file whose size and modification time are still those recorded when it was
indexed (``documents.mtime_ns``), and whose placement (kind, label, submission) is the same, is
unchanged. Every other indexed file is read and its content hash compared, as before; one found
unchanged that way gets its time recorded, so the next add need not read it.

A time is recorded only when it had settled: ``SETTLED_NS`` or more before the walk saw it
(``walk.Listed.seen_ns``). A file written again after the walk's ``stat`` gets a newer time
(unless the file system's clock lags by more than that); one written twice within a clock tick
of the file system just before the walk might keep the time of the first write with the content
of the second, so such a time is not trusted (recorded NULL: the file is read next time). This is
the rule ``git`` and ``rsync`` rely on; a file changed without a new time (a clock set back, or
``touch -d`` to its old time with the size kept) is taken for unchanged.
"""
from __future__ import annotations

from .walk import Listed

__all__ = ["SETTLED_NS", "recorded_mtime", "same_file"]

#: how long before the walk a file's time must be for it to be recorded (2 s: the coarsest
#: clock tick of the usual file systems, FAT's)
SETTLED_NS = 2_000_000_000


def recorded_mtime(listed: Listed) -> int:
    """The time to record for a file the walk listed: its ``mtime_ns`` once settled, else 0 (not
    recorded: NULL)."""
    return listed.mtime_ns if 0 < listed.mtime_ns <= listed.seen_ns - SETTLED_NS else 0


def same_file(listed: Listed, stored_bytes: int, stored_mtime: int | None) -> bool:
    """Whether a listed file still has the size and (recorded) time stored for it."""
    return bool(stored_mtime) and listed.size == stored_bytes and listed.mtime_ns == stored_mtime
