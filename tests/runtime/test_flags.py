"""paddle.set_flags / get_flags / core.globals(): Paddle's flag names, value types, errors and the flags dy2st
acts on (FLAGS_check_nan_inf, FLAGS_enable_pir_api), differential against real Paddle."""
import json
import textwrap

import numpy as np
import pytest

import dy2st as paddle
from runtime import flags as flags_mod

from tests.interop.diff_prelude import PADDLE_MAIN, assert_same_as_paddle, with_helpers
from tests.interop.paddle_runner import differential, run_paddle


@pytest.fixture(autouse=True)
def restore_flags():
    # every test starts from dy2st's starting values (an earlier test may have set some) and leaves them as found
    saved = dict(flags_mod._FLAGS)
    flags_mod._FLAGS.update({name: flags_mod._DY2ST_DEFAULTS.get(name, default)
                             for name, default in flags_mod.PADDLE_FLAG_DEFAULTS.items()})
    flags_mod._apply("FLAGS_check_nan_inf", False)
    yield
    flags_mod._FLAGS.clear()
    flags_mod._FLAGS.update(saved)
    flags_mod._apply("FLAGS_check_nan_inf", saved["FLAGS_check_nan_inf"])


CODE = with_helpers(textwrap.dedent('''
    def compute(paddle):
        out = {}
        T, put, grad, err, inplace = diff_helpers(paddle, out, err_prefix="err.")
        names = ["FLAGS_max_inplace_grad_add", "FLAGS_eager_delete_tensor_gb", "FLAGS_print_ir",
                 "FLAGS_allocator_strategy", "FLAGS_call_stack_level", "FLAGS_check_nan_inf",
                 "FLAGS_check_nan_inf_level", "FLAGS_cudnn_dir", "FLAGS_benchmark"]
        for n in names:
            put("default." + n, np.asarray(paddle.get_flags(n)[n]))
        for i, (n, v) in enumerate([("FLAGS_max_inplace_grad_add", 8), ("FLAGS_max_inplace_grad_add", True),
                                    ("FLAGS_eager_delete_tensor_gb", 1), ("FLAGS_print_ir", 0),
                                    ("FLAGS_benchmark", 1), ("FLAGS_allocator_strategy", "naive_best_fit"),
                                    ("FLAGS_call_stack_level", 2)]):
            paddle.set_flags({n: v})
            put(f"set{i}." + n, np.asarray(paddle.get_flags([n])[n]))
        err("unknown_set", lambda: paddle.set_flags({"FLAGS_cudnn_deterministic": True}))
        err("unknown_get", lambda: paddle.get_flags("FLAGS_no_such_flag"))
        err("str_for_int", lambda: paddle.set_flags({"FLAGS_max_inplace_grad_add": "8"}))
        err("float_for_int", lambda: paddle.set_flags({"FLAGS_max_inplace_grad_add": 8.0}))
        err("str_for_bool", lambda: paddle.set_flags({"FLAGS_benchmark": "true"}))
        err("int_for_str", lambda: paddle.set_flags({"FLAGS_allocator_strategy": 3}))
        err("not_a_dict", lambda: paddle.set_flags([("FLAGS_benchmark", True)]))
        err("get_not_str", lambda: paddle.get_flags(3))
        put("globals.len_ok", np.asarray(len(list(paddle.base.core.globals().keys())) > 200))
        put("globals.contains", np.asarray("FLAGS_max_inplace_grad_add" in paddle.base.core.globals()))
        paddle.set_flags({"FLAGS_check_nan_inf": True})
        x = paddle.to_tensor(np.array([-1.0, 4.0], "float32"))
        err("nan_log", lambda: paddle.log(x))
        put("finite_sqrt", paddle.sqrt(x[1:]))
        try:
            paddle.log(x)
        except RuntimeError as e:
            put("nan_msg_names_op", np.asarray("There are NAN or INF" in str(e) and "op=log" in str(e)))
        paddle.set_flags({"FLAGS_check_nan_inf": False})
        put("after_off", paddle.log(x))
        return out
'''))


def test_flags_match_paddle(tmp_path):
    ours, theirs, dtypes = differential(CODE, PADDLE_MAIN, tmp_path, "flags")
    assert_same_as_paddle(ours, theirs, dtypes)


def test_flag_names_and_defaults_are_paddles(tmp_path):
    proc = run_paddle(textwrap.dedent('''
        import json
        g = paddle.base.core.globals()
        json.dump({k: g[k] for k in g.keys()}, open("flags.json", "w"), default=str)
    '''), tmp_path, default_flags=True)
    assert proc.returncode == 0, proc.stderr[-2000:]
    theirs = json.loads((tmp_path / "flags.json").read_text())
    ours = dict(paddle.base.core.globals().items())
    assert sorted(ours) == sorted(theirs)
    differ = {k for k in theirs if ours[k] != theirs[k]}
    # dy2st's own starting values, each documented in runtime/flags.py
    assert differ <= {"FLAGS_enable_pir_api", "FLAGS_enable_pir_in_executor", "FLAGS_enable_pir_with_pt_in_dy2st"}, \
        {k: (ours[k], theirs[k]) for k in differ}


def test_values_dy2st_cannot_honour_are_refused_and_nothing_is_set():
    before = paddle.get_flags("FLAGS_benchmark")["FLAGS_benchmark"]
    with pytest.raises(ValueError, match="FLAGS_set_to_1d"):
        paddle.set_flags({"FLAGS_benchmark": not before, "FLAGS_set_to_1d": True})
    assert paddle.get_flags("FLAGS_benchmark")["FLAGS_benchmark"] == before
    with pytest.raises(ValueError, match="oneDNN"):
        paddle.set_flags({"FLAGS_use_onednn": True})


def test_check_nan_inf_levels_and_tensor_checker_share_the_flag():
    x = paddle.to_tensor(np.array([-1.0], "float32"))
    paddle.set_flags({"FLAGS_check_nan_inf": True, "FLAGS_check_nan_inf_level": 1})
    y = paddle.log(x)                       # level 1 reports and goes on
    assert np.isnan(y.numpy()).all()
    cfg = paddle.amp.debugging.TensorCheckerConfig(enable=True)
    paddle.amp.debugging.enable_tensor_checker(cfg)
    assert paddle.get_flags("FLAGS_check_nan_inf_level")["FLAGS_check_nan_inf_level"] == 0
    with pytest.raises(RuntimeError, match="op=log"):
        paddle.log(x)
    paddle.amp.debugging.disable_tensor_checker()
    assert paddle.get_flags("FLAGS_check_nan_inf")["FLAGS_check_nan_inf"] is False
    paddle.log(x)
