"""Worker processes for ``add``: a function mapped over tasks, results in task order, and a stop
that works at any moment.

``multiprocessing.Pool`` was tried first and can hang for ever in ``terminate()`` (a Ctrl-C at
the wrong moment hung ``add``): a worker blocked while sending a large result holds the result
queue's lock, which ``terminate()`` then waits for. Here no lock is shared: each worker has its
own pipe to the main process, the main process hands out a few tasks per worker at a time, and
stopping kills the workers without waiting on anything they hold.

Workers block Ctrl-C (SIGINT) from birth and then ignore it: it is the main process's to handle.
They die with the main process (Linux ``PR_SET_PDEATHSIG``), and their stderr is silenced, since
a worker's errors are sent to the main process and raised there.
"""
from __future__ import annotations

import multiprocessing as mp
import os
import signal
import sys
from multiprocessing.connection import wait
from typing import TYPE_CHECKING, Any, Callable, Iterable, Iterator, cast

if TYPE_CHECKING:
    from multiprocessing.connection import Connection

__all__ = ["OrderedPool", "WorkerDied"]


class WorkerDied(RuntimeError):
    """A worker process ended without sending its result (killed, out of memory, ...)."""


_MASKS = hasattr(signal, "pthread_sigmask")  # POSIX


def _quiet_child() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if _MASKS:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass
    sys.stderr = open(os.devnull, "w")


def _serve(func: Callable[[Any], Any], conn, warm: Callable[[], Any] | None = None) -> None:
    """A worker's loop: ``warm()`` first (work that makes the first task faster; a failure is
    left for the tasks to meet), then receive (index, task), send (index, ok, result or exception).
    Python's garbage collector is paused during ``warm()`` (importing numba and loading the
    kernels set off collections that walk their whole object graph: ~0.08 s of a code add), then
    what it made is frozen and the collector is on for the tasks, whatever the parent had paused
    when it forked (``add`` may start its workers during a walk, which pauses it)."""
    import gc

    gc.disable()
    _quiet_child()
    if warm is not None:
        try:
            warm()
        except Exception:
            pass
    gc.freeze()
    gc.enable()
    while True:
        try:
            job = conn.recv()
        except (EOFError, OSError):
            return  # the main process has gone
        if job is None:
            return
        i, task = job
        try:
            reply = (i, True, func(task))
        except BaseException as exc:  # raised again in the main process
            reply = (i, False, exc)
        try:
            conn.send(reply)
        except (OSError, ValueError):
            return
        except Exception as exc:  # the exception could not be pickled
            conn.send((i, False, RuntimeError(f"{type(exc).__name__}: {exc}")))


class OrderedPool:
    """``processes`` workers running ``func``; ``imap(tasks)`` yields ``func(task)`` in task order.

    At most ``ahead`` tasks are handed to each worker at a time, and at most ``ahead`` times the
    number of workers are out at once, counting the finished results that wait in memory for an
    earlier, slower one: a worker stuck on a long task holds the others back, never memory up.
    Use as a context manager: leaving the block normally lets the workers finish; leaving it by
    an exception kills them. Either leaves a pool that was closed or killed already as it is.
    ``warm`` is called in each worker once, as it starts, before any task.
    """

    def __init__(self, func: Callable[[Any], Any], processes: int, *, ahead: int = 4,
                 context: str | None = None, warm: Callable[[], Any] | None = None) -> None:
        ctx = mp.get_context(context)
        self.ahead = max(1, ahead)
        self._workers: list[tuple[Any, Any]] = []
        # SIGINT is blocked while forking, so no worker can be interrupted before it ignores it
        blocked = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT}) if _MASKS else None
        try:
            for _ in range(max(1, processes)):
                mine, theirs = ctx.Pipe(duplex=True)
                # typeshed types get_context(str) as BaseContext, which has no Process; every
                # context it returns (fork, forkserver, spawn) has one
                proc = ctx.Process(target=_serve, args=(func, theirs, warm), daemon=True)  # type: ignore[attr-defined]
                proc.start()
                theirs.close()
                self._workers.append((proc, mine))
        except BaseException:
            self.kill()
            raise
        finally:
            if blocked is not None:  # the mask before (pthread_sigmask returns it when _MASKS)
                signal.pthread_sigmask(signal.SIG_SETMASK, blocked)

    def imap(self, tasks: Iterable[Any]) -> Iterator[Any]:
        jobs = enumerate(tasks)
        load = {conn: 0 for _, conn in self._workers}
        done: dict[int, tuple[bool, Any]] = {}
        next_out = 0
        more = True

        limit = self.ahead * len(load)  # tasks out: sent and not done, or done and not yielded

        def feed() -> None:
            """Hand out tasks one at a time, each to the worker with the fewest, so that a short
            list of tasks is shared out evenly instead of filling the first worker up."""
            nonlocal more
            while more and sum(load.values()) + len(done) < limit:
                conn = min(load, key=load.__getitem__)
                if load[conn] >= self.ahead:
                    return
                job = next(jobs, None)
                if job is None:
                    more = False
                    return
                try:
                    conn.send(job)
                except OSError:  # BrokenPipeError: the worker died before it took this task
                    raise WorkerDied("a worker process ended unexpectedly") from None
                load[conn] += 1

        while True:
            while next_out in done:
                ok, value = done.pop(next_out)
                next_out += 1
                if not ok:
                    raise value
                yield value
            feed()  # hand out what the results yielded (or received) left room for
            busy = [conn for conn, n in load.items() if n]
            if not busy:
                return
            for conn in cast("list[Connection]", wait(busy)):  # some of busy (typeshed: any waitable)
                try:
                    i, ok, value = conn.recv()
                except (EOFError, OSError):
                    raise WorkerDied("a worker process ended unexpectedly") from None
                load[conn] -= 1
                done[i] = (ok, value)

    def close(self) -> None:
        """Let the workers finish and wait for them."""
        for _, conn in self._workers:
            try:
                conn.send(None)
            except OSError:
                pass
        for proc, conn in self._workers:
            proc.join(timeout=5)
            if proc.is_alive():
                proc.kill()
                proc.join()
            conn.close()
        self._workers = []

    def kill(self) -> None:
        """Stop now: kill the workers (never waits on anything they hold)."""
        for proc, _ in self._workers:
            if proc.is_alive():
                proc.kill()
        for proc, conn in self._workers:
            proc.join()
            conn.close()
        self._workers = []

    def __enter__(self) -> "OrderedPool":
        return self

    def __exit__(self, exc_type, *exc: Any) -> None:
        if exc_type is None:
            self.close()
        else:
            self.kill()
