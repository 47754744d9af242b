"""The syntax the fast code tokenizer knows, per language: keywords, comments and string literals.

``FAST`` lists the languages ``normalize.code`` tokenizes with its vectorized scanner; any other
language Pygments knows is tokenized by Pygments. Which files are which language is decided by
``ingest.languages`` (file extensions, ``--language``).
"""
from __future__ import annotations

__all__ = ["FAST", "KEYWORDS", "SYNTAX"]

_C_KEYWORDS = """auto break case char const continue default do double else enum extern float for goto if
inline int long register restrict return short signed sizeof static struct switch typedef union unsigned
void volatile while _Bool bool true false NULL""".split()
_CPP_EXTRA = """alignas alignof and asm catch class constexpr const_cast decltype delete dynamic_cast explicit
export friend mutable namespace new noexcept not nullptr operator or private protected public
reinterpret_cast static_assert static_cast template this thread_local throw try typeid typename using
virtual override final""".split()
_JAVA_KEYWORDS = """abstract assert boolean break byte case catch char class const continue default do double
else enum extends final finally float for goto if implements import instanceof int interface long native
new package private protected public return short static strictfp super switch synchronized this throw
throws transient try void volatile while true false null var record yield sealed permits""".split()
_JS_KEYWORDS = """break case catch class const continue debugger default delete do else export extends false
finally for function if import in instanceof let new null return super switch this throw true try typeof
var void while with yield async await of static get set undefined interface type enum implements
private protected public readonly""".split()
_GO_KEYWORDS = """break case chan const continue default defer else fallthrough for func go goto if import
interface map package range return select struct switch type var true false nil""".split()
_CS_KEYWORDS = """abstract as base bool break byte case catch char checked class const continue decimal
default delegate do double else enum event explicit extern false finally fixed float for foreach goto if
implicit in int interface internal is lock long namespace new null object operator out override params
private protected public readonly ref return sbyte sealed short sizeof stackalloc static string struct
switch this throw true try typeof uint ulong unchecked unsafe ushort using virtual void volatile while var
async await""".split()
_RUST_KEYWORDS = """as break const continue crate else enum extern false fn for if impl in let loop match mod
move mut pub ref return self Self static struct super trait true type unsafe use where while async await
dyn""".split()
_KOTLIN_KEYWORDS = """as break class continue do else false for fun if in interface is null object package
return super this throw true try typealias typeof val var when while""".split()

#: Python's hard keywords, fixed here (not read from the running interpreter, whose list differs
#: between versions), so a file gives the same tokens on every machine. Soft keywords (match,
#: case, _, type) are ordinary names in most code and stay identifiers.
_PYTHON_KEYWORDS = """False None True and as assert async await break class continue def del elif else
except finally for from global if import in is lambda nonlocal not or pass raise return try while
with yield""".split()

KEYWORDS: dict[str, frozenset[str]] = {
    "python": frozenset(_PYTHON_KEYWORDS),
    "c": frozenset(_C_KEYWORDS),
    "cpp": frozenset(_C_KEYWORDS + _CPP_EXTRA),
    "java": frozenset(_JAVA_KEYWORDS),
    "javascript": frozenset(_JS_KEYWORDS),
    "go": frozenset(_GO_KEYWORDS),
    "csharp": frozenset(_CS_KEYWORDS),
    "rust": frozenset(_RUST_KEYWORDS),
    "kotlin": frozenset(_KOTLIN_KEYWORDS),
}


def _triple(q: str) -> str:
    """A string between tripled quotes ``q`` in which a backslash escapes any character (Python,
    Java's text blocks): ``\"""`` inside it does not end it."""
    return f"{q * 3}[^{q}\\\\]*(?:(?:\\\\[\\s\\S]|{q}(?!{q * 2}))[^{q}\\\\]*)*{q * 3}"


_DQ = r'"[^"\\\n]*(?:\\[\s\S][^"\\\n]*)*"'  # a backslash escapes any character, a newline too
_SQ = r"'[^'\\\n]*(?:\\[\s\S][^'\\\n]*)*'"
_LINE = r"//[^\n]*"
_BLOCK = r"/\*[\s\S]*?(?:\*/|\Z)"  # unterminated: to the end
# C and C++: raw strings R"delim(...)delim" (u8R, uR, UR, LR too; read in C as well, which reads
# C++ headers); a quote after a word character is a digit separator (1'000), not a character
# literal, but for the prefixes (L'x', u8'x') and after "case" and "return"
_C_RAW = (r'(?:(?<=R)(?<![\w$]R)|(?<=u8R)(?<![\w$]u8R)|(?<=[uUL]R)(?<![\w$][uUL]R))'
          r'"(?P<delim>[^()\\\s"]{0,16})\([\s\S]*?\)(?P=delim)"')
_C_CHAR = r"(?:(?<![\w$])|(?<=[uUL])(?<![\w$][uUL])|(?<=u8)(?<![\w$]u8)|(?<=\bcase)|(?<=\breturn))" + _SQ
_C_STRINGS = [_C_RAW, _DQ, _C_CHAR]
_RUST_RAW = r'(?:(?<=r)(?<![\w$]r)|(?<=[bc]r)(?<![\w$][bc]r))(?P<hashes>#*)"[\s\S]*?"(?P=hashes)'
# Kotlin: a string template ${...} may hold strings ("${ "a$b" }"), and one level of braces with
# strings in them too; a string whose template is not closed on its line is read as a plain string
_KOTLIN_INNER = r'\{[^{}"\n]*(?:' + _DQ + r'[^{}"\n]*)*\}'
_KOTLIN_HOLE = r'\{[^{}"\n]*(?:(?:' + _DQ + "|" + _KOTLIN_INNER + r')[^{}"\n]*)*\}'
_KOTLIN_DQ = r'"[^"\\\n$]*(?:(?:\\[\s\S]|\$(?!\{)|\$' + _KOTLIN_HOLE + r')[^"\\\n$]*)*"'
# JavaScript: a regular expression literal stands where an operand does, after an operator, an
# opening bracket, "=>" or a keyword like "return" (at most one space or tab between), never where
# "/" divides (after a name, a number or a closing bracket: "a / b / c", "f(x) / 2"); one that
# starts a line after such a character ends the line before is read with the line break and
# indentation before it as its lead
_JS_OPERATOR = r"[(,=:\[!&|?{};~*%^]"
_JS_AFTER = "|".join(
    [rf"(?<={_JS_OPERATOR})", rf"(?<={_JS_OPERATOR}[ \t])", r"(?<==>)", r"(?<==>[ \t])",
     r"(?<=(?<!\+)\+)", r"(?<=(?<!\+)\+[ \t])", r"(?<=(?<!-)-)", r"(?<=(?<!-)-[ \t])"]
    + [rf"(?<=\b{word}{space})" for word in ("return", "typeof", "instanceof", "in", "of", "new", "delete",
                                              "void", "throw", "case", "do", "else", "yield", "await")
       for space in ("", " ")])
_JS_LEAD = rf"(?:(?<={_JS_OPERATOR})|(?<={_JS_OPERATOR}\r))\n(?=[ \t]*/[^*/\n])[ \t]*"
_JS_REGEX = (rf"(?=/[^*/\n])(?(lead)|(?:{_JS_AFTER}))/"
             r"[^/\\\[\n]*(?:(?:\\.|\[[^\]\\\n]*(?:\\.[^\]\\\n]*)*\])[^/\\\[\n]*)*/[a-zA-Z]*")
_C_NUMBERS = {"digit_quote": True, "dot_exponent": True, "dot_suffix": "fFlL", "hex_float": True}

#: Comments and literals of each fast language, as regular expressions: ``comments``, ``strings``
#: (every literal the tokenizer collapses to one STRING token), and ``starts``, every character a
#: comment or literal can start with (a guard that lets the scanner skip everything else). The loops
#: are unrolled (``"[^"\\]*(?:\\.[^"\\]*)*"``), which Python's regex engine runs fast. A prefix in
#: letters (Python's f"", C++'s u8"", Rust's b"") is no part of the literal: it stays a word of its
#: own, as it always has (a lookbehind reads it where it decides where the literal ends).
#: Numbers (``code._join_number_punctuation``): ``dot_exponent``, ``1.e5`` is a number;
#: ``dot_suffix``, the letters that may end a number after its point (``1.f``); ``hex_float``,
#: ``0x1.8p-3``; ``digit_quote``, ``1'000``.
SYNTAX: dict[str, dict] = {
    "python": {"comments": [r"#[^\n]*"], "starts": "\"'#",
               "strings": [_triple('"'), _triple("'"), _DQ, _SQ], "dot_exponent": True, "dot_suffix": "jJ"},
    "c": {"comments": [_LINE, _BLOCK], "starts": "\"'/", "strings": _C_STRINGS, **_C_NUMBERS},
    "cpp": {"comments": [_LINE, _BLOCK], "starts": "\"'/", "strings": _C_STRINGS, **_C_NUMBERS},
    "java": {"comments": [_LINE, _BLOCK], "starts": "\"'/", "strings": [_triple('"'), _DQ, _SQ],
             "dot_exponent": True, "dot_suffix": "fFdD", "hex_float": True},
    # JavaScript (and TypeScript): templates, with one level of templates nested in ${...}; regular
    # expressions; a #! line that starts the file is a comment
    "javascript": {"comments": [_LINE, _BLOCK, r"\A#![^\n]*"], "starts": "\"'/`#\n", "lead": _JS_LEAD,
                   "strings": [r"`(?:[^`\\$]|\\[\s\S]|\$(?!\{)|\$\{(?:[^{}`]|`(?:[^`\\]|\\[\s\S])*`"
                               r"|\{[^{}]*\})*\})*`", _DQ, _SQ, _JS_REGEX], "dot_exponent": True},
    "go": {"comments": [_LINE, _BLOCK], "starts": "\"'/`", "strings": [r"`[^`]*`", _DQ, _SQ],
           "dot_exponent": True, "dot_suffix": "i", "hex_float": True},
    # C#: raw strings """...""" (three quotes or more, $ before them a word as before), verbatim
    # @"..." and @$"..." (a quote doubled inside)
    "csharp": {"comments": [_LINE, _BLOCK], "starts": "\"'/@",
               "strings": [r'(?P<quotes>"{3,})[\s\S]*?(?P=quotes)', r'@\$?"[^"]*(?:""[^"]*)*"', _DQ, _SQ]},
    # Rust: raw strings r"...", r#"..."# (br, cr too), whose backslashes escape nothing; strings span
    # lines; a quote not closed within a character is a lifetime ('a)
    "rust": {"comments": [_LINE, _BLOCK], "starts": "\"'/#",
             "strings": [_RUST_RAW, r'"[^"\\]*(?:\\[\s\S][^"\\]*)*"', r"'(?:\\.[^'\n]{0,8}|[^'\\\n])'"]},
    "kotlin": {"comments": [_LINE, _BLOCK], "starts": "\"'/", "strings": [r'"""[\s\S]*?"""', _KOTLIN_DQ, _DQ, _SQ]},
}
FAST = frozenset(SYNTAX)
