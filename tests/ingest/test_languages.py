"""Which tokenizer reads a file: every extension winnowdb maps has one, the four ambiguous
extensions (.h .m .pl .v) read as the documented language and can be read as the others with
``--language``, and a language no tokenizer knows is an error, never a silent reading as text."""
from __future__ import annotations

import json

import pytest
from conftest import ok, one_line_error

from winnowdb.ingest.languages import EXTENSIONS, canonical_language, language_for
from winnowdb.normalize.code import normalize_code
from winnowdb.normalize.code_syntax import FAST

#: the ambiguous extensions: what winnowdb reads them as, and the other readings --language gives
AMBIGUOUS = {
    ".h": ("c", ["cpp", "objective-c"]),
    ".m": ("matlab", ["objective-c"]),
    ".pl": ("perl", ["prolog"]),
    ".v": ("verilog", ["coq"]),
}


@pytest.mark.parametrize("language", sorted(set(EXTENSIONS.values())))
def test_every_mapped_language_has_a_tokenizer(language):
    from pygments.lexers import get_lexer_by_name

    if language not in FAST:
        assert type(get_lexer_by_name(language)).__name__ != "TextLexer"
    units = normalize_code("x = 1 + foo(2)\n", language).units
    assert units.size > 0


@pytest.mark.parametrize("ext", sorted(AMBIGUOUS))
def test_ambiguous_extensions_read_as_documented_and_the_others_can_be_asked_for(ext):
    chosen, others = AMBIGUOUS[ext]
    assert language_for(f"src/file{ext}") == chosen
    assert language_for(f"SRC/FILE{ext.upper()}") == chosen
    for other in others:
        assert canonical_language(other) == other


def test_a_language_without_a_tokenizer_is_an_error_not_text():
    with pytest.raises(ValueError, match="no tokenizer for language 'no-such-language'"):
        normalize_code("int main() { return 0; }", "no-such-language")


def test_an_objective_c_header_read_with_language(cli, tmp_path):
    src = ("@interface Stack : NSObject\n- (void)push:(id)item;\n- (id)pop;\n@end\n"
           "@implementation Stack\n- (void)push:(id)item { [items addObject:item]; }\n"
           "- (id)pop { id last = [items lastObject]; [items removeLastObject]; return last; }\n@end\n")
    (tmp_path / "a.m").write_text(src)
    (tmp_path / "b.m").write_text(src)
    db = tmp_path / "index.duckdb"
    ok(cli("add", tmp_path / "a.m", "--db", db))
    ok(cli("add", "--language", "objc", tmp_path / "b.m", "--db", db))
    rows = json.loads(ok(cli("sql", "SELECT path, normalizer FROM documents ORDER BY path", "--db", db,
                             "-f", "json")).stdout)
    assert [r["normalizer"] for r in rows] == ["code:matlab", "code:objective-c"]


def test_an_indexed_language_whose_lexer_is_gone_is_a_one_line_error(cli, tmp_path):
    """An index made where Pygments had a lexer, read where it has not (its documents' language
    label names no lexer): query and upgrade give one line, never read the code as text."""
    import duckdb

    src = "def f(x):\n    return [i * x for i in range(10) if i % 2]\n" * 4
    for name in ("a.py", "b.py"):
        (tmp_path / name).write_text(src)
    db = tmp_path / "index.duckdb"
    ok(cli("add", tmp_path / "a.py", tmp_path / "b.py", "--db", db))
    with duckdb.connect(str(db)) as con:  # as if the lexer had gone: a language no tokenizer knows
        con.execute("UPDATE documents SET normalizer = 'code:no-such-language'")
    one_line_error(cli("query", tmp_path / "a.py", "--db", db), "no tokenizer for language 'no-such-language'")
    with duckdb.connect(str(db)) as con:  # and upgrade has that code to fingerprint again
        con.execute("UPDATE settings SET value = 'code-tokens-v3' WHERE key = 'code_tokens_version'")
    one_line_error(cli("upgrade", "--db", db), "cannot fingerprint", "no tokenizer for language 'no-such-language'")
    ok(cli("check", "--db", db))  # nothing half-done
