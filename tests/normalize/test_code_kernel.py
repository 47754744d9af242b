"""The code tokenizer's compiled last pass (normalize.code_kernel) gives the numpy path's tokens,
bit for bit (issue 19): over random text of the characters the tokenizer tells apart, in every
language of the fast path, and over the lexer fixtures and the sample corpus's code, each read as
every language. The add through the kernels storing the same index as one through numpy is
tests/fingerprint/test_kernels.py's (the sample corpus's C, Java and Python among its files).
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from winnowdb.fingerprint import compiled
from winnowdb.normalize import code, normalize_as
from winnowdb.normalize.code_syntax import FAST

FIXTURES = Path(__file__).resolve().parent / "lexer_fixtures"
SAMPLE = Path(__file__).resolve().parents[2] / "sample_corpus"

#: characters of every kind the fast tokenizer tells apart: letters (keywords' too), digits and
#: the punctuation of number literals, quotes and comment starts of every language, a line
#: continuation, white space (ASCII and not), the string mark's own code point, letters past
#: ASCII and past the BMP
CODE_CHARS = (list("abefixpPEXr_$ 019.+-'\"`#/*\\\n\t\r{}();=<>@") +
              ["if", "for", "int", "def", "return", "class", "0x1", "1e-9", " .5", "(.5", '"""', "//", "/*",
               "*/", "\x01", "\u00a0", "\ufeff", "é", "日", "\U0001d400"])


@pytest.fixture(autouse=True)
def _kernels_on(monkeypatch):
    """The compiled kernels in use, whatever ``WINNOWDB_KERNELS`` the run was started with."""
    monkeypatch.delenv(compiled.KERNELS_ENV, raising=False)


def tokens_both(text: str, lang: str):
    kernel = code.compiled_kernel()
    assert kernel is not None, "numba is a dependency: the compiled kernel must load here"
    return code.normalize_code(text, lang), code.normalize_code(text, lang, compiled=True)


def assert_same(want, got, where) -> None:
    for field in ("units", "start", "stop"):
        a, b = getattr(want, field), getattr(got, field)
        assert a.dtype == b.dtype and np.array_equal(a, b), (where, field)


def test_the_kernel_is_used_unless_numpy_is_asked_for(monkeypatch):
    from winnowdb.normalize import code_kernel

    assert code.compiled_kernel() is code_kernel
    monkeypatch.setenv(compiled.KERNELS_ENV, "numpy")
    assert code.compiled_kernel() is None


def test_a_kernel_that_gives_other_tokens_is_not_used(monkeypatch):
    """The kernel is checked against the numpy path once per load of the compiled kernels; one
    that disagrees (a stale cache, a broken build) leaves the tokenizer on numpy."""
    from winnowdb.normalize import code_kernel

    real = code_kernel.tokens
    monkeypatch.setattr(code_kernel, "tokens", lambda *a: tuple(x[:-1] for x in real(*a)))
    compiled.reset()  # loaded again: checked again
    try:
        assert code.compiled_kernel() is None
        text = "def f(x):\n    return x + 1\n"
        assert_same(code.normalize_code(text, "python"), code.normalize_code(text, "python", compiled=True), text)
    finally:
        monkeypatch.setattr(code_kernel, "tokens", real)
        compiled.reset()
    assert code.compiled_kernel() is code_kernel


#: what number literals are made of, and what borders them: digits, points, exponents and their
#: signs, hexadecimal prefixes and digits, suffixes, digit quotes, words and operators (the
#: numbers joined by code_kernel.join_numbers)
NUMBER_CHARS = list("0123456789..eE+-xXpPabcfFlLjJdDi'_ ()[]") + ["0x", "0X", "1.", ".5", "1e", "e-", "p+", "..", "x1"]


@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pieces=st.one_of(st.lists(st.sampled_from(CODE_CHARS), max_size=80),
                        st.lists(st.sampled_from(NUMBER_CHARS), max_size=40)),
       lang=st.sampled_from(sorted(FAST)))
def test_compiled_tokens_equal_numpy(pieces, lang):
    text = "".join(pieces)
    want, got = tokens_both(text, lang)
    assert_same(want, got, (text, lang))


NUMBER_CASES = ["0x1e+5", "0x1E-2", "0x1.8p-3", "0xA.Bp1", "0x.8p1", "0x1p+3", "1p+3", "0xe+1", "1'000'000",
                "9'a", "a'1'", "x1.5", "2.max()", "0..10", "1..2", "1.e-9", "1.E+9", "1.f", "1.j", "1.d", "6.02e23",
                "1e-9", ".5", ".5e-3", "a.b", "t.0", "0x.p1", "0x1.", "x.5", "0x1.e+3", "3.14", "2.", "(2.)",
                "a[1.5]", "1.x", "0xff.ffp-1"]


@pytest.mark.parametrize("lang", sorted(FAST))
def test_compiled_number_literals_equal_numpy_on_known_cases(lang):
    for case in NUMBER_CASES:
        text = f"x = {case}; y = f({case}) - {case}\n"
        want, got = tokens_both(text, lang)
        assert_same(want, got, (case, lang))


def _code_files():
    files = [p for p in sorted(FIXTURES.rglob("*")) if p.is_file()]
    files += [p for p in sorted(SAMPLE.rglob("*")) if p.is_file() and p.suffix not in (".txt", ".md")]
    return files


@pytest.mark.parametrize("lang", sorted(FAST))
def test_compiled_tokens_equal_numpy_on_real_code(lang):
    files = _code_files()
    assert len(files) > 10
    tokens = 0
    for path in files:  # every file read as each language: their literals and comments differ
        text = path.read_text(encoding="utf-8", errors="replace")
        want, got = tokens_both(text, lang)
        assert_same(want, got, (path.name, lang))
        tokens += len(want)
    assert tokens > 1000


def test_the_add_path_tokenizes_through_the_kernel(monkeypatch):
    """``normalize_as`` (what the add's batch path calls) takes the kernel when compiled."""
    calls = []
    kernel = code.compiled_kernel()
    real = kernel.tokens
    monkeypatch.setattr(kernel, "tokens", lambda *a: calls.append(1) or real(*a))
    text = (SAMPLE / "code" / "stack.py").read_text(encoding="utf-8")
    assert_same(normalize_as(text, "code:python"), normalize_as(text, "code:python", compiled=True), "stack.py")
    assert calls == [1]
