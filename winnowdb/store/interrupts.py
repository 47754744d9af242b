"""Ctrl-C around commits: hold an interrupt while a batch commits and is counted, let it through
for long abortable work, and recognise DuckDB's way of reporting one.

An interrupted ``add`` must lose nothing it reports as saved: ``deferred_interrupt`` wraps a
commit and its bookkeeping so SIGINT lands before or after both, never between.
"""
from __future__ import annotations

import signal
import threading
from contextlib import contextmanager

import duckdb

__all__ = ["deferred_interrupt", "interrupts_allowed", "interrupts_ignored", "is_interrupt"]


def is_interrupt(exc: BaseException) -> bool:
    """Whether ``exc`` is a Ctrl-C (DuckDB reports one during a query as an error)."""
    if isinstance(exc, KeyboardInterrupt):
        return True
    if isinstance(exc, getattr(duckdb, "InterruptException", ())):
        return True
    return isinstance(exc, RuntimeError) and "interrupted" in str(exc).lower()


class _HeldInterrupt:
    """A SIGINT handler that only records the signal (see ``deferred_interrupt``)."""

    def __init__(self, previous) -> None:
        self.previous = previous
        self.pending = False

    def __call__(self, signum, frame) -> None:
        self.pending = True


@contextmanager
def deferred_interrupt():
    """Hold Ctrl-C (SIGINT) until the block ends, then raise ``KeyboardInterrupt``.

    Wrap a commit and the bookkeeping that reports it, so an interrupt can never land between
    "committed" and "counted as saved". Only the main thread can do this; elsewhere (or when
    SIGINT is ignored) it does nothing.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.getsignal(signal.SIGINT)
    if not callable(previous) or isinstance(previous, _HeldInterrupt):
        yield
        return
    held = _HeldInterrupt(previous)
    signal.signal(signal.SIGINT, held)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
    if held.pending:
        raise KeyboardInterrupt


@contextmanager
def interrupts_allowed():
    """Inside ``deferred_interrupt``, let Ctrl-C through again for a block (long, abortable work)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    held = signal.getsignal(signal.SIGINT)
    if not isinstance(held, _HeldInterrupt):
        yield
        return
    if held.pending:
        held.pending = False
        raise KeyboardInterrupt
    signal.signal(signal.SIGINT, held.previous)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, held)


@contextmanager
def interrupts_ignored():
    """Ignore Ctrl-C for a block: for tidying up work that is already done and saved (closing the
    index after an ``add``), where stopping could only turn a success into an error."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.getsignal(signal.SIGINT)
    if previous is None:  # set from outside Python: leave it alone
        yield
        return
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
