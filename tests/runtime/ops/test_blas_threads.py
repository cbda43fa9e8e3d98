"""The BLAS thread policy (runtime/ops/blas_threads.py): finding numpy's OpenBLAS without threadpoolctl,
the contention rule, and that the cheap checks run where BLAS work starts."""
import os

import numpy as np
import pytest

from runtime.ops import blas_threads as bt


def test_threads_for_drops_one_thread_per_busy_core():
    assert bt.threads_for(0.0, 2, 2) == 2
    assert bt.threads_for(0.3, 2, 2) == 2          # background noise keeps both
    assert bt.threads_for(0.9, 2, 2) == 1          # another process on a core: one thread
    assert bt.threads_for(3.0, 2, 2) == 1          # never fewer than one
    assert bt.threads_for(1.0, 8, 8) == 7
    assert bt.threads_for(0.0, 8, 4) == 4          # never more than the library's own count


@pytest.mark.skipif(not bt.available(), reason="numpy's BLAS thread count is not controllable here")
def test_recheck_follows_other_processes_load(monkeypatch):
    """Fake clock, /proc/stat and process CPU time: busy others -> 1 thread; idle again -> the default."""
    before = bt.get_threads()
    clock = {"wall": 1000.0, "cpu": 10.0, "busy": 0}
    monkeypatch.setattr(bt, "_monotonic", lambda: clock["wall"])
    monkeypatch.setattr(bt.time, "process_time", lambda: clock["cpu"])
    monkeypatch.setattr(bt, "_busy_jiffies", lambda: clock["busy"])
    monkeypatch.setattr(bt, "_auto", True)
    monkeypatch.setattr(bt, "_default", 2)
    monkeypatch.setattr(bt, "_cpus", {"cpu0", "cpu1"})
    monkeypatch.setattr(bt, "_last", None)
    hz = bt._HZ
    try:
        bt.recheck()                                   # first sample: no decision yet
        # one second: we used 1.0 s of CPU, the two cores were busy 2.0 s -> others ~1 core
        clock.update(wall=1001.0, cpu=11.0, busy=2 * hz)
        bt.recheck()
        assert bt.get_threads() == 1
        # the next second: only our own second of work -> back to the library's count
        clock.update(wall=1002.0, cpu=12.0, busy=3 * hz)
        bt.recheck()
        assert bt.get_threads() == 2
        # the cheap check does nothing before the interval has passed
        bt.set_threads(1)
        clock.update(wall=1002.1)
        bt.maybe_recheck()
        assert bt.get_threads() == 1
    finally:
        bt.set_threads(before)


@pytest.mark.skipif(not bt.available(), reason="numpy's BLAS thread count is not controllable here")
def test_auto_does_not_touch_blas_while_other_python_threads_run(monkeypatch):
    import threading
    before = bt.get_threads()
    monkeypatch.setattr(bt, "_auto", True)
    monkeypatch.setattr(threading, "active_count", lambda: 3)
    monkeypatch.setattr(bt, "_busy_jiffies", lambda: pytest.fail("sampled while threads run"))
    bt.recheck()
    assert bt.get_threads() == before


def test_numpy_openblas_is_found_without_threadpoolctl(monkeypatch):
    import builtins
    import sys
    paths = bt._loaded_numpy_openblas_paths()
    if not paths:
        pytest.skip("this numpy does not use a bundled OpenBLAS")
    real_import = builtins.__import__

    def no_threadpoolctl(name, *args, **kwargs):
        if name == "threadpoolctl":
            raise ImportError(name)
        return real_import(name, *args, **kwargs)
    monkeypatch.setitem(sys.modules, "threadpoolctl", None)
    monkeypatch.setattr(builtins, "__import__", no_threadpoolctl)
    fns = bt._numpy_openblas()
    assert fns is not None
    assert fns[1]() >= 1


def test_eager_matmul_runs_the_cheap_check(monkeypatch):
    import runtime as paddle
    calls = []
    monkeypatch.setattr(bt, "_next_check", 0.0)
    monkeypatch.setattr(bt, "recheck", lambda: calls.append(1))
    a = paddle.to_tensor(np.ones((2, 3), np.float32))
    paddle.matmul(a, a, transpose_y=True)
    assert calls
    calls.clear()
    paddle.tanh(a)                                      # not a BLAS op: no check
    assert not calls


def test_bad_policy_values():
    try:
        with pytest.raises(ValueError, match="'auto' or 'blas'"):
            bt.apply_policy("many")
    finally:
        bt.apply_policy()                   # back to the suite's setting (tests/conftest.py)


@pytest.mark.skipif(not bt.available(), reason="numpy's BLAS thread count is not controllable here")
def test_the_thread_count_changes_results_only_at_rounding_level():
    """OpenBLAS's one- and two-thread kernels block a product differently: float32 results may differ in
    the last bits (why the test suite fixes DY2ST_BLAS_THREADS=1, see tests/conftest.py), never more."""
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((256, 700)).astype(np.float32), rng.standard_normal((700, 300)).astype(np.float32)
    with bt.limit(1):
        one = a @ b
    with bt.limit(2):
        two = a @ b
    np.testing.assert_allclose(one, two, rtol=1e-5, atol=1e-4)
    exact = a.astype(np.float64) @ b.astype(np.float64)
    assert np.abs(one - exact).max() < 1e-3 and np.abs(two - exact).max() < 1e-3


def test_first_blas_work_decides_from_the_sample_taken_at_start(monkeypatch):
    """_start_auto takes the first sample, so the first recheck (the first BLAS work of the process)
    already drops a thread when another process kept a core busy since import; a window shorter than
    _MIN_WINDOW keeps the older sample and schedules the check for when it is long enough."""
    if not bt.available() or not os.path.exists("/proc/stat"):
        pytest.skip("numpy's BLAS thread count is not controllable here")
    before = bt.get_threads()
    saved = (bt._auto, bt._default, bt._cpus, bt._next_check, bt._last)
    clock = {"wall": 500.0, "cpu": 5.0, "busy": 0}
    monkeypatch.setattr(bt, "_monotonic", lambda: clock["wall"])
    monkeypatch.setattr(bt.time, "process_time", lambda: clock["cpu"])
    monkeypatch.setattr(bt, "_busy_jiffies", lambda: clock["busy"])
    monkeypatch.setattr(bt.os, "sched_getaffinity", lambda pid: {0, 1})
    try:
        bt.set_threads(2)
        bt._start_auto()
        assert bt._auto and bt._last == (500.0, 5.0, 0)
        clock.update(wall=500.01, cpu=5.01, busy=0)        # too short a window: no decision
        bt.recheck()
        assert bt._last == (500.0, 5.0, 0) and bt._next_check == pytest.approx(500.0 + bt._MIN_WINDOW)
        hz = bt._HZ
        clock.update(wall=501.0, cpu=6.0, busy=2 * hz)     # others kept one core busy since the start
        bt.recheck()
        assert bt.get_threads() == 1
    finally:
        bt._auto, bt._default, bt._cpus, bt._next_check, bt._last = saved
        bt.set_threads(before)
