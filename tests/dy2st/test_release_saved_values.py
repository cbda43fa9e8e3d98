"""A converted training step's tape node drops its saved forward values once backward released it."""
import numpy as np
import pytest

import dy2st as paddle


class _Net(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = paddle.nn.Linear(4, 3)

    def forward(self, x):
        return paddle.nn.functional.relu(self.fc(x)).mean()


@pytest.mark.parametrize("hook", [False, True])
def test_saved_values_dropped_after_backward(hook):
    net = paddle.jit.to_static(_Net())
    x = paddle.to_tensor(np.arange(8, dtype="float32").reshape(2, 4))
    loss = net(x)
    if hook:        # a hook on the output takes the general engine instead of the fast backward
        loss.register_hook(lambda g: g)
    node = loss._node
    assert "run" in node.attrs
    loss.backward()
    assert node.released and "run" not in node.attrs
    assert net.fc.weight.grad is not None
    with pytest.raises(RuntimeError):
        loss.backward()         # a released graph still refuses a second backward


def test_retain_graph_keeps_them_for_a_second_backward():
    net = paddle.jit.to_static(_Net())
    x = paddle.to_tensor(np.arange(8, dtype="float32").reshape(2, 4))
    loss = net(x)
    loss.backward(retain_graph=True)
    g1 = net.fc.weight.grad.numpy().copy()
    assert "run" in loss._node.attrs
    loss.backward()
    np.testing.assert_allclose(net.fc.weight.grad.numpy(), 2 * g1, rtol=1e-6)
    assert "run" not in loss._node.attrs
