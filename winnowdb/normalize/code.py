"""Normalize source code into tokens, as MOSS does: what a copier cannot cheaply disguise.

Comments and white space are dropped; every identifier becomes one symbol (renaming a variable
hides nothing); literals become their kind (a string, a number); keywords and operators are kept.
Each token keeps its span in the original text, so passages map back to exact lines and columns.

The fast path (languages in ``code_syntax.FAST``) is vectorized: one regular-expression pass finds
comments and string literals, numpy blanks them (keeping every character offset), then numpy splits the
rest into word runs (keywords, identifiers, numbers) and single operator characters; with
``compiled`` (``add``'s workers, when its compiled kernels are loaded), ``code_kernel`` joins the
numbers and does that split in compiled loops, giving the same tokens. Other languages are tokenized with Pygments.
"""
from __future__ import annotations

import re
from functools import lru_cache
from typing import NamedTuple

import numpy as np

from ..fingerprint.hashing import segment_hashes
from .code_syntax import FAST, KEYWORDS, SYNTAX
from .units import Normalized, code_points, empty

__all__ = ["normalize_code", "compiled_kernel", "code_parts", "CodeParts", "IDENT", "NUMBER", "STRING"]

# The tokens are versioned by ``settings.CODE_TOKENS_VERSION`` (stored in every index): change
# the units of some code here and it must change too, so ``upgrade`` fingerprints old code again.

# unit ids of the token classes (above every code point, below any 64-bit word hash in practice)
IDENT = 0x110001
NUMBER = 0x110002
STRING = 0x110003
_STRING_MARK = "\x01"  # placeholder character for a collapsed string literal


@lru_cache(maxsize=None)
def _blank_pattern(lang: str) -> re.Pattern:
    """Named groups: ``lit`` a string literal, ``com`` a comment, and where the language has one,
    ``lead``: code read with the literal after it but no part of it. ``split`` gives the text
    between matches, then every group of each match (a literal's own groups too: back-references),
    so [text, groups of a match..., text, groups..., ..., text]."""
    syn = SYNTAX[lang]
    lead = f"(?P<lead>{syn['lead']})?" if "lead" in syn else ""
    guard = "".join(re.escape(c) for c in syn["starts"])
    return re.compile(f"(?=[{guard}])(?:{lead}(?P<lit>{'|'.join(syn['strings'])})"
                      f"|(?P<com>{'|'.join(syn['comments'])}))")


def _lengths(parts: list, group: int, stride: int) -> np.ndarray:
    """The length of group ``group`` (0 where it did not take part) in each match of ``split``."""
    column = parts[group::stride]
    return np.fromiter(map(len, (x or "" for x in column)), dtype=np.int64, count=len(column))


def _blanked(text: str, lang: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Code points of ``text`` with comments blanked (newlines kept) and each string literal
    collapsed to one mark followed by blanks: same length as ``text``. Also the string literals'
    (start, stop) offsets. The regular expression only finds the spans; numpy does the blanking."""
    cps = code_points(text).copy()
    pattern = _blank_pattern(lang)
    parts = pattern.split(text)  # in C: no Python call per literal or comment
    if len(parts) == 1:
        e = np.empty(0, dtype=np.int64)
        return cps, e, e
    stride, index = pattern.groups + 1, pattern.groupindex
    lead = _lengths(parts, index["lead"], stride) if "lead" in index else 0
    literal = _lengths(parts, index["lit"], stride)
    comment = _lengths(parts, index["com"], stride)
    between = _lengths(parts, 0, stride)
    lengths = lead + literal + comment  # of each match
    starts = np.cumsum(between[:-1]) + np.cumsum(lengths) - lengths + lead  # past the lead
    stops = starts + literal + comment
    depth = np.zeros(cps.shape[0] + 1, dtype=np.int32)
    depth[starts] += 1  # spans never overlap: starts (and stops) are distinct
    depth[stops] -= 1
    inside = np.cumsum(depth[:-1]) > 0
    cps[inside & (cps != 10)] = 32
    is_string = literal > 0
    cps[starts[is_string]] = ord(_STRING_MARK)
    return cps, starts[is_string], stops[is_string]


@lru_cache(maxsize=None)
def _keyword_hashes(lang: str) -> np.ndarray:
    words = sorted(KEYWORDS.get(lang, ()))
    if not words:
        return np.empty(0, dtype=np.uint64)
    joined = "".join(words)
    cps = code_points(joined).astype(np.uint64)
    lens = np.array([len(w) for w in words])
    stops = np.cumsum(lens)
    return np.sort(segment_hashes(cps, stops - lens, stops))


def _runs(mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(starts, stops) of the runs of True in ``mask``."""
    edges = np.diff(np.concatenate(([False], mask, [False])).astype(np.int8))
    return np.flatnonzero(edges == 1), np.flatnonzero(edges == -1)


def _word_heads(at: np.ndarray, is_word: np.ndarray) -> np.ndarray:
    """The start of the word that ends just before each of the positions ``at``."""
    wstart, _ = _runs(is_word)
    return wstart[np.searchsorted(wstart, at - 1, side="right") - 1]


def _hex(head: np.ndarray, cps: np.ndarray) -> np.ndarray:
    """Which words starting at ``head`` start with ``0x`` or ``0X``."""
    second = cps[np.minimum(head + 1, cps.shape[0] - 1)]
    return (cps[head] == 48) & ((second == 120) | (second == 88))


@lru_cache(maxsize=None)
def _ascii_set(chars: str) -> np.ndarray:
    """Which of the code points below 129 are in ``chars`` (ASCII), the last (128) never."""
    codes = [ord(c) for c in chars]
    if any(c > 127 for c in codes):
        raise ValueError(f"not ASCII: {chars!r}")
    table = np.zeros(129, dtype=bool)
    table[codes] = True
    return table


def _in(values: np.ndarray, chars: str) -> np.ndarray:
    """Which ``values`` (code points) are in ``chars`` (ASCII characters): a table lookup, where
    ``np.isin`` costs ~20 µs a call on the few values a document gives it."""
    return np.take(_ascii_set(chars), np.minimum(values, 128))


def _join_number_punctuation(cps: np.ndarray, is_digit: np.ndarray, is_word: np.ndarray, syn: dict) -> None:
    """Mark the punctuation inside number literals as word characters (in place), so that
    ``3.14``, ``.5``, ``2.``, ``2.5f``, ``6.02e23`` and ``1e-9`` are each one NUMBER token:

    * a decimal point followed by a digit and not preceded by a letter or a point (``a.b``,
      ``t.0`` and the ranges ``0..10`` keep their operators);
    * a point that ends a number (``2.``, not ``2..`` nor ``2.max()``), or is followed by the
      language's exponent (``1.e-9``) or one-letter suffix (``1.f``, Python's ``1.j``);
    * the sign of an exponent: ``e``/``E`` ending a word that starts with a digit (not ``0x``),
      and in the languages with hexadecimal floats, ``p``/``P`` ending a ``0x`` word, whose point
      (``0x1.8p-3``, ``0xA.Bp1``) joins too;
    * in C and C++, a quote between the digits of a number (``1'000'000``): a quote after a word
      character starts no character literal there.
    """
    n = cps.shape[0]
    hex_float = syn.get("hex_float", False)
    if syn.get("digit_quote") and n > 2:
        quotes = np.flatnonzero(cps[1:-1] == 39) + 1
        quotes = quotes[is_word[quotes - 1] & is_word[quotes + 1]]
        if quotes.size:
            first = cps[_word_heads(quotes, is_word)]
            is_word[quotes[(first >= 48) & (first <= 57)]] = True
    dots = np.flatnonzero(cps == 46)
    if dots.size:
        padded = np.concatenate((cps, [32, 32, 32]))
        word_pad = np.concatenate((is_word, [False, False, False]))
        after, then = padded[dots + 1], padded[dots + 2]
        prev = padded[dots - 1]  # at 0: the last pad, a space
        prev_word, prev_digit = word_pad[dots - 1], (prev >= 48) & (prev <= 57)
        digit_after = (after >= 48) & (after <= 57)
        join = digit_after & (prev_digit | ~prev_word) & (prev != 46)
        ends = ~word_pad[dots + 1] & (after != 46)  # "2." but not "2.max", "0..10"
        if syn.get("dot_exponent"):
            then_digit = (then >= 48) & (then <= 57)
            signed = ((then == 43) | (then == 45)) & (padded[dots + 3] >= 48) & (padded[dots + 3] <= 57)
            ends |= _in(after, "eE") & (then_digit | signed)
        ends |= _in(after, syn.get("dot_suffix", "")) & ~word_pad[dots + 2]
        join |= prev_digit & ends
        mid = join & prev_digit  # "1.5" and "2." join, "x1.5" and "x2." do not
        if hex_float:  # 0x1.8p3, 0xA.Bp1, 0x.8p1
            hexdot = ~join & _in(prev, "0123456789abcdefABCDEFxX") & _in(after, "0123456789abcdefABCDEFpP")
        if mid.any() or (hex_float and hexdot.any()):
            heads = _word_heads(dots, is_word)
            join[mid] = (cps[heads[mid]] >= 48) & (cps[heads[mid]] <= 57)
            if hex_float:
                join[hexdot] = _hex(heads[hexdot], cps) & (heads[hexdot] + 1 < dots[hexdot])
        is_word[dots[join]] = True
    signs = np.flatnonzero((cps[1:-1] == 43) | (cps[1:-1] == 45)) + 1 if n > 2 else np.empty(0, np.int64)
    if signs.size:
        signs = signs[_in(cps[signs - 1], "eEpP" if hex_float else "eE") & is_digit[signs + 1]]
    if signs.size:
        wstart, wstop = _runs(is_word)
        run = np.searchsorted(wstart, signs - 1, side="right") - 1
        head = wstart[run]
        numeric = ((cps[head] >= 48) & (cps[head] <= 57)) | (cps[head] == 46)
        hexadecimal = _hex(head, cps)
        exponent = np.where(_in(cps[signs - 1], "eE"), numeric & ~hexadecimal, hexadecimal)
        is_word[signs[(wstop[run] == signs) & exponent]] = True


def _fast(text: str, lang: str, kernel=None) -> Normalized:
    cps, string_starts, string_stops = _blanked(text, lang)
    n = cps.shape[0]
    if n == 0:
        return empty()
    is_digit = (cps >= 48) & (cps <= 57)
    is_word = is_digit | ((cps >= 65) & (cps <= 90)) | ((cps >= 97) & (cps <= 122)) | (cps == 95) | (cps == 36)
    is_space = ((cps <= 32) & (cps != 1)) | (cps == 0x7F)
    continued = np.flatnonzero(cps[:-1] == 92)  # a backslash that continues a line is white space
    is_space[continued[(cps[continued + 1] == 10) | (cps[continued + 1] == 13)]] = True
    if int(cps.max()) >= 128:  # non-ASCII letters in identifiers, Unicode white space
        hi = np.flatnonzero(cps >= 128)
        chars = [chr(c) for c in cps[hi].tolist()]
        is_word[hi] = [c.isalnum() for c in chars]
        is_space[hi] = [c.isspace() or c == "\ufeff" for c in chars]
    if kernel is not None:  # the joins and the rest below, in compiled loops
        kernel.join_numbers(cps, is_digit, is_word, SYNTAX[lang])
        return Normalized(*kernel.tokens(cps, is_word, is_space, _keyword_hashes(lang), string_starts, string_stops,
                                         IDENT, NUMBER, STRING, ord(_STRING_MARK)))
    _join_number_punctuation(cps, is_digit, is_word, SYNTAX[lang])
    is_punct = ~is_word & ~is_space
    # word runs
    wstart, wstop = _runs(is_word)
    whash = segment_hashes(cps.astype(np.uint64), wstart, wstop)
    kw = _keyword_hashes(lang)
    first = cps[wstart]
    is_num = ((first >= 48) & (first <= 57)) | (first == 46)  # 46: ".5"
    if kw.size:
        pos = np.searchsorted(kw, whash)
        is_kw = kw[np.minimum(pos, kw.size - 1)] == whash
    else:
        is_kw = np.zeros(wstart.shape[0], dtype=bool)
    wunits = np.where(is_kw, whash, np.where(is_num, np.uint64(NUMBER), np.uint64(IDENT)))
    # single-character operator/punctuation tokens (a collapsed string is one STRING token)
    pstart = np.flatnonzero(is_punct)
    pcps = cps[pstart].astype(np.uint64)
    punits = np.where(pcps == 1, np.uint64(STRING), pcps)
    pstop = pstart + 1
    starts = np.concatenate((wstart, pstart))
    order = np.argsort(starts, kind="stable")
    units = np.concatenate((wunits, punits))[order]
    start = starts[order]
    stop = np.concatenate((wstop, pstop))[order]
    # a collapsed string literal's token spans the whole literal
    if string_starts.size:
        strings = np.searchsorted(start, string_starts)
        stop[strings] = string_stops
    return Normalized(units=units.astype(np.uint64), start=start.astype(np.int64), stop=stop.astype(np.int64))


_TOKEN_IDS: dict[str, int] = {}


def _token_id(value: str) -> int:
    tid = _TOKEN_IDS.get(value)
    if tid is None:
        cps = code_points(value).astype(np.uint64)
        tid = int(segment_hashes(cps, np.array([0]), np.array([cps.shape[0]]))[0]) if cps.size else 0
        _TOKEN_IDS[value] = tid
    return tid


def _pygments(text: str, lang: str) -> Normalized:
    from pygments.lexers import get_lexer_by_name
    from pygments.token import Comment, Keyword, Name, Number, Operator, Punctuation, String, Text, Whitespace
    from pygments.util import ClassNotFound

    try:
        lexer = get_lexer_by_name(lang, stripnl=False, ensurenl=False, stripall=False)
    except ClassNotFound:  # never read as text under a code label: the caller skips the file
        raise ValueError(f"no tokenizer for language {lang!r}: this Pygments has no lexer of that "
                         f"name (use --language with another, or --normalizer text)") from None
    units, start, stop = [], [], []
    for pos, ttype, value in lexer.get_tokens_unprocessed(text):
        if not value or ttype in Whitespace or ttype in Comment or ttype in Text and not value.strip():
            continue
        if ttype in String:
            uid = STRING
        elif ttype in Number:
            uid = NUMBER
        elif ttype in Name:
            uid = IDENT
        elif ttype in Keyword or ttype in Operator or ttype in Punctuation:
            uid = _token_id(value.strip())
        else:
            if not value.strip():
                continue
            uid = _token_id(value.strip())
        units.append(uid)
        start.append(pos)
        stop.append(pos + len(value))
    u = np.array(units, dtype=np.uint64)
    return Normalized(units=u, start=np.array(start, dtype=np.int64), stop=np.array(stop, dtype=np.int64))


def normalize_code(text: str, lang: str, compiled: bool = False) -> Normalized:
    """Token units of source code in ``lang`` (a name from ``languages``, or any Pygments name).
    ``compiled``: the fast tokenizer's last pass through ``code_kernel`` when ``add``'s compiled
    kernels are loaded (``compiled_kernel``), the same tokens.

    Raises ``ValueError`` for a language no tokenizer knows (``add`` then reports the file as
    skipped with that reason): code is never quietly read as text under a code label."""
    if lang in FAST:
        return _fast(text, lang, compiled_kernel() if compiled else None)
    return _pygments(text, lang)


def compiled_kernel():
    """The ``code_kernel`` module, compiled and checked against the numpy path on a sample, when
    ``add``'s compiled kernels are in use (``fingerprint.compiled``: numba imports, they passed
    their own check, ``WINNOWDB_KERNELS`` does not say numpy); else None."""
    from ..fingerprint.compiled import compiled_extra

    return compiled_extra("code", _checked_kernel)


def _checked_kernel():
    from . import code_kernel

    sample = 'if x1 >= 0x1F: y = f"{a!r}" + 2.5e-3 + .5  # done\n\tz.w(3)'
    want, got = _fast(sample, "python"), _fast(sample, "python", code_kernel)
    same = all(np.array_equal(getattr(want, f), getattr(got, f)) for f in ("units", "start", "stop"))
    return code_kernel if same else None


class CodeParts(NamedTuple):
    """What the tokens leave out of a piece of code, by kind (``code_parts``)."""

    identifiers: list[str]  # names that are not keywords, as written, in order
    literals: list[str]  # string literals as written (quotes included) and numbers
    comments: list[str]  # comments as written, and Python's docstrings (triple-quoted strings)


_WORD = re.compile(r"(?<!\w)[^\W\d]\w*+(?!\x01)")  # not a string's prefix (f"...": a blanked literal's mark)
_NUMBER = re.compile(r"(?<![\w.])\d[\w.]*")
_TRIPLE = re.compile(r"[A-Za-z]{0,2}(\"\"\"|\'\'\')")


def code_parts(text: str, lang: str) -> CodeParts:
    """The identifiers, literals and comments of source code in ``lang``: the evidence the pair
    score's explanation tells apart (``analysis.compare``: a renamed copy keeps the structure and
    loses the names; a copy told in other code keeps its comments). For one comparison at a time:
    a Python loop over the literals and comments, not a fingerprinting path."""
    if lang not in FAST:
        return _pygments_parts(text, lang)
    literals, comments = [], []
    for m in _blank_pattern(lang).finditer(text):
        lit = m.group("lit")
        if lit is None:
            comments.append(m.group("com"))
        elif lang == "python" and _TRIPLE.match(lit):
            comments.append(lit)
        else:
            literals.append(lit)
    cps, _, _ = _blanked(text, lang)
    code = cps.astype("<u4").tobytes().decode("utf-32-le", "replace")
    keywords = KEYWORDS.get(lang, frozenset())
    names = [w for w in _WORD.findall(code) if w not in keywords]
    return CodeParts(names, literals + _NUMBER.findall(code), comments)


def _pygments_parts(text: str, lang: str) -> CodeParts:
    from pygments.lexers import get_lexer_by_name
    from pygments.token import Comment, Name, Number, String
    from pygments.util import ClassNotFound

    try:
        lexer = get_lexer_by_name(lang, stripnl=False, ensurenl=False, stripall=False)
    except ClassNotFound:
        return CodeParts([], [], [])
    parts = CodeParts([], [], [])
    for _, ttype, value in lexer.get_tokens_unprocessed(text):
        if not value.strip():
            continue
        if ttype in Comment or ttype in String.Doc:
            parts.comments.append(value)
        elif ttype in String or ttype in Number:
            parts.literals.append(value)
        elif ttype in Name:
            parts.identifiers.append(value)
    return parts
