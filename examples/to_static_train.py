"""Train with ``@paddle.jit.to_static`` (the seed's MNIST example, on the bundled 8x8 digits).

    python examples/to_static_train.py [--steps 200] [--compare]

The model is the seed's MNIST classifier: one Linear layer whose ``forward`` carries
``@paddle.jit.to_static``; the training loop (cross_entropy, SGD, backward/step/clear_grad) is
exactly the eager one. ``--compare`` also trains an eager copy from the same initial weights
on the same batches and prints the largest relative difference between the two loss curves.
Then it saves the trained model for inference with ``paddle.jit.save`` (``--save PREFIX``, default a
temporary directory), loads it back with ``paddle.jit.load`` and checks the loaded model gives the
trained model's outputs.

A Paddle script: only the import line differs. ``full_graph=True`` is spelled out because Paddle
3.x's default (``full_graph=False``, bytecode tracing) has no ``concrete_program``; dy2st always
converts the whole function from source, so for dy2st the argument changes nothing.
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile

import numpy as np

import dy2st as paddle
from datasets import load_digits   # examples/datasets.py


class MNIST(paddle.nn.Layer):
    def __init__(self, in_features=64):
        super(MNIST, self).__init__()
        self.fc = paddle.nn.Linear(in_features=in_features, out_features=10)

    @paddle.jit.to_static(full_graph=True)
    def forward(self, inputs):
        outputs = self.fc(inputs)
        return outputs


class EagerMNIST(MNIST):
    """The same model without to_static (forward is the undecorated function)."""

    def forward(self, inputs):
        return MNIST.forward.dygraph_function(self, inputs)


def norm_img(img):
    batch_size = img.shape[0]
    img = img * 2.0 - 1          # the digits are in [0, 1]: map to [-1, 1] as the seed does
    return paddle.reshape(img, [batch_size, 64])


def train(model, steps, batch_size=16, lr=0.1, seed=0):
    """SGD on shuffled digits batches; returns the list of losses."""
    x_train, y_train, _, _ = load_digits()
    rng = np.random.RandomState(seed)
    model.train()
    opt = paddle.optimizer.SGD(learning_rate=lr, parameters=model.parameters())
    losses = []
    order = rng.permutation(len(x_train))
    for step in range(steps):
        idx = order[(step * batch_size) % len(order):][:batch_size]
        if len(idx) < batch_size:
            order = rng.permutation(len(x_train))
            idx = order[:batch_size]
        images = norm_img(paddle.to_tensor(x_train[idx])).astype("float32")
        labels = paddle.to_tensor(y_train[idx].reshape(-1, 1)).astype("int64")
        predicts = model(images)
        loss = paddle.nn.functional.cross_entropy(predicts, labels)
        avg_loss = paddle.mean(loss)
        avg_loss.backward()
        opt.step()
        opt.clear_grad()
        losses.append(float(avg_loss.numpy()))
    return losses


def accuracy(model):
    _, _, x_test, y_test = load_digits()
    model.eval()
    with paddle.no_grad():
        logits = model(norm_img(paddle.to_tensor(x_test)))
    return float((logits.numpy().argmax(-1) == y_test).mean())


def check_saved_model(model, prefix=None):
    """jit.save the trained model with a batch-agnostic InputSpec, jit.load it, compare outputs."""
    _, _, x_test, _ = load_digits()
    images = norm_img(paddle.to_tensor(x_test[:5]))
    with tempfile.TemporaryDirectory() as tmp:
        prefix = prefix or os.path.join(tmp, "mnist")
        spec = [paddle.static.InputSpec(shape=[None, 64], dtype="float32", name="inputs")]
        model.eval()
        paddle.jit.save(model, prefix, input_spec=spec)
        loaded = paddle.jit.load(prefix)
        loaded.eval()
        diff = float(np.abs(loaded(images).numpy() - model(images).numpy()).max())
    print(f"saved with paddle.jit.save and reloaded with paddle.jit.load: max output difference {diff:.2e}")
    if diff > 1e-5:
        print("FAILED: the loaded model's outputs differ", file=sys.stderr)
        return False
    return True


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--compare", action="store_true")
    parser.add_argument("--save", help="path prefix for the inference model (default: a temporary directory)")
    args = parser.parse_args(argv)
    paddle.seed(2024)
    model = MNIST()
    init = {k: v.numpy().copy() for k, v in model.state_dict().items()}
    losses = train(model, args.steps)
    for i in range(0, args.steps, max(args.steps // 10, 1)):
        print(f"step {i:4d}  loss {losses[i]:.5f}")
    acc = accuracy(model)
    program = model.forward.concrete_program.main_program
    print(f"converted forward: {len(model.forward.program_cache)} programs (train, eval); the eval one has "
          f"{len(program.global_block().ops)} ops")
    print(f"to_static model: final loss {losses[-1]:.5f}, test accuracy {acc:.4f}")
    if args.compare:
        eager = EagerMNIST()
        eager.set_state_dict(init)
        eager_losses = train(eager, args.steps)
        rel = max(abs(a - b) / max(abs(b), 1e-12) for a, b in zip(losses, eager_losses))
        print(f"eager model: final loss {eager_losses[-1]:.5f}; max relative loss difference {rel:.2e}")
        if rel > 1e-5:
            print("FAILED: to_static and eager training diverge", file=sys.stderr)
            return 1
    if not check_saved_model(model, args.save):
        return 1
    if acc < 0.85:
        print(f"FAILED: accuracy {acc:.4f} below 0.85", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
