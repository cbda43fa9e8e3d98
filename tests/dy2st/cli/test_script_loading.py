"""`dy2st.cli.script_loading`: import a script by path (sys.modules restored) and resolve SCRIPT.py:ATTR."""
import sys
import textwrap

import pytest

import dy2st as paddle
from dy2st.cli.script_loading import ScriptError, build_layer, loaded_script, resolve, split_target

SCRIPT = textwrap.dedent("""\
    import dy2st as paddle
    from helper_mod import SCALE

    class Net(paddle.nn.Layer):
        def __init__(self):
            super().__init__()
            self.fc = paddle.nn.Linear(2, 2)

        def forward(self, x):
            return self.fc(x) * SCALE

    class Wide(paddle.nn.Layer):
        def __init__(self, n):
            super().__init__()

    def build():
        return Net()

    def model_fn(x):
        return x * 2

    def bad_factory():
        return 3

    net = Net()
    if __name__ == "__main__":
        raise SystemExit("the main block must not run on import")
    """)


@pytest.fixture
def script(tmp_path):
    (tmp_path / "helper_mod.py").write_text("SCALE = 3\n")
    p = tmp_path / "models.py"
    p.write_text(SCRIPT)
    return str(p)


def test_import_restores_sys_modules_and_path(script):
    before_path = list(sys.path)
    with loaded_script(script) as mod:
        assert mod.__name__ in sys.modules and mod.__name__ != "__main__"
        assert mod.Net.__module__ == mod.__name__
        name = mod.__name__
    assert name not in sys.modules
    assert sys.path == before_path
    sys.modules.pop("helper_mod", None)


def test_build_layer_kinds(script):
    with loaded_script(script) as mod:
        layer, desc = build_layer(mod, "Net", "models.py")
        assert isinstance(layer, paddle.nn.Layer) and desc == "Net()"
        assert isinstance(build_layer(mod, "build", "models.py")[0], mod.Net)
        assert build_layer(mod, "net", "models.py")[0] is mod.net
        assert build_layer(mod, "model_fn", "models.py")[0] is mod.model_fn   # takes the inputs: exported as is
        with pytest.raises(ScriptError, match=r"models\.py has no attribute 'Missing' \(available: Layer classes: "
                                              r"Net, Wide; Layer instances: net; functions: build, model_fn, "
                                              r"bad_factory\)"):
            resolve(mod, "Missing", "models.py")
        with pytest.raises(ScriptError, match=r"Wide\(\) needs argument\(s\) n; give a factory function"):
            build_layer(mod, "Wide", "models.py")
        with pytest.raises(ScriptError, match=r"bad_factory\(\) returned int, not a paddle.nn.Layer"):
            build_layer(mod, "bad_factory", "models.py")
        with pytest.raises(ScriptError, match=r"say which model to use .*Net, Wide"):
            build_layer(mod, None, "models.py")
    sys.modules.pop("helper_mod", None)


def test_load_errors(tmp_path):
    with pytest.raises(ScriptError, match="script not found: .*nope.py"):
        with loaded_script(tmp_path / "nope.py"):
            pass
    (tmp_path / "broken.py").write_text("def f(:\n")
    with pytest.raises(ScriptError, match=r"cannot import broken\.py: syntax error at line 1"):
        with loaded_script(tmp_path / "broken.py"):
            pass
    (tmp_path / "raises.py").write_text("x = 1\nraise RuntimeError('boom')\n")
    with pytest.raises(ScriptError, match=r"importing raises\.py failed: RuntimeError: boom \(at raises\.py:2\)"):
        with loaded_script(tmp_path / "raises.py"):
            pass
    assert "raises" not in sys.modules and "broken" not in sys.modules


def test_split_target():
    assert split_target("a/b/mlp.py:MLP") == ("a/b/mlp.py", "MLP")
    assert split_target("mlp.py") == ("mlp.py", None)
    assert split_target("mlp.py:Outer.Inner") == ("mlp.py", "Outer.Inner")
