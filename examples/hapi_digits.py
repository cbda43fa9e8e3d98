"""Train the digits classifier with the high-level API: paddle.Model's fit, evaluate, predict and save.

    python examples/hapi_digits.py [--epochs 10] [--batch-size 32] [--lr 0.01] [--seed 2024] [--out DIR]

A Paddle script: only the import lines differ (``import dy2st as paddle``). The same 64-128-10 MLP as
train_digits.py on the bundled 8x8 digits, wrapped in ``paddle.Model`` with an input spec; ``fit`` trains
it (one progress line per epoch), ``evaluate`` measures the test accuracy, ``save(training=False)``
writes the inference model that ``paddle.jit.load`` reloads, and the reloaded model's predictions must
equal ``Model.predict``'s. A training checkpoint (``save()``) is loaded into a fresh Model too. Exits with
status 1 if the test accuracy is below 0.95 or the reloaded models disagree.
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile

import numpy as np

import dy2st as paddle
from dy2st.static import InputSpec
from datasets import load_digits   # examples/datasets.py (the script's folder is on sys.path)

TARGET_ACCURACY = 0.95


def build_model():
    net = paddle.nn.Sequential(
        paddle.nn.Linear(64, 128),
        paddle.nn.ReLU(),
        paddle.nn.Linear(128, 10),
    )
    return paddle.Model(net, inputs=[InputSpec([None, 64], "float32", "x")],
                        labels=[InputSpec([None, 1], "int64", "label")])


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--lr", type=float, default=0.01)
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--out", default=None, help="where to write the model files (default: a temp dir)")
    args = parser.parse_args(argv)
    out_dir = args.out or tempfile.mkdtemp(prefix="hapi_digits_")

    paddle.seed(args.seed)
    x_train, y_train, x_test, y_test = load_digits()
    train_set = paddle.io.TensorDataset([paddle.to_tensor(x_train), paddle.to_tensor(y_train.reshape(-1, 1))])
    test_set = paddle.io.TensorDataset([paddle.to_tensor(x_test), paddle.to_tensor(y_test.reshape(-1, 1))])

    model = build_model()
    model.prepare(paddle.optimizer.Adam(learning_rate=args.lr, parameters=model.parameters()),
                  paddle.nn.CrossEntropyLoss(), paddle.metric.Accuracy())
    model.summary()
    steps = -(-len(train_set) // args.batch_size)
    # log_freq above the steps of an epoch: one line per epoch, written when the epoch ends
    model.fit(train_set, batch_size=args.batch_size, epochs=args.epochs, verbose=2, log_freq=steps + 1)
    result = model.evaluate(test_set, batch_size=120, verbose=0)
    test_acc = float(result["acc"])
    print(f"test loss {result['loss'][0]:.4f}  test accuracy: {test_acc:.4f}")

    # deployment: the inference model, reloaded without the Python class
    prefix = os.path.join(out_dir, "digits")
    model.save(prefix, training=False)
    loaded = paddle.jit.load(prefix)
    loaded.eval()
    expected = model.predict(test_set, batch_size=120, stack_outputs=True, verbose=0)[0]
    got = loaded(paddle.to_tensor(x_test)).numpy()
    infer_diff = float(np.abs(got - expected).max())
    print(f"jit.load'ed inference model: max |difference| to Model.predict {infer_diff:.2e}, "
          f"same classes: {bool((got.argmax(1) == expected.argmax(1)).all())}")

    # resuming: a training checkpoint loaded into a fresh Model evaluates the same
    model.save(os.path.join(out_dir, "checkpoint"))
    resumed = build_model()
    resumed.prepare(paddle.optimizer.Adam(learning_rate=args.lr, parameters=resumed.parameters()),
                    paddle.nn.CrossEntropyLoss(), paddle.metric.Accuracy())
    resumed.load(os.path.join(out_dir, "checkpoint"))
    resumed_acc = float(resumed.evaluate(test_set, batch_size=120, verbose=0)["acc"])
    print(f"checkpoint reloaded: test accuracy {resumed_acc:.4f}")
    print(f"files in {out_dir}: {', '.join(sorted(os.listdir(out_dir)))}")

    failed = False
    if test_acc < TARGET_ACCURACY:
        print(f"FAILED: test accuracy {test_acc:.4f} is below {TARGET_ACCURACY}", file=sys.stderr)
        failed = True
    if infer_diff > 1e-4 or resumed_acc != test_acc:
        print("FAILED: the reloaded models do not reproduce the trained one", file=sys.stderr)
        failed = True
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
