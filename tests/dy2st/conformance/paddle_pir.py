"""Run a script in real Paddle 3.3.1 with ``FLAGS_enable_pir_api=1``: Paddle 3.3.1's to_static works only
on PIR (its legacy-IR dy2st fails on the first op), while `tests.interop.paddle_runner` starts Paddle
with the legacy flag for model files. The script runs in a child of the runner's interpreter (found,
or the test skipped, by `run_paddle`); its last stdout line is returned, parsed as JSON."""
from __future__ import annotations

import json

from tests.interop.paddle_runner import run_paddle

_LAUNCH = """
import os, subprocess, sys
env = dict(os.environ, FLAGS_enable_pir_api="1", GLOG_minloglevel="3")
proc = subprocess.run([sys.executable, "pir_script.py"], env=env, capture_output=True, text=True)
sys.stdout.write(proc.stdout)
sys.stderr.write(proc.stderr)
sys.exit(proc.returncode)
"""


def run_paddle_pir(script: str, workdir):
    """Run ``script`` (which prints one JSON line last) in real Paddle on PIR; return the parsed line."""
    (workdir / "pir_script.py").write_text("import warnings\nwarnings.simplefilter('ignore')\n" + script)
    proc = run_paddle(_LAUNCH, workdir)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])
