"""to_static under threads (issue 12): tracing state is per thread, caches fill once under a lock.

Eight threads call one to_static function, one to_static Layer (user sublayers, tensor control
flow) and one jit.loaded model for the first time at once (a barrier lines the first calls up),
then keep calling with mixed shapes. Every result is compared with the eager result computed
beforehand in one thread; afterwards the objects still work and no mode leaked to the main thread.

The long soak runs the same rounds again and again with fresh objects (the first-call race is the
one that matters), e.g. ``DY2ST_THREAD_SOAK=300 python -m pytest -q tests/dy2st/test_threads.py -k soak -s``
(300 rounds; prints the totals).
"""
import os
import sys
import threading
import time

import numpy as np
import pytest

import dy2st as paddle
from dy2st.static import InputSpec
from runtime import unique_name
from runtime.framework import state
from runtime.static.program import Program, default_main_program, program_guard

N_THREADS = 8
BATCHES = (1, 2, 3, 5)


def _to_static_fn(x):
    y = x * 2.0
    if y.sum() > 0:
        y = y + 1.0
    else:
        y = y - 1.0
    for _ in range(3):
        y = paddle.tanh(y)
    return y


def _eager_fn(x):
    return _to_static_fn(x)


class _Block(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = paddle.nn.Linear(4, 4)

    def forward(self, x):
        h = self.fc(x)
        if h.mean() > 0:
            h = paddle.nn.functional.relu(h)
        else:
            h = h * 0.5
        return h


class _Net(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.b1 = _Block()
        self.b2 = _Block()

    def forward(self, x):
        h = self.b1(x)
        i = 0
        while i < x.shape[0]:
            h = h + 0.1
            i += 1
        return self.b2(h)


def _inputs(seed):
    rng = np.random.default_rng(seed)
    return {b: [rng.standard_normal((b, 4)).astype("float32") for _ in range(3)] for b in BATCHES}


def _hammer(callables, calls_per_thread, seed=0):
    """Run every (name, fn, inputs, expected) from N_THREADS threads at once; returns (errors, wrong, calls)."""
    errors, wrong = [], []
    counts = [0] * N_THREADS
    barrier = threading.Barrier(N_THREADS)

    def work(t):
        rng = np.random.default_rng(seed * 1000 + t)
        barrier.wait()          # the first calls of all threads collide
        for _ in range(calls_per_thread):
            name, fn, inputs, expected = callables[int(rng.integers(len(callables)))]
            b = BATCHES[int(rng.integers(len(BATCHES)))]
            j = int(rng.integers(3))
            try:
                out = fn(paddle.to_tensor(inputs[b][j]))
                if not isinstance(out, paddle.Tensor) or out.shape != list(expected[b][j].shape) or \
                        not np.allclose(out.numpy(), expected[b][j], rtol=1e-5, atol=1e-6):
                    wrong.append((name, b, type(out).__name__))
            except Exception as e:      # noqa: BLE001 (any failure is what the test counts)
                errors.append(f"{name}: {type(e).__name__}: {e}")
            counts[t] += 1

    threads = [threading.Thread(target=work, args=(t,)) for t in range(N_THREADS)]
    for th in threads:
        th.start()
    for th in threads:
        th.join(timeout=300)
    assert not any(th.is_alive() for th in threads), "a thread did not finish (deadlock?)"
    return errors, wrong, sum(counts)


def _round(tmp_path, calls_per_thread, seed=0):
    """Fresh function, Layer and loaded model; expected values computed single-threaded, eagerly."""
    paddle.seed(seed)
    inputs = _inputs(seed)
    fn = paddle.jit.to_static(_to_static_fn)
    net = _Net()
    net.eval()
    with paddle.no_grad():
        exp_fn = {b: [_eager_fn(paddle.to_tensor(x)).numpy() for x in xs] for b, xs in inputs.items()}
        exp_net = {b: [net(paddle.to_tensor(x)).numpy() for x in xs] for b, xs in inputs.items()}
    prefix = str(tmp_path / f"net{seed}" / "model")
    saved = _Net()
    saved.set_state_dict(net.state_dict())
    saved.eval()
    paddle.jit.save(saved, prefix, input_spec=[InputSpec([None, 4], "float32", name="x")])
    loaded = paddle.jit.load(prefix)
    snet = paddle.jit.to_static(net)
    callables = [("function", fn, inputs, exp_fn), ("layer", snet, inputs, exp_net),
                 ("loaded", loaded, inputs, exp_net)]
    errors, wrong, calls = _hammer(callables, calls_per_thread, seed)
    return callables, errors, wrong, calls


def _check_after(callables):
    """The objects still work in the main thread, which is still dynamic with its own programs."""
    assert paddle.in_dynamic_mode() and not state.static and state.grad_enabled
    for name, fn, inputs, expected in callables:
        out = fn(paddle.to_tensor(inputs[2][0]))
        assert isinstance(out, paddle.Tensor), name
        np.testing.assert_allclose(out.numpy(), expected[2][0], rtol=1e-5, atol=1e-6)


def test_eight_threads_first_calls_function_layer_loaded(tmp_path):
    main_before = default_main_program()
    callables, errors, wrong, calls = _round(tmp_path, calls_per_thread=240)
    assert errors == []
    assert wrong == []
    assert calls == N_THREADS * 240
    _check_after(callables)
    assert default_main_program() is main_before
    # each signature was traced once, however many threads asked for it at the same time
    fn = callables[0][1]
    assert fn.program_cache.traced == len(fn.program_cache) == len(BATCHES)
    snet = callables[1][1]
    assert snet.forward.program_cache.traced == len(BATCHES)


@pytest.mark.skipif(not os.environ.get("DY2ST_THREAD_SOAK"), reason="soak: set DY2ST_THREAD_SOAK=<rounds>")
def test_soak(tmp_path):
    rounds = int(os.environ["DY2ST_THREAD_SOAK"])
    total_calls = total_errors = total_wrong = 0
    start = time.perf_counter()
    for r in range(rounds):
        callables, errors, wrong, calls = _round(tmp_path, calls_per_thread=300, seed=r)
        _check_after(callables)
        total_calls += calls
        total_errors += len(errors)
        total_wrong += len(wrong)
        if errors or wrong:
            print(f"round {r}: {errors[:3]} {wrong[:3]}", file=sys.stderr)
    print(f"\nthread soak: {rounds} rounds x {N_THREADS} threads, {total_calls} calls (function, Layer, loaded "
          f"model; fresh objects each round), {total_errors} exceptions, {total_wrong} wrong values, "
          f"{time.perf_counter() - start:.1f} s")
    assert total_errors == 0 and total_wrong == 0


def test_concurrent_gradients_through_one_program(monkeypatch):
    # each thread's input needs a gradient: the program and its backward plan are compiled once (under
    # the PartialProgram's lock) and every thread gets the gradient of its own input
    from dy2st import partial_program
    compiled = []
    real_compile = partial_program.compile_program

    def slow_counting_compile(program, feed_names, fetch_names):
        compiled.append(fetch_names)
        time.sleep(0.02)        # widen the window in which other threads miss too
        return real_compile(program, feed_names, fetch_names)
    monkeypatch.setattr(partial_program, "compile_program", slow_counting_compile)
    fn = paddle.jit.to_static(_to_static_fn)
    xs = [np.random.default_rng(i).standard_normal((3, 4)).astype("float32") for i in range(N_THREADS)]
    expected = []
    for x in xs:
        t = paddle.to_tensor(x, stop_gradient=False)
        _eager_fn(t).sum().backward()
        expected.append(t.grad.numpy())
    got = [None] * N_THREADS
    errors = []
    barrier = threading.Barrier(N_THREADS)

    def work(i):
        barrier.wait()
        try:
            for _ in range(20):
                t = paddle.to_tensor(xs[i], stop_gradient=False)
                fn(t).sum().backward()
                got[i] = t.grad.numpy()
        except Exception as e:      # noqa: BLE001
            errors.append(e)
    threads = [threading.Thread(target=work, args=(i,)) for i in range(N_THREADS)]
    for th in threads:
        th.start()
    for th in threads:
        th.join(timeout=120)
    assert errors == []
    for g, e in zip(got, expected):
        np.testing.assert_allclose(g, e, rtol=1e-5, atol=1e-6)
    assert fn.program_cache.traced == 1
    # the plan's forward-with-saves and its backward, once each (the forward-only function is compiled
    # by the first call that needs it: none here)
    assert len(compiled) == 2


@pytest.mark.filterwarnings("ignore:.*has been traced")
def test_small_cache_evicting_under_threads_stays_correct():
    # a bound of 2 with 4 shapes: threads keep evicting and retracing each other's programs
    fn = paddle.jit.to_static(_to_static_fn)
    fn.program_cache.max_size = 2
    inputs = _inputs(7)
    with paddle.no_grad():
        exp = {b: [_eager_fn(paddle.to_tensor(x)).numpy() for x in xs] for b, xs in inputs.items()}
    errors, wrong, _ = _hammer([("function", fn, inputs, exp)], calls_per_thread=40, seed=3)
    assert errors == [] and wrong == []
    assert len(fn.program_cache) <= 2 and fn.program_cache.evicted > 0


def _nested_inner(x):
    if x.mean() > 0:
        return x * 3.0
    return x - 3.0


def _nested_outer(x):
    return _NESTED_INNER(x) + 1.0


_NESTED_INNER = paddle.jit.to_static(_nested_inner)


def test_converted_function_calling_converted_function_from_threads_does_not_deadlock():
    outer = paddle.jit.to_static(_nested_outer)
    inner = _NESTED_INNER
    x = np.random.default_rng(1).standard_normal((2, 4)).astype("float32")
    want_inner = x * 3.0 if x.mean() > 0 else x - 3.0
    results, errors = [], []
    barrier = threading.Barrier(N_THREADS)

    def work(i):
        barrier.wait()
        try:
            for k in range(10):
                f, want = (outer, want_inner + 1.0) if (i + k) % 2 else (inner, want_inner)
                results.append(np.allclose(f(paddle.to_tensor(x)).numpy(), want, rtol=1e-6))
        except Exception as e:      # noqa: BLE001
            errors.append(e)
    threads = [threading.Thread(target=work, args=(i,)) for i in range(N_THREADS)]
    for th in threads:
        th.start()
    for th in threads:
        th.join(timeout=120)
    assert not any(th.is_alive() for th in threads)
    assert errors == [] and len(results) == N_THREADS * 10 and all(results)


def _bad_fn(x):
    y = x * 2.0
    return y.no_such_method()     # fails while tracing


def _runs_in_thread(fn):
    box = {}

    def target():
        try:
            box["value"] = fn()
        except BaseException as e:      # noqa: BLE001
            box["error"] = e
    th = threading.Thread(target=target)
    th.start()
    th.join(timeout=60)
    if "error" in box:
        raise box["error"]
    return box.get("value")


def test_failed_trace_in_a_thread_leaves_no_state():
    bad = paddle.jit.to_static(_bad_fn)
    good = paddle.jit.to_static(_to_static_fn)
    x = np.ones((2, 4), "float32")

    def fail_then_report():
        with pytest.raises(AttributeError):
            bad(paddle.to_tensor(x))
        # this thread is back where it was: dynamic, gradients on, the process-default programs and names
        return (state.static, state.grad_enabled, default_main_program() is main_program,
                unique_name._local.generator, good(paddle.to_tensor(x)).numpy())
    main_program = default_main_program()
    static, grad, same_program, generator, out = _runs_in_thread(fail_then_report)
    assert (static, grad, same_program, generator) == (False, True, True, None)
    np.testing.assert_allclose(out, _eager_fn(paddle.to_tensor(x)).numpy(), rtol=1e-6)
    assert not state.static and state.grad_enabled
    # and the function that failed still fails cleanly (nothing half-cached), the good one still works
    with pytest.raises(AttributeError):
        bad(paddle.to_tensor(x))
    assert len(bad.program_cache) == 0


def test_static_mode_and_program_guard_are_per_thread():
    p = Program()
    seen = {}
    entered = threading.Event()
    leave = threading.Event()

    def builder():
        with program_guard(p):
            state.static = True
            try:
                entered.set()
                leave.wait(30)
                seen["builder"] = default_main_program() is p
            finally:
                state.static = False

    th = threading.Thread(target=builder)
    th.start()
    assert entered.wait(30)
    try:
        # while the other thread builds into p in static mode, this one is dynamic with its own program
        assert not state.static and default_main_program() is not p
        out = paddle.to_tensor(np.ones((2,), "float32")) + 1
        assert isinstance(out, paddle.Tensor)
    finally:
        leave.set()
        th.join(30)
    assert seen["builder"]


def test_enable_static_semantics_match_paddle():
    # checked against Paddle 3.3.1: enable_static in the main thread is seen by threads started after it;
    # enable_static in a worker leaves the (already running) main thread dynamic
    try:
        paddle.enable_static()
        assert _runs_in_thread(lambda: paddle.in_dynamic_mode()) is False
    finally:
        paddle.disable_static()
    assert _runs_in_thread(lambda: paddle.in_dynamic_mode()) is True
    try:
        _runs_in_thread(paddle.enable_static)
        assert paddle.in_dynamic_mode()
    finally:
        paddle.disable_static()
    assert _runs_in_thread(lambda: paddle.in_dynamic_mode()) is True


def test_no_grad_is_per_thread():
    inside = threading.Event()
    leave = threading.Event()

    def holder():
        with paddle.no_grad():
            inside.set()
            leave.wait(30)
    th = threading.Thread(target=holder)
    th.start()
    assert inside.wait(30)
    try:
        assert state.grad_enabled
        x = paddle.to_tensor(np.ones((2,), "float32"), stop_gradient=False)
        assert not (x * 2).stop_gradient
    finally:
        leave.set()
        th.join(30)


def test_unique_name_guard_is_per_thread():
    inside = threading.Event()
    leave = threading.Event()
    names = {}

    def guarded():
        with unique_name.guard("worker_"):
            names["worker"] = unique_name.generate("tmp")
            inside.set()
            leave.wait(30)
    th = threading.Thread(target=guarded)
    th.start()
    assert inside.wait(30)
    try:
        mine = unique_name.generate("tmp")
    finally:
        leave.set()
        th.join(30)
    assert names["worker"] == "worker_tmp_0"
    assert not mine.startswith("worker_")


def test_one_executor_from_threads(monkeypatch):
    # a static Program built in the main thread, run by one Executor from 8 threads with different batch
    # sizes and fetch lists: each (feed, fetch) combination is compiled once, under the Executor's lock
    from runtime.static import executor as executor_module
    compiled = []
    real_compile = executor_module.compile_program

    def slow_counting_compile(program, feed_names, fetch_names, *a, **k):
        compiled.append((program.id, feed_names, fetch_names))
        time.sleep(0.02)        # widen the window in which other threads miss the same key
        return real_compile(program, feed_names, fetch_names, *a, **k)
    monkeypatch.setattr(executor_module, "compile_program", slow_counting_compile)
    try:
        paddle.enable_static()
        main, startup = paddle.static.Program(), paddle.static.Program()
        with paddle.static.program_guard(main, startup):
            x = paddle.static.data("x", [None, 4], "float32")
            w = paddle.static.create_parameter([4, 3], "float32")
            y = paddle.matmul(x, w)
            z = paddle.nn.functional.relu(y) + 1.0
    finally:
        paddle.disable_static()
    exe = paddle.static.Executor()
    exe.run(startup)
    weight = np.array(paddle.static.global_scope().find_var(w.name).get_tensor())
    fetches = ([y], [z], [y, z])
    errors, wrong = [], []
    barrier = threading.Barrier(N_THREADS)

    def work(t):
        rng = np.random.default_rng(t)
        barrier.wait()
        for k in range(30):
            xb = rng.standard_normal((BATCHES[(t + k) % len(BATCHES)], 4)).astype("float32")
            fetch = fetches[(t * 7 + k) % len(fetches)]
            try:
                outs = exe.run(main, feed={"x": xb}, fetch_list=fetch)
            except Exception as e:      # noqa: BLE001
                errors.append(e)
                continue
            ref_y = xb @ weight
            refs = {y.name: ref_y, z.name: np.maximum(ref_y, 0) + 1.0}
            if not all(np.allclose(o, refs[v.name], rtol=1e-5, atol=1e-6) for o, v in zip(outs, fetch)):
                wrong.append((t, k))
    threads = [threading.Thread(target=work, args=(t,)) for t in range(N_THREADS)]
    for th in threads:
        th.start()
    for th in threads:
        th.join(timeout=120)
    assert errors == [] and wrong == []
    # one compiled function per fetch list (batch sizes share it), however many threads missed at once
    assert sum(key[0] == main.id for key in exe._cache) == len(fetches)
    assert sorted(c[2] for c in compiled if c[0] == main.id) == sorted(tuple(v.name for v in f) for f in fetches)


_GATE = {"open": threading.Event(), "entered": threading.Event()}


@paddle.jit.not_to_static
def _wait_at_gate(x):
    # runs while tracing (not converted): holds up the trace for batch size 3 until the test opens the gate
    if state.static and x.shape[0] == 3:
        _GATE["entered"].set()
        _GATE["open"].wait(60)
    return x


def _gated(x):
    return _wait_at_gate(x) * 2.0


def test_a_trace_in_progress_blocks_neither_cache_hits_nor_other_functions():
    _GATE["open"].clear()
    _GATE["entered"].clear()
    gated = paddle.jit.to_static(_gated)
    other = paddle.jit.to_static(_to_static_fn)
    x2, x3, x5 = (np.ones((b, 4), "float32") for b in (2, 3, 5))
    gated(paddle.to_tensor(x2))
    gated(paddle.to_tensor(x5))
    tracer = threading.Thread(target=lambda: gated(paddle.to_tensor(x3)))
    tracer.start()
    try:
        assert _GATE["entered"].wait(60)
        # gated's lock is held by the blocked trace: a hit on gated (not the last-call fast path: that is
        # batch 5) and a first call of another function must both finish without it
        results = {}
        side = threading.Thread(target=lambda: results.update(
            hit=gated(paddle.to_tensor(x2)).numpy(), other=other(paddle.to_tensor(x3)).numpy()))
        side.start()
        side.join(timeout=60)
        assert not side.is_alive(), "a cache hit or another function waited for an unrelated trace"
        np.testing.assert_allclose(results["hit"], x2 * 2.0)
        np.testing.assert_allclose(results["other"], _eager_fn(paddle.to_tensor(x3)).numpy(), rtol=1e-6)
    finally:
        _GATE["open"].set()
        tracer.join(timeout=60)
    np.testing.assert_allclose(gated(paddle.to_tensor(x3)).numpy(), x3 * 2.0)
    assert gated.program_cache.traced == 3
