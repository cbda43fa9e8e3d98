"""gc_paused: the collector is off inside, back as it was after (nested, concurrent, on errors)."""
import gc
import threading

import pytest

from runtime.utils.gc_pause import gc_paused


def test_paused_inside_and_restored_after_even_on_error():
    assert gc.isenabled()
    with pytest.raises(RuntimeError):
        with gc_paused():
            assert not gc.isenabled()
            with gc_paused():
                assert not gc.isenabled()
            assert not gc.isenabled()      # the outer pause still holds
            raise RuntimeError("boom")
    assert gc.isenabled()


def test_a_user_who_disabled_the_collector_keeps_it_disabled():
    gc.disable()
    try:
        with gc_paused():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_concurrent_pauses_end_with_the_last_one():
    inside = threading.Barrier(4)
    release = threading.Event()

    def work():
        with gc_paused():
            inside.wait()
            release.wait(10)

    threads = [threading.Thread(target=work) for _ in range(3)]
    for t in threads:
        t.start()
    inside.wait()
    assert not gc.isenabled()
    release.set()
    for t in threads:
        t.join()
    assert gc.isenabled()


def test_to_static_trace_leaves_the_collector_on():
    import dy2st as paddle

    def f(x):
        if x.sum() > 0:
            return x * 2
        return x - 1
    paddle.jit.to_static(f)(paddle.ones([2]))
    assert gc.isenabled()
