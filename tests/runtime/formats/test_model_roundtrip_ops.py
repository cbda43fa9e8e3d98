"""Every registered forward op survives Program -> .pdmodel -> Program: for each op-table row a
tiny static Program using the op is written and read back; the printed programs are identical
(vars listed in the file's sorted order) and the executor gives the same outputs."""
import numpy as np
import pytest

import runtime
from runtime import static
from runtime.dispatch import run_op
from runtime.formats.errors import ModelFormatError
from runtime.formats.pdmodel import parse_program, serialize_program
from runtime.ops.registry import all_ops, lookup
from runtime.static.tensor_array import array_write, create_array

from ..ops.op_harness import _as_tuple, _ordered_inputs
from ..ops.test_op_table import CASES

# ops whose X is a tensor array (a LOD_TENSOR_ARRAY variable; the op table passes its elements)
ARRAY_INPUT_OPS = {"read_from_array", "lod_array_length", "tensor_array_to_tensor", "array_pop", "array_insert"}
# ops whose kernels call back into Python objects held by the Program, not by the file
NOT_RUNNABLE_FROM_FILE = {"py_func"}


def _first_case_per_row():
    return [c for c in CASES if not c.op.endswith("_grad")]


ROWS = _first_case_per_row()


def _as_float32(v, default):
    """A FLOAT attr as a .pdmodel keeps it: float32 precision (the schema default when it is that value)."""
    if isinstance(default, float) and np.float32(default) == np.float32(v):
        return default
    return float(str(np.float32(v)))


def expected_print(program):
    """``print(program)`` as it reads back from a file: each block's variables in name order (the
    order a .pdmodel stores) and FLOAT attributes at float32 precision (the field's type)."""
    p = program.clone()
    for blk in p.blocks:
        blk.vars = dict(sorted(blk.vars.items()))
        for op in blk.ops:
            for name, (typ, default) in op.opdef.attrs.items():
                if typ == "FLOAT":
                    op.attrs[name] = _as_float32(op.attrs[name], default)
                elif typ == "FLOATS":
                    op.attrs[name] = [_as_float32(x, None) for x in op.attrs[name]]
    return str(p)


def build(case):
    opdef = lookup(case.op)
    main = static.Program()
    feed, args = {}, []
    with static.program_guard(main, static.Program()):
        for slot, v in zip(opdef.inputs, _ordered_inputs(case)):
            if v is None:
                args.append(None)
                continue
            arrs = v if isinstance(v, list) else [v]
            vs = []
            for j, a in enumerate(arrs):
                a = np.asarray(a)
                name = f"{slot.name}_{j}"
                vs.append(static.data(name, list(a.shape), str(a.dtype)))
                feed[name] = a
            if case.op in ARRAY_INPUT_OPS and slot.name == "X":
                arr = create_array(vs[0].dtype)
                for k, e in enumerate(vs):
                    array_write(e, k, arr)
                args.append(arr)
                continue
            args.append(vs if isinstance(v, list) else vs[0])
        outs = []
        for o in _as_tuple(run_op(case.op, *args, **case.attrs)):
            outs.extend(o if isinstance(o, list) else [o])
    main.verify()
    return main, feed, [o for o in outs if o is not None]


def _run(program, feed, fetch):
    runtime.seed(2024)   # random ops draw the same numbers in both runs
    return static.Executor().run(program, feed=dict(feed), fetch_list=fetch, scope=static.Scope())


@pytest.fixture
def static_mode():
    runtime.enable_static()
    try:
        yield
    finally:
        runtime.disable_static()


def test_every_registered_forward_op_has_a_row():
    forward = {t for t, d in all_ops().items() if not t.endswith("_grad")
               and not any(typ == "BLOCK" for typ, _ in d.attrs.values())}
    assert forward - {c.op for c in ROWS} == set()


@pytest.mark.parametrize("case", ROWS, ids=[c.id for c in ROWS])
def test_op_roundtrips_through_pdmodel(case, static_mode):
    main, feed, outs = build(case)
    fetch = [o.name for o in outs]
    if lookup(case.op).internal:
        # made by graph passes on compiled clones only: never written, never read
        with pytest.raises(ValueError, match="cannot be saved"):
            serialize_program(main, list(feed), fetch)
        return
    data = serialize_program(main, list(feed), fetch)
    if case.op in NOT_RUNNABLE_FROM_FILE:
        # written as Paddle writes it, but refused on reading: the file cannot carry the function
        with pytest.raises(ModelFormatError, match="cannot be loaded from a file"):
            parse_program(data, "<mem>")
        return
    loaded, feed_names, fetch_names = parse_program(data, "<mem>")
    loaded.verify()
    assert feed_names == list(feed) and fetch_names == fetch
    assert str(loaded) == expected_print(main)
    # writing the loaded program again gives the same bytes
    assert serialize_program(loaded, feed_names, fetch_names) == data
    want = _run(main, feed, fetch)
    got = _run(loaded, feed, fetch)
    assert len(want) == len(got)
    flat = lambda vals: [a for v in vals for a in (v if isinstance(v, list) else [v])]  # noqa: E731
    want, got = flat(want), flat(got)
    assert len(want) == len(got)
    for w, g in zip(want, got):
        assert w.dtype == g.dtype and w.shape == g.shape
        if w.dtype.kind in "fc":   # FLOAT attrs are float32 in the file
            np.testing.assert_allclose(g, w, rtol=1e-6, atol=1e-7)
        else:
            np.testing.assert_array_equal(g, w)
