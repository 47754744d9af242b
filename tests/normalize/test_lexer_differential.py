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
from hypothesis import given, settings
from hypothesis import strategies as st

from winnowdb.normalize.code_syntax import FAST

from .reference_tokens import differences, fast_tokens, reference_tokens

FIXTURES = Path(__file__).resolve().parent / "lexer_fixtures"

#: fixture -> (the language winnowdb reads it as, the Pygments lexer that checks it)
FIXTURE_LANG = {
    "Library.java": ("java", None),
    "server.go": ("go", None),
    "Gradebook.cs": ("csharp", None),
    "report.py": ("python", None),
    "wordfreq.c": ("c", None),
    "matrix.cpp": ("cpp", None),
    "tokenize.rs": ("rust", None),
    "Scheduler.kt": ("kotlin", None),
    "markdown.js": ("javascript", None),
    "inventory.ts": ("javascript", "typescript"),  # TypeScript files are read as JavaScript
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


@pytest.mark.parametrize("lang,text,numbers", [
    ("python", "x = 1. + 2.j - 3.e-5 * 1.5e-3\n", ["1.", "2.j", "3.e-5", "1.5e-3"]),
    ("javascript", "const x = 1. + 2.E+3;\n", ["1.", "2.E+3"]),
    ("c", "double x = 1. + 1.f - 2.L;\n", ["1.", "1.f", "2.L"]),
    ("c", "double h = 0x1.8p3 + 0x1.8p-3 + 0xA.Bp+1 + 0x.8p1 + 0x1p-2;\n",
     ["0x1.8p3", "0x1.8p-3", "0xA.Bp+1", "0x.8p1", "0x1p-2"]),
    ("java", "double h = 0x1.8p-3 + 1.d;\nfloat f = 1.f;\n", ["0x1.8p-3", "1.d", "1.f"]),
    ("go", "h := 0x1p-2 + 0x1.Fp3 + 1.i\n", ["0x1p-2", "0x1.Fp3", "1.i"]),
    ("cpp", "auto n = 1'000'000 + 0xFF'FFu + 0b1010'1010;\n", ["1'000'000", "0xFF'FFu", "0b1010'1010"]),
    ("c", "int n = 1'000; /* C23 */\n", ["1'000"]),
])
def test_a_number_is_one_token_as_the_language_reads_it(lang, text, numbers):
    tokens = read(text, lang)
    assert [t for k, t in tokens if k == "number"] == numbers, tokens
    assert "string" not in [k for k, _ in tokens]


@pytest.mark.parametrize("lang,text,cut", [
    ("rust", "for i in 0..10 {}", "number:0 . . number:10"),
    ("rust", "let r = 1..=n;", "number:1 . . = ident:n"),
    ("rust", "let r = ..5;", ". . number:5"),
    ("kotlin", "for (i in 0..10) {}", "number:0 . . number:10"),
    ("rust", "let m = 1.max(2);", "number:1 . ident:max ( number:2 )"),  # a method of an integer
    ("kotlin", "val s = 2.toString()", "number:2 . ident:toString ( )"),
    ("python", "y = x2. real", "ident:x2 . ident:real"),  # a name's point is an operator
    ("python", "y = t.e5", "ident:t . ident:e5"),
    ("c", "switch (c) { case'a': return L'x' + u8'y'; }", "kw:case string:'a' : kw:return ident:L string:'x' +"
     " ident:u8 string:'y'"),
])
def test_a_point_or_quote_that_is_no_part_of_a_number(lang, text, cut):
    tokens = " ".join(f"{k}:{t}" if len(k) > 1 else k for k, t in read(text, lang))
    assert cut in tokens


RAW_STRINGS = [
    ("cpp", 'auto s = R"(a "quoted" C:\\dir\\)";\nint x = 1;\n', "R", '"(a "quoted" C:\\dir\\)"'),
    ("cpp", 'auto s = R"re(ends at )" only with )re";\nint x = 1;\n', "R", '"re(ends at )" only with )re"'),
    ("cpp", 'auto s = u8R"x(\n  "one" // two\n)x";\nint x = 1;\n', "u8R", '"x(\n  "one" // two\n)x"'),
    ("c", 'const char *s = LR"(say "hi")";\nint x = 1;\n', "LR", '"(say "hi")"'),  # a C++ header
    ("rust", 'let s = r#"a "quoted" word"#;\nlet x = 1;\n', "r", '#"a "quoted" word"#'),
    ("rust", 'let s = r##"holds "# inside"##;\nlet x = 1;\n', "r", '##"holds "# inside"##'),
    ("rust", 'let s = r"C:\\dir\\";\nlet x = 1;\n', "r", '"C:\\dir\\"'),
    ("rust", 'let s = br#"bytes "q""#;\nlet x = 1;\n', "br", '#"bytes "q""#'),
    ("csharp", 'var s = """\n    a "quoted" word\n    """;\nint x = 1;\n', "", '"""\n    a "quoted" word\n    """'),
    ("csharp", 'var s = """"holds """ inside"""";\nint x = 1;\n', "", '""""holds """ inside""""'),
    ("csharp", 'var s = $"""\n  {a} "b"\n  """;\nint x = 1;\n', "$", '"""\n  {a} "b"\n  """'),
    ("csharp", 'var s = @$"C:\\{dir}\\";\nint x = 1;\n', "", '@$"C:\\{dir}\\"'),
]

#: Pygments 2.21 ends every C# raw string at three quotes, though four open one that ends at four
PYGMENTS_MISREADS = {'""""holds """ inside""""'}


@pytest.mark.parametrize("lang,text,prefix,literal", RAW_STRINGS,
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(RAW_STRINGS)])
def test_a_raw_string_is_one_string_after_its_prefix(lang, text, prefix, literal):
    tokens = read(text, lang)
    strings = [i for i, (k, _) in enumerate(tokens) if k == "string"]
    assert [tokens[i][1] for i in strings] == [literal], tokens
    assert tokens[strings[0] - 1] == (("ident", prefix) if prefix else ("=", "="))
    assert tokens[-4:-1] == [("ident", "x"), ("=", "="), ("number", "1")]  # the code after it is intact
    if literal not in PYGMENTS_MISREADS:  # a .h file is read as C, and may be C++'s: C reads them too
        assert differences(text, lang, "cpp" if lang == "c" else None) == []


@pytest.mark.parametrize("text,literal", [
    ('val s = "${ "a${b}" }"\nval x = 1\n', '"${ "a${b}" }"'),
    ('val s = "n: ${if (n > 1) "many" else "one"}!"\nval x = 1\n', '"n: ${if (n > 1) "many" else "one"}!"'),
    ('val s = "${m["k"]} and $name"\nval x = 1\n', '"${m["k"]} and $name"'),
    ('val s = "${f { "}" }} \\${not}"\nval x = 1\n', '"${f { "}" }} \\${not}"'),
])
def test_a_kotlin_string_template_may_hold_strings(text, literal):
    tokens = read(text, "kotlin")
    assert [t for k, t in tokens if k == "string"] == [literal], tokens
    assert tokens[-3:] == [("ident", "x"), ("=", "="), ("number", "1")]
    assert differences(text, "kotlin") == []


@pytest.mark.parametrize("text,literals", [
    ("s = s.replace(/'/g, 'x'); let t = 'y';", ["/'/g", "'x'", "'y'"]),
    ("const r = /[/]/; const q = 1;", ["/[/]/"]),
    ("const trim = (p: string): string => p.replace(/[/\\\\]+$/, '');", ["/[/\\\\]+$/", "''"]),  # TypeScript
    ("if (/^a/.test(s)) f(a / 2, b / 3);", ["/^a/"]),
    ("return /x/.test(s) ? a : b / c;", ["/x/"]),
    ("f(\n  /re\"/g,\n  1 / 2 / 3\n);", ['/re"/g']),
    ("const a = x / y / z; const b = (a) / 2 / (c) / d[0] / 4;", []),  # division, never a literal
    ("x = a\n  / b / c;", []),
])
def test_a_javascript_regular_expression_is_one_string(text, literals):
    tokens = read(text, "javascript")
    assert [t for k, t in tokens if k == "string"] == literals, tokens
    assert differences(text, "javascript") == []
    assert differences(text, "javascript", "typescript") == []


def test_a_javascript_file_may_start_with_a_hashbang():
    text = "#!/usr/bin/env node\nconst a = 1;\n"
    assert read(text, "javascript")[0] == ("kw", "const")
    assert differences(text, "javascript") == []
    assert ("#", "#") in read("const a = this.#b;", "javascript")  # a private name elsewhere


#: pieces of code around the constructs above, whole and cut short, to be put together at random
FRAGMENTS = ['R"x(', ')x"', 'r#"', '"#', "r", "R", "u8", "L", "b", "$", "@", '"""', '""""', "'''", '"', "'",
             "`", "${", "{", "}", "/", "//", "/*", "*/", "\\", "\\\n", "#", "#!", "\n", "\r\n", " ", "\t",
             "0", "1", "9", ".", "..", "0x1", "e", "p", "-", "+", "'000", "f", "j", "=", "(", ")", "[", "]",
             ";", ",", "=>", "return", "x", "名", "\u00e9"]


@settings(max_examples=300, deadline=None)
@given(text=st.lists(st.sampled_from(FRAGMENTS), max_size=40).map("".join), lang=st.sampled_from(sorted(FAST)))
def test_tokens_of_any_code_map_back_to_it(text, lang):
    """Whatever the code, every token is a piece of it, in order, none overlapping, none blank;
    a literal starts where a literal can, a number with a digit or its point."""
    prev = 0
    for kind, s, e in fast_tokens(text, lang):
        piece = text[s:e]
        assert prev <= s < e <= len(text) and piece == piece.strip(), (text, piece)
        if kind == "string":
            assert piece[0] in "\"'`/#@", (text, piece)
        elif kind == "number":
            assert piece[0].isdigit() or piece[0] == ".", (text, piece)
        prev = e
