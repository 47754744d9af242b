"""The tokens the code normalizer should give, read from a real lexer: Pygments' token stream mapped
into the classes the fast path emits (test helper, not a test).

Pygments decides where every comment, string literal and number begins and ends; the mapping
then applies the fast path's own conventions, which are choices rather than lexing:

* comments and white space are dropped, and so is a backslash that continues a line;
* a string literal is one STRING token from its opening quote (or C#'s ``@``, JavaScript's ``/``)
  to its closing quote, interpolations (``${...}``, ``{...}``, ``$name``) included; Pygments
  cuts one literal into several tokens (quotes, escapes, interpolations), which are joined. A
  prefix in letters (Python's ``f`` and ``rb``, C++'s ``u8R``, Rust's ``r`` and ``b``, C#'s ``$``)
  is a word of its own before the literal, as winnowdb has always read it (so that the
  fingerprints of code with such literals stay what they were); the prefix still decides how
  the literal is read (a raw string's end);
* a number is one NUMBER token, to the end of its word: a literal's suffix and digit separators
  are part of it (``1j``, ``1_000L``, ``0xFF_u8``, ``10n``), as every language here lexes them,
  though some Pygments lexers cut them off; a sign before it (C's ``-1``) is an operator;
* every other span of code (names, keywords, operators, punctuation, and preprocessor lines, which
  Pygments calls comments but winnowdb reads as code) is cut as the fast path cuts code: runs of
  word characters (letters, digits, ``_``, ``$``) and single other characters. A word is a
  keyword when it is in ``code_syntax.KEYWORDS`` of the language (the fixed lists are a choice,
  tested elsewhere), else an identifier, or a number when it starts with a digit.

Both streams are written as (kind, start, stop) with kind ``ident``, ``number``, ``string``, ``kw``
or the operator character itself, and compared as they are.
"""
from __future__ import annotations

import difflib

from winnowdb.normalize.code import IDENT, NUMBER, STRING, normalize_code
from winnowdb.normalize.code_syntax import KEYWORDS

__all__ = ["fast_tokens", "reference_tokens", "differences", "PYGMENTS_NAME"]

#: the Pygments lexer that reads each language's files (TypeScript files are tokenized as
#: JavaScript by winnowdb, and checked against Pygments' TypeScript lexer)
PYGMENTS_NAME = {"csharp": "csharp", "cpp": "cpp", "javascript": "javascript", "typescript": "typescript"}


def fast_tokens(text: str, lang: str) -> list[tuple[str, int, int]]:
    """winnowdb's tokens of ``text`` as (kind, start, stop)."""
    n = normalize_code(text, lang)
    out = []
    for u, s, e in zip(n.units.tolist(), n.start.tolist(), n.stop.tolist()):
        if u == IDENT:
            kind = "ident"
        elif u == NUMBER:
            kind = "number"
        elif u == STRING:
            kind = "string"
        elif u < 0x110000:
            kind = chr(u)
        else:
            kind = "kw"
        out.append((kind, s, e))
    return out


def _is_word(c: str) -> bool:
    return c.isalnum() or c in "_$"


#: the characters a literal's prefix is made of
_WORD = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_$"


def _code(text: str, start: int, stop: int, keywords: frozenset, out: list) -> None:
    """Cut text[start:stop] (code, per Pygments) as the fast path cuts code."""
    i = start
    while i < stop:
        c = text[i]
        if c.isspace() or c == "\ufeff" or (c == "\\" and text[i + 1:i + 2] in ("\n", "\r")):
            i += 1
        elif _is_word(c):
            j = i + 1
            while j < stop and _is_word(text[j]):
                j += 1
            word = text[i:j]
            kind = "number" if word[0].isdigit() else "kw" if word in keywords else "ident"
            out.append((kind, i, j))
            i = j
        else:
            out.append((c, i, i + 1))
            i += 1


def reference_tokens(text: str, lang: str, lexer_name: str | None = None) -> list[tuple[str, int, int]]:
    """The tokens Pygments' lexer ``lexer_name`` (default: ``lang``'s) reads in ``text``, mapped
    to the fast path's (kind, start, stop)."""
    from pygments.lexers import get_lexer_by_name

    lexer = get_lexer_by_name(lexer_name or PYGMENTS_NAME.get(lang, lang), stripnl=False, ensurenl=False,
                              stripall=False)
    keywords = KEYWORDS.get(lang, frozenset())
    out: list[tuple[str, int, int]] = []
    _read(lexer, text, text, 0, keywords, out, nested=False)
    return out


#: tokens Pygments gives a literal's opening (and closing) quote alone
_QUOTES = frozenset({'"', "'", '"""', "'''", "`"})


def _read(lexer, full: str, text: str, offset: int, keywords: frozenset, out: list, nested: bool) -> None:
    from pygments.token import Comment, Number, String, Text, Whitespace

    in_string = False  # the last token was part of a literal that may go on
    opener = None  # the literal's first token
    depth = 0  # inside an interpolation of the literal
    take_next = False  # after Kotlin's "$": the name is part of the literal
    munched = 0  # a number runs to the end of its word: text before this offset is taken
    for pos, ttype, value in lexer.get_tokens_unprocessed(text):
        pos += offset
        if pos < munched:  # the suffix of a number (1j, 1_000L, 0xFF_u8)
            value, pos = value[munched - pos:], munched
        if not value:
            continue
        if ttype in String.Doc and value.startswith(("//", "/*")):  # Rust's doc comments
            in_string = False
            continue
        if ttype in String and not in_string:  # a literal starts: its prefix in letters is code
            prefix = len(value) - len(value.lstrip(_WORD))
            if prefix:
                _code(full, pos, pos + prefix, keywords, out)
                pos, value = pos + prefix, value[prefix:]
                if not value:  # the prefix alone (String.Affix): the literal starts next
                    continue
        if ttype in String or (in_string and (depth > 0 or take_next)):
            take_next = False
            if in_string:
                out[-1] = ("string", out[-1][1], pos + len(value))
            else:
                out.append(("string", pos, pos + len(value)))
                in_string, opener, depth = True, None, 0
            if opener is None:
                opener = value
            elif depth == 0 and value == opener and opener in _QUOTES:
                in_string = False  # closed: a literal right after it is another ("a""b")
            elif ttype in String.Interpol:  # "${", "{", "}", "!r}", "$"
                depth = max(0, depth + value.count("{") - value.count("}"))
                take_next = value == "$"
            elif depth > 0 and value == "}}":  # in a hole, "}}" closes two ({x:{w}})
                depth = max(0, depth - 2)
            continue
        in_string = False
        if ttype in Comment.Preproc or ttype in Comment.PreprocFile:
            if nested or value.lstrip().startswith("#"):  # "#", "#include": no literal inside
                _code(full, pos, pos + len(value), keywords, out)
            else:  # a directive's text, or a macro's body: code, read as code
                _read(lexer, full, value, pos, keywords, out, nested=True)
        elif ttype in Comment or ttype in Whitespace or (ttype in Text and not value.strip()):
            continue
        elif ttype in Number:
            if value[0] in "+-":  # C's "-1": a sign is an operator, never part of the literal
                out.append((value[0], pos, pos + 1))
                pos, value = pos + 1, value[1:]
            stop = pos + len(value)
            while stop < len(full) and _is_word(full[stop]):
                stop += 1
            munched = stop
            if out and out[-1][0] == "number" and out[-1][2] == pos:  # one literal, cut in pieces
                out[-1] = ("number", out[-1][1], stop)
            else:
                out.append(("number", pos, stop))
        else:
            _code(full, pos, pos + len(value), keywords, out)


def differences(text: str, lang: str, lexer_name: str | None = None, limit: int = 12) -> list[str]:
    """Where winnowdb's tokens of ``text`` differ from the reference, one line each (line number,
    the reference's tokens, winnowdb's); empty when they agree."""
    want = reference_tokens(text, lang, lexer_name)
    got = fast_tokens(text, lang)
    if want == got:
        return []
    out = []
    matcher = difflib.SequenceMatcher(a=want, b=got, autojunk=False)
    for op, a0, a1, b0, b1 in matcher.get_opcodes():
        if op == "equal":
            continue
        at = want[a0][1] if a0 < len(want) else got[b0][1] if b0 < len(got) else len(text)
        line = text.count("\n", 0, at) + 1

        def show(toks):
            return " ".join(f"{k}:{text[s:e]!r}" if len(k) > 1 else repr(k) for k, s, e in toks[:6]) \
                + (" ..." if len(toks) > 6 else "")
        out.append(f"line {line}: pygments {show(want[a0:a1]) or '-'} | winnowdb {show(got[b0:b1]) or '-'}")
        if len(out) >= limit:
            break
    return out
