"""paddle.audio's module paths (Paddle's deep imports included) resolve to the runtime modules."""
import importlib

import dy2st as paddle
import runtime.audio


def test_paddle_module_paths_are_the_runtime_modules():
    for path in ("audio", "audio.functional", "audio.functional.functional", "audio.functional.window",
                 "audio.features", "audio.features.layers", "audio.backends", "audio.backends.backend",
                 "audio.backends.wave_backend", "audio.backends.init_backend", "audio.datasets",
                 "audio.datasets.dataset", "audio.datasets.esc50", "audio.datasets.tess"):
        assert importlib.import_module("dy2st." + path) is importlib.import_module("runtime." + path), path
    assert paddle.audio is runtime.audio
    assert sorted(paddle.audio.__all__) == sorted(["functional", "features", "datasets", "backends", "load",
                                                   "info", "save"])
    from dy2st.audio.features import MFCC
    from dy2st.audio.datasets.dataset import feat_funcs
    assert feat_funcs["mfcc"] is MFCC
