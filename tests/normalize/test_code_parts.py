"""``code_parts``: the identifiers, literals and comments of code, which ``compare`` and the
report show apart as the evidence of a code pair by kind (issue 21)."""
from __future__ import annotations

from winnowdb.normalize.code import code_parts


def test_python_names_literals_comments_and_docstrings():
    src = ('def area(radius):\n'
           '    """The area of a circle."""\n'
           '    # pi times r squared\n'
           '    return 3.14159 * radius ** 2  # approx\n'
           'label = f"{area(2)}" + rb"raw" + \'x\'\n')
    parts = code_parts(src, "python")
    assert parts.identifiers == ["area", "radius", "radius", "label"]  # no keyword, no string prefix
    assert parts.literals == ['"{area(2)}"', '"raw"', "'x'", "3.14159", "2"]  # an f-string's inside is its text
    assert parts.comments == ['"""The area of a circle."""', "# pi times r squared", "# approx"]


def test_java_and_c_hex_numbers_and_block_comments():
    parts = code_parts('/* block */ int main() { String s = "x"; // line\n return 0x1F; }', "java")
    assert parts.identifiers == ["main", "String", "s"]  # not the "x1F" of 0x1F
    assert parts.literals == ['"x"', "0x1F"]
    assert parts.comments == ["/* block */", "// line"]
    parts = code_parts('char c = L\'a\'; const char *s = u8"x"; /* c */', "cpp")
    assert parts.identifiers == ["c", "s"] and parts.literals == ["'a'", '"x"'] and parts.comments == ["/* c */"]


def test_a_language_pygments_reads():
    parts = code_parts("local count = 1 -- how many\nprint('hi')\n", "lua")
    assert "count" in parts.identifiers and "print" in parts.identifiers
    assert "1" in parts.literals and "-- how many" in parts.comments


def test_nothing_of_a_kind_is_empty():
    assert code_parts("", "python") == ([], [], [])
    assert code_parts("x = y\n", "python").comments == []
