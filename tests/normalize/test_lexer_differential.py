"""The fast code tokenizer against a real lexer: Pygments' token stream over real files.

Each fixture in lexer_fixtures/ is a small program of one language, written as people write it
(its literals, comments, numbers and odd corners); ``reference_tokens`` maps Pygments' reading of
it into winnowdb's token classes, and the fast path must give exactly that, span for span. The
constructs the fixtures cannot hold all at once are checked one by one further down, against
the tokens the language's own grammar gives.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from .reference_tokens import differences, fast_tokens, reference_tokens

FIXTURES = Path(__file__).resolve().parent / "lexer_fixtures"

#: fixture -> (the language winnowdb reads it as, the Pygments lexer that checks it)
FIXTURE_LANG = {
    "Library.java": ("java", None),
    "server.go": ("go", None),
    "Gradebook.cs": ("csharp", None),
    "report.py": ("python", None),
    "wordfreq.c": ("c", None),
}


@pytest.mark.parametrize("name", sorted(FIXTURE_LANG))
def test_fast_tokens_match_pygments(name):
    lang, lexer = FIXTURE_LANG[name]
    text = (FIXTURES / name).read_text(encoding="utf-8")
    assert len(reference_tokens(text, lang, lexer)) > 300  # a real program, not an empty reading
    assert differences(text, lang, lexer) == []


def test_a_difference_is_reported_with_its_line():
    """The comparison can fail: read by another language's lexer (Python's, to which ``//`` is an
    operator), Java with a comment differs on the comment's line, and only there."""
    text = "int x = 1;\nint y = x // 2;\nint z = 3;\n"
    assert differences(text, "java") == []
    found = differences(text, "java", lexer_name="python")
    assert len(found) == 1 and found[0].startswith("line 2: pygments '/' '/' number:'2'"), found


def read(text: str, lang: str) -> list[tuple[str, str]]:
    """(kind, text) of each token winnowdb reads."""
    return [(kind, text[s:e]) for kind, s, e in fast_tokens(text, lang)]


# ================================================================== constructs, one by one
@pytest.mark.parametrize("lang,text", [
    ("c", "#define TWICE(x) \\\n    ((x) + (x))\nint y = TWICE(2);\n"),
    ("cpp", "#define TWICE(x) \\\r\n    ((x) + (x))\r\nint y = TWICE(2);\r\n"),
    ("python", "total = first + \\\n    second\nprint(total)\n"),
])
def test_a_backslash_that_continues_a_line_is_white_space(lang, text):
    assert "\\" not in [t for _, t in read(text, lang)]
    one_line = text.replace("\\\r\n", " ").replace("\\\n", " ")
    assert [k for k, _ in read(text, lang)] == [k for k, _ in read(one_line, lang)]
    assert differences(text, lang) == []
    assert ("\\", "\\") in read("x = a \\ b\n", lang)  # any other backslash is still a token


@pytest.mark.parametrize("lang,text,literal", [
    ("python", 'doc = """ends in a quote\\""""\nx = 1\n', '"""ends in a quote\\""""'),
    ("python", "doc = '''it\\'''s'''\nx = 1\n", "'''it\\'''s'''"),
    ("java", 'String doc = """\n    a \\""" inside\n    """;\nint x = 1;\n', '"""\n    a \\""" inside\n    """'),
])
def test_an_escaped_quote_does_not_end_a_triple_quoted_string(lang, text, literal):
    tokens = read(text, lang)
    assert [t for k, t in tokens if k == "string"] == [literal]
    assert [t for k, t in tokens if k == "ident"][-1] == "x" and ("number", "1") in tokens
    assert differences(text, lang) == []
