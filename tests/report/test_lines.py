"""Line numbers of character offsets: what compare, its JSON and the HTML report print."""
from __future__ import annotations

from winnowdb.report.lines import LineIndex


def test_line_numbers_of_offsets():
    """A newline belongs to the line it ends; an empty line has a number of its own."""
    lines = LineIndex("one\ntwo two\n\nfour")
    assert [lines.line(o) for o in (0, 3, 4, 11, 12, 13, 16)] == [1, 1, 2, 2, 3, 4, 4]


def test_a_span_ends_on_the_line_of_its_last_character():
    text = "one\ntwo\nthree\n"
    lines = LineIndex(text)
    assert lines.span(0, 4) == (1, 1)  # "one\n": the newline is still line 1
    assert lines.span(0, 5) == (1, 2)
    assert lines.span(4, 4) == (2, 2)  # an empty span is on the line where it starts
    assert lines.span(text.index("three"), len(text)) == (3, 3)
