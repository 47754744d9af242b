"""The worker pool behind ``add``: results in task order, worker errors raised in the caller, and
a stop that never hangs (multiprocessing.Pool.terminate() could, with large results in flight)."""
from __future__ import annotations

import os
import time

import pytest

from winnowdb.ingest.workers import OrderedPool, WorkerDied


def _slow_square(x: int) -> int:
    time.sleep(0.002 * (x % 5))  # finish out of order
    return x * x


def _big(x: int) -> str:
    return str(x) * 2_000_000  # 2 MB and more per result: larger than any pipe buffer


def _fail_on_7(x: int) -> int:
    if x == 7:
        raise ValueError("seven")
    return x


def _die_on_3(x: int) -> int:
    if x == 3:
        os._exit(1)
    return x


def test_results_come_in_task_order():
    with OrderedPool(_slow_square, 3, ahead=2) as pool:
        assert list(pool.imap(range(60))) == [x * x for x in range(60)]


def test_a_worker_error_is_raised_in_the_caller_after_the_earlier_results():
    got = []
    with pytest.raises(ValueError, match="seven"):
        with OrderedPool(_fail_on_7, 2) as pool:
            for r in pool.imap(range(20)):
                got.append(r)
    assert got == list(range(7))


def test_a_dead_worker_is_an_error_not_a_hang():
    with pytest.raises(WorkerDied):
        with OrderedPool(_die_on_3, 2) as pool:
            list(pool.imap(range(10)))


def worker_states(procs) -> list[str]:
    """Each process's scheduler state (R running, S sleeping in a blocking call, ...), from /proc."""
    states = []
    for proc in procs:
        with open(f"/proc/{proc.pid}/stat") as fh:
            states.append(fh.read().rsplit(")", 1)[1].split()[0])
    return states


def test_stopping_with_large_results_in_flight_does_not_hang():
    # The test stops taking results after the second one, waits until every worker is blocked
    # sending a result (2 MB: more than any pipe buffer) that nobody reads, and stops the pool
    # right then. Each worker always has tasks waiting in its pipe (ahead=4), so a worker that
    # sleeps is blocked in that send, nowhere else: computing and pickling a result never sleep.
    import multiprocessing
    import threading

    before = set(multiprocessing.active_children())
    workers: list = []
    outcome: list = []

    def stop_in_flight() -> None:
        try:
            with OrderedPool(_big, 2, ahead=4) as pool:
                workers.extend(set(multiprocessing.active_children()) - before)
                for i, _ in enumerate(pool.imap(range(40))):
                    if i == 1:
                        while worker_states(workers) != ["S", "S"]:
                            time.sleep(0.01)
                        raise KeyboardInterrupt
        except KeyboardInterrupt:
            outcome.append("stopped")

    stopper = threading.Thread(target=stop_in_flight, daemon=True)
    stopper.start()
    stopper.join(timeout=300)  # only a hang takes this long: the stop itself waits on nothing
    assert not stopper.is_alive(), "stopping the pool hung"
    assert outcome == ["stopped"]
    assert len(workers) == 2 and not any(w.is_alive() for w in workers)  # killed and joined


def test_empty_task_list():
    with OrderedPool(_slow_square, 2) as pool:
        assert list(pool.imap([])) == []


@pytest.mark.parametrize("context", ["fork", "forkserver", "spawn"])
def test_every_start_method_works(context):
    import multiprocessing

    if context not in multiprocessing.get_all_start_methods():
        pytest.skip(f"{context} is not available on this platform")
    with OrderedPool(_slow_square, 2, context=context) as pool:
        assert list(pool.imap(range(20))) == [x * x for x in range(20)]


def _first_is_slow(x: int) -> int:
    if x == 0:
        time.sleep(1.0)  # the other worker meanwhile finishes every task it is handed
    return x


def test_a_slow_task_holds_the_others_back_not_memory():
    """While the first task runs, finished later results wait for it in memory: the pool hands
    out at most ``ahead`` x workers tasks in all, so they cannot pile up (a worker stuck on one
    long file used to let the other run through the whole add, every result kept)."""
    handed = []

    def tasks():
        for x in range(200):
            handed.append(x)
            yield x

    with OrderedPool(_first_is_slow, 2, ahead=3) as pool:
        results = pool.imap(tasks())
        assert next(results) == 0
        assert len(handed) <= 2 * 3  # ahead x workers
        assert list(results) == list(range(1, 200))


def _pid_after_a_while(x: int) -> int:
    time.sleep(0.05)
    return os.getpid()


def test_a_short_task_list_is_shared_out_evenly():
    """Fewer tasks than ``ahead`` x workers: each worker gets its share, not the first all of
    them (a 970-file add, 16 chunks with 16 ahead, ran in one worker while the other idled)."""
    with OrderedPool(_pid_after_a_while, 2, ahead=16) as pool:
        pids = list(pool.imap(range(10)))
    assert len(set(pids)) == 2
    assert sorted(pids.count(p) for p in set(pids)) == [5, 5]


_WARMED_WITH_GC: list[bool] = []


def _warm_notes_gc() -> None:
    import gc

    _WARMED_WITH_GC.append(gc.isenabled())


def _collects(_: int) -> tuple[bool, list[bool]]:
    import gc

    return gc.isenabled(), list(_WARMED_WITH_GC)


@pytest.mark.parametrize("paused", [True, False], ids=["forked with it paused", "forked with it on"])
def test_workers_collect_garbage_after_warming_up_without_it(paused):
    # the collector is off while a worker warms up (numba's import sets off costly collections),
    # then on for its tasks: also when add starts its workers during the walk, which pauses it
    # (walk.paused_gc); a worker left without it would never collect a reference cycle
    import gc

    if paused:
        gc.disable()
    try:
        with OrderedPool(_collects, 2, context="fork", warm=_warm_notes_gc) as pool:
            assert list(pool.imap(range(6))) == [(True, [False])] * 6
    finally:
        gc.enable()
