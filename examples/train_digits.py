"""Train a small classifier on the bundled 8x8 handwritten digits, eagerly, with dy2st.

    python examples/train_digits.py [--epochs 20] [--batch-size 32] [--lr 0.01] [--seed 2024]

A Paddle script: only the import line differs (``import dy2st as paddle``). It uses
paddle.io.TensorDataset + DataLoader (shuffled, seeded by paddle.seed), an
nn.Sequential MLP (64-128-10), CrossEntropyLoss and Adam. It prints the loss and accuracy of
every epoch and the final test accuracy, and exits with status 1 if that is below 0.95.
"""
from __future__ import annotations

import argparse
import sys
import time

import dy2st as paddle
from datasets import load_digits   # examples/datasets.py (the script's folder is on sys.path)

TARGET_ACCURACY = 0.95


def accuracy(logits, labels):
    """Fraction of rows whose arg-max equals the label."""
    pred = logits.argmax(axis=-1)
    return (pred == labels).astype("float32").mean().item()


def build_model():
    return paddle.nn.Sequential(
        paddle.nn.Linear(64, 128),
        paddle.nn.ReLU(),
        paddle.nn.Linear(128, 10),
    )


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=20)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--lr", type=float, default=0.01)
    parser.add_argument("--seed", type=int, default=2024)
    args = parser.parse_args(argv)

    paddle.seed(args.seed)
    x_train, y_train, x_test, y_test = load_digits()
    train_set = paddle.io.TensorDataset([paddle.to_tensor(x_train), paddle.to_tensor(y_train)])
    loader = paddle.io.DataLoader(train_set, batch_size=args.batch_size, shuffle=True)
    x_test, y_test = paddle.to_tensor(x_test), paddle.to_tensor(y_test)
    print(f"digits: {len(train_set)} train / {x_test.shape[0]} test samples, "
          f"{len(loader)} batches of {args.batch_size} per epoch")

    model = build_model()
    loss_fn = paddle.nn.CrossEntropyLoss()
    opt = paddle.optimizer.Adam(learning_rate=args.lr, parameters=model.parameters())

    start = time.perf_counter()
    test_acc = 0.0
    for epoch in range(1, args.epochs + 1):
        model.train()
        loss_sum, correct, seen = 0.0, 0.0, 0
        for x, y in loader:
            logits = model(x)
            loss = loss_fn(logits, y)
            loss.backward()
            opt.step()
            opt.clear_grad()
            n = x.shape[0]
            loss_sum += loss.item() * n
            correct += accuracy(logits, y) * n
            seen += n
        model.eval()
        with paddle.no_grad():
            test_acc = accuracy(model(x_test), y_test)
        print(f"epoch {epoch:3d}  loss {loss_sum / seen:.4f}  train acc {correct / seen:.4f}  "
              f"test acc {test_acc:.4f}")
    elapsed = time.perf_counter() - start

    print(f"final test accuracy: {test_acc:.4f} ({elapsed:.1f} s for {args.epochs} epochs)")
    if test_acc < TARGET_ACCURACY:
        print(f"FAILED: test accuracy {test_acc:.4f} is below {TARGET_ACCURACY}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
