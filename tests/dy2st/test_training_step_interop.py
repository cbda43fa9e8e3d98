"""A converted training step against real Paddle 3.3.1 (one subprocess): the same MLP, weights and
batches, ``to_static`` forward with cross_entropy (mean, with an ignored label; and sum), loss.backward(),
SGD.step() with an LR scheduler, clear_grad(): losses, gradients and parameters after every step."""
import importlib.util
import json
import textwrap

import numpy as np
import pytest

import dy2st
from tests.interop.paddle_runner import run_paddle

CODE = textwrap.dedent('''
    import numpy as np

    def compute(paddle):
        nn, F = paddle.nn, paddle.nn.functional
        rng = np.random.default_rng(4)
        weights = [rng.standard_normal((12, 16)).astype("float32") * 0.3, rng.standard_normal(16).astype("float32"),
                   rng.standard_normal((16, 5)).astype("float32") * 0.3, rng.standard_normal(5).astype("float32")]
        x = rng.standard_normal((8, 12)).astype("float32")
        label = rng.integers(0, 5, (8, 1))
        label[3, 0] = -100

        class Net(nn.Layer):
            def __init__(self, reduction):
                super().__init__()
                self.fc1, self.fc2 = nn.Linear(12, 16), nn.Linear(16, 5)
                self.reduction = reduction

            def forward(self, x, label):
                return F.cross_entropy(self.fc2(F.relu(self.fc1(x))), label, reduction=self.reduction)

        out = {}
        for reduction in ("mean", "sum"):
            net = Net(reduction)
            for p, w in zip(net.parameters(), weights):
                p.set_value(w)
            net = paddle.jit.to_static(net, full_graph=True)
            sched = paddle.optimizer.lr.StepDecay(0.1, step_size=1, gamma=0.5)
            opt = paddle.optimizer.SGD(learning_rate=sched, parameters=net.parameters())
            rows = []
            for step in range(3):
                loss = net(paddle.to_tensor(x * (1 + step)), paddle.to_tensor(label))
                loss.backward()
                grads = [p.grad.numpy().tolist() for p in net.parameters()]
                opt.step()
                opt.clear_grad()
                sched.step()
                rows.append({"loss": float(loss), "grads": grads,
                             "params": [p.numpy().tolist() for p in net.parameters()]})
            out[reduction] = rows
        return out
''')


@pytest.fixture(scope="module")
def both(tmp_path_factory):
    work = tmp_path_factory.mktemp("train_step")
    proc = run_paddle(CODE + '\nimport json\njson.dump(compute(paddle), open("paddle_out.json", "w"))\n', work,
                      default_flags=True)     # (Paddle 3 trains to_static programs in its PIR mode)
    assert proc.returncode == 0, proc.stderr[-3000:]
    theirs = json.loads((work / "paddle_out.json").read_text())
    path = work / "train_step_code.py"       # a file: to_static reads the forward's source
    path.write_text(CODE)
    spec = importlib.util.spec_from_file_location("train_step_code", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.compute(dy2st), theirs


@pytest.mark.parametrize("reduction", ["mean", "sum"])
def test_training_steps_match_paddle(both, reduction):
    ours, theirs = both
    for step, (a, b) in enumerate(zip(ours[reduction], theirs[reduction])):
        np.testing.assert_allclose(a["loss"], b["loss"], rtol=1e-5, err_msg=f"loss, step {step}")
        for what in ("grads", "params"):
            for i, (u, v) in enumerate(zip(a[what], b[what])):
                np.testing.assert_allclose(np.asarray(u), np.asarray(v), rtol=1e-5, atol=1e-6,
                                           err_msg=f"{what}[{i}], step {step}")
