"""Regenerate ``extra_op_protos.txt``: real Paddle's op protos (slots, attribute types and defaults) for the
op types this helper area registers that ``tests/fixtures/paddle_op_protos.txt`` does not list yet.

Run with a Python that has paddlepaddle 3.3.1: ``python tests/runtime/ops/make_extra_op_protos.py``.
The output has the fixture's format, so ``test_schema.parse_protos`` reads it.
"""
import pathlib
import sys

OPS = ["adadelta", "adamax", "asgd", "lamb", "nadam", "radam", "rprop", "auc"]
COMMON_EXTRA = {"op_role", "op_role_var", "op_namescope", "op_callstack", "op_device", "with_quant_attr"}


def main(out_path):
    import paddle  # noqa: F401
    from paddle.base import core
    from paddle.base.proto import framework_pb2
    attr_type = {v: k for k, v in framework_pb2.AttrType.items()}
    protos = {}
    for raw in core.get_all_op_protos():
        p = framework_pb2.OpProto.FromString(raw)
        protos[p.type] = p
    lines = []
    for op in OPS:
        p = protos[op]
        defaults = core.get_op_attrs_default_value(op.encode())

        def slot(s):
            return s.name + ("[]" if s.duplicable else "") + ("?" if s.dispensable else "")
        lines.append(f"### {op}   (op_version=0)")
        lines.append("  inputs : " + ", ".join(slot(s) for s in p.inputs))
        lines.append("  outputs: " + ", ".join(slot(s) for s in p.outputs))
        for a in p.attrs:
            if a.name in COMMON_EXTRA:
                continue
            default = repr(defaults[a.name]) if a.name in defaults else "'<no default: REQUIRED>'"
            lines.append(f"    {a.name}: {attr_type[a.type]} = {default}" + (" EXTRA" if a.extra else ""))
    pathlib.Path(out_path).write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).with_name("extra_op_protos.txt"))
