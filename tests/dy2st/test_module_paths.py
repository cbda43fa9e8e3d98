"""Paddle's module paths that dy2st users and Paddle's own dy2st tests import.

``PATHS`` lists each module path with the names imported from it (collected from the imports of
Paddle's ``test/dygraph_to_static`` files and their helpers, and from Paddle 3.3.1's own modules).
Every path must import as a real module of ours (not a ``sys.modules`` alias) and have every name;
a subprocess with real Paddle checks that Paddle has the same paths and names, so none is invented.
Where a name has behaviour, it is checked against real Paddle (the operator functions running
Paddle-form converted code, ``to_variable``, ``Tensor.to``, ``_inplace_assign``, ``OrderedSet``,
``paddle.tensor`` coverage) or against our implementation; the Paddle internals that have no
meaning here (SOT, PIR, prim, CINN, AMP regions in Programs) must raise NotImplementedError.
"""
from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
import textwrap
import types

import numpy as np
import pytest

import dy2st as paddle
import runtime.static
from tests.interop.paddle_runner import run_paddle

# module path (Paddle's, after "paddle") -> names imported from it
PATHS = {
    "jit": ["to_static", "not_to_static", "enable_to_static", "ignore_module", "save", "load", "TranslatedLayer",
            "set_code_level", "set_verbosity", "api", "dy2static", "marker", "translated_layer", "utils"],
    "jit.api": ["to_static", "ignore_module", "save", "load", "ProgramTranslator", "sot_mode_guard",
                "set_dynamic_shape", "get_ast_static_function", "json_to_pdmodel", "_get_function_names_from_layer"],
    "jit.utils": ["OrderedSet"],
    "jit.marker": ["not_to_static", "unified", "capture_control_flow", "force_dynamic", "dynamic_dims"],
    "jit.translated_layer": ["TranslatedLayer", "INFER_MODEL_SUFFIX", "INFER_PARAMS_SUFFIX",
                             "INFER_PARAMS_INFO_SUFFIX", "INFER_PROPERTY_SUFFIX"],
    "jit.dy2static": ["Call", "Assert", "Attr", "IfElse", "Len", "Ld", "And", "Not", "Or", "Shape", "WrapSuper",
                      "AsDtype", "While", "create_bool_as_type", "Indexable", "to_static_variable", "Unpack",
                      "convert_to_static", "DygraphToStaticAst", "UndefinedVar", "ast_to_source_code", "saw",
                      "program_translator", "utils", "convert_operators", "convert_call_func", "logging_utils"],
    "jit.dy2static.program_translator": ["ProgramTranslator", "StaticFunction", "ConcreteProgram", "ProgramCache",
                                         "enable_to_static", "convert_to_static"],
    "jit.dy2static.utils": ["UndefinedVar", "saw", "ast_to_source_code", "ast_to_func", "func_to_source_code",
                            "Dygraph2StaticException", "Backend", "CUDAGraphState", "is_paddle_func",
                            "as_not_paddle_func", "type_name", "cinn_is_available", "cinn_is_enabled",
                            "backend_guard"],
    "jit.dy2static.ast_utils": ["ast_to_source_code"],
    "jit.dy2static.convert_operators": [
        "convert_attr", "convert_load", "indexable", "unpack_by_structure", "convert_while_loop",
        "convert_logical_and", "convert_logical_or", "convert_logical_not", "convert_ifelse", "convert_len",
        "convert_zip", "convert_super", "convert_enumerate", "convert_range", "convert_shape", "convert_var_dtype",
        "convert_assert", "convert_print", "convert_auto_cast", "create_bool_as_type", "to_static_variable",
        "cast_bool_if_necessary"],
    "jit.dy2static.convert_call_func": ["convert_call", "add_ignore_module", "translator_logger"],
    "jit.dy2static.logging_utils": ["set_verbosity", "get_verbosity", "set_code_level", "get_code_level",
                                    "TranslatorLogger", "log", "warn", "error", "log_transformed_code"],
    "jit.dy2static.transformers": ["DygraphToStaticAst"],
    "jit.sot.opcode_translator.executor.executor_cache": ["OpcodeExecutorCache"],
    "jit.sot.utils.envs": ["min_graph_size_guard", "strict_mode_guard"],
    "base": ["core", "dygraph", "framework", "unique_name", "param_attr", "data_feeder", "wrapped_decorator",
             "backward", "executor",
             "ParamAttr", "CPUPlace", "CUDAPlace", "Program", "Executor", "Variable", "Scope", "program_guard",
             "default_main_program", "default_startup_program", "global_scope", "scope_guard", "in_dygraph_mode",
             "is_compiled_with_cuda", "get_flags", "set_flags", "enable_dygraph", "disable_dygraph",
             "append_backward", "gradients", "name_scope", "cpu_places", "device_guard"],
    "base.core": ["CPUPlace", "CUDAPlace", "Scope", "eager", "VarDesc", "DenseTensor", "is_compiled_with_cuda",
                  "is_compiled_with_xpu", "is_compiled_with_rocm", "is_compiled_with_cinn",
                  "is_compiled_with_custom_device", "_is_fwd_prim_enabled", "_is_bwd_prim_enabled",
                  "_set_prim_all_enabled"],
    "base.dygraph": ["to_variable", "guard", "no_grad", "enabled", "enable_dygraph", "disable_dygraph", "base"],
    "base.dygraph.base": ["to_variable", "guard", "no_grad", "enabled"],
    "base.framework": ["Program", "Block", "Operator", "Variable", "Parameter", "EagerParamBase", "program_guard",
                       "default_main_program", "default_startup_program", "in_dygraph_mode", "in_pir_mode",
                       "in_dynamic_or_pir_mode", "use_pir_api", "unique_name", "name_scope", "_dygraph_guard",
                       "convert_np_dtype_to_dtype_"],
    "base.backward": ["append_backward", "gradients"],
    "base.executor": ["Executor", "global_scope", "scope_guard"],
    "base.unique_name": ["generate", "guard", "switch"],
    "base.param_attr": ["ParamAttr"],
    "base.data_feeder": ["convert_dtype", "check_type", "check_dtype", "check_variable_and_dtype"],
    "base.wrapped_decorator": ["signature_safe_contextmanager", "wrap_decorator"],
    "framework": ["core", "use_pir_api", "in_dynamic_mode", "in_pir_mode", "in_dynamic_or_pir_mode", "ParamAttr",
                  "Program", "Block", "Parameter", "CPUPlace", "get_default_dtype", "seed",
                  "save", "load", "no_grad", "grad", "get_flags", "set_flags", "random", "io", "dtype"],
    "framework.dtype": ["float32", "float64", "int32", "int64", "bool", "float16", "uint8", "complex64"],
    "framework.random": ["seed"],
    "framework.io": ["save", "load"],
    "static": ["Program", "Executor", "InputSpec", "data", "program_guard", "default_main_program",
               "default_startup_program", "Variable", "Print", "py_func", "append_backward", "gradients",
               "save_inference_model", "load_inference_model", "global_scope", "scope_guard", "Scope",
               "create_parameter", "create_global_var", "accuracy", "name_scope", "cpu_places", "device_guard",
               "nn", "input", "io"],
    "static.input": ["InputSpec", "data", "setitem"],
    "static.io": ["save_inference_model", "load_inference_model"],
    "static.nn": ["fc", "cond", "while_loop", "case", "switch_case", "py_func", "create_parameter", "control_flow"],
    "static.nn.control_flow": ["Assert", "cond", "while_loop", "case", "switch_case"],
    "tensor": ["fill_constant", "array_write", "array_read", "array_length", "create_array", "to_tensor", "matmul",
               "concat", "reshape", "cholesky", "svd", "qr", "inverse", "real", "einsum", "rank", "shape"],
    "tensor.linalg": ["matmul", "norm", "cholesky", "svd", "qr", "eigh", "det", "slogdet", "solve", "pinv",
                      "matrix_power", "lstsq", "lu", "transpose", "dot", "cross", "bmm"],
    "tensor.math": ["add", "multiply", "sum", "exp", "tanh", "cumsum", "clip", "scale"],
    "tensor.manipulation": ["reshape", "concat", "stack", "squeeze", "unsqueeze", "gather", "flatten", "tile"],
    "tensor.creation": ["to_tensor", "zeros", "ones", "full", "arange", "eye", "assign", "fill_constant"],
    "tensor.logic": ["equal", "logical_and", "logical_not", "allclose", "is_tensor"],
    "tensor.search": ["argmax", "argsort", "topk", "where", "nonzero"],
    "tensor.random": ["rand", "randn", "randint", "uniform"],
    "tensor.stat": ["mean", "std", "var", "median"],
    "tensor.array": ["create_array", "array_write", "array_read", "array_length"],
    "tensor.attribute": ["shape", "rank", "real", "imag", "is_complex", "is_integer", "is_floating_point"],
    "tensor.einsum": ["einsum"],
    "tensor.to_string": ["set_printoptions"],
    "utils": ["unique_name", "download", "gast", "environments"],
    "utils.environments": ["BooleanEnvironmentVariable", "EnvironmentVariableGuard", "StringEnvironmentVariable",
                           "IntegerEnvironmentVariable", "strtobool"],
    "utils.unique_name": ["generate", "guard", "switch"],
    "pir_utils": ["IrGuard", "OldIrGuard", "DygraphPirGuard", "DygraphOldIrGuard"],
    "": ["core", "base", "framework", "jit", "static", "tensor", "utils", "pir_utils"],
}

# names from Paddle 2.x that Paddle 3.3.1 no longer has (its own older dy2st tests import them)
REMOVED_IN_PADDLE_3 = {"base.dygraph": ["to_variable"], "base.dygraph.base": ["to_variable"]}


def _module(path):
    return importlib.import_module("dy2st." + path if path else "dy2st")


@pytest.mark.parametrize("path", sorted(PATHS))
def test_path_imports_with_every_name(path):
    mod = _module(path)
    assert isinstance(mod, types.ModuleType)
    # a real module of ours at that path, not an alias of another module
    assert mod.__name__ == ("dy2st." + path if path else "dy2st"), f"dy2st.{path} is an alias of {mod.__name__}"
    assert mod.__doc__, f"dy2st.{path} has no docstring"
    missing = [n for n in PATHS[path] if not hasattr(mod, n)]
    assert not missing, f"dy2st.{path} lacks {missing}"
    # `from paddle.<path> import <name>` works for every name
    ns = {}
    exec(f"from {mod.__name__} import {', '.join(PATHS[path])}", ns)


def test_paths_and_names_exist_in_real_paddle(tmp_path):
    code = textwrap.dedent("""
        import importlib, json
        paths = json.load(open("paths.json"))
        missing = {}
        for path, names in paths.items():
            try:
                mod = importlib.import_module("paddle." + path if path else "paddle")
            except ImportError as e:
                missing[path] = "cannot import: %s" % e
                continue
            gone = [n for n in names if not hasattr(mod, n)]
            if gone:
                missing[path] = gone
        print(json.dumps(missing))
    """)
    (tmp_path / "paths.json").write_text(json.dumps(PATHS))
    proc = run_paddle(code, tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    missing = json.loads(proc.stdout.strip().splitlines()[-1])
    # anything reported here is a path or name that Paddle does not have, except the Paddle 2.x
    # names that Paddle 3 dropped and older Paddle code still imports
    assert missing == REMOVED_IN_PADDLE_3, missing


def test_new_packages_keep_old_imports_working():
    import runtime
    assert paddle.static.Program is runtime.static.Program
    assert paddle.static.InputSpec is runtime.static.InputSpec
    public = [k for k, v in vars(runtime.static).items() if not k.startswith("_")
              and not isinstance(v, types.ModuleType)]
    assert [k for k in public if getattr(paddle.static, k, None) is not getattr(runtime.static, k)] == []
    assert sys.modules["dy2st.static"] is paddle.static and paddle.static.__file__.endswith("static/__init__.py")
    assert paddle.jit.__file__.endswith(os.path.join("jit", "__init__.py"))
    assert paddle.utils.download is sys.modules["runtime.utils.download"]
    ns = {}
    exec("from dy2st.jit import not_to_static", ns)      # what `dy2st convert` writes into converted files
    assert ns["not_to_static"] is paddle.jit.not_to_static
    # relative imports inside the new packages resolve (a sys.modules alias broke them for static)
    import dy2st.static.nn.control_flow as cf
    assert cf.Assert is runtime.static.control_flow.Assert


def test_static_mode_switches_still_work():
    paddle.enable_static()
    try:
        main, start = paddle.static.Program(), paddle.static.Program()
        with paddle.static.program_guard(main, start):
            x = paddle.static.data("x", [-1, 3], "float32")
            y = paddle.static.nn.fc(x, 2)
        assert isinstance(y, paddle.static.Variable)
        exe = paddle.static.Executor(paddle.CPUPlace())
        exe.run(start)
        (out,) = exe.run(main, feed={"x": np.ones([4, 3], "float32")}, fetch_list=[y])
        assert out.shape == (4, 2)
        assert main.global_block().num_ops() == len(main.global_block().ops) > 0
    finally:
        paddle.disable_static()
    assert paddle.in_dynamic_mode()


# -- Paddle-form converted code, run by our operator functions and by Paddle's -----------------------

CONVERTED = textwrap.dedent('''
    import contextlib

    def converted(x_v):
        def get_args_0():
            nonlocal x_v
            return (x_v,)

        def set_args_0(__args):
            nonlocal x_v
            (x_v,) = __args

        def true_fn_0():
            nonlocal x_v
            x_v = x_v - 1

        def false_fn_0():
            nonlocal x_v
            x_v = x_v + 1

        _jst.IfElse(paddle.mean(x_v) > 5, true_fn_0, false_fn_0, get_args_0, set_args_0, ('x_v',),
                    push_pop_names=None)
        i = paddle.zeros([1], 'int64')

        def cond():
            return i < 3

        def body():
            nonlocal i, x_v
            i = i + 1
            x_v = x_v * 2

        def get():
            return i, x_v

        def set_(a):
            nonlocal i, x_v
            i, x_v = a

        _jst.While(cond, body, get, set_, ('i', 'x_v'))
        n = _jst.Len(x_v)
        both = _jst.And(lambda: paddle.mean(x_v) > 0, lambda: paddle.mean(x_v) < 1e6)
        either = _jst.Or(lambda: paddle.mean(x_v) < 0, lambda: paddle.mean(x_v) > 1e6)
        neg = _jst.Not(paddle.mean(x_v) > 0)
        as_int = _jst.AsDtype(paddle.mean(x_v), 'int')
        shape = _jst.Shape(x_v)
        b = _jst.create_bool_as_type(x_v, True)
        if not paddle.in_dynamic_mode():        # Paddle's eager Assert of a tensor fails inside Paddle
            _jst.Assert(paddle.mean(x_v) > 0)
        return [x_v, i, n, both, either, neg, as_int, shape[0], shape[1], b]

    def run(paddle, _jst, static, ir_guard=contextlib.nullcontext):
        globals()['paddle'], globals()['_jst'] = paddle, _jst
        x = np.array([[1., 2.], [30., 40.]], 'float32')
        if not static:
            return [np.asarray(v.numpy() if hasattr(v, 'numpy') else v).tolist()
                    for v in converted(paddle.to_tensor(x))]
        paddle.enable_static()
        try:
            with ir_guard():
                main, start = paddle.static.Program(), paddle.static.Program()
                with paddle.static.program_guard(main, start):
                    xv = paddle.static.data('x', [-1, 2], 'float32')
                    outs = converted(xv)
                fetch = [o for o in outs if not isinstance(o, (int, bool))]
                got = iter(paddle.static.Executor(paddle.CPUPlace()).run(main, feed={'x': x}, fetch_list=fetch))
                return [np.asarray(o if isinstance(o, (int, bool)) else next(got)).tolist() for o in outs]
        finally:
            paddle.disable_static()
''')


@pytest.fixture(scope="module")
def paddle_results(tmp_path_factory):
    """What real Paddle 3.3.1 gives for the behaviour checks below (one subprocess)."""
    tmp = tmp_path_factory.mktemp("module_paths")
    code = "import json, types\nimport numpy as np\n" + CONVERTED + textwrap.dedent('''
        import paddle.jit.dy2static as _jst
        out = {}
        out["converted_eager"] = run(paddle, _jst, False)
        # Paddle 3.3.1's legacy-IR static.nn.cond fails (logical_not wants a PIR Value): Paddle's side of
        # the static check runs in PIR, the IR Paddle's own dy2st uses
        out["converted_static"] = run(paddle, _jst, True, paddle.pir_utils.IrGuard)
        # Paddle 3 dropped to_variable; its meaning was to_tensor(np.array(value))
        out["to_variable"] = [str(paddle.to_tensor(np.array(v)).dtype)
                              for v in (np.ones(2), np.ones(2, "int32"), [1.5, 2.0], (1, 2))]
        x = paddle.to_tensor([1, 2, 3])
        out["tensor_to"] = [str(x.to("float32").dtype), str(x.to("cpu").dtype), str(x.to("cpu", "int32").dtype),
                            str(x.to(paddle.ones([1], "float16")).dtype), str(x.to(paddle.float64).dtype)]
        a = paddle.ones((4, 2)); b = paddle.ones((4, 3)) * 2
        a._inplace_assign(b)
        xx = paddle.ones((1,)); xx.stop_gradient = False
        a2 = 1 * xx; b2 = 2 * xx
        a2._inplace_assign(b2)
        a2.mean().backward()
        out["inplace_assign"] = [a.shape, a.numpy().tolist(), xx.grad.numpy().tolist()]
        from paddle.jit.utils import OrderedSet as O
        s1, s2 = O([1, 2, 3]), O([2, 3, 4])
        out["ordered_set"] = [list(s1 | s2), list(s1 & s2), list(s1 - s2), list(s1 ^ s2), O([1, 2]) == O([2, 1])]
        out["tensor_names"] = sorted(n for n in dir(paddle.tensor) if not n.startswith("_")
                                     and not isinstance(getattr(paddle.tensor, n), types.ModuleType))
        from paddle.base import core
        out["vartype_fp32_is_float32"] = bool(core.VarDesc.VarType.FP32 == paddle.float32)
        from paddle.base.framework import convert_np_dtype_to_dtype_ as conv
        out["np_dtype_to_dtype"] = [bool(conv(d) == want) for d, want in
                                    ((np.float32, paddle.float32), (np.int64, paddle.int64),
                                     ("float64", paddle.float64), (np.float32, paddle.float64))]
        from paddle.jit.dy2static.utils import func_to_source_code
        def commented(x):
            # a comment
            return x
        out["func_to_source_code"] = func_to_source_code(commented)
        print(json.dumps(out))
    ''')
    proc = run_paddle(code, tmp)
    assert proc.returncode == 0, proc.stderr[-4000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _run_converted(static):
    import dy2st.jit.dy2static as _jst
    ns = {"np": np}
    exec(CONVERTED, ns)
    return ns["run"](paddle, _jst, static)


def test_paddle_form_converted_code_eager_matches_paddle(paddle_results):
    assert _run_converted(False) == paddle_results["converted_eager"]


def test_paddle_form_converted_code_static_matches_paddle(paddle_results):
    got = _run_converted(True)
    want = paddle_results["converted_static"]
    assert len(got) == len(want)
    for g, w in zip(got, want):
        np.testing.assert_allclose(np.asarray(g, dtype=float), np.asarray(w, dtype=float))


def test_to_variable_dtypes_match_paddle(paddle_results):
    from dy2st.base.dygraph import to_variable
    got = [str(to_variable(v).dtype) for v in (np.ones(2), np.ones(2, "int32"), [1.5, 2.0], (1, 2))]
    assert got == paddle_results["to_variable"]


def test_tensor_to_matches_paddle(paddle_results):
    x = paddle.to_tensor([1, 2, 3])
    got = [str(x.to("float32").dtype), str(x.to("cpu").dtype), str(x.to("cpu", "int32").dtype),
           str(x.to(paddle.ones([1], "float16")).dtype), str(x.to(paddle.float64).dtype)]
    assert got == paddle_results["tensor_to"]
    with pytest.raises(RuntimeError, match="CPU only"):
        x.to("gpu")


def test_inplace_assign_matches_paddle(paddle_results):
    a = paddle.ones((4, 2))
    b = paddle.ones((4, 3)) * 2
    a._inplace_assign(b)
    xx = paddle.ones((1,))
    xx.stop_gradient = False
    a2, b2 = 1 * xx, 2 * xx
    a2._inplace_assign(b2)
    a2.mean().backward()
    assert [list(a.shape), a.numpy().tolist(), xx.grad.numpy().tolist()] == paddle_results["inplace_assign"]


def test_ordered_set_matches_paddle(paddle_results):
    from dy2st.jit.utils import OrderedSet as O
    s1, s2 = O([1, 2, 3]), O([2, 3, 4])
    got = [list(s1 | s2), list(s1 & s2), list(s1 - s2), list(s1 ^ s2), O([1, 2]) == O([2, 1])]
    assert got == paddle_results["ordered_set"]


def test_func_to_source_code_matches_paddle(paddle_results):
    from dy2st.jit.dy2static.utils import func_to_source_code

    def commented(x):
        # a comment
        return x
    assert func_to_source_code(commented) == paddle_results["func_to_source_code"]


def test_vartype_codes_are_our_dtypes(paddle_results):
    from dy2st.base import core
    assert (core.VarDesc.VarType.FP32 == paddle.float32) == paddle_results["vartype_fp32_is_float32"] is True
    assert core.VarDesc.VarType.INT64 == paddle.int64
    assert core.VarDesc.VarType.LOD_TENSOR_ARRAY == runtime.static.VarType.LOD_TENSOR_ARRAY


def test_convert_np_dtype_to_dtype_matches_paddle(paddle_results):
    from dy2st.base.framework import convert_np_dtype_to_dtype_ as conv
    got = [bool(conv(d) == want) for d, want in
           ((np.float32, paddle.float32), (np.int64, paddle.int64), ("float64", paddle.float64),
            (np.float32, paddle.float64))]
    assert got == paddle_results["np_dtype_to_dtype"] == [True, True, True, False]


def test_paddle_tensor_has_every_function_we_implement(paddle_results):
    """A function Paddle puts under paddle.tensor, and that dy2st implements (at top level, in
    paddle.linalg or paddle.signal), must be found under dy2st.tensor too."""
    import runtime.linalg
    import runtime.signal
    ours = [n for n in paddle_results["tensor_names"]
            if hasattr(paddle, n) or hasattr(runtime.linalg, n) or n in runtime.signal.__all__]
    assert len(ours) > 150
    assert [n for n in ours if not hasattr(paddle.tensor, n)] == []


# -- our own behaviour -------------------------------------------------------------------------------

def test_program_translator_is_the_to_static_switch():
    from dy2st.jit.api import ProgramTranslator
    from dy2st.jit.dy2static.program_translator import ProgramTranslator as PT
    pt = ProgramTranslator()
    assert pt is PT.get_instance() is ProgramTranslator.get_instance()
    calls = []

    def f(x):
        calls.append(paddle.in_dynamic_mode())
        return x + 1
    sf = paddle.jit.to_static(f)
    x = paddle.ones([2])
    try:
        pt.enable(False)
        assert pt.enable_to_static is False
        sf(x)
        assert calls == [True] and len(sf.program_cache) == 0      # ran eagerly
        pt.enable(True)
        assert pt.enable_to_static is True
        sf(x)
        assert calls[-1] is False and len(sf.program_cache) == 1   # traced into a Program
        with pytest.raises(TypeError):
            pt.enable(1)
    finally:
        paddle.jit.enable_to_static(True)


def test_convert_to_static_and_call():
    import dy2st.jit.dy2static as _jst

    def f(x):
        if paddle.mean(x) > 0:
            x = x - 1
        return x
    conv = _jst.convert_to_static(f)
    assert conv is not f and "_jst" in paddle.jit.to_static(f).code
    np.testing.assert_allclose(conv(paddle.ones([2])).numpy(), [0.0, 0.0])
    assert _jst.Call(len) is not None and _jst.Call(f)(paddle.ones([2])).numpy().tolist() == [0.0, 0.0]
    marked = paddle.jit.not_to_static(lambda x: x)
    assert _jst.convert_to_static(marked) is marked


def test_undefined_var_and_saw():
    import dy2st.jit.dy2static as _jst
    u = _jst.UndefinedVar("loss")
    with pytest.raises(UnboundLocalError, match="loss"):
        _jst.saw(u)
    assert _jst.saw(3) == 3
    with pytest.raises(NameError, match="loss"):
        u + 1


def test_assert_and_var_dtype_python_values():
    import dy2st.jit.dy2static as _jst
    _jst.Assert(True)
    with pytest.raises(AssertionError, match="boom"):
        _jst.Assert(False, "boom")
    assert _jst.AsDtype(3.7, "int") == 3 and _jst.AsDtype(0, "bool") is False
    with pytest.raises(AssertionError):
        _jst.AsDtype(1, "str")
    assert _jst.Unpack([1, [2, 3]], [1, [1, 1]]) == [1, [2, 3]]
    assert _jst.Indexable(iter([1, 2])) == [1, 2]
    assert _jst.to_static_variable(2).dtype == paddle.int64 and _jst.to_static_variable(True).dtype == paddle.bool


def test_set_dynamic_shape():
    from dy2st.jit.api import set_dynamic_shape
    paddle.enable_static()
    try:
        with paddle.static.program_guard(paddle.static.Program()):
            x = paddle.static.data("x", [4, 3], "float32")
            set_dynamic_shape(x, [-1, 3])
            assert x.shape == [-1, 3]
    finally:
        paddle.disable_static()
    t = paddle.ones([2])
    set_dynamic_shape(t, [-1])          # eager: nothing to do, as in Paddle
    assert t.shape == [2]


def test_variable_to_casts_in_the_program():
    paddle.enable_static()
    try:
        main = paddle.static.Program()
        with paddle.static.program_guard(main):
            x = paddle.static.data("x", [2], "int64")
            y = x.to("float64")
            z = x.to("cpu")
        assert y.dtype == paddle.float64 and z is x
        (out,) = paddle.static.Executor().run(main, feed={"x": np.array([1, 2])}, fetch_list=[y])
        assert out.dtype == np.float64 and out.tolist() == [1.0, 2.0]
    finally:
        paddle.disable_static()


def test_dygraph_guard_and_to_variable():
    from dy2st import base
    paddle.enable_static()
    try:
        with base.dygraph.guard(base.CPUPlace()):
            assert paddle.in_dynamic_mode()
            t = base.dygraph.to_variable(np.ones(3, "float32"))
            assert isinstance(t, base.core.eager.Tensor) and t.stop_gradient
            assert base.dygraph.to_variable(t) is t
        assert not paddle.in_dynamic_mode()
    finally:
        paddle.disable_static()
    with pytest.raises(TypeError):
        base.dygraph.to_variable("text")
    with pytest.raises(TypeError):
        base.dygraph.to_variable(3)


def test_framework_answers_for_legacy_programs():
    from dy2st import framework
    from dy2st.base import framework as bf
    assert framework.use_pir_api() is False and framework.in_pir_mode() is False
    assert bf.use_pir_api is framework.use_pir_api and framework.core is paddle.base.core
    assert framework.in_dynamic_or_pir_mode() is paddle.in_dynamic_mode()


def test_ast_to_func_compiles_a_function():
    import inspect
    from dy2st.jit.dy2static.utils import ast_to_func
    from dy2st.utils import gast
    k = 3

    def func(x, y):
        return x + y + k
    f, _ = ast_to_func(gast.parse(textwrap.dedent(inspect.getsource(func))), func)
    assert f(1, 2) == 6 and f is not func
    with pytest.raises(TypeError, match="should be gast.AST or ast.AST"):
        ast_to_func("x = a + b", "foo")


def test_environment_variable_guard_restores():
    from dy2st.utils.environments import BooleanEnvironmentVariable, EnvironmentVariableGuard
    var = BooleanEnvironmentVariable("DY2ST_TEST_MODULE_PATHS_FLAG", False)
    assert var.get() is False
    with EnvironmentVariableGuard(var, True):
        assert var.get() is True and os.environ[var.name] == "true"
    assert var.name not in os.environ and var.get() is False
    with pytest.raises(ValueError):
        bool(var)


def test_logging_levels():
    from dy2st.jit.dy2static import logging_utils
    before = (logging_utils.get_verbosity(), logging_utils.get_code_level())
    try:
        paddle.jit.set_verbosity(3)
        paddle.jit.set_code_level(100)
        assert logging_utils.get_verbosity() == 3 and logging_utils.get_code_level() == 100
    finally:
        logging_utils.set_verbosity(before[0])
        logging_utils.set_code_level(before[1])


@pytest.mark.parametrize("call, name", [
    (lambda: paddle.jit.api.sot_mode_guard(True).__enter__(), "sot_mode_guard(True)"),
    (lambda: importlib.import_module("dy2st.jit.sot.opcode_translator.executor.executor_cache")
     .OpcodeExecutorCache(), "OpcodeExecutorCache"),
    (lambda: importlib.import_module("dy2st.jit.sot.utils.envs").min_graph_size_guard(0).__enter__(),
     "min_graph_size_guard"),
    (lambda: paddle.jit.marker.force_dynamic(lambda: 0), "force_dynamic"),
    (lambda: paddle.jit.dy2static.DygraphToStaticAst(), "DygraphToStaticAst"),
    (lambda: paddle.jit.dy2static.convert_operators.convert_auto_cast(), "convert_auto_cast"),
    (lambda: paddle.jit.dy2static.utils.Backend.from_arg("CINN"), "CINN"),
    (lambda: paddle.jit.dy2static.utils.backend_guard("CINN").__enter__(), "CINN"),
    (lambda: paddle.jit.dy2static.utils.as_not_paddle_func("a.b"), "as_not_paddle_func"),
    (lambda: paddle.jit.api.json_to_pdmodel(None, None, "a", "b"), "json_to_pdmodel"),
    (lambda: paddle.base.core._set_prim_all_enabled(True), "_set_prim_all_enabled"),
    (lambda: paddle.pir_utils.IrGuard().__enter__(), "IrGuard"),
])
def test_meaningless_internals_raise_naming_themselves(call, name):
    with pytest.raises(NotImplementedError, match=name.replace("(", r"\(").replace(")", r"\)")):
        call()


def _identity(x):
    return x


def test_harmless_forms_of_those_internals_work():
    with paddle.jit.api.sot_mode_guard(False):
        assert paddle.jit.to_static(_identity)(paddle.ones([1])).shape == [1]
    paddle.base.core._set_prim_all_enabled(False)
    assert not paddle.base.core._is_fwd_prim_enabled()
    with paddle.jit.dy2static.utils.backend_guard(None):
        assert paddle.jit.dy2static.utils.Backend.from_arg(None).is_phi()
    with paddle.pir_utils.DygraphOldIrGuard():
        assert paddle.in_dynamic_mode()
    with paddle.pir_utils.OldIrGuard():
        assert not paddle.in_dynamic_mode()
    assert paddle.in_dynamic_mode()


def test_cli_converted_import_line_runs_in_a_fresh_interpreter():
    """`dy2st convert` writes ``from dy2st.jit import not_to_static``; a fresh process imports it, and
    dy2st.jit is the package (jit.py is gone)."""
    code = ("from dy2st.jit import not_to_static\nimport dy2st.jit.dy2static, dy2st.static.nn, dy2st.base.dygraph\n"
            "import dy2st\nprint(dy2st.jit.__file__)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                         cwd=os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().endswith(os.path.join("jit", "__init__.py"))


def test_deep_paths_under_runtime_aliases_are_the_runtime_modules():
    """``import dy2st.nn.functional.loss`` (Paddle's ``paddle.nn.functional.loss``) is runtime's module, not a
    second copy whose relative imports fail (they looked for ``dy2st.dispatch``)."""
    import importlib
    import pkgutil

    import dy2st
    checked = 0
    for alias in ("nn", "nn.functional", "nn.layer", "nn.initializer", "optimizer", "io", "vision.transforms",
                  "vision.datasets", "text.datasets", "amp", "linalg", "fft"):
        pkg = importlib.import_module("dy2st." + alias)
        for info in pkgutil.iter_modules(pkg.__path__):
            ours = importlib.import_module(f"dy2st.{alias}.{info.name}")
            assert ours is importlib.import_module(f"{pkg.__name__}.{info.name}"), (alias, info.name)
            checked += 1
    assert checked > 40
    from dy2st.nn.layer.layers import Layer
    from dy2st.nn.functional.common import linear
    assert Layer is dy2st.nn.Layer and linear is dy2st.nn.functional.linear
    with pytest.raises(ModuleNotFoundError, match="dy2st.nn.no_such_module"):
        importlib.import_module("dy2st.nn.no_such_module")


def test_importing_a_deep_path_keeps_the_package_function_of_the_same_name():
    """runtime.amp binds the function ``auto_cast`` over its submodule ``auto_cast``: importing
    ``dy2st.amp.auto_cast`` must not replace the function with the module (it did once: 'module object is
    not callable' in every later auto_cast call)."""
    import importlib

    import dy2st
    f = dy2st.amp.auto_cast
    mod = importlib.import_module("dy2st.amp.auto_cast")
    assert mod.__name__ == "runtime.amp.auto_cast"
    assert dy2st.amp.auto_cast is f and callable(dy2st.amp.auto_cast)
