"""``dy2st onnx``: convert saved inference files (ours or real Paddle's) to an ONNX model."""
from __future__ import annotations

import os

from ._common import CLIError, fmt_size, model_prefix

NAME = "onnx"
HELP = "convert a saved model (.pdmodel/.pdiparams) to ONNX"
DESCRIPTION = ("Lower the Program of PREFIX.pdmodel (written by dy2st or by PaddlePaddle) to ONNX: control flow "
               "becomes If/Loop, dims unknown in the model stay symbolic, parameters become initializers. The "
               "result is checked with onnx.checker (full check) unless --no-check. An op without an ONNX "
               "lowering is an error naming the op type and the source line that built it.")
EXAMPLES = """\
examples:
  dy2st onnx build/mlp -o mlp.onnx
  dy2st onnx build/mlp                                  # writes build/mlp.onnx
  dy2st onnx tests/fixtures/paddle-3.3.1/control_flow -o cf.onnx --opset 13
"""


def add_arguments(p):
    p.add_argument("model", metavar="PREFIX", help="the model: PREFIX, PREFIX.pdmodel, or a directory holding one "
                   ".pdmodel")
    p.add_argument("-o", "--output", metavar="MODEL.onnx", help="the ONNX file to write (default: PREFIX.onnx)")
    p.add_argument("--opset", type=int, default=17, metavar="N", help="ONNX opset version (default: 17)")
    p.add_argument("--no-check", action="store_true", help="skip onnx.checker.check_model(full_check=True)")


def _dims(vi):
    t = vi.type.tensor_type
    import onnx
    dtype = onnx.helper.tensor_dtype_to_np_dtype(t.elem_type).name if t.elem_type else "?"
    if not t.HasField("shape"):
        return dtype
    dims = [d.dim_param if d.HasField("dim_param") else str(d.dim_value) if d.HasField("dim_value") else "?"
            for d in t.shape.dim]
    return f"{dtype}[{', '.join(dims)}]"


def run(args, ui):
    from runtime.formats.model_io import load_model
    from runtime.onnx import export_program
    prefix = model_prefix(args.model)
    out = args.output or prefix + ".onnx"
    if os.path.isdir(out):
        raise CLIError(f"-o {out} is a directory; give the .onnx file to write", code=2)
    ui.progress(f"reading {prefix}")
    loaded = load_model(prefix)
    ui.progress(f"lowering to ONNX (opset {args.opset})")
    model = export_program(loaded.program, loaded.feed_names, loaded.fetch_names, None, opset_version=args.opset,
                           params=loaded.params)
    if not args.no_check:
        import onnx
        ui.progress("checking with onnx.checker")
        try:
            onnx.checker.check_model(model, full_check=True)
        except Exception as e:
            raise CLIError(f"the ONNX model fails onnx.checker: {str(e).strip().splitlines()[0]}") from e
    ui.progress(f"writing {out}")
    from runtime.onnx import save_model
    save_model(model, out)
    g = model.graph
    ui.print(f"wrote {out} ({fmt_size(os.path.getsize(out))}): opset {args.opset}, {len(g.node)} nodes, "
             f"{len(g.initializer)} initializers" + ("" if args.no_check else ", onnx.checker passed"))
    for vi in g.input:
        ui.print(f"  input   {vi.name}: {_dims(vi)}")
    for vi in g.output:
        ui.print(f"  output  {vi.name}: {_dims(vi)}")
    return 0
