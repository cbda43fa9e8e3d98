"""Run every example in a subprocess and check its exit status and key output."""
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EXAMPLES = os.path.join(ROOT, "examples")


def run(script, *args, timeout=300):
    proc = subprocess.run([sys.executable, os.path.join(EXAMPLES, script), *args],
                          capture_output=True, text=True, timeout=timeout, cwd=ROOT)
    return proc, proc.stdout + proc.stderr


def test_datasets_loader():
    proc, out = run("datasets.py")
    assert proc.returncode == 0, out
    assert "train: x (1437, 64) float32, y (1437,) int64" in out
    assert "test:  x (360, 64) float32, y (360,) int64" in out


def test_load_digits_split_is_fixed_and_disjoint():
    sys.path.insert(0, EXAMPLES)
    try:
        import datasets
    finally:
        sys.path.remove(EXAMPLES)
    xtr, ytr, xte, yte = datasets.load_digits()
    xtr2, ytr2, _, _ = datasets.load_digits()
    assert (xtr == xtr2).all() and (ytr == ytr2).all()
    assert xtr.min() == 0.0 and xtr.max() == 1.0
    pixels, labels = datasets.load_digits_raw()
    assert pixels.shape == (1797, 64) and sorted(set(labels.tolist())) == list(range(10))
    # every sample lands in exactly one split
    rows = {tuple(r) for r in (pixels / 16.0).astype("float32").tolist()}
    assert len({tuple(r) for r in xtr.tolist()} | {tuple(r) for r in xte.tolist()}) == len(rows)
    assert datasets.load_digits(image_shape=(1, 8, 8))[0].shape == (1437, 1, 8, 8)


def test_train_digits_reaches_target():
    proc, out = run("train_digits.py")
    assert proc.returncode == 0, out
    epochs = re.findall(r"^epoch\s+\d+\s+loss ([\d.]+)\s+train acc ([\d.]+)\s+test acc ([\d.]+)", out, re.M)
    assert len(epochs) == 20, out
    assert float(epochs[-1][0]) < float(epochs[0][0])
    final = re.search(r"final test accuracy: ([\d.]+)", out)
    assert final and float(final.group(1)) >= 0.95, out


def test_train_digits_fails_below_target():
    # one tiny-learning-rate epoch cannot reach 95%: the script must say so and exit non-zero
    proc, out = run("train_digits.py", "--epochs", "1", "--lr", "1e-5")
    assert proc.returncode == 1, out
    assert "FAILED: test accuracy" in out


def test_layer_api_tour():
    proc, out = run("layer_api_tour.py")
    assert proc.returncode == 0, out
    for needle in ["[Flatten()]", "('flatten', Flatten())", "Linear(in_features=10, out_features=3",
                   "apply returned the model itself: True", "('img', Parameter(shape=[1, 3, 256, 256]",
                   "after clear_gradients", "named buffer: saved_tensor",
                   "state_dict keys (buffer included): ['saved_tensor', 'fc.weight', 'fc.bias']",
                   "after eval(): model.training = False", "pre-hook got a tuple of 1 input(s)",
                   "restored model gives the same outputs: True", "layer API tour finished"]:
        assert needle in out, f"missing {needle!r} in:\n{out}"
