"""The to_static call path against real Paddle 3.3.1 (issue 14): output stop_gradient flags and the
errors for methods of objects that are not Layers. One Paddle subprocess runs every case of
call_path_cases.py (Paddle 3's default PIR mode); dy2st runs the same file in this process."""
from __future__ import annotations

import json
import pathlib
import warnings

import pytest

import dy2st
from tests.dy2st.conformance import call_path_cases
from tests.interop.paddle_runner import run_paddle

CASES_DIR = pathlib.Path(call_path_cases.__file__).resolve().parent

PADDLE_MAIN = f"""
import json, sys, warnings
warnings.simplefilter("ignore")
sys.path.insert(0, {str(CASES_DIR)!r})
import call_path_cases
print("RESULT" + json.dumps(call_path_cases.run(paddle)))
"""


@pytest.fixture(scope="module")
def paddle_results(tmp_path_factory):
    proc = run_paddle(PADDLE_MAIN, tmp_path_factory.mktemp("call_path"), default_flags=True)
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("RESULT")]
    assert proc.returncode == 0 and lines, proc.stderr[-3000:]
    return json.loads(lines[-1][len("RESULT"):])


@pytest.fixture(scope="module")
def our_results():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")     # (the Paddle side hides its warnings too)
        return json.loads(json.dumps(call_path_cases.run(dy2st)))


@pytest.mark.parametrize("group", ["output_flags", "plain_class_methods"])
def test_same_as_paddle(group, paddle_results, our_results):
    ours, theirs = our_results[group], paddle_results[group]
    assert sorted(ours) == sorted(theirs)
    diff = {k: (ours[k], theirs[k]) for k in theirs if ours[k] != theirs[k]}
    assert not diff, f"(ours, Paddle) differ: {diff}"


def test_made_inside_keeps_stop_gradient_false(our_results):
    """Issue 14: ``to_tensor(..., stop_gradient=False)`` made and returned inside comes back False."""
    flags = our_results["output_flags"]
    assert flags["made_inside x_sg=True"] == [False]
    assert flags["made_inside x_sg=True no_grad"] == [False]
    assert flags["constant x_sg=True"] == [True]


def test_plain_object_method_is_refused(our_results):
    res = our_results["plain_class_methods"]
    assert res["decorated method of a plain object"][:2] == ["raise", "TypeError"]
    assert "inherits from nn.Layer" in res["decorated method of a plain object"][2]
    assert res["instance deleted before the call"][:2] == ["raise", "RuntimeError"]
