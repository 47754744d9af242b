"""An add's tallies: what each stored span of its fingerprint rows adds to the statistics
(``stats.Tally``), kept from when the span is stored until the add's documents are indexed
(``store.runs``): in memory, or, for a big add, in its spill folder."""
from __future__ import annotations

import os

import numpy as np

from . import stats

__all__ = ["Tallies"]


class Tallies:
    """Each stored span's ``stats.Tally``, kept until the documents are indexed: in memory, or
    in the run's spill folder when it has one (a big add: its tallies hold a hash and a count per
    distinct hash, 16 bytes each; in a first add, per hash of two or more documents alone:
    ``stats.Tally.singles``)."""

    def __init__(self, folder: str | None) -> None:
        self.folder = folder
        self._kept: dict[tuple[int, int], stats.Tally | None] = {}

    def put(self, span: tuple[int, int], tally: stats.Tally) -> None:
        if self.folder is None:
            self._kept[span] = tally
            return
        for name in stats.Tally.FIELDS:
            getattr(tally, name).tofile(self._file(span, name))
        self._kept[span] = None

    def spans(self) -> list[tuple[int, int]]:
        return list(self._kept)

    def get(self, span: tuple[int, int]) -> stats.Tally:
        tally = self._kept[span]
        if tally is not None:
            return tally
        return stats.Tally(*(np.fromfile(self._file(span, name), dtype=np.int64) for name in stats.Tally.FIELDS))

    def _file(self, span: tuple[int, int], name: str) -> str:
        assert self.folder is not None
        return os.path.join(self.folder, f"tally-{span[0]:02d}-{span[1]:02d}.{name}")
