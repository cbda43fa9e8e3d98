"""Run one Paddle script under real Paddle 3.3.1 and under dy2st (each in a fresh subprocess, so layer
name counters and RNG states start equal) and return both stdouts."""
from __future__ import annotations

import os
import subprocess
import sys

from tests.interop.paddle_runner import run_paddle

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))


def as_dy2st(code):
    """The script with its imports switched to dy2st (the only change a user makes)."""
    return code.replace("import paddle\n", "import dy2st as paddle\n").replace("from paddle.", "from dy2st.")


def run_ours(code, workdir, timeout=300):
    script = workdir / "dy2st_script.py"
    script.write_text(as_dy2st(code))
    proc = subprocess.run([sys.executable, str(script)], cwd=workdir, capture_output=True, text=True,
                          timeout=timeout, env=dict(os.environ, PYTHONPATH=ROOT))
    assert proc.returncode == 0, proc.stderr[-4000:]
    return proc.stdout


def run_both(code, workdir):
    """``(dy2st stdout, Paddle stdout)`` of ``code`` (which starts with ``import paddle``)."""
    (workdir / "paddle").mkdir(exist_ok=True)
    (workdir / "ours").mkdir(exist_ok=True)
    theirs = run_paddle(code, workdir / "paddle")
    assert theirs.returncode == 0, theirs.stderr[-4000:]
    return run_ours(code, workdir / "ours"), theirs.stdout
