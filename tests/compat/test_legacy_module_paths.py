"""The names under paddle.base / paddle.framework that Paddle's own API unit tests (test/legacy_test)
use to pick places, skip dtypes, seed programs and guard modes, working as Paddle's do on a CPU build."""
import numpy as np
import pytest

import dy2st as paddle
from dy2st.base import core, framework


def test_capability_queries_answer_for_a_cpu_build():
    # Paddle's tests skip fp16/bf16 cases with these; there are no such kernels here
    assert core.is_float16_supported(paddle.CPUPlace()) is False
    assert core.is_bfloat16_supported(paddle.CPUPlace()) is False
    assert core.get_all_custom_device_type() == []
    assert core.get_cuda_device_count() == 0
    assert core.LoDTensor is core.DenseTensor is paddle.Tensor
    assert repr(core.Place()) == "Place(undefined:0)"
    p = core.Place()
    p.set_place(paddle.CPUPlace())
    assert p.is_cpu_place() and not p.is_gpu_place()
    with pytest.raises(RuntimeError, match="only CPU places"):
        p.set_place("gpu")


def test_core_globals_is_the_flag_registry():
    flags = core.globals()
    assert "FLAGS_use_mkldnn" in flags and "FLAGS_no_such_flag" not in flags
    assert flags["FLAGS_use_mkldnn"] is False
    assert flags.get("FLAGS_no_such_flag", 7) == 7
    assert framework._global_flags() is flags
    before = paddle.get_flags("FLAGS_enable_pir_api")["FLAGS_enable_pir_api"]
    try:
        flags["FLAGS_enable_pir_api"] = not before
        assert paddle.get_flags("FLAGS_enable_pir_api")["FLAGS_enable_pir_api"] is (not before)
    finally:
        paddle.set_flags({"FLAGS_enable_pir_api": before})


def test_mode_decorators_assert_the_mode():
    @framework.dygraph_only
    def eager_fn(a):
        return a + 1

    @framework.static_only
    def static_fn(a):
        return a * 2

    assert eager_fn(1) == 2
    with pytest.raises(AssertionError, match="static_fn.*only supported in static graph mode"):
        static_fn(1)
    paddle.enable_static()
    try:
        assert static_fn(3) == 6
        with pytest.raises(AssertionError, match="eager_fn.*dynamic graph mode"):
            eager_fn(1)
    finally:
        paddle.disable_static()


def test_places_dtypes_and_program_seed():
    assert isinstance(framework._current_expected_place(), paddle.CPUPlace)
    assert isinstance(paddle.framework._current_expected_place(), paddle.CPUPlace)
    assert paddle.framework.convert_np_dtype_to_dtype_(np.int32) == paddle.int32
    assert framework.convert_np_dtype_to_dtype_("float64") == paddle.float64
    main, startup = paddle.static.default_main_program(), paddle.static.default_startup_program()
    old = main.random_seed, startup.random_seed
    try:
        paddle.framework.random._manual_program_seed(123)
        assert (main.random_seed, startup.random_seed) == (123, 123)
    finally:
        main.random_seed, startup.random_seed = old


def test_compiler_and_initializer_paths():
    import dy2st.base.compiler as compiler
    from dy2st.base.initializer import Constant
    assert paddle.base.CompiledProgram is compiler.CompiledProgram is paddle.static.CompiledProgram
    assert paddle.base.BuildStrategy is paddle.static.BuildStrategy
    assert Constant is paddle.nn.initializer.Constant


def test_dygraph_tracer():
    paddle.disable_static()
    tracer = framework._dygraph_tracer()
    assert tracer is framework._dygraph_tracer()
    first = tracer._generate_unique_name()
    n = int(first.rsplit("_", 1)[1])
    assert first == f"dygraph_tmp_{n}"
    assert tracer._generate_unique_name("fc") == f"fc_{n + 1}"   # one counter for every key, as Paddle's
    assert tracer._has_grad is True
    with paddle.no_grad():
        assert tracer._has_grad is False
    tracer._has_grad = False
    try:
        assert not paddle.is_grad_enabled()
    finally:
        tracer._has_grad = True
    paddle.enable_static()
    try:
        assert framework._dygraph_tracer() is None
    finally:
        paddle.disable_static()


def test_prim_switches_accept_off_and_refuse_on():
    core.set_prim_eager_enabled(False)
    with pytest.raises(NotImplementedError, match="set_prim_eager_enabled.*not implemented"):
        core.set_prim_eager_enabled(True)


def test_base_backward_calc_gradient():
    paddle.enable_static()
    try:
        _calc_gradient_case()
    finally:
        paddle.disable_static()


def _calc_gradient_case():
    main = paddle.static.Program()
    with paddle.static.program_guard(main, paddle.static.Program()):
        x = paddle.static.data("x", [3], "float32")
        x.stop_gradient = False
        y = (x * x).sum()
        g = paddle.base.backward.calc_gradient(y, x)                 # one input: the gradient itself
        both = paddle.base.backward.calc_gradient(y, [x, x * 2])    # several: a list
    assert isinstance(both, list) and len(both) == 2
    out, = paddle.static.Executor(paddle.CPUPlace()).run(main, feed={"x": np.array([1, 2, 3], "float32")},
                                                         fetch_list=[g])
    np.testing.assert_allclose(out, [2.0, 4.0, 6.0])
    assert paddle.base.core._is_eager_prim_enabled() is False
