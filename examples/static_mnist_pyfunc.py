"""Static-graph digit classifier with a custom ReLU written in numpy through ``static.py_func``.

    python examples/static_mnist_pyfunc.py [--epochs 30] [--batch-size 16] [--lr 0.01] [--print-program]

The classic Paddle static program (seed 000's py_func example) on the bundled 8x8 digits
(64 features): static.data -> fc -> py_func ReLU (numpy forward and backward) -> fc with
softmax -> cross_entropy -> mean, accuracy, SGD.minimize; the startup program runs once,
the main program once per batch; evaluation runs ``main.clone(for_test=True)``. Only the
import line differs from a Paddle script (with real Paddle 3.x this legacy-Program script needs
``FLAGS_enable_pir_api=0``, which it sets itself before the import; dy2st ignores it). Exits with status 1 if the test accuracy is below 0.90.
"""
from __future__ import annotations

import argparse
import os
import sys

import numpy as np

os.environ.setdefault("FLAGS_enable_pir_api", "0")   # Paddle 3.x: py_func and Block APIs need the legacy IR
import dy2st as paddle  # noqa: E402
from datasets import load_digits  # noqa: E402  (examples/datasets.py; the script's folder is on sys.path)

static = paddle.static
TARGET_ACCURACY = 0.90


def relu(x):
    """Forward of the custom op: array in, numpy out."""
    return np.maximum(np.array(x), 0.0)


def relu_backward(y, dy):
    """Backward: gets the forward output ``y`` and its gradient ``dy`` (the input is skipped)."""
    y = np.array(y)                  # Paddle hands in DenseTensors: make them numpy arrays
    dx = np.zeros_like(y)
    dx[y > 0] = 1.0
    return np.array(dy) * dx


def create_tmp_var(program, name, dtype, shape):
    return program.current_block().create_var(name=name, dtype=dtype, shape=shape)


def build(main, startup, hidden=128, lr=0.01):
    """Build the training program into ``main``/``startup``; returns (image, label, loss, acc)."""
    with static.program_guard(main, startup):
        image = static.data(name="image", shape=[None, 64], dtype="float32")
        label = static.data(name="label", shape=[None, 1], dtype="int64")
        h = static.nn.fc(image, size=hidden)
        h_relu = create_tmp_var(main, "relu_out", "float32", [-1, hidden])
        static.py_func(func=relu, x=h, out=h_relu, backward_func=relu_backward, skip_vars_in_backward_input=h)
        prediction = static.nn.fc(h_relu, size=10, activation="softmax")
        cost = paddle.nn.functional.cross_entropy(prediction, label, use_softmax=False)
        loss = paddle.mean(cost)
        acc = static.accuracy(input=prediction, label=label)
        paddle.optimizer.SGD(learning_rate=lr).minimize(loss)
    return image, label, loss, acc


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=30)
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--lr", type=float, default=0.01)
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--print-program", action="store_true", help="print the main and startup programs")
    args = parser.parse_args()

    paddle.enable_static()
    paddle.seed(args.seed)
    x_train, y_train, x_test, y_test = load_digits()
    y_train, y_test = y_train.reshape(-1, 1), y_test.reshape(-1, 1)

    main_program, startup_program = static.Program(), static.Program()
    image, label, loss, acc = build(main_program, startup_program, lr=args.lr)
    test_program = main_program.clone(for_test=True)
    if args.print_program:
        print(main_program)
        print(startup_program)

    exe = static.Executor(paddle.CPUPlace())
    exe.run(startup_program)
    rng = np.random.default_rng(args.seed)
    n = len(x_train)
    for epoch in range(args.epochs):
        perm = rng.permutation(n)
        loss_sum, acc_sum, seen = 0.0, 0.0, 0
        for i in range(0, n, args.batch_size):
            idx = perm[i:i + args.batch_size]
            loss_v, acc_v = exe.run(main_program, feed={"image": x_train[idx], "label": y_train[idx]},
                                    fetch_list=[loss, acc])
            loss_sum += float(loss_v) * len(idx)
            acc_sum += float(acc_v) * len(idx)
            seen += len(idx)
        if epoch % 5 == 4 or epoch == args.epochs - 1:
            print(f"epoch {epoch:3d}  loss {loss_sum / seen:.4f}  train acc {acc_sum / seen:.4f}")

    test_loss, test_acc = exe.run(test_program, feed={"image": x_test, "label": y_test}, fetch_list=[loss, acc])
    test_acc = float(test_acc)
    print(f"test loss {float(test_loss):.4f}  test accuracy {test_acc:.4f}")
    paddle.disable_static()
    if test_acc < TARGET_ACCURACY:
        print(f"FAILED: test accuracy {test_acc:.4f} is below {TARGET_ACCURACY}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
