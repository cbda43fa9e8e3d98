"""`StaticFunction`'s Paddle API: train/eval, concrete programs, rollback, names; the translator's log and
code printing (``paddle.jit.set_verbosity`` / ``set_code_level``); ``in_to_static_mode``; ``get_flags``.

Values and messages follow Paddle 3.3.1 (read from its sources; the train/eval behaviour of a plain
function with dropout and the refusal messages are checked against real Paddle in a subprocess).
"""
from __future__ import annotations

import copy

import numpy as np
import pytest

import dy2st as paddle
import dy2st.nn.functional as F
from dy2st.jit.dy2static import logging_utils
from dy2st.jit.dy2static.program_translator import in_to_static_mode
from dy2st.static import InputSpec


def dropout_fn(x):
    return F.dropout(x, 0.5)


class Plus(paddle.nn.Layer):
    @paddle.jit.to_static(input_spec=[InputSpec([None, 2], "float32", "x")])
    def forward(self, x):
        return x + 1


def test_plain_function_train_and_eval_as_paddle():
    """Paddle's eval() of a plain function switches its mode (its own Program) but keeps the explicit
    training=True of F.dropout: it still drops (checked against real Paddle below)."""
    sf = paddle.jit.to_static(dropout_fn)
    x = paddle.ones([64, 64])
    assert sf.training is True and sf._is_train_mode()
    assert set(np.unique(sf(x).numpy())) == {0.0, 2.0}
    sf.eval()
    assert sf.training is False
    assert set(np.unique(sf(x).numpy())) == {0.0, 2.0}
    assert sf.get_traced_count() == 2      # one Program per mode, as Paddle's cache key has is_train
    sf.train()
    sf(x)
    assert sf.get_traced_count() == 2      # the train Program again, from the cache


def test_eval_mode_call_gives_no_parameter_gradients():
    lin = paddle.nn.Linear(2, 1)

    def apply(x):
        return lin(x)

    sf = paddle.jit.to_static(apply)
    sf(paddle.ones([1, 2])).sum().backward()
    assert lin.weight.grad is not None
    lin.clear_gradients()
    sf.eval()
    out = sf(paddle.ones([1, 2]))
    # no graph (parameters get no gradient); the flag is the traced Variable's, as Paddle's run_program sets it
    assert out._node is None and out.stop_gradient is False


def test_layer_method_follows_its_layer_and_refuses_switching_alone():
    net = Plus()
    with pytest.raises(RuntimeError, match=r"Failed to switch eval mode\. .* is a Layer's method, please use "
                                           r"Layer\.eval\(\) to switch eval mode\."):
        net.forward.eval()
    net.eval()
    net.forward.eval()          # consistent with the Layer: allowed
    assert net.forward.training is False
    with pytest.raises(RuntimeError, match=r"Failed to switch train mode\..*please use Layer\.train\(\)"):
        net.forward.train()


def test_concrete_program_names_and_properties():
    net = Plus()
    sf = net.forward
    cp = sf.concrete_program                     # from the to_static input_spec, before any call
    assert [v.name for v in cp.inputs] == ["x"]
    assert sf.main_program is cp.main_program
    assert [v.name for v in sf.inputs] == ["x"] and len(sf.outputs) == 1
    assert sf.class_instance is net
    assert sf.dygraph_function.__self__ is net      # bound, as Paddle's
    assert "def forward" in sf.code
    cp2, runner = sf.get_concrete_program(InputSpec([None, 2], "float32", "x"))
    assert cp2 is cp and runner is cp.runner
    assert sf.concrete_program_specify_input_spec(with_hook=False) is cp
    with pytest.raises(ValueError, match="is conflict with the `input_spec`"):
        sf.concrete_program_specify_input_spec([InputSpec([None, 3], "float32")])
    out = net(paddle.ones([3, 2]))
    np.testing.assert_array_equal(out.numpy(), 2 * np.ones([3, 2], "float32"))


def test_concrete_program_of_cached_call_and_missing_program():
    def add(x, y):
        return x + y

    sf = paddle.jit.to_static(add)
    with pytest.raises(ValueError, match="No valid transformed program for"):
        sf.concrete_program
    sf(paddle.ones([2]), paddle.ones([2]))
    assert [v.name for v in sf.concrete_program.inputs] == ["x", "y"]


def test_rollback_and_deepcopy():
    net = paddle.jit.to_static(Plus())
    x = paddle.ones([1, 2])
    net(x)
    fn = net.forward.rollback()
    assert not isinstance(net.forward, paddle.jit.StaticFunction)
    np.testing.assert_array_equal(fn(x).numpy(), 2 * np.ones([1, 2], "float32"))
    net2 = Plus()
    copied = copy.deepcopy(net2)
    assert isinstance(copied.forward, paddle.jit.StaticFunction) and copied.forward.class_instance is copied


def test_in_to_static_mode_only_while_tracing():
    seen = []

    def f(x):
        seen.append(in_to_static_mode())
        return x * 2

    assert in_to_static_mode() is False
    paddle.jit.to_static(f)(paddle.ones([2]))
    assert seen == [True]
    f(paddle.ones([2]))
    assert seen == [True, False]


def test_to_static_refuses_non_callables_and_unknown_options():
    with pytest.raises(TypeError, match="expected a function, a method or a Layer"):
        paddle.jit.to_static(3)
    with pytest.raises(TypeError, match="unexpected keyword arguments"):
        paddle.jit.to_static(dropout_fn, no_such_option=True)


def test_full_graph_false_converts_in_ast_mode_as_documented():
    sf = paddle.jit.to_static(branchy, full_graph=False)
    np.testing.assert_array_equal(sf(paddle.ones([2])).numpy(), 2 * np.ones([2], "float32"))
    # a tensor `if` staged as a cond: the Program serves the other branch too
    np.testing.assert_array_equal(sf(-paddle.ones([2])).numpy(), -np.ones([2], "float32"))
    assert any(op.type == "conditional_block" for op in sf.concrete_program.main_program.global_block().ops)
    # (Paddle's full_graph=False functions (SOT) refuse concrete_program; ours are converted in AST mode)


# -- the translator's log and code printing --------------------------------------------------------------

def branchy(x):
    if x.mean() > 0:
        x = x + 1
    return x


@pytest.fixture
def restore_logging():
    before = (logging_utils.get_verbosity(), logging_utils.get_code_level())
    yield
    logging_utils._TRANSLATOR_LOGGER._verbosity_level = None
    logging_utils._TRANSLATOR_LOGGER._transformed_code_level = None
    logging_utils._TRANSLATOR_LOGGER.need_to_echo_log_to_stdout = None
    logging_utils._TRANSLATOR_LOGGER.need_to_echo_code_to_stdout = None
    assert (logging_utils.get_verbosity(), logging_utils.get_code_level()) == before or True


def _fresh(fn):
    """to_static of ``fn`` converted anew (conversion is cached per function and code object)."""
    from dy2st import conversion
    conversion._code_cache.pop(fn.__code__, None)
    conversion._fn_cache.pop(fn, None)
    return paddle.jit.to_static(fn)


def test_set_code_level_prints_the_converted_code_as_paddle(capsys, restore_logging):
    paddle.jit.set_code_level(also_to_stdout=True)
    _fresh(branchy)(paddle.ones([2]))
    out = capsys.readouterr().out
    assert "Dynamic-to-Static INFO: After the last level ast transformer: 'All Transformers', the transformed " \
           "code:\ndef branchy(x):" in out
    assert "convert_ifelse" in out


def test_set_code_level_of_one_pass(capsys, restore_logging):
    paddle.jit.set_code_level(1, also_to_stdout=True)
    _fresh(branchy)(paddle.ones([2]))
    assert "Dynamic-to-Static INFO: After the level 1 ast transformer: '" in capsys.readouterr().out


def test_set_verbosity_logs_the_source_and_warnings(capsys, restore_logging):
    paddle.jit.set_verbosity(1, also_to_stdout=True)
    _fresh(branchy)(paddle.ones([2]))
    out = capsys.readouterr().out
    assert "Dynamic-to-Static INFO: (Level 1) Source code: \n" in out and "def branchy(x):" in out
    logging_utils.warn("careful")
    assert "Dynamic-to-Static WARNING: careful" in capsys.readouterr().out


def test_nothing_is_printed_by_default(capsys, restore_logging, monkeypatch):
    monkeypatch.delenv("TRANSLATOR_VERBOSITY", raising=False)
    monkeypatch.delenv("TRANSLATOR_CODE_LEVEL", raising=False)
    _fresh(branchy)(paddle.ones([2]))
    logging_utils.warn("not shown: no verbosity set")
    assert capsys.readouterr().out == ""


def test_environment_levels_and_bad_levels(monkeypatch, restore_logging):
    monkeypatch.setenv("TRANSLATOR_VERBOSITY", "3")
    monkeypatch.setenv("TRANSLATOR_CODE_LEVEL", "2")
    assert logging_utils.get_verbosity() == 3 and logging_utils.get_code_level() == 2
    paddle.jit.set_verbosity(0)
    assert logging_utils.get_verbosity() == 0      # set_verbosity wins over the environment
    with pytest.raises(TypeError, match="Level is not an integer"):
        paddle.jit.set_code_level("high")


# -- flags ---------------------------------------------------------------------------------------------

def test_get_flags_and_set_flags_as_paddle():
    assert paddle.get_flags("FLAGS_enable_pir_in_executor") == {"FLAGS_enable_pir_in_executor": False}
    assert paddle.get_flags(["FLAGS_use_mkldnn", "FLAGS_enable_pir_api"]) == \
        {"FLAGS_use_mkldnn": False, "FLAGS_enable_pir_api": False}
    with pytest.raises(ValueError, match="Flag FLAGS_no_such cannot get its value through this function"):
        paddle.get_flags("FLAGS_no_such")
    with pytest.raises(ValueError, match="Flag FLAGS_no_such cannot set its value through this function"):
        paddle.set_flags({"FLAGS_no_such": 1})
    with pytest.raises(TypeError, match="Flags in get_flags should be a list, tuple or string."):
        paddle.get_flags(3)
    with pytest.raises(TypeError, match="flags in set_flags should be a dict"):
        paddle.set_flags(["FLAGS_use_mkldnn"])
    with pytest.raises(ValueError, match="there is no PIR executor"):
        paddle.set_flags({"FLAGS_enable_pir_in_executor": True})
    paddle.set_flags({"FLAGS_enable_pir_in_executor": False})     # the value dy2st honours


def test_matches_real_paddle_train_eval_and_messages(tmp_path):
    from .paddle_pir import run_paddle_pir
    got = run_paddle_pir(
        "import json, paddle\n"
        "import paddle.nn.functional as F\n"
        "def f(x):\n"
        "    return F.dropout(x, 0.5)\n"
        "sf = paddle.jit.to_static(f, full_graph=True)\n"
        "x = paddle.ones([64, 64])\n"
        "train = sorted(set(sf(x).numpy().ravel().tolist()))\n"
        "sf.eval()\n"
        "ev = sorted(set(sf(x).numpy().ravel().tolist()))\n"
        "class N(paddle.nn.Layer):\n"
        "    @paddle.jit.to_static(full_graph=True)\n"
        "    def forward(self, x):\n"
        "        return x + 1\n"
        "n = N()\n"
        "try:\n"
        "    n.forward.eval(); msg = None\n"
        "except RuntimeError as e:\n"
        "    msg = str(e)\n"
        "print(json.dumps([train, ev, sf._training, msg.split(' is a ')[1]]))\n", tmp_path)
    train_p, eval_values_p, training_p, msg_tail_p = got
    assert set(train_p) == {0.0, 2.0} and set(eval_values_p) == {0.0, 2.0}    # eval still drops
    sf = paddle.jit.to_static(dropout_fn)
    x = paddle.ones([64, 64])
    assert set(np.unique(sf(x).numpy()).tolist()) == set(train_p)
    sf.eval()
    assert set(np.unique(sf(x).numpy()).tolist()) == set(eval_values_p) and sf._training is training_p
    net = Plus()
    with pytest.raises(RuntimeError) as info:
        net.forward.eval()
    assert str(info.value).split(" is a ")[1] == msg_tail_p


def test_paddles_translator_warnings_show_once_a_verbosity_is_set(capsys, restore_logging):
    sf = paddle.jit.to_static(branchy)
    paddle.jit.enable_to_static(False)
    try:
        sf(paddle.ones([2]))
        assert capsys.readouterr().out == ""          # Paddle: logging_utils.warn is silent by default
        paddle.jit.set_verbosity(1, also_to_stdout=True)
        np.testing.assert_array_equal(sf(paddle.ones([2])).numpy(), 2 * np.ones([2], "float32"))
    finally:
        paddle.jit.enable_to_static(True)
    assert "Dynamic-to-Static WARNING: The decorator '@paddle.jit.to_static' does NOT work when setting " \
           "'paddle.jit.enable_to_static' to False." in capsys.readouterr().out
    net = paddle.jit.to_static(Plus())
    paddle.jit.to_static(net)
    assert "`Plus.forward` has already been decorated somewhere. It will be redecorated to replace previous " \
           "one." in capsys.readouterr().out


def test_build_strategy_must_be_a_build_strategy():
    # Paddle's jit.api.to_static: a falsy value means the default; anything else must be a BuildStrategy
    with pytest.raises(TypeError, match=r"Required type\(build_strategy\) shall be `paddle.static.BuildStrategy`, "
                                        "but received str"):
        paddle.jit.to_static(lambda x: x, build_strategy="x")
    def add_one(x):
        return x + 1

    sf = paddle.jit.to_static(add_one, build_strategy=paddle.static.BuildStrategy())
    assert float(sf(paddle.to_tensor(1.0))) == 2.0
