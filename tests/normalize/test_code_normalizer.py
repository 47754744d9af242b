"""The code normalizer (winnowdb/codetokens.py) and code in the index, end to end.

What a copier can do cheaply must not change the token units: rename identifiers, add or remove
comments, re-indent, change literals. What the normalizer must not do: let a comment marker inside
a string start a comment, or lose the map from tokens back to the original text. And code files
in the index: the language by extension, ``--language``, parallel ``add`` equal to serial ``add``,
and ``pairs`` CSV equal to JSON.

Everything is real: the programs are in tests/data/code, indexes are DuckDB files in tmp_path.
"""
from __future__ import annotations

import csv
import io
import json
import multiprocessing
import os
import re
import shutil
from pathlib import Path

import duckdb
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

import winnowdb
from winnowdb.cli import app
from winnowdb.normalize.code import IDENT, NUMBER, STRING, normalize_code
from winnowdb.normalize.code_syntax import KEYWORDS

DATA = Path(__file__).resolve().parents[1] / "data" / "code"

#: (program, language, every identifier in it, in order of first use). The tests check that the
#: normalizer finds exactly these identifiers, so a keyword taken for an identifier (or the other
#: way round) fails here rather than hiding in a rename.
PROGRAMS = {
    "python": ("inventory.py", """json sys collections defaultdict TAX_RATE Inventory __init__ self owner
        items list add_item category name price quantity ValueError append total result cat entries
        most_valuable limit ranked sort reverse load path open encoding handle data inventory get row
        main argv len print file stderr value round __name__ exit"""),
    "java": ("WordCounter.java", """edu course lab3 java util ArrayList HashMap List Map WordCounter
        String Integer counts totalWords addLine line word toLowerCase split isEmpty put getOrDefault
        mostFrequent limit Entry entries entrySet sort left right getValue result index size add get
        getKey averageCount main args counter top System out println printf"""),
    "c": ("rpn.c", """include stdio h stdlib string values size_t length capacity Stack stack_push stack
        value realloc stack_pop fprintf stderr exit evaluate expression buffer strncpy token strtok
        strchr right left atoi result free main argc argv arg printf"""),
    "javascript": ("cart.js", """TAX Cart constructor customer lines add product price quantity Error
        push subtotal reduce sum line discount amount total net Math round receipt cart rows map join
        console log module exports"""),
}
#: an unrelated program in the same language (for the end-to-end rename test)
UNRELATED = {"python": "maze.py", "java": "BankAccount.java", "c": "matrix.c"}
EXTENSION = {"python": ".py", "java": ".java", "c": ".c", "javascript": ".js"}


def program(lang: str) -> str:
    return (DATA / PROGRAMS[lang][0]).read_text(encoding="utf-8")


def identifiers(lang: str) -> list[str]:
    return PROGRAMS[lang][1].split()


def tokens(text: str, lang: str) -> list[tuple[int, str]]:
    """(unit, original text of the token) for every token."""
    n = normalize_code(text, lang)
    return [(u, text[s:e]) for u, s, e in zip(n.units.tolist(), n.start.tolist(), n.stop.tolist())]


def units(text: str, lang: str) -> list[int]:
    return normalize_code(text, lang).units.tolist()


def rename(text: str, mapping: dict[str, str]) -> str:
    """Replace every whole-word occurrence of each key by its value (a find-and-replace copier)."""
    pattern = re.compile(r"\b(" + "|".join(map(re.escape, sorted(mapping, key=len, reverse=True))) + r")\b")
    return pattern.sub(lambda m: mapping[m.group(1)], text)


def gaps_and_tokens(text: str, lang: str) -> tuple[list[str], list[str]]:
    """The text split at token boundaries: gaps[0], tok[0], gaps[1], ..., tok[n-1], gaps[n]."""
    n = normalize_code(text, lang)
    starts, stops = n.start.tolist(), n.stop.tolist()
    gaps, toks, prev = [], [], 0
    for s, e in zip(starts, stops):
        gaps.append(text[prev:s])
        toks.append(text[s:e])
        prev = e
    gaps.append(text[prev:])
    return gaps, toks


# ================================================================== 1. renaming identifiers
@pytest.mark.parametrize("lang", ["python", "java", "c", "javascript"])
def test_programs_identifiers_are_exactly_the_known_ones(lang):
    found = []
    for unit, text in tokens(program(lang), lang):
        if unit == IDENT and text not in found:
            found.append(text)
    assert found == identifiers(lang)


_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_"
_UNICODE_LETTERS = "éßπДжü漢字ñÅ"  # letters (str.isalnum) valid in Python, Java and JS identifiers


def name_strategy(lang: str):
    """Random valid identifiers of ``lang`` that are not keywords."""
    first = _LETTERS + ("$" if lang in ("java", "javascript") else "")
    first += _UNICODE_LETTERS if lang != "c" else ""
    rest = first + "0123456789"
    reserved = set(KEYWORDS[lang])
    return (st.tuples(st.sampled_from(first), st.text(alphabet=rest, max_size=10))
            .map("".join)
            .filter(lambda s: s not in reserved and (lang != "python" or s.isidentifier())))


def _rename_property(lang: str):
    ids = identifiers(lang)

    @settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(st.lists(name_strategy(lang), min_size=len(ids), max_size=len(ids), unique=True))
    def check(new_names):
        original = program(lang)
        renamed = rename(original, dict(zip(ids, new_names)))
        assert units(renamed, lang) == units(original, lang)
        # and the renamed identifiers are found where the old ones were
        got = [t for u, t in tokens(renamed, lang) if u == IDENT]
        want = [dict(zip(ids, new_names))[t] for u, t in tokens(original, lang) if u == IDENT]
        assert got == want

    return check


@pytest.mark.parametrize("lang", ["python", "java", "c", "javascript"])
def test_renaming_every_identifier_keeps_the_units(lang):
    _rename_property(lang)()


def test_python_soft_keyword_names_are_identifiers():
    """``match``, ``case``, ``type`` and ``_`` are soft keywords: ordinary names everywhere except
    at the head of a match statement. A program that calls its variables ``match`` or ``_`` (both
    everyday Python: ``match = pattern.search(line)``, ``for _ in range(3)``) and its renamed copy
    must normalize alike."""
    original = ("import re\n"
                "def first_number(lines, pattern=re.compile('[0-9]+')):\n"
                "    for _ in range(3):\n"
                "        for line in lines:\n"
                "            match = pattern.search(line)\n"
                "            if match:\n"
                "                type = 'int'\n"
                "                case = match.group(0)\n"
                "                return type, case\n")
    soft = {"_": "attempt", "match": "found", "type": "kind", "case": "digits"}
    not_identifiers = [t for u, t in tokens(original, "python") if t in soft and u != IDENT]
    assert not_identifiers == [], f"names taken for keywords: {not_identifiers}"
    assert units(rename(original, soft), "python") == units(original, "python")


def test_renamed_copy_is_fully_contained_end_to_end(tmp_path):
    """Original, renamed copy and an unrelated program per language in one index (Python API):
    the renamed copy pairs with containment 1.0 both ways, the unrelated program only weakly."""
    folder = tmp_path / "progs"
    folder.mkdir()
    expected = {}
    for lang in ("python", "java", "c"):
        ext = EXTENSION[lang]
        original = program(lang)
        ids = identifiers(lang)
        # a consistent renaming: every identifier becomes an unrelated name of another length
        mapping = {old: f"q{i}_{'z' * (i % 5)}{len(old)}" for i, old in enumerate(ids)}
        (folder / f"original_{lang}{ext}").write_text(original, encoding="utf-8")
        (folder / f"renamed_{lang}{ext}").write_text(rename(original, mapping), encoding="utf-8")
        shutil.copy(DATA / UNRELATED[lang], folder / f"unrelated_{lang}{ext}")
        expected[lang] = (str((folder / f"original_{lang}{ext}").resolve()),
                          str((folder / f"renamed_{lang}{ext}").resolve()),
                          str((folder / f"unrelated_{lang}{ext}").resolve()))
    db = tmp_path / "rename.duckdb"
    with winnowdb.open(db) as idx:
        summary = idx.add([folder])
        assert summary.added == 9 and not summary.skipped
        rows = idx.pairs(top=0)
    by_pair = {frozenset((r["a"], r["b"])): r for r in rows}
    for lang, (orig, ren, unrel) in expected.items():
        pair = by_pair.get(frozenset((orig, ren)))
        assert pair is not None, f"{lang}: the renamed copy does not pair with the original"
        assert pair["containment_a"] == pytest.approx(1.0) and pair["containment_b"] == pytest.approx(1.0), pair
        assert pair["resemblance"] == pytest.approx(1.0), pair
        for other in (orig, ren):
            r = by_pair.get(frozenset((other, unrel)))
            if r is not None:
                assert max(r["containment_a"], r["containment_b"]) < 0.25, (lang, r)


# ================================================================== 2. comments and white space
COMMENT_TEXT = st.text(alphabet="abc XYZ019'\"`#/-=;{}()", max_size=20)


def comment_strategy(lang: str):
    space = st.sampled_from([" ", "  ", "\t", "\n", "\n\n\n", "\r\n", "\n    \n", " \f "])
    if lang == "python":
        comments = COMMENT_TEXT.map(lambda c: f"  # {c}\n")
    else:
        comments = st.one_of(
            COMMENT_TEXT.map(lambda c: f" // {c}\n"),
            COMMENT_TEXT.map(lambda c: f" /* {c} */ "),
            st.tuples(COMMENT_TEXT, COMMENT_TEXT).map(lambda cs: f"\n/*\n * {cs[0]}\n * {cs[1]}\n */\n"),
        )
    return st.one_of(space, comments)


def reindent(text: str, unit: str) -> str:
    """Every line's leading white space replaced: each level (4 spaces, or 2 for JavaScript, or a
    tab) becomes ``unit``."""
    def fix(m: re.Match) -> str:
        lead = m.group(0).replace("\t", "    ")
        return unit * (len(lead) // 2) if unit in ("  ", "\t") else unit * len(lead)
    return re.sub(r"(?m)^[ \t]+", fix, text)


def _comments_property(lang: str):
    original = program(lang)
    gaps, toks = gaps_and_tokens(original, lang)
    want_units = units(original, lang)
    want_code = [t for (u, t) in tokens(original, lang) if u != STRING]

    @settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(inserts=st.lists(st.tuples(st.integers(0, len(gaps) - 1), comment_strategy(lang)), max_size=40),
           strip=st.booleans(), indent=st.sampled_from([None, "  ", "\t", " "]))
    def check(inserts, strip, indent):
        new_gaps = [(" " if g else "") if strip else g for g in gaps]
        for i, extra in inserts:
            new_gaps[i] = extra + new_gaps[i]
        text = "".join(g + t for g, t in zip(new_gaps, toks + [""]))
        if indent is not None:
            text = reindent(text, indent)
        assert units(text, lang) == want_units
        assert [t for (u, t) in tokens(text, lang) if u != STRING] == want_code

    return check


@pytest.mark.parametrize("lang", ["python", "java", "c", "javascript"])
def test_comment_and_white_space_changes_keep_the_units(lang):
    """Comments added (line, block, multi-line block; with quotes and comment markers inside),
    every comment and blank line removed, code re-indented: the same units, the same tokens."""
    _comments_property(lang)()


@pytest.mark.parametrize("lang", ["python", "java", "c", "javascript"])
def test_removing_every_comment_and_blank_line_keeps_the_units(lang):
    original = program(lang)
    gaps, toks = gaps_and_tokens(original, lang)
    assert any("#" in g or "//" in g or "/*" in g for g in gaps)  # the program has comments
    stripped = "".join((" " if g else "") + t for g, t in zip(gaps, toks))
    assert units(stripped, lang) == units(original, lang)


@pytest.mark.parametrize("space", ["\u00a0", "\ufeff", "\u2003", "\u3000", "\u202f"],
                         ids=["no-break", "bom", "em-space", "ideographic", "narrow-no-break"])
def test_javascript_unicode_white_space_is_white_space(space):
    """ECMAScript's WhiteSpace is TAB, VT, FF, ZWNBSP (U+FEFF) and every Zs space separator; the
    normalizer already treats U+00A0 and U+FEFF as white space, and must do so for the others."""
    original = program("javascript")
    gaps, toks = gaps_and_tokens(original, "javascript")
    text = "".join(g.replace(" ", space) + t for g, t in zip(gaps, toks + [""]))
    assert text != original
    taken = [t for u, t in tokens(text, "javascript") if not t.strip()]
    assert taken == [], f"white space taken for tokens: {taken!r}"
    assert units(text, "javascript") == units(original, "javascript")


# ================================================================== 3. literals
STRING_CASES = [
    # (language, code with {} where the literal goes, literal)
    ("python", "x = {}; y = 2\nprint(x, y)\n", '"plain"'),
    ("python", "x = {}; y = 2\nprint(x, y)\n", "'single'"),
    ("python", "x = {}; y = 2\nprint(x, y)\n", r'"a\"b"'),
    ("python", "x = {}; y = 2\nprint(x, y)\n", r"'it\'s'"),
    ("python", "x = {}; y = 2\nprint(x, y)\n", '"#not a comment"'),
    ("python", "x = {}; y = 2\nprint(x, y)\n", '"""multi\nline with "quotes", \'more\' and # no comment\n"""'),
    ("python", "x = {}; y = 2\nprint(x, y)\n", "'''another\n\"\"\" inside\n# not a comment\n'''"),
    ("python", "x = {}; y = 2\nprint(x, y)\n", '"continued \\\n# on the next line"'),
    ("java", "String s = {}; int y = 2;\nSystem.out.println(s + y);\n", r'"a\"b"'),
    ("java", "String s = {}; int y = 2;\nSystem.out.println(s + y);\n", '"// no"'),
    ("java", "String s = {}; int y = 2;\nSystem.out.println(s + y);\n", '"/* no */"'),
    ("java", "String s = {}; int y = 2;\nSystem.out.println(s + y);\n", '"""\n    text "block" // no\n    """'),
    ("java", "char c = {}; int y = 2;\nSystem.out.println(c + y);\n", r"'\''"),
    ("java", "char c = {}; int y = 2;\nSystem.out.println(c + y);\n", "'\"'"),
    ("c", 'const char *s = {}; int y = 2;\nputs(s);\n', r'"a\"b"'),
    ("c", 'const char *s = {}; int y = 2;\nputs(s);\n', '"// no /* no */"'),
    ("c", 'const char *s = {}; int y = 2;\nputs(s);\n', r'"tab\t\\ newline\n"'),
    ("c", 'char c = {}; int y = 2;\nputchar(c);\n', "'/'"),
    ("c", 'const char *s = {}; int y = 2;\nputs(s);\n', '"spliced \\\n// onto the next line"'),
    ("javascript", "const s = {}; let y = 2;\nconsole.log(s, y);\n", r'"a\"b"'),
    ("javascript", "const s = {}; let y = 2;\nconsole.log(s, y);\n", "'// no'"),
    ("javascript", "const s = {}; let y = 2;\nconsole.log(s, y);\n", "`template ${y} literal`"),
    ("javascript", "const s = {}; let y = 2;\nconsole.log(s, y);\n", "`multi\nline /* no */ template`"),
    ("javascript", "const s = {}; let y = 2;\nconsole.log(s, y);\n", r"`escaped \` tick`"),
    ("javascript", "const s = {}; let y = 2;\nconsole.log(s, y);\n", "`outer ${y ? `inner` : 'x'} end`"),
]


@pytest.mark.parametrize("lang,code,literal", STRING_CASES,
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(STRING_CASES)])
def test_a_string_literal_is_one_string_unit_spanning_it(lang, code, literal):
    text = code.replace("{}", literal)
    toks = normalize_code(text, lang)
    strings = [(s, e) for u, s, e in zip(toks.units.tolist(), toks.start.tolist(), toks.stop.tolist())
               if u == STRING]
    assert len(strings) == 1, tokens(text, lang)
    s, e = strings[0]
    assert text[s:e] == literal
    # the literal's content does not matter, and nothing after it was taken for a comment
    plain = code.replace("{}", "'x'" if literal.startswith("'") else '"x"')
    assert units(text, lang) == units(plain, lang)


NUMBER_CASES = [
    ("python", "x = {} + y\nprint(x)\n", "42"),
    ("python", "x = {} + y\nprint(x)\n", "0x1F"),
    ("python", "x = {} + y\nprint(x)\n", "1_000_000"),
    ("python", "x = {} + y\nprint(x)\n", "3.14"),
    ("python", "x = {} + y\nprint(x)\n", "1e-9"),
    ("java", "long x = {} + y;\n", "42L"),
    ("java", "long x = {} + y;\n", "0b1010"),
    ("java", "float x = {} + y;\n", "2.5f"),
    ("c", "unsigned x = {} + y;\n", "0x1Fu"),
    ("c", "double x = {} + y;\n", "6.02e23"),
    ("javascript", "const x = {} + y;\n", "0xFF"),
    ("javascript", "const x = {} + y;\n", "0.5"),
]


@pytest.mark.parametrize("lang,code,literal", NUMBER_CASES,
                         ids=[f"{c[0]}-{c[2]}" for c in NUMBER_CASES])
def test_a_number_literal_is_one_number_unit_spanning_it(lang, code, literal):
    text = code.replace("{}", literal)
    toks = normalize_code(text, lang)
    numbers = [(s, e) for u, s, e in zip(toks.units.tolist(), toks.start.tolist(), toks.stop.tolist())
               if u == NUMBER]
    assert [text[s:e] for s, e in numbers] == [literal], tokens(text, lang)
    # another value of the same kind of literal: the same units
    assert units(text, lang) == units(code.replace("{}", "7"), lang)


@pytest.mark.parametrize("lang", ["python", "java", "c", "javascript"])
def test_changing_literal_values_keeps_the_units(lang):
    """Every string literal's content and every integer's value changed in a whole program."""
    original = program(lang)
    gaps, toks = gaps_and_tokens(original, lang)
    kinds = [u for u, _ in tokens(original, lang)]
    changed = []
    for t, u in zip(toks, kinds):
        if u == STRING:
            q = t[0]
            t = q + "changed" + q if q != '"' or not t.startswith('"""') else '"""changed"""'
        elif u == NUMBER and t.isdigit():
            t = str(int(t) * 7 + 3)
        changed.append(t)
    text = "".join(g + t for g, t in zip(gaps, changed + [""]))
    assert text != original
    assert units(text, lang) == units(original, lang)


@pytest.mark.parametrize("lang,code,marker", [
    ("python", 's = "#not a comment"; t = 1\n', "#"),
    ("python", "s = '# neither'; t = 1\n", "#"),
    ("java", 'String s = "// no"; int t = 1;\n', "//"),
    ("java", 'String s = "/* no"; int t = 1; String u = "*/";\n', "/*"),
    ("c", 'char *s = "// no"; int t = 1;\n', "//"),
    ("javascript", "let s = '/* no'; let t = 1; // yes\n", "/*"),
    ("javascript", "let s = `// no`; let t = 1;\n", "//"),
])
def test_a_comment_marker_inside_a_string_starts_no_comment(lang, code, marker):
    toks = tokens(code, lang)
    texts = [t for _, t in toks]
    assert "t" in texts and "1" in texts, toks  # the code after the string is still there
    assert sum(1 for u, _ in toks if u == STRING) == code.count('"') // 2 + code.count("'") // 2 \
        + code.count("`") // 2
    assert any(marker in t for u, t in toks if u == STRING)


# ================================================================== 4. spans map back
CODE_FRAGMENTS = [
    # keywords, identifiers, numbers
    "def", "class", "return", "if", "for", "while", "public", "static", "void", "int", "new",
    "x", "value", "_tmp", "$id", "名前", "café", "x1", "42", "3.14", "0xFF", "1e-9",
    # operators and brackets
    "=", "==", "+", "-", "*", "/", "%", "(", ")", "[", "]", "{", "}", ":", ";", ",", ".", "->", "<", ">",
    "!", "&&", "\\", "@", "€", "→",
    # strings, well formed and not
    '"abc"', "'d'", '"a\\"b"', "'it\\'s'", '"""tri\nple"""', "'''x'''", '"unterminated', "'", '"',
    '"with # and // inside"', '"""open', "`tick`",
    # comments, well formed and not
    "# comment", "// comment", "/* block */", "/* multi\nline */", "/* open", "*/",
    # white space
    " ", "  ", "\t", "\n", "\r\n", "\f", "\v",
]


def code_like_text():
    return st.one_of(
        st.lists(st.sampled_from(CODE_FRAGMENTS), max_size=60).map("".join),
        st.lists(st.one_of(st.sampled_from(CODE_FRAGMENTS),
                           st.characters(min_codepoint=33, max_codepoint=0x2FF, exclude_categories=("Cc",))),
                 max_size=60).map("".join),
    )


def assert_spans_map_back(text: str, lang: str) -> None:
    n = normalize_code(text, lang)
    assert n.units.dtype == np.uint64
    assert len(n.units) == len(n.start) == len(n.stop)
    prev_stop = 0
    for unit, s, e in zip(n.units.tolist(), n.start.tolist(), n.stop.tolist()):
        piece = text[s:e]
        assert 0 <= s < e <= len(text), (text, s, e)
        assert s >= prev_stop, (text, s, prev_stop)  # increasing, never overlapping
        assert piece and piece == piece.strip(), (text, piece)
        if unit == STRING:
            assert piece[0] in "\"'`" and piece[-1] == piece[0], (text, piece)
        elif unit == NUMBER:  # 3.14, or .5
            assert piece[0].isdigit() or (piece[0] == "." and piece[1:2].isdigit()), (text, piece)
        elif unit == IDENT:
            assert all(c.isalnum() or c in "_$" for c in piece), (text, piece)
        prev_stop = e


@settings(max_examples=200, deadline=None)
@given(text=code_like_text(), lang=st.sampled_from(["python", "java"]))
def test_token_spans_map_back_to_the_text(text, lang):
    assert_spans_map_back(text, lang)


@pytest.mark.parametrize("lang", ["python", "java", "c", "javascript"])
def test_token_spans_of_the_programs_map_back(lang):
    assert_spans_map_back(program(lang), lang)


# ================================================================== 5. language by extension
def _documents(db: Path) -> dict[str, tuple]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        return {Path(p).name: (norm, units) for p, norm, units in
                con.execute("SELECT path, normalizer, units FROM documents").fetchall()}
    finally:
        con.close()


def test_language_by_extension(tmp_path):
    folder = tmp_path / "mixed"
    folder.mkdir()
    shutil.copy(DATA / "inventory.py", folder / "inventory.py")
    shutil.copy(DATA / "WordCounter.java", folder / "WordCounter.java")
    shutil.copy(DATA / "rpn.c", folder / "rpn.c")
    shutil.copy(DATA / "cart.js", folder / "cart.js")
    shutil.copy(DATA / "maze.py", folder / "MAZE.PY")  # extensions are case-insensitive
    (folder / "notes.txt").write_text("Plain prose, not code: for (int i = 0; i < n; i++) is a loop.\n")
    shutil.copy(DATA / "BankAccount.java", folder / "BankAccount.jsrc")  # unknown extension
    db = tmp_path / "mixed.duckdb"
    with winnowdb.open(db) as idx:
        summary = idx.add([folder])
        assert summary.added == 7 and not summary.skipped
    docs = _documents(db)
    assert {name: norm for name, (norm, _) in docs.items()} == {
        "inventory.py": "code:python", "WordCounter.java": "code:java", "rpn.c": "code:c",
        "cart.js": "code:javascript", "MAZE.PY": "code:python", "notes.txt": "prose",
        "BankAccount.jsrc": "prose"}
    for name, lang in [("inventory.py", "python"), ("WordCounter.java", "java"), ("rpn.c", "c"),
                       ("cart.js", "javascript")]:
        assert docs[name][1] == len(normalize_code((folder / name).read_text(), lang)), name


def test_language_option_forces_the_tokenizer(tmp_path, cli):
    src = tmp_path / "BankAccount.jsrc"
    shutil.copy(DATA / "BankAccount.java", src)
    db = tmp_path / "forced.duckdb"
    r = cli("add", src, "--db", db, "--language", "java")
    assert r.exit_code == 0, r.output
    docs = _documents(db)
    assert docs["BankAccount.jsrc"] == ("code:java", len(normalize_code(src.read_text(), "java")))
    # and the forced file matches the same program with its real extension
    real = tmp_path / "BankAccount.java"
    shutil.copy(DATA / "BankAccount.java", real)
    r = cli("add", real, "--db", db)
    assert r.exit_code == 0, r.output
    rows = json.loads(cli("pairs", "--db", db, "--top", "0", "--format", "json").stdout)
    assert len(rows) == 1 and rows[0]["containment_a"] == 1.0 and rows[0]["containment_b"] == 1.0, rows


# ================================================================== 6. parallel add = serial add
def _words(rng: np.random.Generator, vocab: np.ndarray, n: int) -> str:
    words = vocab[rng.integers(0, len(vocab), size=n)]
    lines = [" ".join(words[i:i + 12]) for i in range(0, n, 12)]
    return "\n".join(lines) + "\n"


def _big_corpus(root: Path) -> int:
    """12 text files of about 200 kB (some copying from others) and some code: > 2 MiB, > 8 files."""
    rng = np.random.default_rng(20260)
    letters = np.array(list("abcdefghijklmnopqrstuvwxyz"))
    vocab = np.array(["".join(rng.choice(letters, size=rng.integers(2, 10))) for _ in range(4000)])
    (root / "essays").mkdir(parents=True)
    (root / "code").mkdir()
    texts = [_words(rng, vocab, 33_000) for _ in range(12)]
    texts[3] = texts[3][:100_000] + texts[0][50_000:80_000] + texts[3][100_000:]
    texts[7] = texts[5][:150_000] + texts[7][:60_000]
    for i, t in enumerate(texts):
        (root / "essays" / f"essay_{i:02d}.txt").write_text(t, encoding="utf-8")
    for name in ("inventory.py", "maze.py", "WordCounter.java", "BankAccount.java", "rpn.c", "matrix.c", "cart.js"):
        shutil.copy(DATA / name, root / "code" / name)
    ids = identifiers("python")
    (root / "code" / "inventory_renamed.py").write_text(
        rename(program("python"), {old: f"n{i}" for i, old in enumerate(ids)}), encoding="utf-8")
    return sum(p.stat().st_size for p in root.rglob("*") if p.is_file())


def _dump(db: Path) -> tuple[list, list]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        docs = con.execute(
            "SELECT path, normalizer, content_hash, normalized_hash, units, fingerprints, simhash "
            "FROM documents ORDER BY path").fetchall()
        fps = con.execute(
            "SELECT d.path, f.hash, f.pos FROM fingerprints f "
            "JOIN documents d USING (doc) ORDER BY ALL").fetchall()
        return docs, fps
    finally:
        con.close()


def test_parallel_add_equals_serial_add(tmp_path):
    from winnowdb.ingest import prepare as indexer

    corpus = tmp_path / "corpus"
    total = _big_corpus(corpus)
    files = sum(1 for p in corpus.rglob("*") if p.is_file())
    assert files >= indexer.PARALLEL_MIN_FILES and total >= indexer.PARALLEL_MIN_BYTES
    results = {}
    for jobs in (1, 2):
        db = tmp_path / f"jobs{jobs}.duckdb"
        workers = []
        with winnowdb.open(db) as idx:
            summary = idx.add([corpus], jobs=jobs,
                              on_file=lambda path, size, workers=workers: workers.append(
                                  len(multiprocessing.active_children())))
            assert summary.added == files and not summary.skipped
            pairs = idx.pairs(top=0)
        results[jobs] = (_dump(db), pairs, max(workers))
    (docs1, fps1), pairs1, workers1 = results[1]
    (docs2, fps2), pairs2, workers2 = results[2]
    assert workers1 == 0 and workers2 >= 1, "jobs=2 did not use worker processes"
    assert len(docs1) == files
    assert docs2 == docs1
    assert len(fps1) > 100_000
    assert fps2 == fps1
    assert pairs1 and pairs2 == pairs1
    named = {frozenset(Path(p).name for p in (r["a"], r["b"])) for r in pairs1}
    assert frozenset(("essay_00.txt", "essay_03.txt")) in named
    assert frozenset(("inventory.py", "inventory_renamed.py")) in named


def test_a_huge_file_is_read_once_by_the_main_process_with_or_without_workers(tmp_path, monkeypatch):
    """A file that may be huge is not read by a worker (which would read and decode it only to
    report "huge"), and the main process reads it once; the index is the same with or without
    workers. (The huge threshold is lowered for the test: the real one is 8 Mi characters.)"""
    from winnowdb.ingest import prepare as indexer
    from winnowdb.ingest import segmented

    corpus = tmp_path / "corpus"
    _big_corpus(corpus)
    long = corpus / "essays" / "long.txt"
    long.write_text((corpus / "essays" / "essay_01.txt").read_text() * 3, encoding="utf-8")  # ~600 kB
    monkeypatch.setattr(segmented, "HUGE_CHARS", 400_000)  # forked workers inherit it
    real_read = indexer.read_source
    main = os.getpid()
    results = {}
    for jobs in (1, 2):
        log = tmp_path / f"reads{jobs}.log"  # appended to by this process and by forked workers

        def logged_read(path, log=log, **kwargs):
            src = real_read(path, **kwargs)
            if src is not None:  # None: left unread, to the main process (larger_than)
                with open(log, "a") as fh:
                    fh.write(f"{os.getpid()} {os.path.basename(path)}\n")
            return src

        monkeypatch.setattr(indexer, "read_source", logged_read)
        db = tmp_path / f"jobs{jobs}.duckdb"
        with winnowdb.open(db) as idx:
            summary = idx.add([corpus], jobs=jobs)
            assert not summary.skipped and summary.added == sum(1 for p in corpus.rglob("*") if p.is_file())
        results[jobs] = _dump(db)
        reads = [line.split() for line in log.read_text().splitlines()]
        assert sorted(name for _, name in reads) == sorted(p.name for p in corpus.rglob("*") if p.is_file())
        by_main = [name for pid, name in reads if int(pid) == main]
        if jobs == 1:
            assert len(by_main) == len(reads)  # no workers: all read here, each once
        else:  # workers read everything but the possibly-huge file, which only this process reads
            assert by_main == ["long.txt"]
    assert results[2] == results[1]
    docs = {Path(d[0]).name: d for d in results[1][0]}
    assert docs["long.txt"][5] > 0


# ================================================================== 7. pairs CSV = pairs JSON
def test_pairs_csv_and_json_agree_row_for_row(tmp_path, cli):
    rng = np.random.default_rng(7)
    letters = np.array(list("abcdefghijklmnopqrstuvwxyz"))
    vocab = np.array(["".join(rng.choice(letters, size=rng.integers(2, 10))) for _ in range(2000)])
    folder = tmp_path / "docs"
    folder.mkdir()
    a, b, c = (_words(rng, vocab, n) for n in (700, 500, 400))
    (folder / "plain.txt").write_text(a)
    (folder / 'essay, "copy".txt').write_text(a[:1500] + _words(rng, vocab, 200))
    (folder / "other.txt").write_text(b)
    (folder / "o2; it's.txt").write_text(b[:2000] + _words(rng, vocab, 80) + a[2000:2600])
    (folder / "third.txt").write_text(c + a[3000:3400])
    shutil.copy(DATA / "inventory.py", folder / "inv,entory.py")
    (folder / 'renamed "inventory".py').write_text(
        rename(program("python"), {old: f"n{i}" for i, old in enumerate(identifiers("python"))}))
    db = tmp_path / "csv.duckdb"
    r = cli("add", folder, "--db", db)
    assert r.exit_code == 0, r.output
    rj = cli("pairs", "--db", db, "--top", "0", "--format", "json")
    rc = cli("pairs", "--db", db, "--top", "0", "--format", "csv")
    assert rj.exit_code == 0 and rc.exit_code == 0, (rj.output, rc.output)
    as_json = json.loads(rj.stdout)
    as_csv = list(csv.reader(io.StringIO(rc.stdout)))
    fields = ["a", "b", "score", "shared", "containment_a", "containment_b", "resemblance"]
    assert as_csv[0] == fields
    body = as_csv[1:]
    assert len(as_json) >= 4 and len(body) == len(as_json)
    names = set()
    for c_row, j in zip(body, as_json):
        assert list(j) == fields
        assert c_row[0] == j["a"] and c_row[1] == j["b"]
        assert int(c_row[3]) == j["shared"]
        for i, f in enumerate(fields[2:], start=2):
            assert float(c_row[i]) == float(j[f]), (f, c_row, j)
        names.update(Path(p).name for p in (j["a"], j["b"]))
    assert 'essay, "copy".txt' in names and "inv,entory.py" in names and 'renamed "inventory".py' in names


def test_an_index_with_code_from_an_older_tokenizer_is_noted_on_add(tmp_path):
    from winnowdb.settings import CODE_TOKENS_VERSION as TOKENS_VERSION

    src = tmp_path / "src"
    src.mkdir()
    (src / "a.py").write_text("def f(x):\n    return x + 1\n")
    (src / "b.py").write_text("def g(y):\n    return y * 2\n")
    db = tmp_path / "idx.duckdb"
    runner = CliRunner()
    first = runner.invoke(app, ["add", str(src / "a.py"), "--db", str(db)])
    assert first.exit_code == 0 and "older winnowdb" not in first.stderr
    con = duckdb.connect(str(db))
    assert con.execute("SELECT value FROM settings WHERE key = 'code_tokens_version'").fetchall() == [(TOKENS_VERSION,)]
    con.execute("DELETE FROM settings WHERE key = 'code_tokens_version'")  # as made by winnowdb 0.1.0
    con.close()
    second = runner.invoke(app, ["add", str(src / "b.py"), "--db", str(db)])
    assert second.exit_code == 0, second.output
    assert "note: this index holds code tokenized by an older winnowdb" in second.stderr
