"""Table rows for control-flow, tensor-array, print, assert and py_func ops (their one-op eager meaning;
Program behaviour is tested in tests/runtime/static/test_control_flow.py and friends)."""
import numpy as np

from runtime.ops import control_flow as cf
from runtime.ops.registry import Meta

from .op_harness import OpCase

X = np.array([[1.0, -2.0, 3.0], [0.5, 4.0, -1.0]])
_SQ = cf.register_py_func(lambda a: a * a, [Meta((2, 3), np.dtype("float64"))])
_SQ_GRAD = cf.register_py_func(lambda a, out, dout: 2 * a * dout, [Meta((2, 3), np.dtype("float64"))])

CASES = [
    OpCase("select_input", {"X": [X, X * 2], "Mask": np.array([1], np.int32)}, lambda X, Mask, **_: X[1]),
    OpCase("select_input", {"X": [X, X * 2], "Mask": np.array(0, np.int32)}, lambda X, Mask, **_: X[0],
           name="mask0"),
    OpCase("increment", {"X": np.array([3], np.int64)}, lambda X, **_: np.array([5], np.int64),
           attrs={"step": 2.0}),
    OpCase("increment", {"X": np.array([1.5], np.float32)}, lambda X, **_: np.array([2.5], np.float32),
           name="float"),
    OpCase("write_to_array", {"X": X, "I": np.array([0], np.int64)}, lambda X, I, **_: [X]),
    OpCase("read_from_array", {"X": [X, X + 1], "I": np.array([1], np.int64)}, lambda X, I, **_: X[1]),
    OpCase("lod_array_length", {"X": [X, X, X]}, lambda X, **_: np.array([3], np.int64)),
    OpCase("tensor_array_to_tensor", {"X": [X, X * 2]},
           lambda X, **_: (np.concatenate(X, 0), np.array([2, 2], np.int32))),
    OpCase("tensor_array_to_tensor", {"X": [X, X * 2]},
           lambda X, **_: (np.stack(X, 1), np.array([1, 1], np.int32)), attrs={"axis": 1, "use_stack": True},
           name="stack"),
    # gradient-only tensor-array ops (static backward); one-op eager arrays arrive stacked
    OpCase("tensor_array_sum", {"X": [[X, X + 1], [X * 2]]}, lambda X, **_: [X[0][0] + X[1][0], X[0][1]]),
    OpCase("write_to_array_grad", {"X": X, "I": np.array([1], np.int64), "Out@GRAD": [X, X * 3]},
           lambda X, I, **_: X * 3),
    OpCase("write_to_array_grad", {"X": X, "I": np.array([4], np.int64), "Out@GRAD": [X]},
           lambda X, I, **_: np.zeros_like(X), name="absent"),
    # the gradient array from before a write: element I dropped (None: zero); past the end: unchanged
    OpCase("tensor_array_clear_slot", {"X": [X, X * 2], "I": np.array([5], np.int64)},
           lambda X, I, **_: [X[0], X[1]], name="past_end"),
    OpCase("tensor_array_to_tensor_grad", {"X": [X, X], "Out@GRAD": np.arange(12.0).reshape(4, 3)},
           lambda X, **_: [np.arange(6.0).reshape(2, 3), np.arange(6.0, 12.0).reshape(2, 3)]),
    OpCase("tensor_array_to_tensor_grad", {"X": [X, X], "Out@GRAD": np.arange(12.0).reshape(2, 2, 3)},
           lambda X, **_: [np.arange(12.0).reshape(2, 2, 3)[:, 0], np.arange(12.0).reshape(2, 2, 3)[:, 1]],
           attrs={"axis": 1, "use_stack": True}, name="stack"),
    # list.pop / list.insert of to_static lists (tensor arrays); create_array empties an array
    OpCase("array_pop", {"X": [X, X + 1, X * 2], "I": np.array([-1], np.int64)},
           lambda X, I, **_: (X[2], [X[0], X[1]], np.array([2], np.int64))),
    OpCase("array_pop", {"X": [X, X + 1, X * 2], "I": np.array([0], np.int64)},
           lambda X, I, **_: (X[0], [X[1], X[2]], np.array([0], np.int64)), name="front"),
    OpCase("array_insert", {"X": [X, X + 1], "I": np.array([1], np.int64), "Value": X * 5},
           lambda X, I, Value, **_: ([X[0], Value, X[1]], np.array([1], np.int64))),
    OpCase("array_insert", {"X": [X, X + 1], "I": np.array([-9], np.int64), "Value": X * 5},
           lambda X, I, Value, **_: ([Value, X[0], X[1]], np.array([0], np.int64)), name="clamped"),
    OpCase("create_array", {}, lambda **_: []),
    OpCase("array_pop_grad", {"Index": np.array([1], np.int64), "Out@GRAD": X, "ArrayOut@GRAD": [X * 2, X * 3]},
           lambda **_: [X * 2, X, X * 3]),
    OpCase("array_insert_grad", {"Index": np.array([0], np.int64), "Value": X, "ArrayOut@GRAD": [X * 2, X * 3]},
           lambda **_: (X * 2, [X * 3])),
    OpCase("print", {"In": X}, lambda In, **_: In, attrs={"message": "table row"}),
    OpCase("assert", {"Cond": np.array(True), "Data": [X]}, lambda **_: ()),
    OpCase("py_func", {"X": [X]}, lambda X, **_: [X[0] * X[0]],
           attrs={"forward_callable_id": _SQ, "backward_callable_id": _SQ_GRAD}),
]
