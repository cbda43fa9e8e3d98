"""The `dy2st` command, run as `python -m dy2st ...` subprocesses on examples/cli/ (success and error paths)."""
import ast
import os
import re
import shutil
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import dy2st as paddle

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
EXAMPLES = os.path.join(ROOT, "examples", "cli")
MLP = os.path.join(EXAMPLES, "mlp.py")
CONTROLFLOW = os.path.join(EXAMPLES, "controlflow.py")
FIXTURES = os.path.join(ROOT, "tests", "fixtures", "paddle-3.3.1")


def dy2st(*args, cwd=None, ok=True):
    res = subprocess.run([sys.executable, "-m", "dy2st", *map(str, args)], cwd=cwd, capture_output=True, text=True,
                         timeout=120)
    if ok:
        assert res.returncode == 0, f"dy2st {' '.join(map(str, args))} failed:\n{res.stderr}"
    return res


def error_line(res, command, code=1):
    """The single stderr line of a failed run."""
    assert res.returncode == code, (res.returncode, res.stderr)
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1, res.stderr
    assert lines[0].startswith(f"dy2st {command}: error: "), lines[0]
    assert "Traceback" not in res.stderr
    assert res.stdout == ""
    return lines[0]


def small_input(rows=3, features=16, scale=1.0):
    return (np.linspace(-1, 1, rows * features, dtype="float32").reshape(rows, features) * scale).astype("float32")


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """SmallMLP (factory) and Gate (control flow) exported once, paddle + onnx."""
    d = tmp_path_factory.mktemp("cli")
    mlp = dy2st("export", f"{MLP}:build_mlp", "-o", d / "small", "--format", "both", "--verbose")
    cf = dy2st("export", f"{CONTROLFLOW}:Gate", "--input-spec", "x:float32[None,4]", "-o", d / "cf", "--format",
               "both")
    np.save(d / "x16.npy", small_input())
    return d, mlp, cf


# -- export --------------------------------------------------------------------------------------------------

def test_export_writes_files_and_reports_counts(built):
    from runtime.formats.model_io import load_model
    d, res, cf = built
    for ext in (".pdmodel", ".pdiparams", ".pdiparams.info", ".onnx"):
        assert (d / ("small" + ext)).exists()
        assert (d / ("cf" + ext)).exists()
        assert re.search(rf"wrote \S*small{re.escape(ext)}\s+[\d.]+ (B|KB)\n", res.stdout), res.stdout
    loaded = load_model(str(d / "small"))
    n_ops = sum(len(b.ops) for b in loaded.program.blocks)
    n_values = sum(a.size for a in loaded.params.values())
    assert n_values == 16 * 32 + 32 + 32 * 64 + 64 + 64 * 4 + 4
    assert f"ops: {n_ops} in 1 block(s); parameters: {len(loaded.params)} tensors, {n_values:,} values" in res.stdout
    assert "input   x: float32[None, 16]" in res.stdout
    # progress goes to stderr (--verbose), results to stdout only
    assert "tracing build_mlp()" in res.stderr and "writing" in res.stderr
    assert "tracing" not in res.stdout
    assert "4 block(s)" in cf.stdout     # the cond's two branches and the while body


def test_export_params_and_eval(tmp_path):
    from dy2st.cli.script_loading import loaded_script
    with loaded_script(MLP) as mlp_mod:
        paddle.seed(7)
        net = mlp_mod.SmallMLP()
    paddle.save(net.state_dict(), str(tmp_path / "w.pdparams"))
    dy2st("export", f"{MLP}:SmallMLP", "--params", tmp_path / "w.pdparams", "--eval", "-o", tmp_path / "m")
    loaded = paddle.jit.load(str(tmp_path / "m"))
    x = small_input()
    net.eval()
    np.testing.assert_allclose(loaded(paddle.to_tensor(x)).numpy(), net(paddle.to_tensor(x)).numpy(), rtol=1e-6)
    # a state dict for another model: one line naming the keys
    paddle.save({"fc1.weight": net.fc1.weight}, str(tmp_path / "part.pdparams"))
    res = dy2st("export", f"{MLP}:SmallMLP", "--params", tmp_path / "part.pdparams", "-o", tmp_path / "p", ok=False)
    assert "does not match the model's parameters (missing or wrong shape: fc1.bias" in error_line(res, "export")


# -- convert -------------------------------------------------------------------------------------------------

def test_convert_output_is_python_that_runs_like_the_original(tmp_path):
    out = tmp_path / "cf_static.py"
    res = dy2st("convert", CONTROLFLOW, "-o", out)
    assert "2 function(s) converted (Gate.forward, clip_steps)" in res.stdout
    text = out.read_text()
    ast.parse(text)
    n_lines = len(open(CONTROLFLOW).read().splitlines())
    # a header per function mapping back to its original lines
    m = re.search(r"# dy2st convert: Gate\.forward, converted from \S*controlflow\.py:(\d+)-(\d+)", text)
    assert m and 1 <= int(m.group(1)) < int(m.group(2)) <= n_lines
    assert re.search(r"# dy2st convert: clip_steps, converted from \S*controlflow\.py:\d+-\d+", text)
    assert "_jst.convert_ifelse(" in text and "_jst.convert_while_loop(" in text
    # without -o: the same text on stdout
    assert dy2st("convert", CONTROLFLOW).stdout == text
    # `python OUT.py` prints what the original prints (both branches, several trip counts)
    original = subprocess.run([sys.executable, CONTROLFLOW], capture_output=True, text=True, timeout=120)
    converted = subprocess.run([sys.executable, str(out)], capture_output=True, text=True, timeout=120)
    assert original.returncode == 0 and converted.returncode == 0, converted.stderr
    assert converted.stdout == original.stdout and original.stdout.count("gate") == 3


def test_converted_module_is_traced_as_is(tmp_path):
    """Imported, the converted functions build the static Program (not eager) without a second conversion."""
    from dy2st.cli.convert import convert_source, _targets
    from dy2st.cli.script_loading import loaded_script
    with loaded_script(CONTROLFLOW) as mod:
        source = convert_source(open(CONTROLFLOW).read(), CONTROLFLOW, _targets(mod, CONTROLFLOW, []))
        x = paddle.to_tensor(small_input(2, 4, 8.0))
        gate = mod.Gate()
        gate.eval()
        want = gate(x).numpy()
    path = tmp_path / "cf_converted.py"
    path.write_text(source)
    with loaded_script(path) as conv:
        assert conv.Gate.forward.dygraph_function._dy2st_not_to_static
        g = conv.Gate()
        g.eval()
        np.testing.assert_allclose(g(x).numpy(), want, rtol=1e-6)
        prog = g.forward.concrete_program.main_program
        types = {op.type for b in prog.blocks for op in b.ops}
        assert {"conditional_block", "while"} <= types


def test_convert_function_option_and_errors(tmp_path):
    res = dy2st("convert", MLP, "--function", "SmallMLP.forward", "--function", "build_mlp")
    text = res.stdout
    assert text.count("# dy2st convert: ") == 2 and "build_mlp, converted from" in text
    assert "# dy2st convert: MLP.forward" not in text
    ast.parse(text)

    line = error_line(dy2st("convert", tmp_path / "missing.py", ok=False), "convert")
    assert "script not found" in line and "missing.py" in line
    line = error_line(dy2st("convert", MLP, "--function", "Nope", ok=False), "convert")
    assert "has no attribute 'Nope'" in line and "MLP, SmallMLP" in line and "build_mlp" in line
    line = error_line(dy2st("convert", MLP, "--bogus", ok=False), "convert", code=2)
    assert "unrecognized arguments: --bogus" in line


# -- inspect -------------------------------------------------------------------------------------------------

def test_inspect_names_ops_params_and_writes_dot(built):
    d, _, _ = built
    res = dy2st("inspect", str(d / "small") + ".pdmodel", "--dot", d / "small.dot")
    out = res.stdout
    for op in ("matmul_v2", "elementwise_add", "relu"):
        assert re.search(rf"^\s+\d+\s+{op}\s+X=", out, re.M), op
    assert re.search(r"linear_0\.w_0\s+fc1\.weight\s+\[16, 32\]\s+float32\s+512", out)
    assert "total: 6 tensors, 2,916 values (11.4 KB)" in out
    assert re.search(r"^inputs:\n  x\s+float32\[None, 16\]", out, re.M)
    assert re.search(r"# mlp\.py:\d+", out)    # ops point at the user's source line
    dot = (d / "small.dot").read_text()
    assert dot.startswith("digraph program {") and dot.rstrip().endswith("}")
    assert dot.count("{") == dot.count("}") and 'label="matmul_v2"' in dot and '"var:x" -> "op:0:0"' in dot

    # real Paddle's files, with sub-blocks (cond + while)
    res = dy2st("inspect", os.path.join(FIXTURES, "control_flow"))
    out = res.stdout
    assert "4 block(s)" in out and "block 3, parent 0" in out
    for op in ("conditional_block", "select_input", "while"):
        assert re.search(rf"^\s+\d+\s+{op}\s", out, re.M), op
    assert re.search(r"linear_1\.w_0\s+fc\.weight\s+\[4, 4\]", out) and "total: 2 tensors, 20 values" in out


# -- run -----------------------------------------------------------------------------------------------------

def test_run_prints_and_saves_what_jit_load_computes(built):
    d, _, _ = built
    x = np.load(d / "x16.npy")
    want = paddle.jit.load(str(d / "small"))(paddle.to_tensor(x)).numpy()
    res = dy2st("run", d / "small", "--input", d / "x16.npy")
    head, body = res.stdout.split("\n", 1)
    assert re.fullmatch(r"output 0 \S+: float32\[3, 4\]", head), head
    np.testing.assert_allclose(np.array(ast.literal_eval(body.strip())), want, rtol=1e-6, atol=1e-7)

    # real Paddle's model, two named inputs, --output DIR
    fx = os.path.join(FIXTURES, "two_inputs_bn")
    res = dy2st("run", os.path.join(fx, "model"), "--input", f"x={fx}/model.ref_in0.npy", "--input",
                f"y={fx}/model.ref_in1.npy", "--output", d / "outs")
    saved = re.findall(r"-> (\S+\.npy)", res.stdout)
    assert len(saved) == 1
    ref = paddle.jit.load(os.path.join(fx, "model"))(np.load(f"{fx}/model.ref_in0.npy"),
                                                     np.load(f"{fx}/model.ref_in1.npy")).numpy()
    np.testing.assert_array_equal(np.load(saved[0]), ref)
    np.testing.assert_allclose(ref, np.load(f"{fx}/model.ref_out.npy"), rtol=1e-5, atol=1e-6)


def test_run_input_errors(built):
    d, _, _ = built
    line = error_line(dy2st("run", d / "small", "--input", f"y={d / 'x16.npy'}", ok=False), "run")
    assert "no input 'y'" in line and "x float32[None, 16]" in line
    np.save(d / "wide.npy", np.zeros((2, 5), "float32"))
    line = error_line(dy2st("run", d / "small", "--input", f"x={d / 'wide.npy'}", ok=False), "run")
    assert "wide.npy: shape [2, 5] does not fit input 'x' float32[None, 16]" in line
    line = error_line(dy2st("run", d / "nothere", "--input", d / "x16.npy", ok=False), "run")
    assert "model file not found" in line and "nothere.pdmodel" in line
    (d / "bad.pdmodel").write_bytes(b"garbage")
    line = error_line(dy2st("inspect", d / "bad", ok=False), "inspect")
    assert "bad.pdmodel: not a valid ProgramDesc protobuf" in line


# -- onnx ----------------------------------------------------------------------------------------------------

def _ort():
    return pytest.importorskip("onnxruntime", reason="onnxruntime is not installed (pip install -e '.[test]')")


def test_onnx_matches_our_executor(built):
    onnx = pytest.importorskip("onnx")
    ort = _ort()
    d, _, _ = built
    res = dy2st("onnx", d / "cf", "-o", d / "cf13.onnx", "--opset", "13")
    assert "opset 13" in res.stdout and "onnx.checker passed" in res.stdout
    loaded = paddle.jit.load(str(d / "cf"))
    for path in (d / "cf13.onnx", d / "cf.onnx"):       # `dy2st onnx` and `dy2st export --format onnx`
        model = onnx.load(str(path))
        onnx.checker.check_model(model, full_check=True)
        sess = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
        # inputs that take each branch and need different numbers of while iterations
        for scale in (1.0, -1.0, 8.0, 40.0):
            x = small_input(2, 4, scale)
            got = sess.run(None, {"x": x})[0]
            want = loaded(paddle.to_tensor(x)).numpy()
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)

    # real Paddle's files
    fx = os.path.join(FIXTURES, "zoo")
    dy2st("onnx", fx, "-o", d / "zoo.onnx")
    sess = ort.InferenceSession(str(d / "zoo.onnx"), providers=["CPUExecutionProvider"])
    x = np.load(f"{fx}/model.ref_in.npy")
    want = paddle.jit.load(os.path.join(fx, "model"))(x)
    for g, w in zip(sess.run(None, {"img": x}), want):
        np.testing.assert_allclose(g, w.numpy(), rtol=1e-5, atol=1e-6)


def test_unsupported_op_error_names_op_and_line(tmp_path):
    script = tmp_path / "noisy.py"
    script.write_text(textwrap.dedent("""\
        import dy2st as paddle

        class Noisy(paddle.nn.Layer):
            def forward(self, x):
                return x + paddle.rand([3])
        """))
    line = error_line(dy2st("export", f"{script}:Noisy", "-i", "x:float32[3]", "-o", tmp_path / "n", "--format",
                            "onnx", ok=False), "export")
    assert "op 'uniform_random' has no ONNX lowering" in line and "noisy.py:5" in line
    dy2st("export", f"{script}:Noisy", "-i", "x:float32[3]", "-o", tmp_path / "n")
    line = error_line(dy2st("onnx", tmp_path / "n", ok=False), "onnx")
    assert "op 'uniform_random' has no ONNX lowering" in line and "noisy.py:5" in line


# -- export errors -------------------------------------------------------------------------------------------

def test_export_errors(tmp_path):
    line = error_line(dy2st("export", f"{tmp_path / 'gone.py'}:Net", "-o", tmp_path / "x", ok=False), "export")
    assert "script not found" in line and "gone.py" in line
    line = error_line(dy2st("export", f"{MLP}:MLP", "--input-spec", "x:float32[None,abc]", "-o", tmp_path / "x",
                            ok=False), "export", code=2)
    assert "bad input spec 'x:float32[None,abc]'" in line and "dimension 'abc'" in line
    assert "NAME:DTYPE[DIM,...]" in line
    line = error_line(dy2st("export", f"{MLP}:Foo", "-o", tmp_path / "x", ok=False), "export")
    assert "has no attribute 'Foo'" in line and "Layer classes: MLP, SmallMLP" in line and "build_mlp" in line
    line = error_line(dy2st("export", f"{MLP}:MLP", "-o", ok=False), "export", code=2)
    assert "expected one argument" in line


def test_usage_errors_and_help():
    res = dy2st("frobnicate", ok=False)
    assert res.returncode == 2 and res.stderr.startswith("dy2st: error: argument COMMAND: invalid choice")
    assert len(res.stderr.strip().splitlines()) == 1
    res = dy2st("--help")
    for cmd in ("convert", "export", "inspect", "run", "onnx"):
        assert cmd in res.stdout
    assert "examples:" in res.stdout


@pytest.mark.parametrize("cmd", ["convert", "export", "inspect", "run", "onnx"])
def test_every_subcommand_help_has_examples(cmd, capsys):
    from dy2st.cli.main import main
    assert main([cmd, "--help"]) == 0
    out = capsys.readouterr().out
    assert f"usage: dy2st {cmd}" in out and "\nexamples:\n" in out and f"dy2st {cmd} " in out.split("examples:")[1]


def test_console_script():
    import tomllib
    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as f:
        scripts = tomllib.load(f)["project"]["scripts"]
    assert scripts == {"dy2st": "dy2st.cli.main:main"}
    exe = shutil.which("dy2st")
    if exe is None:
        pytest.skip("the dy2st console script is not installed (pip install -e .)")
    res = subprocess.run([exe, "--version"], capture_output=True, text=True, timeout=60)
    assert res.returncode == 0 and res.stdout.strip() == f"dy2st {paddle.__version__}"
