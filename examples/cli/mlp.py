"""A small MNIST-sized MLP for the `dy2st` command (see README, "The `dy2st` command").

    dy2st export examples/cli/mlp.py:MLP --input-spec "x:float32[None,784]" -o build/mlp
    dy2st export examples/cli/mlp.py:build_mlp -o build/mlp_small    # factory; uses the to_static input_spec
    python examples/cli/mlp.py                                       # prints a checksum of one batch
"""
import numpy as np

import dy2st as paddle
from dy2st.static import InputSpec


class MLP(paddle.nn.Layer):
    """784 -> 128 -> 64 -> 10 with ReLU; the forward is converted by to_static."""

    def __init__(self, in_features=784, hidden=128, classes=10):
        super().__init__()
        self.fc1 = paddle.nn.Linear(in_features, hidden)
        self.fc2 = paddle.nn.Linear(hidden, 64)
        self.fc3 = paddle.nn.Linear(64, classes)

    @paddle.jit.to_static(input_spec=[InputSpec([None, 784], "float32", "x")])
    def forward(self, x):
        h = paddle.nn.functional.relu(self.fc1(x))
        h = paddle.nn.functional.relu(self.fc2(h))
        return self.fc3(h)


class SmallMLP(MLP):
    """The same network on 16 features (fast enough for tests)."""

    def __init__(self):
        super().__init__(in_features=16, hidden=32, classes=4)

    @paddle.jit.to_static(input_spec=[InputSpec([None, 16], "float32", "x")])
    def forward(self, x):
        h = paddle.nn.functional.relu(self.fc1(x))
        h = paddle.nn.functional.relu(self.fc2(h))
        return self.fc3(h)


def build_mlp():
    """A factory: the command calls it (no arguments) to get the Layer."""
    paddle.seed(0)
    return SmallMLP()


if __name__ == "__main__":
    net = build_mlp()
    net.eval()
    x = paddle.to_tensor(np.linspace(-1, 1, 3 * 16, dtype="float32").reshape(3, 16))
    y = net(x).numpy()
    print("shape", y.shape, "checksum", np.round(float(np.abs(y).sum()), 5))
