"""``dy2st export``: build a Layer from a script and write Paddle inference files and/or ONNX.

The model is traced once (eval mode, pruned to its outputs) exactly as ``paddle.jit.save`` does;
the same Program is written as ``PREFIX.pdmodel/.pdiparams/.pdiparams.info`` and/or lowered to
``PREFIX.onnx``.
"""
from __future__ import annotations

import inspect
import os
import warnings

from ._common import CLIError, fmt_count, fmt_size, var_desc

NAME = "export"
HELP = "build a model from a script and write .pdmodel/.pdiparams (and/or .onnx)"
DESCRIPTION = ("Import SCRIPT.py, build the model ATTR names (a Layer class with a no-argument constructor, a "
               "factory function of no arguments, a Layer instance, or a function taking the inputs), optionally "
               "load a state dict, convert it with to_static and write the inference files. Without --input-spec "
               "the input_spec given to to_static is used.")
EXAMPLES = """\
examples:
  dy2st export examples/cli/mlp.py:MLP --input-spec "x:float32[None,784]" -o build/mlp
  dy2st export examples/cli/mlp.py:build_mlp -o build/small --format both       # factory function
  dy2st export net.py:Net --input-spec "img:float32[None,1,28,28]" --params net.pdparams --eval -o build/net
  dy2st export two.py:Pair --input-spec "x:float32[None,4]" --input-spec "y:int64[None]" -o build/pair

input spec form: NAME:DTYPE[DIM,...], a DIM None (or -1) for a size that may vary (the batch)
"""


def add_arguments(p):
    p.add_argument("target", metavar="SCRIPT.py:ATTR",
                   help="the script and the model in it (ATTR may be left out when the script defines one Layer "
                        "class)")
    p.add_argument("-i", "--input-spec", action="append", default=[], metavar="SPEC",
                   help='one model input, e.g. "x:float32[None,784]"; repeat in argument order')
    p.add_argument("--params", metavar="FILE.pdparams", help="load this state dict (paddle.save of "
                   "layer.state_dict()) before exporting")
    p.add_argument("--eval", action="store_true", help="call layer.eval() first (the export itself always traces "
                   "in eval mode)")
    p.add_argument("-o", "--output", required=True, metavar="PREFIX",
                   help="output prefix: writes PREFIX.pdmodel, PREFIX.pdiparams, PREFIX.pdiparams.info and/or "
                        "PREFIX.onnx")
    p.add_argument("--format", choices=("paddle", "pir", "onnx", "both"), default="paddle",
                   help="what to write: paddle = PREFIX.pdmodel/.pdiparams/.pdiparams.info (every Paddle loader "
                        "reads it), pir = Paddle 3's default PREFIX.json/.pdiparams, onnx = PREFIX.onnx, both = "
                        "paddle and onnx (default: paddle)")
    p.add_argument("--opset", type=int, default=17, metavar="N", help="ONNX opset version (default: 17)")


def _prefix(out):
    for ext in (".pdmodel", ".json", ".onnx"):
        if out.endswith(ext):
            return out[:-len(ext)]
    if out.endswith(("/", os.sep)) or os.path.isdir(out):
        raise CLIError(f"-o {out} is a directory; give a directory plus a file-name prefix, e.g. "
                       f"{os.path.join(out, 'model')}",
                       code=2)
    return out


def _forward_params(model):
    """Parameter names of the model's inputs (to name specs given without a name)."""
    from runtime.nn.layer.layers import Layer

    from ..static_function import StaticFunction
    fn = model
    if isinstance(model, Layer):
        fn = type(model).forward
    if isinstance(fn, StaticFunction):
        fn = fn.dygraph_function
    try:
        names = list(inspect.signature(fn).parameters)
    except (TypeError, ValueError):
        return []
    return names[1:] if isinstance(model, Layer) else names


def _declared_specs(model):
    """The input_spec given to to_static for ``model`` (None when there is none)."""
    from runtime.nn.layer.layers import Layer

    from ..static_function import StaticFunction
    fn = model
    if isinstance(model, Layer):
        fn = model.__dict__.get("forward") or type(model).forward
    return fn._input_spec if isinstance(fn, StaticFunction) else None


def _load_params(model, path, ui):
    from runtime.nn.layer.layers import Layer

    from .. import load as paddle_load
    if not isinstance(model, Layer):
        raise CLIError("--params needs a Layer model, but the target is a function")
    if not os.path.exists(path):
        raise CLIError(f"params file not found: {path}")
    ui.progress(f"loading {path}")
    state = paddle_load(path)
    if not isinstance(state, dict):
        raise CLIError(f"{path} holds a {type(state).__name__}, not a state dict (save one with "
                       "paddle.save(layer.state_dict(), path))")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        missing, unexpected = model.set_state_dict(state)
    if missing or unexpected:
        parts = []
        if missing:
            parts.append("missing or wrong shape: " + ", ".join(missing[:8]) + (" ..." if len(missing) > 8 else ""))
        if unexpected:
            parts.append("not in the model: " + ", ".join(unexpected[:8]) + (" ..." if len(unexpected) > 8 else ""))
        raise CLIError(f"{path} does not match the model's parameters ({'; '.join(parts)})")
    return len(state)


def run(args, ui):
    from runtime.formats.model_io import default_info, model_paths, save_model

    from ..jit_io import inference_program
    from .input_spec_syntax import parse_input_spec
    from .script_loading import build_layer, loaded_script, split_target

    specs = [parse_input_spec(s) for s in args.input_spec]     # syntax errors before the slow import
    prefix = _prefix(args.output)
    script, attr = split_target(args.target)
    ui.progress(f"importing {script}")
    with loaded_script(script) as module:
        ui.progress(f"building {attr or 'the model'}")
        model, desc = build_layer(module, attr, script)
        if args.params:
            _load_params(model, args.params, ui)
        if args.eval and hasattr(model, "eval"):
            model.eval()
        if specs:
            names = _forward_params(model)
            for k, s in enumerate(specs):
                if s.name is None:
                    s.name = names[k] if k < len(names) else f"input_{k}"
        if not specs and _declared_specs(model) is None:
            names = _forward_params(model)
            example = (" ".join(f'--input-spec "{n}:float32[None,...]"' for n in names)
                       or '--input-spec "x:float32[None,784]"')
            raise CLIError(f"{desc} has no input_spec in its to_static; give one --input-spec per input, e.g. "
                           f"{example}", code=2)
        ui.progress(f"tracing {desc}")
        program, feeds, fetches, values, structured = inference_program(model, specs or None, None, "dy2st export")
    written = []
    if args.format in ("paddle", "both"):
        ui.progress(f"writing {prefix}.pdmodel")
        save_model(prefix, program, feeds, fetches, values, info=default_info(program, structured))
        written.extend(p for p in model_paths(prefix) if os.path.exists(p))
    if args.format == "pir":
        from runtime.formats.model_io import pir_model_path
        ui.progress(f"writing {pir_model_path(prefix)}")
        save_model(prefix, program, feeds, fetches, values, format="pir")
        written.extend([pir_model_path(prefix), model_paths(prefix)[1]])
    if args.format in ("onnx", "both"):
        from runtime.onnx import export_program
        ui.progress(f"lowering to ONNX (opset {args.opset}) and writing {prefix}.onnx")
        export_program(program, feeds, fetches, prefix + ".onnx", opset_version=args.opset, params=values)
        written.append(prefix + ".onnx")
    gb = program.global_block()
    ui.print(f"exported {desc} from {script}")
    for n in feeds:
        ui.print(f"  input   {n}: {var_desc(gb._find_var_recursive(n))}")
    for n in fetches:
        ui.print(f"  output  {n}: {var_desc(gb._find_var_recursive(n))}")
    width = max(len(p) for p in written)
    for p in written:
        ui.print(f"wrote {p:<{width}}  {fmt_size(os.path.getsize(p)):>9}")
    ops = [op for blk in program.blocks for op in blk.ops]
    n_values = sum(int(v.size) for v in values.values())
    ui.print(f"ops: {len(ops)} in {len(program.blocks)} block(s); parameters: {len(values)} tensors, "
             f"{fmt_count(n_values)} values")
    return 0
