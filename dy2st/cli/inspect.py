"""``dy2st inspect``: print a saved model's Program, inputs/outputs and parameter table; ``--dot`` for Graphviz.

Reads ours and real Paddle's ``.pdmodel`` / ``.pdiparams`` / ``.pdiparams.info`` through
`runtime.formats.model_io.load_model`. Op attributes are shown when they differ from the op's
defaults (``--all-attrs`` shows every one).
"""
from __future__ import annotations

import os

from ._common import fmt_count, fmt_shape, fmt_size, model_prefix, var_desc

NAME = "inspect"
HELP = "print a saved model: program blocks, ops, variables, inputs/outputs, parameters"
DESCRIPTION = ("Print the Program of a saved inference model (PREFIX.pdmodel, written by dy2st or by PaddlePaddle): "
               "its inputs and outputs, every block with its variables (shape, dtype) and ops (inputs -> outputs, "
               "non-default attributes, the source line that built them), then a parameter table with totals.")
EXAMPLES = """\
examples:
  dy2st inspect build/mlp                      # PREFIX, PREFIX.pdmodel or a directory with one .pdmodel
  dy2st inspect build/mlp --dot mlp.dot && dot -Tsvg mlp.dot -o mlp.svg
  dy2st inspect tests/fixtures/paddle-3.3.1/control_flow --all-attrs
"""

_HIDDEN_ATTRS = frozenset({"op_callstack", "op_role", "op_role_var", "op_namescope", "op_device", "with_quant_attr",
                           "use_mkldnn", "use_cudnn", "use_quantizer", "mkldnn_data_type", "is_test"})


def add_arguments(p):
    p.add_argument("model", metavar="PREFIX", help="the model: PREFIX, PREFIX.pdmodel, or a directory holding one "
                   ".pdmodel")
    p.add_argument("--dot", metavar="FILE", help="also write a Graphviz graph of the ops to FILE")
    p.add_argument("--all-attrs", action="store_true", help="show every op attribute, not only non-default ones")
    p.add_argument("--no-ops", action="store_true", help="only inputs, outputs and the parameter table")


def _attrs(op, all_attrs):
    try:
        schema = op.opdef.attrs
    except Exception:      # an op type we do not know: show what the file has
        schema = {}
    out = []
    for k in sorted(op.attrs):
        v = op.attrs[k]
        if k in _HIDDEN_ATTRS and not all_attrs:
            continue
        spec = schema.get(k)
        if not all_attrs and spec is not None and _same(v, spec[1]):
            continue
        out.append(f"{k}={_fmt(v)}")
    return out


def _same(a, b):
    try:
        return bool(a == b) and type(a) is type(b) or (isinstance(a, (list, tuple)) and list(a) == list(b))
    except Exception:
        return False


def _fmt(v):
    if isinstance(v, float):
        return repr(v)
    if isinstance(v, (list, tuple)):
        s = "[" + ", ".join(_fmt(x) for x in list(v)[:8]) + (", ..." if len(v) > 8 else "") + "]"
        return s
    if isinstance(v, str):
        return repr(v)
    return str(v)


def _slots(slots):
    parts = []
    for slot, names in slots.items():
        if not names:
            continue
        parts.append(f"{slot}={names[0]}" if len(names) == 1 else f"{slot}=[{', '.join(names)}]")
    return ", ".join(parts)


def _site(op):
    from runtime.onnx.lowering import user_site
    s = user_site(op)
    if not s:
        return ""
    head = s.split(" in ")[0].split(": ")[0]
    path, _, line = head.rpartition(":")
    return f"{os.path.basename(path)}:{line}" if path else head


def describe(loaded, prefix, all_attrs=False, ops=True):
    """The text ``dy2st inspect`` prints for a `LoadedModel`."""
    program = loaded.program
    gb = program.global_block()
    feeds, fetches = set(loaded.feed_names), set(loaded.fetch_names)
    n_ops = sum(len(b.ops) for b in program.blocks)
    from runtime.formats.model_io import program_path
    path = program_path(prefix)
    size = os.path.getsize(path)
    lines = [f"model {path} ({fmt_size(size)}): {len(program.blocks)} block(s), {n_ops} ops, "
             f"{len(loaded.params)} parameters"]
    name_w = max([len(n) for n in list(loaded.feed_names) + list(loaded.fetch_names)] + [1])
    lines.append("inputs:")
    for n in loaded.feed_names:
        lines.append(f"  {n:<{name_w}}  {var_desc(gb._find_var_recursive(n))}")
    lines.append("outputs:")
    for n in loaded.fetch_names:
        lines.append(f"  {n:<{name_w}}  {var_desc(gb._find_var_recursive(n))}")
    if ops:
        for blk in program.blocks:
            parent = f", parent {blk.parent_idx}" if blk.parent_idx >= 0 else ""
            lines.append("")
            lines.append(f"block {blk.idx}{parent}: {len(blk.ops)} ops, {len(blk.vars)} vars")
            lines.append("  vars:")
            w = max([len(n) for n in blk.vars] + [1])
            for name, v in blk.vars.items():
                tags = []
                if name in feeds:
                    tags.append("input")
                if name in fetches:
                    tags.append("output")
                if v.persistable:
                    tags.append("param" if name in loaded.params else "persistable")
                lines.append(f"    {name:<{w}}  {var_desc(v):<24} {' '.join(tags)}".rstrip())
            lines.append("  ops:")
            tw = max([len(op.type) for op in blk.ops] + [1])
            iw = len(str(max(len(blk.ops) - 1, 0)))
            for i, op in enumerate(blk.ops):
                ins = _slots(op.inputs)
                text = f"    {i:>{iw}}  {op.type:<{tw}}  {ins + ' ' if ins else ''}-> {_slots(op.outputs)}"
                attrs = _attrs(op, all_attrs)
                if attrs:
                    text += "  {" + ", ".join(attrs) + "}"
                site = _site(op)
                if site:
                    text += f"  # {site}"
                lines.append(text)
    lines.append("")
    lines.append("parameters:")
    rows = []
    total_values = total_bytes = 0
    for name in sorted(loaded.params):
        arr = loaded.params[name]
        structured = (loaded.info.get(name) or {}).get("structured_name", "")
        rows.append((name, structured if structured != name else "", fmt_shape(arr.shape), str(arr.dtype),
                     fmt_count(int(arr.size))))
        total_values += int(arr.size)
        total_bytes += int(arr.nbytes)
    header = ("name", "structured name", "shape", "dtype", "count")
    if rows:
        widths = [max(len(r[i]) for r in rows + [header]) for i in range(5)]
        fmt_row = lambda r: ("  " + "  ".join(f"{c:<{widths[i]}}" if i < 4 else f"{c:>{widths[i]}}"  # noqa: E731
                                              for i, c in enumerate(r))).rstrip()
        lines.append(fmt_row(header))
        lines.extend(fmt_row(r) for r in rows)
    lines.append(f"  total: {len(rows)} tensors, {fmt_count(total_values)} values ({fmt_size(total_bytes)})")
    return "\n".join(lines)


def _q(s):
    return '"' + str(s).replace("\\", "\\\\").replace('"', '\\"') + '"'


def to_dot(loaded):
    """Graphviz text: ops are boxes, variables ellipses (parameters grey), sub-blocks clusters."""
    program = loaded.program
    feeds, fetches = set(loaded.feed_names), set(loaded.fetch_names)
    out = ["digraph program {", "  rankdir=TB;", '  node [fontname="Helvetica", fontsize=10];',
           '  edge [fontname="Helvetica", fontsize=8];']
    declared = set()

    def var_node(name, indent):
        if name in declared:
            return
        declared.add(name)
        v = None
        for blk in program.blocks:
            v = blk.vars.get(name, v)
        label = _esc(name) + ("\\n" + _esc(var_desc(v)) if v is not None else "")
        style = ""
        if name in loaded.params:
            style = ', style=filled, fillcolor="#dddddd"'
        elif name in feeds:
            style = ', style=filled, fillcolor="#cfe8ff"'
        elif name in fetches:
            style = ', style=filled, fillcolor="#d8f5d0"'
        out.append(f'{indent}{_q("var:" + name)} [shape=ellipse, label="{label}"{style}];')

    first_op = {}

    def emit_block(blk, indent):
        for i, op in enumerate(blk.ops):
            oid = f"op:{blk.idx}:{i}"
            first_op.setdefault(blk.idx, oid)
            out.append(f'{indent}{_q(oid)} [shape=box, style="rounded,filled", fillcolor="#fff3c4", '
                       f'label="{_esc(op.type)}"];')
            for name in op.output_arg_names:
                var_node(name, indent)
        for op in blk.ops:
            for sub in op.sub_block_ids():
                out.append(f"{indent}subgraph {_q('cluster_block' + str(sub))} {{")
                out.append(f'{indent}  label="block {sub}"; style=dashed;')
                emit_block(program.blocks[sub], indent + "  ")
                out.append(f"{indent}}}")

    emit_block(program.global_block(), "  ")
    for blk in program.blocks:
        for i, op in enumerate(blk.ops):
            oid = f"op:{blk.idx}:{i}"
            for slot, names in op.inputs.items():
                for n in names:
                    var_node(n, "  ")
                    out.append(f'  {_q("var:" + n)} -> {_q(oid)} [label={_q(slot)}];')
            for slot, names in op.outputs.items():
                for n in names:
                    out.append(f'  {_q(oid)} -> {_q("var:" + n)} [label={_q(slot)}];')
            for sub in op.sub_block_ids():
                if sub in first_op:
                    out.append(f'  {_q(oid)} -> {_q(first_op[sub])} [style=dashed, label="sub_block"];')
    out.append("}")
    return "\n".join(out) + "\n"


def _esc(s):
    return str(s).replace("\\", "\\\\").replace('"', '\\"')


def run(args, ui):
    from runtime.formats.model_io import load_model
    prefix = model_prefix(args.model)
    ui.progress(f"reading {prefix}")
    loaded = load_model(prefix)
    ui.print(describe(loaded, prefix, all_attrs=args.all_attrs, ops=not args.no_ops))
    if args.dot:
        ui.progress(f"writing {args.dot}")
        d = os.path.dirname(os.path.abspath(args.dot))
        os.makedirs(d, exist_ok=True)
        with open(args.dot, "w", encoding="utf-8") as f:
            f.write(to_dot(loaded))
        ui.print(f"wrote {args.dot} (Graphviz; render with: dot -Tsvg {args.dot} -o graph.svg)")
    return 0
