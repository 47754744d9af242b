"""Which programming language a file is: by its extension, or named by ``--language``.

The fast tokenizer (``normalize.code``) handles the languages listed in
``normalize.code_syntax.FAST``; any other language Pygments knows is tokenized by Pygments
(slower, but 500+ languages). Files whose extension names no language are text.

Four extensions are ambiguous; each reads as the language most files with it are in, and
``--language`` reads them as another: ``.h`` is C (``cpp`` or ``objective-c`` for those headers),
``.m`` is MATLAB (``objective-c``), ``.pl`` is Perl (``prolog``), ``.v`` is Verilog (``coq``).
A language no tokenizer knows is an error for the file (``normalize.code``), never text.
"""
from __future__ import annotations

from functools import lru_cache

from ..normalize.code_syntax import FAST
from ..settings import TEXT_NORMALIZERS

__all__ = ["EXTENSIONS", "language_for", "canonical_language", "forced_language"]

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
    if normalizer in TEXT_NORMALIZERS:
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
