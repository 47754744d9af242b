"""Programming languages winnowdb tokenizes: file extensions, keyword sets, comment/string syntax.

The fast tokenizer (``codetokens``) handles the languages listed in ``FAST``; any other language
Pygments knows is tokenized by Pygments (slower, but 500+ languages).
"""
from __future__ import annotations

from functools import lru_cache


__all__ = ["FAST", "EXTENSIONS", "language_for", "canonical_language", "forced_language", "KEYWORDS", "SYNTAX"]

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

#: comment and string syntax of each fast language: line comment, block comments (start, end),
#: string regexes (written with unrolled loops, which Python's regex engine runs fast), and the
#: characters any of them can start with (a guard that lets the scanner skip everything else).
#: String prefixes (Python's f"", C++'s u8"") are left to the tokenizer as identifiers.
_DQ = r'"[^"\\\n]*(?:\\[\s\S][^"\\\n]*)*"'  # a backslash escapes any character, a newline too
_SQ = r"'[^'\\\n]*(?:\\[\s\S][^'\\\n]*)*'"
_C_STRINGS = [_DQ, _SQ]
SYNTAX: dict[str, dict] = {
    "python": {"line": "#", "block": [], "starts": "\"'#",
               "strings": [r'"""[\s\S]*?"""', r"'''[\s\S]*?'''", _DQ, _SQ]},
    "c": {"line": "//", "block": [(r"/\*", r"\*/")], "starts": "\"'/", "strings": _C_STRINGS},
    "cpp": {"line": "//", "block": [(r"/\*", r"\*/")], "starts": "\"'/", "strings": _C_STRINGS},
    "java": {"line": "//", "block": [(r"/\*", r"\*/")], "starts": "\"'/",
             "strings": [r'"""[\s\S]*?"""'] + _C_STRINGS},
    "javascript": {"line": "//", "block": [(r"/\*", r"\*/")], "starts": "\"'/`",
                   # template literals, with one level of templates nested in ${...}
                   "strings": [r"`(?:[^`\\$]|\\[\s\S]|\$(?!\{)|\$\{(?:[^{}`]|`(?:[^`\\]|\\[\s\S])*`"
                               r"|\{[^{}]*\})*\})*`"] + _C_STRINGS},
    "go": {"line": "//", "block": [(r"/\*", r"\*/")], "starts": "\"'/`", "strings": [r"`[^`]*`"] + _C_STRINGS},
    "csharp": {"line": "//", "block": [(r"/\*", r"\*/")], "starts": "\"'/@",
               "strings": [r'@"(?:""|[^"])*"'] + _C_STRINGS},
    "rust": {"line": "//", "block": [(r"/\*", r"\*/")], "starts": "\"'/",
             "strings": [r'"[^"\\]*(?:\\[\s\S][^"\\]*)*"', r"'(?:\\.[^'\n]{0,8}|[^'\\\n])'"]},
    "kotlin": {"line": "//", "block": [(r"/\*", r"\*/")], "starts": "\"'/",
               "strings": [r'"""[\s\S]*?"""'] + _C_STRINGS},
}
FAST = frozenset(SYNTAX)

EXTENSIONS: dict[str, str] = {
    ".py": "python", ".pyw": "python", ".pyi": "python",
    ".c": "c", ".h": "c",
    ".cc": "cpp", ".cpp": "cpp", ".cxx": "cpp", ".hpp": "cpp", ".hh": "cpp", ".hxx": "cpp", ".c++": "cpp",
    ".java": "java",
    ".js": "javascript", ".mjs": "javascript", ".cjs": "javascript", ".jsx": "javascript",
    ".ts": "javascript", ".tsx": "javascript",
    ".go": "go", ".cs": "csharp", ".rs": "rust", ".kt": "kotlin", ".kts": "kotlin",
    # handled by Pygments
    ".rb": "ruby", ".php": "php", ".swift": "swift", ".scala": "scala", ".hs": "haskell",
    ".lua": "lua", ".pl": "perl", ".r": "r", ".m": "matlab", ".jl": "julia", ".sh": "bash",
    ".sql": "sql", ".ml": "ocaml", ".ex": "elixir", ".exs": "elixir", ".erl": "erlang",
    ".clj": "clojure", ".dart": "dart", ".f90": "fortran", ".pas": "pascal", ".vb": "vbnet",
    ".scm": "scheme", ".rkt": "racket", ".v": "verilog", ".vhd": "vhdl", ".asm": "nasm",
}


def language_for(path: str) -> str | None:
    """The language of a file by its extension, or None for text."""
    dot = path.rfind(".")
    if dot < 0 or "/" in path[dot:]:
        return None
    return EXTENSIONS.get(path[dot:].lower())


def canonical_language(name: str) -> str:
    """The language name winnowdb uses for ``name`` (``add --language``): any Pygments name or
    alias, in any case, maps to the name files of that language get by their extension (``py``,
    ``Python`` and ``python3`` are all ``python``), so forced and detected files match. Raises
    ``ValueError`` for a name Pygments does not know."""
    key = name.strip().lower()
    if key in FAST or key in EXTENSIONS.values():
        return key
    from pygments.lexers import get_lexer_by_name
    from pygments.util import ClassNotFound

    try:
        lexer = get_lexer_by_name(key)
    except ClassNotFound:
        raise ValueError(f"unknown language {name!r}: use python, java, c, cpp, javascript, go, csharp, "
                         f"rust, kotlin or another Pygments lexer name") from None
    if type(lexer).__name__ in _NOT_CODE:
        raise ValueError(f"{name!r} is not a programming language: without --language, files that are "
                         f"not code are read as text")
    return _by_lexer().get(lexer.name, lexer.aliases[0] if lexer.aliases else key)


def forced_language(name: str, normalizer: str) -> str:
    """``canonical_language(name)`` for an index made with ``normalizer``; ``ValueError`` also
    when that index reads every file as text or words (a language would be silently ignored)."""
    if normalizer in ("prose", "text", "words"):
        raise ValueError(f"--language needs an index that tokenizes code (--normalizer auto or code), "
                         f"not one that reads every file as {normalizer}")
    return canonical_language(name)


#: Pygments lexers that do not split text into tokens (a whole file would be one token)
_NOT_CODE = frozenset({"TextLexer", "OutputLexer", "RawTokenLexer"})


@lru_cache(maxsize=None)
def _by_lexer() -> dict[str, str]:
    """Pygments lexer name -> winnowdb's name for a language files get by extension: the lexer of
    each name in ``EXTENSIONS``, and the lexers of the extensions the fast path reads as another
    language (TypeScript, TSX and JSX files are tokenized as JavaScript)."""
    from pygments.lexers import get_lexer_by_name, get_lexer_for_filename
    from pygments.util import ClassNotFound

    out: dict[str, str] = {}
    for ours in sorted(set(EXTENSIONS.values())):
        try:
            out[get_lexer_by_name(ours).name] = ours
        except ClassNotFound:
            pass
    for ext, ours in EXTENSIONS.items():
        if ours in FAST:
            try:
                out.setdefault(get_lexer_for_filename("x" + ext).name, ours)
            except ClassNotFound:
                pass
    return out
