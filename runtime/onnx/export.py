"""Lower a static Program to an ONNX model: value naming, graph building, initializers, opsets.

Our Programs are not SSA (while bodies and if branches assign to outer variables, batch_norm
updates its statistics in place), so each graph keeps ``env``: Paddle variable name -> the ONNX
value currently holding it. A write makes a fresh, model-wide unique ONNX name. Sub-blocks
become ONNX subgraphs (If branches, Loop bodies) that read outer values by name.
"""
from __future__ import annotations

import os

import numpy as np

from ..utils.atomic_write import write_files_atomically
from .lowering import UnsupportedOpError, lowering_for, unsupported

MIN_OPSET = 13


def _onnx():
    try:
        import onnx
    except ImportError as e:   # pragma: no cover - onnx is a dependency
        raise ImportError("ONNX export needs the 'onnx' package: pip install onnx") from e
    return onnx


def onnx_dtype(np_dtype):
    onnx = _onnx()
    return onnx.helper.np_dtype_to_tensor_dtype(np.dtype(np_dtype))


def _dims(shape, param_prefix=None):
    """ONNX dims for a Paddle shape: -1 becomes a symbolic dim (named when ``param_prefix``)."""
    out = []
    for i, d in enumerate(shape):
        if d is None or d < 0:
            out.append(f"{param_prefix}_dim{i}" if param_prefix else None)
        else:
            out.append(int(d))
    return out


def _value_info(name, np_dtype, shape, param_prefix=None):
    onnx = _onnx()
    return onnx.helper.make_tensor_value_info(name, onnx_dtype(np_dtype),
                                              None if shape is None else _dims(shape, param_prefix))


_SKIPPED = frozenset({"feed", "fetch"})   # loaded inference Programs carry them; inputs/outputs say the same


def _reads_writes(op):
    from ..static.prune import op_reads_writes
    try:
        return op_reads_writes(op)
    except Exception:   # an op type unknown to the registry: its own slots only
        return list(op.input_arg_names), list(op.output_arg_names)


def _prune(ops, needed, available=()):
    """The ops (in order) whose results ``needed`` depends on (sub-block reads included)."""
    needed = set(needed) - set(available)
    kept = []
    for op in reversed(ops):
        if op.type in _SKIPPED:
            continue
        reads, writes = _reads_writes(op)
        if any(w in needed for w in writes):
            kept.append(op)
            needed.update(r for r in reads if r not in available)
    kept.reverse()
    return kept


class _Exporter:
    """State shared by every graph of one export: names, initializers, parameter values."""

    def __init__(self, program, params, opset):
        self.program = program
        self.params = params
        self.opset = opset
        self.used = set()            # every ONNX value name in the model
        self.counters = {}
        self.initializers = []
        self.init_names = {}         # Paddle persistable var -> initializer name
        self.consts = {}             # (dtype, shape, bytes) -> initializer name
        self.node_count = 0

    def fresh(self, base):
        base = base or "v"
        if base not in self.used:
            self.used.add(base)
            return base
        k = self.counters.get(base, 0)
        while True:
            k += 1
            name = f"{base}__{k}"
            if name not in self.used:
                self.counters[base] = k
                self.used.add(name)
                return name

    def param_value(self, name, var):
        if self.params is not None and name in self.params:
            v = self.params[name]
        elif name in self.program._eager_bindings:
            v = self.program._eager_bindings[name]
        else:
            from ..static.scope import global_scope
            scope = global_scope()
            if name not in scope.vars:
                return None
            v = scope.vars[name]
        v = getattr(v, "_data", v)
        arr = np.asarray(v)
        if var is not None and arr.dtype != var.dtype.np:
            arr = arr.astype(var.dtype.np)
        return arr

    def initializer(self, name, var):
        got = self.init_names.get(name)
        if got is not None:
            return got
        arr = self.param_value(name, var)
        if arr is None:
            return None
        onnx = _onnx()
        oname = self.fresh(name)
        self.initializers.append(onnx.numpy_helper.from_array(np.asarray(arr, order="C"), oname))
        self.init_names[name] = oname
        return oname

    def const(self, arr):
        arr = np.asarray(arr, order="C")
        key = (arr.dtype.str, arr.shape, arr.tobytes())
        got = self.consts.get(key)
        if got is not None:
            return got
        onnx = _onnx()
        name = self.fresh("const")
        self.initializers.append(onnx.numpy_helper.from_array(arr, name))
        self.consts[key] = name
        return name


class Graph:
    """One ONNX graph being built (the main graph or a subgraph); the ``ctx`` lowerings receive."""

    def __init__(self, exporter, parent=None):
        self.ex = exporter
        self.parent = parent
        self.env = {}                # Paddle var -> ONNX value, written in this graph
        self.local = set()           # ONNX values produced in this graph (node outputs, inputs)
        self.nodes = []
        self.pending = {}            # conditional_block Out var -> the op (waiting for select_input)
        self.skip = set()            # ids of ops already lowered as part of a pattern
        self.ops = []                # the ops of the block being lowered (pruned)
        self.index = 0               # position of the op being lowered in ``ops``
        self.used_later = set()      # var names read by the lowered ops of this graph or fetched

    # -- basics ---------------------------------------------------------------------------------

    @property
    def opset(self):
        return self.ex.opset

    @property
    def program(self):
        return self.ex.program

    def var(self, name, op=None):
        """The Program Variable ``name`` (searching ``op``'s block and its parents)."""
        blk = op.block if op is not None else self.program.global_block()
        v = blk._find_var_recursive(name)
        if v is None:
            for b in self.program.blocks:
                if name in b.vars:
                    return b.vars[name]
        return v

    def lookup(self, name):
        g = self
        while g is not None:
            if name in g.env:
                return g.env[name]
            g = g.parent
        return None

    def has(self, name):
        return self.lookup(name) is not None or self._param(name, probe=True) is not None

    def _param(self, name, probe=False, op=None):
        var = self.var(name, op)
        if var is None or not var.persistable:
            return None
        if probe:
            return name if (name in self.ex.init_names or self.ex.param_value(name, var) is not None) else None
        return self.ex.initializer(name, var)

    def value(self, name, op=None):
        """The ONNX value holding Paddle variable ``name`` (persistables become initializers)."""
        v = self.lookup(name)
        if v is not None:
            return v
        g = self
        while g is not None:
            if name in g.pending:
                cb = g.pending[name]
                raise unsupported(cb, f"output '{name}' of conditional_block is read outside the if/else "
                                      "pattern (conditional_block, logical_not, conditional_block, cast, "
                                      "select_input); only that pattern lowers to ONNX If")
            g = g.parent
        var = self.var(name, op)
        if var is not None and var.persistable:
            init = self._param(name, op=op)
            if init is None:
                raise ValueError(f"ONNX export: persistable variable '{name}' has no value: pass params=, "
                                 "bind it, or run the startup program (exe.run(startup)) before exporting")
            return init
        where = f" by op '{op.type}'" if op is not None else ""
        site = ""
        if op is not None:
            from .lowering import user_site
            s = user_site(op)
            site = f" (built at {s})" if s else ""
        raise ValueError(f"ONNX export: variable '{name}' is read{where}{site} but has no value: it is not fed, "
                         "not a parameter and not computed by an earlier op")

    def bind(self, varname, onnx_name):
        self.env[varname] = onnx_name

    def fresh(self, base):
        return self.ex.fresh(base)

    # -- reading op inputs / naming outputs -------------------------------------------------------

    def input(self, op, slot="X", i=0):
        names = op.inputs.get(slot, [])
        if len(names) <= i:
            return None
        return self.value(names[i], op)

    def inputs(self, op, slot):
        return [self.value(n, op) for n in op.inputs.get(slot, [])]

    def in_var(self, op, slot="X", i=0):
        names = op.inputs.get(slot, [])
        return self.var(names[i], op) if len(names) > i else None

    def in_shape(self, op, slot="X", i=0):
        v = self.in_var(op, slot, i)
        return None if v is None else list(v.shape)

    def in_dtype(self, op, slot="X", i=0):
        v = self.in_var(op, slot, i)
        return None if v is None else v.dtype.np

    def out_var(self, op, slot="Out", i=0):
        names = op.outputs.get(slot, [])
        return self.var(names[i], op) if len(names) > i else None

    def out_dtype(self, op, slot="Out", i=0):
        v = self.out_var(op, slot, i)
        return None if v is None else v.dtype.np

    def out_shape(self, op, slot="Out", i=0):
        v = self.out_var(op, slot, i)
        return None if v is None else list(v.shape)

    def has_output(self, op, slot):
        return len(op.outputs.get(slot, [])) > 0

    def output(self, op, slot="Out", i=0):
        """A fresh ONNX name for output ``slot[i]`` of ``op``, bound to its variable."""
        names = op.outputs.get(slot, [])
        if len(names) <= i:
            return self.fresh(f"{op.type}_{slot.lower()}_unused")
        name = self.fresh(names[i])
        self.env[names[i]] = name
        return name

    def set_output(self, op, value, slot="Out", i=0):
        """Bind output ``slot[i]`` of ``op`` to the existing ONNX value ``value`` (no node)."""
        names = op.outputs.get(slot, [])
        if len(names) > i:
            self.env[names[i]] = value

    def is_used(self, varname):
        return varname in self.used_later

    def output_used(self, op, slot, i=0):
        names = op.outputs.get(slot, [])
        return len(names) > i and names[i] in self.used_later

    # -- emitting -----------------------------------------------------------------------------------

    def node(self, op_type, inputs, outputs=1, domain=None, **attrs):
        """Append an ONNX node; ``outputs`` is a count (temp names) or a list of names. Returns the
        output name (one output) or the list of names."""
        onnx = _onnx()
        if isinstance(outputs, int):
            outputs = [self.fresh(f"{op_type.lower()}_out") for _ in range(outputs)]
        attrs = {k: v for k, v in attrs.items() if v is not None}
        self.ex.node_count += 1
        n = onnx.helper.make_node(op_type, [i if i is not None else "" for i in inputs], list(outputs),
                                  name=f"{op_type}_{self.ex.node_count}", domain=domain, **attrs)
        self.nodes.append(n)
        self.local.update(outputs)
        return outputs[0] if len(outputs) == 1 else list(outputs)

    def const(self, value, dtype=None):
        arr = np.asarray(value, dtype=dtype)
        return self.ex.const(arr)

    def i64(self, values):
        return self.const(np.asarray(values, dtype=np.int64).reshape(-1))

    def scalar(self, v, dtype):
        return self.const(np.asarray(v, dtype=dtype))

    def cast(self, x, to_np_dtype, from_np_dtype=None):
        if from_np_dtype is not None and np.dtype(from_np_dtype) == np.dtype(to_np_dtype):
            return x
        return self.node("Cast", [x], to=onnx_dtype(to_np_dtype))

    def unsqueeze(self, x, axes):
        return self.node("Unsqueeze", [x, self.i64(axes)])

    def squeeze(self, x, axes=None):
        if axes is None:
            return self.node("Squeeze", [x])
        if len(axes) == 0:
            return x
        return self.node("Squeeze", [x, self.i64(axes)])

    def reshape(self, x, shape):
        return self.node("Reshape", [x, self.i64(shape) if not isinstance(shape, str) else shape])

    def to_scalar(self, x):
        return self.node("Reshape", [x, self.const(np.zeros((0,), np.int64))])

    def reduce(self, op_type, x, axes=None, keepdims=False):
        """Reduce* with the axes as an input (opset 18+, ReduceSum 13+) or an attribute."""
        keep = 1 if keepdims else 0
        if axes is None:
            return self.node(op_type, [x], keepdims=keep)
        axes = [int(a) for a in axes]
        if op_type == "ReduceSum" or self.opset >= 18:
            return self.node(op_type, [x, self.i64(axes)], keepdims=keep)
        return self.node(op_type, [x], axes=axes, keepdims=keep)

    def shape_of(self, x, start=None, end=None):
        """Shape(x)[start:end] as int64 (Shape's start/end attributes are opset 15+)."""
        if start is None and end is None:
            return self.node("Shape", [x])
        if self.opset >= 15:
            return self.node("Shape", [x], start=start, end=end)
        s = self.node("Shape", [x])
        return self.node("Slice", [s, self.i64([start or 0]), self.i64([end if end is not None else 2 ** 62])])

    def split(self, x, sizes, axis):
        return self.node("Split", [x, self.i64(sizes)], len(sizes), axis=int(axis))

    def value_info(self, name, np_dtype, shape):
        return _value_info(name, np_dtype, shape)

    # -- blocks and subgraphs ---------------------------------------------------------------------

    def subgraph(self):
        return Graph(self.ex, parent=self)

    def lower_ops(self, ops, used_later=()):
        self.ops = ops
        reads = set(used_later)
        for op in ops:
            reads.update(_reads_writes(op)[0])
        self.used_later = reads
        for idx, op in enumerate(ops):
            if id(op) in self.skip:
                continue
            self.index = idx
            fn = lowering_for(op.type)
            if fn is None:
                raise unsupported(op)
            try:
                fn(self, op)
            except (UnsupportedOpError, ValueError, TypeError):
                raise
            except Exception as e:
                from .lowering import user_site
                s = user_site(op)
                raise RuntimeError(f"ONNX export: lowering op '{op.type}'" + (f" (built at {s})" if s else "")
                                   + f" failed: {type(e).__name__}: {e}") from e
        for name, cb in self.pending.items():
            if name in self.used_later:
                raise unsupported(cb, "conditional_block without the select_input that merges its outputs "
                                      "(the if/else pattern of FORMATS 7.1) cannot be lowered to ONNX If")

    def finish_subgraph(self, out_vars, name, in_infos=()):
        onnx = _onnx()
        outputs, seen = [], set()
        for var, dt, shape in out_vars:
            val = self.value(var)
            if val not in self.local or val in seen:
                val = self.node("Identity", [val], [self.fresh(f"{var}_out")])
            seen.add(val)
            outputs.append(_value_info(val, dt, shape))
        return onnx.helper.make_graph(self.nodes, name, list(in_infos), outputs)


def _as_name(f):
    if isinstance(f, str):
        return f
    name = getattr(f, "name", None)
    if isinstance(name, str):
        return name
    raise TypeError(f"export_program: fetch_vars entries must be Variables or variable names, got {type(f).__name__}")


def _load_lowerings():
    from . import ops_elementwise, ops_activation, ops_reduce, ops_shape, ops_nn, ops_control_flow  # noqa: F401
    from . import ops_activation_extra  # noqa: F401


def build_model(program, feed_names, fetch_vars, opset_version=17, params=None, producer="dy2st"):
    """The ONNX ModelProto for ``program`` with inputs ``feed_names`` and outputs ``fetch_vars``."""
    onnx = _onnx()
    _load_lowerings()
    max_opset = onnx.defs.onnx_opset_version()
    if not isinstance(opset_version, int) or not MIN_OPSET <= opset_version <= max_opset:
        raise ValueError(f"export_program: opset_version must be an int in [{MIN_OPSET}, {max_opset}], "
                         f"got {opset_version!r}")
    program = getattr(program, "_program", program)
    feed_names = [_as_name(f) for f in (feed_names or [])]
    if isinstance(fetch_vars, (str,)) or not isinstance(fetch_vars, (list, tuple)):
        fetch_vars = [fetch_vars]
    fetch_names = [_as_name(f) for f in fetch_vars]
    if not fetch_names:
        raise ValueError("export_program: fetch_vars is empty; give the variables the model outputs")
    if len(set(feed_names)) != len(feed_names):
        raise ValueError(f"export_program: feed_names has duplicates: {feed_names}")
    gb = program.global_block()
    for n in feed_names:
        if gb._find_var_recursive(n) is None:
            raise ValueError(f"export_program: feed '{n}' is not a variable of the program's global block")
    for n in fetch_names:
        if gb._find_var_recursive(n) is None:
            raise ValueError(f"export_program: fetch '{n}' is not a variable of the program's global block")

    ex = _Exporter(program, params, opset_version)
    main = Graph(ex)
    inputs = []
    for n in feed_names:
        v = gb.var(n)
        ex.used.add(n)
        main.bind(n, n)
        main.local.add(n)
        inputs.append(_value_info(n, v.dtype.np, v.shape, param_prefix=n))
    # fed variables are only initial values: ops that overwrite them (a while loop on an input) still run
    ops = _prune(gb.ops, fetch_names)
    main.lower_ops(ops, fetch_names)

    outputs = []
    taken = set()
    feeds = set(feed_names)
    params_out = set(ex.init_names.values()) | set(ex.consts.values())
    for n in fetch_names:
        val = main.value(n)
        v = gb.var(n)
        if val == n and val in main.local and n not in feeds and n not in taken:
            out = n
        elif n in feeds or n in taken or n in params_out:
            out = main.node("Identity", [val], [ex.fresh(f"{n}_out")])
        else:
            if n in ex.used:
                # an earlier version of the variable holds the name: rename it so the output is `n`
                new = ex.fresh(n)
                _rename(main.nodes, n, new)
                for k, e in main.env.items():
                    if e == n:
                        main.env[k] = new
                val = new if val == n else val
            ex.used.add(n)
            out = main.node("Identity", [val], [n])
        taken.add(out)
        outputs.append(_value_info(out, v.dtype.np, v.shape))

    referenced = _referenced(main.nodes) | {o.name for o in outputs}
    inits = [t for t in ex.initializers if t.name in referenced]
    graph = onnx.helper.make_graph(main.nodes, "dy2st_program", inputs, outputs, initializer=inits)
    opsets = [onnx.helper.make_opsetid("", opset_version)]
    model = onnx.helper.make_model(graph, opset_imports=opsets, producer_name=producer)
    try:
        model.ir_version = onnx.helper.find_min_ir_version_for(opsets)
    except Exception:   # pragma: no cover
        pass
    model.ir_version = max(model.ir_version, 8)
    _link_output_dims(model)
    return model


def _referenced(nodes):
    """Every value name read by ``nodes`` or their subgraphs (outputs of subgraphs included)."""
    onnx = _onnx()
    names = set()
    for nd in nodes:
        names.update(nd.input)
        for a in nd.attribute:
            graphs = [a.g] if a.type == onnx.AttributeProto.GRAPH else list(a.graphs)
            for g in graphs:
                names |= _referenced(g.node)
                names.update(o.name for o in g.output)
    return names


def _rename(nodes, old, new):
    """Rename ONNX value ``old`` to ``new`` in ``nodes`` and their subgraphs."""
    onnx = _onnx()
    for nd in nodes:
        for i, x in enumerate(nd.input):
            if x == old:
                nd.input[i] = new
        for i, x in enumerate(nd.output):
            if x == old:
                nd.output[i] = new
        for a in nd.attribute:
            if a.type == onnx.AttributeProto.GRAPH:
                _rename_graph(a.g, old, new)
            elif a.type == onnx.AttributeProto.GRAPHS:
                for g in a.graphs:
                    _rename_graph(g, old, new)


def _rename_graph(g, old, new):
    _rename(g.node, old, new)
    for vi in list(g.input) + list(g.output):
        if vi.name == old:
            vi.name = new


def _link_output_dims(model):
    """Give outputs' unknown dims the symbolic names shape inference finds (e.g. ``x_dim0``)."""
    onnx = _onnx()
    try:
        inferred = onnx.shape_inference.infer_shapes(model)
    except Exception:
        return
    by_name = {o.name: o for o in inferred.graph.output}
    for o in model.graph.output:
        io = by_name.get(o.name)
        if io is None or not io.type.tensor_type.HasField("shape") or not o.type.tensor_type.HasField("shape"):
            continue
        dims, idims = o.type.tensor_type.shape.dim, io.type.tensor_type.shape.dim
        if len(dims) != len(idims):
            continue
        for d, idim in zip(dims, idims):
            if not d.HasField("dim_value") and not d.HasField("dim_param") and idim.HasField("dim_param"):
                d.dim_param = idim.dim_param


def save_model(model, path):
    """Write ``model`` to ``path`` atomically (temporary file in the same directory, then rename)."""
    write_files_atomically([(os.fspath(path), model.SerializeToString())])


def export_program(program, feed_names, fetch_vars, path=None, opset_version=17, params=None):
    """Lower a static Program to an ONNX ``ModelProto`` (written atomically to ``path`` when given).

    ``feed_names`` become the graph inputs (dims -1 stay symbolic), ``fetch_vars`` (Variables or
    names) the outputs. Persistable variables become initializers, their values taken from
    ``params`` (name -> array/Tensor) when given, else the program's eager bindings, else the
    global scope. Raises ``UnsupportedOpError`` for an op without a lowering (naming the op type
    and the user's file:line that built it).
    """
    model = build_model(program, feed_names, fetch_vars, opset_version=opset_version, params=params)
    if path is not None:
        save_model(model, path)
    return model
