"""The seed's to_static training example: same losses as eager training (<= 1e-5 relative over 20 steps)."""
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EXAMPLES = os.path.join(ROOT, "examples")


def _module():
    sys.path.insert(0, EXAMPLES)
    try:
        import to_static_train
        return to_static_train
    finally:
        sys.path.remove(EXAMPLES)


def test_to_static_training_matches_eager_losses():
    import dy2st as paddle
    m = _module()
    paddle.seed(7)
    model = m.MNIST()
    init = {k: v.numpy().copy() for k, v in model.state_dict().items()}
    losses = m.train(model, 20)
    # the static path really ran: one Program traced for training, run 20 times
    assert len(model.forward.program_cache) == 1
    types = [op.type for op in model.forward.concrete_program.main_program.global_block().ops]
    assert "matmul_v2" in types and "elementwise_add" in types
    eager = m.EagerMNIST()
    eager.set_state_dict(init)
    eager_losses = m.train(eager, 20)
    assert len(losses) == len(eager_losses) == 20
    for a, b in zip(losses, eager_losses):
        assert abs(a - b) <= 1e-5 * abs(b)
    assert losses[-1] < losses[0]
    for (k, v), (_, w) in zip(model.state_dict().items(), eager.state_dict().items()):
        assert abs(v.numpy() - w.numpy()).max() <= 1e-5, k


def test_example_script_runs():
    proc = subprocess.run([sys.executable, os.path.join(EXAMPLES, "to_static_train.py"), "--steps", "60",
                           "--compare"], capture_output=True, text=True, timeout=300, cwd=ROOT)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out
    assert "max relative loss difference" in out
    assert "converted forward: 2 programs" in out
