"""Line numbers of character offsets in a document's text (1-based, as editors count them)."""
from __future__ import annotations

import bisect
import re

__all__ = ["LineIndex"]


class LineIndex:
    """Line numbers of character offsets in one text (by bisecting its newline offsets)."""

    def __init__(self, text: str):
        self.newlines = [m.start() for m in re.finditer("\n", text)]

    def line(self, offset: int) -> int:
        """The 1-based line of the character at ``offset``."""
        return bisect.bisect_left(self.newlines, offset) + 1

    def span(self, start: int, end: int) -> tuple[int, int]:
        """First and last 1-based line of text[start:end]."""
        return self.line(start), self.line(max(start, end - 1))
