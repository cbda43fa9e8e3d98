"""The Paddle subprocess helper skips (with the reason in the summary) when no Python has paddle."""
import sys

import pytest

from . import paddle_runner


def test_no_paddle_anywhere_skips_with_a_reason(tmp_path, monkeypatch):
    monkeypatch.setattr(paddle_runner, "_chosen", [])
    monkeypatch.setattr(paddle_runner, "candidates", lambda: [sys.executable, str(tmp_path / "no-python")])
    monkeypatch.setattr(paddle_runner, "PRELUDE", "import sys; print('No module named paddle', file=sys.stderr); "
                                                  "sys.exit(97)\n")
    with pytest.raises(pytest.skip.Exception, match="real PaddlePaddle is not available.*No module named paddle"):
        paddle_runner.run_paddle("print('unreachable')", tmp_path)
