"""paddle.summary and paddle.flops: printed tables, totals and FLOPs against real Paddle 3.3.1 on LeNet,
ResNet-18, MobileNetV2 and a small custom network; argument handling and errors."""
import pytest

import dy2st as paddle
from tests.dy2st.hapi.both import run_both

# Paddle 3.3.1's dynamic_flops calls int() on [1]-shaped tensors, which numpy >= 2 refuses; the
# patch restores numpy 1's behaviour so Paddle's own counting code runs unchanged
SCRIPT = '''
import paddle
import numpy as np
if paddle.__name__ == "paddle":      # real Paddle only
    paddle.Tensor.__int__ = lambda v: int(np.asarray(v).item())

class Custom(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.conv = paddle.nn.Conv2D(3, 8, 3, padding=1, groups=1)
        self.bn = paddle.nn.BatchNorm2D(8)
        self.act = paddle.nn.LeakyReLU()
        self.pool = paddle.nn.AvgPool2D(2)
        self.ada = paddle.nn.AdaptiveAvgPool2D(3)
        self.dw = paddle.nn.Conv2D(8, 8, 3, padding=1, groups=4, bias_attr=False)
        self.drop = paddle.nn.Dropout(0.5)
        self.fc = paddle.nn.Linear(72, 5)
        self.frozen = paddle.nn.Linear(5, 2)
        self.frozen.weight.stop_gradient = True

    def forward(self, x):
        y = self.ada(self.pool(self.act(self.bn(self.conv(x)))))
        y = self.drop(self.dw(y))
        return self.frozen(self.fc(paddle.flatten(y, 1)))

print("== lenet summary")
print(paddle.summary(paddle.vision.models.LeNet(), (1, 1, 28, 28)))
print("== lenet flops")
paddle.flops(paddle.vision.models.LeNet(), [1, 1, 28, 28], print_detail=True)
print("== custom summary two ways")
net = Custom()
print(paddle.summary(net, input_size=[(None, 3, 12, 12)], dtypes="float32"))
print(paddle.summary(net, input=paddle.ones([2, 3, 12, 12])))
print("== custom flops")
paddle.flops(net, [2, 3, 12, 12], print_detail=True)
print("== custom flops with a custom rule")
def count_fc(m, x, y):
    m.total_ops += 1000
paddle.flops(net, [1, 3, 12, 12], custom_ops={paddle.nn.Linear: count_fc})
print("== resnet18")
net = paddle.vision.models.resnet18(num_classes=10)
print(paddle.summary(net, (1, 3, 32, 32)))
paddle.flops(net, [1, 3, 32, 32], print_detail=True)
print("== recurrent")
class Words(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.emb = paddle.nn.Embedding(20, 8)
        self.lstm = paddle.nn.LSTM(8, 6)                 # fused in Paddle: one row, cells never run
        self.fc = paddle.nn.Linear(6, 3)

    def forward(self, x):
        out, (h, c) = self.lstm(self.emb(x))
        return self.fc(out[:, -1])

class Seq(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.gru = paddle.nn.GRU(4, 6, num_layers=2, direction="bidirect")
        self.lstm = paddle.nn.LSTM(12, 5, proj_size=3)   # not fused: its RNN and cell are the rows
        self.fc = paddle.nn.Linear(3, 2)

    def forward(self, x):
        y, _ = self.gru(x)
        y, _ = self.lstm(y)
        return self.fc(y)

print(paddle.summary(Words(), (2, 5), dtypes="int64"))
print(paddle.summary(Seq(), (2, 7, 4)))
paddle.flops(Seq(), [2, 7, 4], print_detail=True)
print("== mobilenet_v2")
net = paddle.vision.models.mobilenet_v2(scale=0.5, num_classes=10)
info = paddle.summary(net, (1, 3, 32, 32))
print({k: int(v) for k, v in info.items()})
paddle.flops(net, [1, 3, 32, 32])
'''


def _normalise(text):
    # class paths in flops' messages name each package's module ("runtime.nn.layer" vs "paddle.nn.layer")
    return [line.replace("runtime.nn.layer", "paddle.nn.layer") for line in text.splitlines()]


def _sections(lines):
    out, current = {}, None
    for line in lines:
        if line.startswith("== "):
            current = line
            out[current] = []
        elif current is not None:
            out[current].append(line)
    return out


def test_summary_and_flops_print_what_paddle_prints(tmp_path):
    ours, theirs = run_both(SCRIPT, tmp_path)
    ours, theirs = _sections(_normalise(ours)), _sections(_normalise(theirs))
    assert list(ours) == list(theirs) and len(theirs) == 8
    for name, want in theirs.items():
        got = ours[name]
        for k, (a, b) in enumerate(zip(got, want)):
            assert a == b, f"{name} line {k} differs:\n ours:   {a!r}\n Paddle: {b!r}"
        assert len(got) == len(want), name


def test_summary_returns_totals_and_restores_training_mode(capsys):
    net = paddle.vision.models.LeNet()
    net.train()
    info = paddle.summary(net, (1, 1, 28, 28))
    assert {k: int(v) for k, v in info.items()} == {"total_params": 61610, "trainable_params": 61610}
    assert net.training and all(layer.training for layer in net.sublayers())
    assert "Total params: 61,610" in capsys.readouterr().out


def test_summary_input_forms_agree(capsys):
    net = paddle.nn.Sequential(paddle.nn.Linear(6, 4), paddle.nn.ReLU())
    by_tuple = paddle.summary(net, (1, 6))
    by_spec = paddle.summary(net, paddle.static.InputSpec([None, 6], "float32", "x"))
    by_tensor = paddle.summary(net, input=paddle.ones([3, 6]))
    assert by_tuple == by_spec == by_tensor == {"total_params": 28, "trainable_params": 28}
    out = capsys.readouterr().out
    assert "[[3, 6]]" in out      # the given tensor's shape is shown as is


def test_summary_errors():
    net = paddle.nn.Linear(2, 2)
    with pytest.raises(ValueError, match="input_size and input cannot be None"):
        paddle.summary(net)
    with pytest.raises(ValueError, match="only the dim of batch_size can be None"):
        paddle.summary(net, (None, None))
    with pytest.raises(ValueError, match="greater than zero"):
        paddle.summary(net, (1, 0))
    with pytest.raises(TypeError, match="expect item in input_size is a tuple or InputSpec"):
        paddle.summary(net, [[1, 2]])


def test_flops_leaves_no_counters_and_keeps_to_static(capsys):
    class Net(paddle.nn.Layer):
        def __init__(self):
            super().__init__()
            self.fc = paddle.nn.Linear(4, 3)

        @paddle.jit.to_static
        def forward(self, x):
            return self.fc(x)

    net = Net()
    keys = list(net.state_dict())
    assert paddle.flops(net, [2, 4]) == 2 * 3 * 4
    assert list(net.state_dict()) == keys
    assert isinstance(type(net).__dict__["forward"], paddle.jit.StaticFunction)
    assert "Total Flops: 24     Total Params: 15" in capsys.readouterr().out


def test_flops_of_anything_else_warns():
    with pytest.warns(UserWarning, match="must be an instance of paddle.nn.Layer or paddle.static.Program"):
        assert paddle.flops(object(), [1]) == -1


STATIC_SCRIPT = """
import paddle
paddle.enable_static()
main, startup = paddle.static.Program(), paddle.static.Program()
with paddle.static.program_guard(main, startup):
    x = paddle.static.data("x", [None, 3, 8, 8], "float32")
    y = paddle.nn.Conv2D(3, 4, 3)(x)
    z = paddle.nn.functional.avg_pool2d(y, 2)
    w = paddle.nn.BatchNorm2D(4)(z)
    v = paddle.nn.Linear(3, 5)(w)
    u = paddle.nn.functional.relu(v) * 2.0 + v
print(paddle.flops(main, None, print_detail=True))
"""


def test_static_program_flops_match_paddle(tmp_path):
    ours, theirs = run_both(STATIC_SCRIPT, tmp_path)
    assert ours == theirs
    # conv2d 4*6*6 outputs x 3*3*3 taps; pool2d (2*2 + 1) x 4*3*3; batch_norm 2 x 36; the adds per element
    # (matmul_v2 is not among the op types Paddle counts)
    assert int(ours.split()[-1]) == 3888 + 144 + 180 + 72 + 60 + 60
