"""Tensor-dependent control flow for `dy2st convert` / `dy2st export` (see README).

`Gate.forward` has an `if` on a tensor (a cond in the Program) and a `while` whose trip count
depends on the input (a while op); `clip_steps` is a plain to_static function.

    dy2st convert examples/cli/controlflow.py -o controlflow_static.py && python controlflow_static.py
"""
import numpy as np

import dy2st as paddle
from dy2st.static import InputSpec


class Gate(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        paddle.seed(1)
        self.fc = paddle.nn.Linear(4, 4)

    @paddle.jit.to_static(input_spec=[InputSpec([None, 4], "float32", "x")])
    def forward(self, x):
        y = self.fc(x)
        if paddle.mean(y) > 0:          # branch chosen by the data
            y = paddle.nn.functional.relu(y) * 2.0
        else:
            y = y - 1.0
        # halve until the largest magnitude is below 1: the trip count depends on x
        while paddle.max(paddle.abs(y)) > 1.0:
            y = y * 0.5
        return y


@paddle.jit.to_static
def clip_steps(x, limit=3.0):
    """Add x to itself until the sum passes `limit` (a while on a tensor), then clip."""
    s = x
    n = paddle.zeros([1], dtype="int64")
    while paddle.sum(s) < limit:
        s = s + x
        n = n + 1
    return paddle.clip(s, -limit, limit), n


if __name__ == "__main__":
    gate = Gate()
    gate.eval()
    for scale in (1.0, -1.0, 8.0):
        x = paddle.to_tensor(np.linspace(-1, 2, 8, dtype="float32").reshape(2, 4) * scale)
        print("gate", scale, np.round(gate(x).numpy(), 5).tolist())
    s, n = clip_steps(paddle.to_tensor(np.array([0.25, 0.5], dtype="float32")))
    print("clip_steps", np.round(s.numpy(), 5).tolist(), int(n.numpy()[0]))
