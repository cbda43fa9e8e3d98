"""Progress output of Model.fit/evaluate/predict: a live bar redrawn in place on a real pseudo-terminal
(verbose=1), plain lines in a pipe, one line per log step (verbose=2), silence (verbose=0); and the
ProgressBar's formatting."""
import io
import os
import pty
import re
import subprocess
import sys
import tty

from dy2st.hapi.progressbar import ProgressBar
from tests.dy2st.hapi.both import ROOT

CHILD = r'''
import sys
import numpy as np
import dy2st as paddle
verbose = int(sys.argv[1])
paddle.seed(0)
x = np.random.RandomState(0).rand(30, 4).astype("float32")
y = (x[:, :1] > 0.5).astype("int64")
data = paddle.io.TensorDataset([paddle.to_tensor(x), paddle.to_tensor(y)])
net = paddle.nn.Sequential(paddle.nn.Linear(4, 2))
model = paddle.Model(net)
model.prepare(paddle.optimizer.SGD(learning_rate=0.1, parameters=net.parameters()), paddle.nn.CrossEntropyLoss(),
              paddle.metric.Accuracy())
model.fit(data, data, batch_size=10, epochs=2, verbose=verbose, log_freq=1)
model.predict(data, batch_size=10, verbose=verbose)
print("done")
'''


def _env():
    return dict(os.environ, PYTHONPATH=ROOT, COLUMNS="100", LINES="40")


def run_in_pty(verbose):
    """The child's raw output bytes as a terminal receives them (no newline translation)."""
    master, slave = pty.openpty()
    tty.setraw(slave)
    proc = subprocess.Popen([sys.executable, "-c", CHILD, str(verbose)], stdin=slave, stdout=slave,
                            stderr=subprocess.PIPE, env=_env(), close_fds=True)
    os.close(slave)
    chunks = []
    while True:
        try:
            data = os.read(master, 4096)
        except OSError:      # EIO: the child closed the terminal
            break
        if not data:
            break
        chunks.append(data)
    os.close(master)
    assert proc.wait(timeout=120) == 0, proc.stderr.read().decode()
    return b"".join(chunks).decode()


def run_in_pipe(verbose):
    proc = subprocess.run([sys.executable, "-c", CHILD, str(verbose)], capture_output=True, text=True,
                          env=_env(), timeout=120)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def render(stream):
    """What a terminal shows after ``stream``: carriage returns and backspaces move the cursor."""
    lines, line, col = [], [], 0
    for ch in stream:
        if ch == "\n":
            lines.append("".join(line).rstrip())
            line, col = [], 0
        elif ch == "\r":
            col = 0
        elif ch == "\b":
            col = max(0, col - 1)
        else:
            if col < len(line):
                line[col] = ch
            else:
                line.append(ch)
            col += 1
    if line:
        lines.append("".join(line).rstrip())
    return lines


BAR = re.compile(r"^step (\d)/3 \[([=>.]{30})\] - loss: \d\.\d{4} - acc: \d\.\d{4}( - ETA: \d+s)? - \d+(us|ms|s)/step$")


def test_live_bar_on_a_terminal():
    raw = run_in_pty(1)
    assert "\r" in raw and "ETA: " in raw
    screen = render(raw)
    assert screen[0].startswith("The loss value printed in the log is the current step")
    # each epoch's bar was redrawn in place: only the final state of each stays on screen
    epoch_bars = [line for line in screen if line.startswith("step ") and "loss" in line]
    assert len(epoch_bars) == 4    # 2 epochs x (train + eval)
    for line in epoch_bars:
        m = BAR.match(line)
        assert m, line
        assert m.group(1) == "3" and m.group(2) == "=" * 30 and m.group(3) is None   # complete: no ETA
    # intermediate frames carried the arrow head and the ETA
    frames = [f.strip("\b") for f in raw.split("\r")]
    assert any(re.match(r"step 1/3 \[=========>\.{20}\] - loss: .* - ETA: \d+s - ", f) for f in frames), frames
    assert screen[screen.index("Epoch 2/2") - 3:screen.index("Epoch 2/2")][0] == "Eval begin..."
    assert "Predict begin..." in screen and "Predict samples: 30" in screen and screen[-1] == "done"
    predict_bar = screen[screen.index("Predict begin...") + 1]
    assert re.match(r"^step 3/3 \[={30}\] - \d+(us|ms|s)/step$", predict_bar), predict_bar


def test_plain_lines_in_a_pipe():
    out = run_in_pipe(1)
    assert "\r" not in out and "\b" not in out
    lines = out.splitlines()
    train = [line for line in lines if line.startswith("step ")][:3]
    assert [BAR.match(line).group(1) for line in train] == ["1", "2", "3"]
    assert BAR.match(train[0]).group(2) == "=========>" + "." * 20 and "ETA" in train[0]
    assert BAR.match(train[2]).group(2) == "=" * 30 and "ETA" not in train[2]


def test_verbose_2_prints_one_line_per_log_step_on_a_terminal_too():
    for out in (run_in_pty(2), run_in_pipe(2)):
        assert "\r" not in out and "\b" not in out and "ETA" not in out
        lines = out.splitlines()
        steps = [line for line in lines if line.startswith("step ")]
        # train: steps 1, 2 (log_freq=1) and 3 (epoch end); eval: 1, 2, 3; twice; predict (which, as in Paddle,
        # logs every 2 steps) step 2 and, at its end, 3
        assert [line.split()[1] for line in steps] == ["1/3", "2/3", "3/3"] * 4 + ["2/3", "3/3"]
        assert all(re.match(r"^step \d/3 - loss: \d\.\d{4} - acc: \d\.\d{4} - \d+(us|ms|s)/step$", line)
                   for line in steps[:12]), steps


def test_verbose_0_is_silent():
    assert run_in_pipe(0).splitlines() == ["done"]


def test_progressbar_formats():
    f = io.StringIO()
    bar = ProgressBar(num=4, width=8, verbose=1, file=f)
    bar.update(1, [("loss", [0.5]), ("acc", 0.00012), ("lr", "n/a")])
    bar.update(4, [("loss", [0.25])])
    first, second = f.getvalue().splitlines()
    assert re.match(r"^step 1/4 \[=>\.{6}\] - loss: 0\.5000 - acc: 1\.2000e-04 - lr: n/a - ETA: \d+s - ", first)
    assert re.match(r"^step 4/4 \[={8}\] - loss: 0\.2500 - \d+(us|ms|s)/step$", second)
    f = io.StringIO()
    ProgressBar(num=None, verbose=2, file=f).update(7, [("loss", 1.5)])
    assert re.match(r"^step   7 - loss: 1\.5000 - \d+(us|ms|s)/step\n$", f.getvalue())
    f = io.StringIO()
    ProgressBar(num=120, verbose=2, file=f, name="batch").update(5)
    assert f.getvalue().startswith("batch   5/120 - ")
    try:
        ProgressBar(num=0)
    except TypeError as e:
        assert "num should be None or integer (> 0)" in str(e)
    else:
        raise AssertionError("num=0 must be refused")
