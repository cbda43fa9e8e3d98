"""Differential fuzzing of to_static: random programs run eagerly (the oracle) and converted.

A fixed-seed set of 300 generated programs (tests/dy2st/fuzz/generator.py) is checked on
several inputs each taking different paths: outputs and input gradients of the to_static run
(compiled back end, through PartialProgram) and the outputs of the same traced Program run by
``Executor(backend="interpreter")`` must equal the eager run; where the eager run raises
UnboundLocalError (a name bound in a tensor loop on some paths only, read where this run did not bind
it), the converted run must fail with its clear unbound-name error instead of returning a value. Plus a small hypothesis run, the
minimal programs of bugs the fuzzer found (regressions).
``run_long.py`` in this directory does long runs.
"""
from __future__ import annotations

import numpy as np
import pytest

from . import generator, harness

SEED = 20240501
N_PROGRAMS = 300
CHUNK = 50


@pytest.fixture(scope="module")
def fixed_set():
    progs = generator.generate_batch(SEED, N_PROGRAMS, prefix="fz")
    return progs, harness.load(progs)


def _report(failures):
    return "\n\n".join(repr(f) for f in failures[:3])


@pytest.mark.parametrize("chunk", range(N_PROGRAMS // CHUNK))
def test_fixed_seed_programs(fixed_set, chunk):
    progs, fns = fixed_set
    rng = np.random.default_rng(SEED + chunk)
    failures = []
    for p in progs[chunk * CHUNK:(chunk + 1) * CHUNK]:
        failures += harness.check(p, fns[p.name], rng, interpreter=True)
    assert not failures, _report(failures)


def test_fixed_set_covers_every_construct(fixed_set):
    progs, _ = fixed_set
    src = [p.source for p in progs]
    for what, pattern in [("if", "    if "), ("elif", "elif "), ("else", "else:"), ("while", "while "),
                          ("for range(int)", "in range(n)"), ("for range(tensor)", "in range(m"),
                          ("break", "break"), ("continue", "continue"), ("and", " and "), ("or", " or "),
                          ("not", "not "), ("ternary", ") if "), ("tensor counter", "dtype='int64')"),
                          ("tuple return", "return (")]:
        used = sum(pattern in s for s in src)
        assert used >= 10, f"only {used} of {len(src)} programs use {what}"
    # early returns inside a block (not only the final one)
    assert sum(any(line.startswith("        ") and line.strip().startswith("return ")
                   for line in s.splitlines()) for s in src) >= 50
    # list methods (tensor arrays in tensor loops), enumerate / zip loops, dtype-changing loop state
    for what, pattern in [("append", "lst.append("), ("pop", "lst.pop("), ("insert", "lst.insert("),
                          ("extend", "lst.extend("), ("list item assignment", "lst["),
                          ("enumerate", "in enumerate("), ("zip", "in zip("), ("int becoming float", "acc = acc + ")]:
        used = sum(pattern in s for s in src)
        assert used >= 5, f"only {used} of {len(src)} programs use {what}"
    # names bound on some paths only through a tensor loop (``p<k>``), read after it in some programs
    import re
    bound = [s for s in src if re.search(r"^ {8,}p\d+ = ", s, re.M)]
    assert len(bound) >= 20, f"only {len(bound)} programs bind a name inside a loop on some paths"
    assert sum(bool(re.search(r"\bp\d+\b(?! =)", s)) for s in bound) >= 10
    assert {p.dtype for p in progs} == set(generator.FLOAT_DTYPES)
    assert {tuple(p.shape) for p in progs} == {tuple(s) for s in generator.FLOAT_SHAPES}


def test_hypothesis_programs():
    from hypothesis import HealthCheck, given, settings

    @settings(max_examples=20, deadline=None, derandomize=True, database=None,
              suppress_health_check=list(HealthCheck))
    @given(generator.programs(max_stmts=8))
    def run(program):
        fns = harness.load([program])
        failures = harness.check(program, fns[program.name], np.random.default_rng(0), interpreter=True,
                                 n_python=1, n_tensor=2)
        assert not failures, _report(failures)
    run()


def _program(source, shape=(1,), dtype="float64", m_shape=(), arity=1):
    name = source.split("(")[0].split()[-1]
    return generator.Program(name, source, list(shape), dtype, list(m_shape), arity)


def _check_source(program, where):
    fns = harness.load([program])
    return harness.check_one(program, fns[program.name], where, interpreter=True)


# minimal programs of bugs the fuzzer found (fixed in dy2st/loop_lowering.py)
REGRESSIONS = [
    # a loop variable set to a value from outside the body (here the input x) got no gradient
    # (loop_lowering._to_body_value now copies such values inside the body)
    ("""def f_outer_value(x, y, m, n, flag):
    s = x * 2.0
    j1 = 0
    while j1 < 2 and paddle.mean(s) < 1.0:
        j1 += 1
        return (x, s + s)
    return (s, s * 0.5)
""", {"n": 1, "flag": True, "x": [-0.77], "y": [-0.66], "m": 2}, 2),
    # ``t = s; s = s * 2`` in a tensor loop: the final assigns overwrote s before t read it
    ("""def f_swap(x, y, m, n, flag):
    s = x * 1.0
    t = x * 0.5
    i = paddle.zeros([1], dtype='int64')
    while i < 2:
        i = i + 1
        t = s
        s = s * 2.0
    return t
""", {"n": 0, "flag": False, "x": [1.5], "y": [0.0], "m": 0}, 1),
    # a Python counter that becomes a loop tensor changes the body's control flow: the trial trace
    # (which finds the return value's structure) ran it with the Python value and missed the return
    # inside the staged elif, so a Variable of the loop body leaked out (invalid Program)
    ("""def f_trial(x, y, m, n, flag):
    cnt = 0
    i1 = paddle.to_tensor(0)
    while i1 < 3:
        i1 = i1 + 1
        if cnt % 2 == 0:
            cnt += 1
        elif not flag or flag:
            cnt += 2
            return y * 0.5
    return x + y
""", {"n": 1, "flag": True, "x": [0.11], "y": [-0.22], "m": 2}, 1),
]


@pytest.mark.parametrize("source,where,arity", REGRESSIONS, ids=["outer_value", "swap", "trial"])
def test_fuzz_regressions(source, where, arity):
    failures = _check_source(_program(source, arity=arity), where)
    assert not failures, _report(failures)


# once a bug: the gradient of one occurrence of an output fetched twice was lost (x.grad 1, not 2)
def test_repeated_output_gradient():
    import dy2st as paddle
    src = """def f_repeat(y):
    t = y + 2.0
    return (t, t)
"""
    fn = harness.load([_program(src)])["f_repeat"]
    grads = []
    for f in (fn, paddle.jit.to_static(fn)):
        y = paddle.to_tensor(np.array([0.2]), stop_gradient=False)
        a, b = f(y)
        (a.sum() + b.sum()).backward()
        grads.append(y.grad.numpy())
    np.testing.assert_allclose(grads[1], grads[0], rtol=1e-5, atol=1e-6)
