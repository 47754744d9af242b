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


def test_stopping_with_large_results_in_flight_does_not_hang():
    t0 = time.perf_counter()
    with pytest.raises(KeyboardInterrupt):
        with OrderedPool(_big, 2, ahead=4) as pool:
            for i, r in enumerate(pool.imap(range(40))):
                if i == 1:
                    time.sleep(0.3)  # let the workers block on sending their big results
                    raise KeyboardInterrupt
    assert time.perf_counter() - t0 < 20
    assert pool._workers == []  # killed and joined


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
