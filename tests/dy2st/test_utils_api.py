"""paddle.utils (try_import, deprecated, run_check, require_version, dlpack) and paddle.version, against
real Paddle 3.3.1 where the behaviour is observable (messages, warnings, docstrings, printed lines, the
names paddle.version has) and against numpy for dlpack."""
import contextlib
import io
import json
import textwrap
import warnings

import numpy as np
import pytest

import dy2st as paddle
from tests.interop.paddle_runner import run_paddle

CODE = textwrap.dedent('''
    import contextlib, io, json, types, warnings

    def compute(paddle, run_check_output=None):
        out = {}

        def err(key, fn):
            try:
                fn()
                out[key] = "no error"
            except BaseException as e:
                out[key] = f"{type(e).__name__}: {e}"

        U = paddle.utils
        out["utils_all"] = sorted(U.__all__)
        out["try_import_json"] = U.try_import("json").__name__
        err("try_import_missing", lambda: U.try_import("no_such_module_xyz"))
        err("try_import_missing_sub", lambda: U.try_import("no_such_pkg_xyz.sub"))
        err("try_import_custom", lambda: U.try_import("no_such_module_xyz", "install it please"))

        def make(doc=True):
            def old_api(x):
                """Old docstring.

                More text."""
                return x + 1
            if not doc:
                old_api.__doc__ = None
            old_api.__module__ = "demo"
            return old_api

        for key, kwargs in [("l1", dict(update_to="paddle.new_api", since="2.0.0", reason="it is slow", level=1)),
                            ("l1_nosince", dict(level=1)),
                            ("l1_future", dict(since="99.0", level=1)),
                            ("l0", dict(update_to="paddle.x", level=0))]:
            f = U.deprecated(**kwargs)(make())
            out[key + ".doc"] = f.__doc__
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                out[key + ".result"] = f(1)
            out[key + ".warnings"] = [(w.category.__name__, str(w.message)) for w in caught]
        f = U.deprecated(level=2)(make(doc=False))
        err("l2_call", lambda: f(1))
        err("bad_update_to", lambda: U.deprecated(update_to="numpy.x", level=1)(make()))
        err("bad_level", lambda: U.deprecated(level=3)(make()))

        err("require_ok", lambda: U.require_version("2.0"))
        err("require_range_ok", lambda: U.require_version("3.0.0", "3.3.1"))
        err("require_too_old", lambda: U.require_version("3.4"))
        err("require_too_new", lambda: U.require_version("1.0", "2.6"))
        err("require_bad_format", lambda: U.require_version("v3"))
        err("require_bad_type", lambda: U.require_version(3))

        un = U.unique_name
        with un.guard():
            out["unique_names"] = [un.generate("fc"), un.generate("fc"), un.generate("conv")]
            with un.guard("pre_"):
                out["unique_names_prefixed"] = [un.generate("fc"), un.generate("fc")]
            out["unique_names_after"] = [un.generate("fc")]

        # nested structures and argument converters
        import collections
        P = collections.namedtuple("P", "x y")
        nest = {"b": [1, (2, "s")], "a": P(3, {"z": 4, "y": None}), "c": []}
        out["nest.flatten"] = repr(U.flatten(nest))
        out["nest.flatten_leaf"] = repr(U.flatten("leaf"))
        out["nest.map"] = repr(U.map_structure(lambda v: v * 2 if v is not None else v, nest))
        out["nest.map2"] = repr(U.map_structure(lambda a, b: (a, b), [1, (2, 3)], [4, (5, 6)]))
        out["nest.pack"] = repr(U.pack_sequence_as(nest, list(range(6))))
        out["nest.pack_scalar"] = repr(U.pack_sequence_as(7, [8]))
        err("nest.pack_wrong_count", lambda: U.pack_sequence_as(nest, [1, 2]))
        err("nest.pack_not_seq", lambda: U.pack_sequence_as(nest, 3))
        out["nest.is_sequence"] = [U.is_sequence(v) for v in ([], (), {}, "s", 3, P(1, 2))]
        out["nest.to_sequence"] = repr([U.to_sequence(3), U.to_sequence([3])])
        out["nest.padding"] = repr(U.padding_to_same_structure([None, (1, None)], None, obj=0))
        err("nest.same_ok", lambda: U.assert_same_structure([1, (2, 3)], [4, (5, 6)]))
        err("nest.same_types", lambda: U.assert_same_structure([1, (2, 3)], [4, [5, 6]]))
        out["nest.same_types_unchecked"] = repr(U.assert_same_structure([1, (2, 3)], [4, [5, 6]], check_types=False))
        err("nest.same_count", lambda: U.assert_same_structure([1, 2], [1, 2, 3]))
        err("nest.same_keys", lambda: U.assert_same_structure({"a": 1}, {"b": 1}))
        out["nest.hold"] = [U.hold_mutable_vars([1, [2]]), U.hold_mutable_vars([1, 2])]
        out["nest.copy"] = repr(U.copy_mutable_vars([1, {"k": [2]}]))
        out["conv.list"] = [U.convert_to_list(3, 2, "stride"), U.convert_to_list((1, 2), 2, "stride")]
        err("conv.list_len", lambda: U.convert_to_list([1, 2, 3], 2, "stride"))
        err("conv.list_type", lambda: U.convert_to_list(None, 2, "stride"))
        err("conv.list_elem", lambda: U.convert_to_list(["a", 2], 2, "stride"))
        err("conv.list_tensor", lambda: U.convert_to_list(paddle.to_tensor([1, 2]), 2, "stride"))
        out["conv.shape"] = U.convert_shape_to_list([2, paddle.to_tensor([3])])
        out["conv.shape_tensor"] = U.convert_shape_to_list(paddle.to_tensor([4, 5]))
        out["conv.same_shape"] = [U.is_same_shape([1, 2], [1, 2]), U.is_same_shape([1, 2], [1, 3])]
        err("conv.check_shape_neg", lambda: U.check_shape([2, -1]))
        err("conv.check_shape_float", lambda: U.check_shape([2, 1.5]))
        err("conv.check_shape_ok", lambda: U.check_shape([2, 3]))
        out["strtobool"] = [U.strtobool("yes"), U.strtobool("off")]

        if run_check_output is None:
            buf = io.StringIO()
            with contextlib.redirect_stdout(buf):
                U.run_check()
            run_check_output = buf.getvalue()
        out["run_check_lines"] = [l for l in run_check_output.splitlines() if "PaddlePaddle" in l]

        V = paddle.version
        out["version_names"] = sorted(n for n in dir(V) if not n.startswith("_") and n not in ("inspect", "os")
                                      and not isinstance(getattr(V, n), types.ModuleType))
        out["version_cpu"] = [V.cuda(), V.cudnn(), V.xpu(), V.nccl(), V.cinn(), V.tensorrt(), V.cuda_archs(),
                              str(V.hip), V.xpu_xre(), V.xpu_xccl(), V.xpu_xhpc(), repr(V.cuda)]
        out["version_types"] = [type(getattr(V, n)).__name__ for n in ("full_version", "major", "minor", "patch",
                                                                         "rc", "commit", "with_mkl", "is_tagged")]
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            V.show()
        out["show_keys"] = [l.split(":")[0] for l in buf.getvalue().splitlines()]
        return out
''')

# Paddle's run_check needs its default (PIR) mode: a child process without the runner's FLAGS_enable_pir_api=0
PADDLE_MAIN = textwrap.dedent('''
    import subprocess
    env = {k: v for k, v in os.environ.items() if k != "FLAGS_enable_pir_api"}
    child = subprocess.run([sys.executable, "-c", "import paddle; paddle.utils.run_check()"], env=env,
                           capture_output=True, text=True)
    json.dump(compute(paddle, child.stdout), open("paddle_out.json", "w"))
''')


@pytest.fixture(scope="module")
def both(tmp_path_factory):
    work = tmp_path_factory.mktemp("utils_api")
    proc = run_paddle(CODE + PADDLE_MAIN, work)
    assert proc.returncode == 0, proc.stderr[-3000:]
    theirs = json.loads((work / "paddle_out.json").read_text())
    ns = {}
    exec(compile(CODE, "<utils api code>", "exec"), ns)
    ours = json.loads(json.dumps(ns["compute"](paddle)))      # the same JSON round trip (tuples -> lists)
    return ours, theirs


SAME = ["try_import_json", "try_import_missing", "try_import_missing_sub", "try_import_custom",
        "l1.doc", "l1.result", "l1.warnings", "l1_nosince.doc", "l1_nosince.warnings", "l1_future.warnings",
        "l0.doc", "l0.warnings", "l2_call", "bad_update_to", "bad_level", "require_ok", "require_range_ok",
        "require_too_old", "require_too_new", "require_bad_format", "require_bad_type", "run_check_lines",
        "version_cpu", "version_types", "show_keys", "unique_names", "unique_names_prefixed", "unique_names_after",
        "nest.flatten", "nest.flatten_leaf", "nest.map", "nest.map2", "nest.pack", "nest.pack_scalar",
        "nest.pack_wrong_count", "nest.pack_not_seq", "nest.is_sequence", "nest.to_sequence", "nest.padding",
        "nest.same_ok", "nest.same_types", "nest.same_types_unchecked", "nest.same_count", "nest.same_keys",
        "nest.hold", "nest.copy", "conv.list", "conv.list_len", "conv.list_type", "conv.list_elem",
        "conv.list_tensor", "conv.shape", "conv.shape_tensor", "conv.same_shape", "conv.check_shape_neg",
        "conv.check_shape_float", "conv.check_shape_ok", "strtobool"]


@pytest.mark.parametrize("key", SAME)
def test_same_as_paddle(both, key):
    ours, theirs = both
    assert ours[key] == theirs[key]


def test_names(both):
    ours, theirs = both
    assert set(theirs["utils_all"]) <= set(ours["utils_all"])
    assert set(theirs["version_names"]) <= set(ours["version_names"]), \
        set(theirs["version_names"]) - set(ours["version_names"])


def test_version_is_ours():
    v = paddle.version
    assert v.full_version == paddle.__version__
    assert [v.major, v.minor, v.patch] == paddle.__version__.split(".")[:3]
    assert v.paddle_api_version == "3.3.1"
    assert v.cuda() == "False" and v.cuda == "False"
    assert len(v.commit) == 40 or v.commit == "unknown"
    import dy2st.version
    assert dy2st.version is v


def test_run_check_catches_wrong_numbers(monkeypatch):
    from dy2st.utils import install_check
    monkeypatch.setattr(install_check, "_data", lambda: np.array([[np.nan, 1.0]], np.float32))
    with pytest.raises(RuntimeError, match="computes wrong results"), contextlib.redirect_stdout(io.StringIO()):
        paddle.utils.run_check()


def test_dlpack_round_trip_shares_memory():
    from dy2st.utils import dlpack
    t = paddle.to_tensor(np.arange(6, dtype="float32").reshape(2, 3))
    back = dlpack.from_dlpack(dlpack.to_dlpack(t))
    np.testing.assert_array_equal(back.numpy(), t.numpy())
    t._data[0, 0] = 42.0
    assert back.numpy()[0, 0] == 42.0            # one memory
    a = np.arange(4, dtype="int64")
    u = dlpack.from_dlpack(a)                     # any producer with __dlpack__
    assert u.dtype == paddle.int64 and u.numpy().tolist() == [0, 1, 2, 3]
    capsule = dlpack.to_dlpack(t)
    dlpack.from_dlpack(capsule)
    with pytest.raises(BufferError, match="consumed already"):
        dlpack.from_dlpack(capsule)
    with pytest.raises(TypeError, match="must be paddle.Tensor"):
        dlpack.to_dlpack(a)
    with pytest.raises(ValueError, match="only the CPU"):
        dlpack.from_dlpack(a, device="gpu:0")


def test_deprecated_warning_is_visible_outside_main():
    @paddle.utils.deprecated(since="1.0", level=1)
    def f():
        return 3
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("default")
        assert f() == 3
    assert caught and caught[0].category.__name__ == "VisibleDeprecationWarning"
