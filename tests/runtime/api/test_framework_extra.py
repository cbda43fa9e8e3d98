"""Top-level framework names (paddle.batch, the CUDA RNG state functions of a CPU build, the autocast
queries, from_dlpack/to_dlpack) behave as real Paddle 3.3.1's (differential, one subprocess)."""
import json
import textwrap

import numpy as np
import pytest

import dy2st

CODE = textwrap.dedent('''
    def compute(paddle):
        import numpy as np
        out = {}
        def reader():
            for i in range(7):
                yield i
        out["batch"] = list(paddle.batch(reader, 3)())
        out["batch_drop"] = list(paddle.batch(reader, 3, drop_last=True)())
        try:
            paddle.batch(reader, 0)
        except Exception as e:
            out["batch_error"] = type(e).__name__
        out["cuda_rng"] = paddle.get_cuda_rng_state()
        out["set_cuda_rng"] = paddle.set_cuda_rng_state([])
        out["signal"] = paddle.disable_signal_handler()
        out["autocast_off"] = paddle.is_autocast_enabled()
        out["autocast_dtype"] = str(paddle.get_autocast_dtype())
        x = paddle.to_tensor(np.arange(6, dtype="float32").reshape(2, 3))
        y = paddle.from_dlpack(paddle.to_dlpack(x))
        out["dlpack"] = y.numpy().tolist()
        out["dlpack_dtype"] = str(y.dtype)
        return out
''')


def test_framework_names_match_paddle(tmp_path):
    from tests.interop.paddle_runner import run_paddle
    proc = run_paddle(CODE + "import json, paddle\njson.dump(compute(paddle), open('out.json', 'w'))\n", tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    theirs = json.loads((tmp_path / "out.json").read_text())
    ns = {}
    exec(CODE, ns)
    ours = json.loads(json.dumps(ns["compute"](dy2st)))
    assert ours == theirs


def test_autocast_is_the_amp_region():
    x = dy2st.to_tensor(np.ones((2, 3), "float32"))
    with dy2st.autocast(device_type="cpu"):
        assert dy2st.is_autocast_enabled()
        assert dy2st.matmul(x, x.T).dtype == dy2st.float16
    assert not dy2st.is_autocast_enabled()
    with pytest.raises(ValueError, match="batch_size should be a positive integer"):
        dy2st.batch(lambda: iter([]), -1)
