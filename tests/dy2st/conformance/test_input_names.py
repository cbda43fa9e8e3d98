"""Names of the saved inputs (``jit.save``): Paddle's ``replace_spec_empty_name`` rule.

An InputSpec without a name takes the argument's name (``x``, ``y``); a list argument ``xs`` gives
``xs_0``, ``xs_1``; a dict argument its keys (in sorted order, as flatten); an InputSpec's own name wins.
Checked against the names real Paddle 3.3.1 writes for the same layers. ``*args`` (which Paddle refuses:
"requires 0 arguments") is named like a list argument called after it: ``args_0``, ``args_1``.
"""
from __future__ import annotations

import inspect
import json
import warnings

import pytest

import dy2st as paddle
from dy2st.static import InputSpec


class Two(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = paddle.nn.Linear(4, 2)

    def forward(self, x, y):
        return self.fc(x) + self.fc(y)


class Nest(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = paddle.nn.Linear(4, 2)

    def forward(self, xs, z):
        return self.fc(xs[0]) + self.fc(xs[1]) + self.fc(z)


class Dict(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = paddle.nn.Linear(4, 2)

    def forward(self, d, z):
        return self.fc(d["a"]) + self.fc(d["b"]) + z


class Decorated(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = paddle.nn.Linear(4, 2)

    @paddle.jit.to_static(input_spec=[InputSpec([None, 4], "float32"), InputSpec([None, 4], "float32")])
    def forward(self, x, y):
        return self.fc(x) + self.fc(y)


def add(x, y):
    return x + y


S = 'InputSpec([None, 4], "float32")'
CASES = {
    "plain": ("Two()", f"[{S}, {S}]"),
    "named": ("Two()", f'[InputSpec([None, 4], "float32", "a"), {S}]'),
    "nest": ("Nest()", f"[[{S}, {S}], {S}]"),
    "nest_named": ("Nest()", '[[InputSpec([None, 4], "float32", "p"), InputSpec([None, 4], "float32", "q")], '
                             'InputSpec([None, 4], "float32", "r")]'),
    "dict": ("Dict()", f'[{{"b": {S}, "a": {S}}}, InputSpec([None, 2], "float32")]'),
    "func": ("add", f"[{S}, {S}]"),
    "decorated": ("Decorated()", "None"),
}


def _our_names(tmp_path, tag, ctor, spec):
    obj = eval(ctor, {"Two": Two, "Nest": Nest, "Dict": Dict, "Decorated": Decorated, "add": add})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        paddle.jit.save(obj, str(tmp_path / tag), input_spec=eval(spec, {"InputSpec": InputSpec}))
    return [s.name for s in paddle.jit.load(str(tmp_path / tag))._input_spec()]


@pytest.mark.parametrize("tag", sorted(CASES))
def test_names_follow_paddles_rule(tmp_path, tag):
    want = {"plain": ["x", "y"], "named": ["a", "y"], "nest": ["xs_0", "xs_1", "z"], "nest_named": ["p", "q", "r"],
            "dict": ["a", "b", "z"], "func": ["x", "y"], "decorated": ["x", "y"]}[tag]
    assert _our_names(tmp_path, tag, *CASES[tag]) == want


def test_var_positional_arguments_are_named_like_a_list(tmp_path):
    class Args(paddle.nn.Layer):
        def __init__(self):
            super().__init__()
            self.fc = paddle.nn.Linear(4, 2)

        def forward(self, first, *rest):
            return self.fc(first) + self.fc(rest[0]) + self.fc(rest[1])

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        paddle.jit.save(Args(), str(tmp_path / "a"), input_spec=[InputSpec([None, 4], "float32")] * 3)
    assert [s.name for s in paddle.jit.load(str(tmp_path / "a"))._input_spec()] == ["first", "rest_0", "rest_1"]


def test_names_of_a_called_function_without_input_spec():
    sf = paddle.jit.to_static(add)
    sf(paddle.ones([2]), paddle.ones([2]))
    assert [v.name for v in sf.inputs] == ["x", "y"]


def test_same_names_as_real_paddle(tmp_path):
    from tests.interop.paddle_runner import run_paddle
    src = "\n".join(inspect.getsource(c) for c in (Two, Nest, Dict, Decorated, add))
    script = ("import json, warnings\nwarnings.simplefilter('ignore')\nfrom paddle.static import InputSpec\n" + src +
              "\nout = {}\n")
    for tag, (ctor, spec) in sorted(CASES.items()):
        script += (f"paddle.jit.save({ctor}, 'p/{tag}', input_spec={spec})\n"
                   f"out[{tag!r}] = [s.name for s in paddle.jit.load('p/{tag}')._input_spec()]\n")
    script += "print(json.dumps(out))\n"
    proc = run_paddle(script, tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    theirs = json.loads(proc.stdout.strip().splitlines()[-1])
    for tag, (ctor, spec) in sorted(CASES.items()):
        assert _our_names(tmp_path, tag, ctor, spec) == theirs[tag], tag
