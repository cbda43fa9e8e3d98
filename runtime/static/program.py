"""The static IR, shaped like Paddle's: Program -> Blocks -> Operators and Variables.

Block 0 is the global block; control-flow ops own sub-blocks (``sub_block`` attribute)
whose parent is the block holding the op. Operators name their inputs and outputs by
variable name per Paddle slot, carry fully typed attributes (schema defaults filled in)
and remember the user's source line that built them (Paddle's ``op_callstack``).
``Program.version`` changes on every edit so executors can cache compiled code.
"""
from __future__ import annotations

import contextlib
import copy
import itertools
import os
import sys
import threading

import numpy as np

from ..dtype import DType, convert_dtype, from_numpy_dtype
from ..ops.registry import Meta, lookup
from ..tensor import TensorMethods


class VarType:
    """``VarType.Type`` codes Paddle uses for variable kinds (framework.proto)."""
    LOD_TENSOR = 7          # a dense tensor (Paddle 3 calls it DENSE_TENSOR; same code)
    DENSE_TENSOR = 7
    SELECTED_ROWS = 8
    FEED_MINIBATCH = 9
    FETCH_LIST = 10
    STEP_SCOPES = 11
    LOD_TENSOR_ARRAY = 13
    READER = 15


_TYPE_NAMES = {7: "LOD_TENSOR", 9: "FEED_MINIBATCH", 10: "FETCH_LIST", 11: "STEP_SCOPES", 13: "LOD_TENSOR_ARRAY"}

# op roles, as Paddle's OpRole (only used to tell forward from backward/optimizer ops)
ROLE_FORWARD, ROLE_BACKWARD, ROLE_OPTIMIZE, ROLE_LOSS = 0, 1, 2, 256


class Variable(TensorMethods):
    """A named value in a Block: shape (list, -1 = unknown), dtype, persistable, stop_gradient.

    Tensor methods and operators work on Variables (they append ops); reading the value
    needs an Executor.
    """

    def __init__(self, block, name, shape=None, dtype=None, type=VarType.LOD_TENSOR,
                 persistable=False, stop_gradient=True, is_data=False, need_check_feed=False):
        self.block = block
        self.name = name
        self._shape = tuple(-1 if d is None else int(d) for d in (shape or ()))
        self._dtype = convert_dtype(dtype) if dtype is not None else convert_dtype("float32")
        self.type = type
        self.persistable = persistable
        self.stop_gradient = stop_gradient
        self.is_data = is_data
        self.need_check_feed = need_check_feed

    @property
    def desc(self):
        """Paddle's VarDesc methods over this Variable (``x.desc.set_need_check_feed(False)``)."""
        from .desc_view import VarDescView
        return VarDescView(self)

    @property
    def shape(self):
        return list(self._shape)

    @property
    def dtype(self) -> DType:
        return self._dtype

    @property
    def ndim(self):
        return len(self._shape)

    def dim(self):
        return len(self._shape)

    @property
    def size(self):
        """Element count as a 0-D int64 Variable (a ``size`` op), as Paddle's static ``x.size``
        is under to_static and in PIR programs (legacy Variables spell it ``x.size()``)."""
        from ..dispatch import run_op
        return run_op("size", self)

    @property
    def meta(self) -> Meta:
        return Meta(self._shape, self._dtype.np)

    @property
    def program(self):
        return self.block.program

    def _set_meta(self, shape, dtype):
        self._shape = tuple(int(d) for d in shape)
        self._dtype = dtype if isinstance(dtype, DType) else from_numpy_dtype(np.dtype(dtype))

    def numpy(self):
        raise TypeError(f"static Variable '{self.name}' has no value at build time; fetch it with "
                        "exe.run(program, feed=..., fetch_list=[var])")

    def _dygraph_only(self, api):
        raise AssertionError(f"'{api}' only can be called by `paddle.Tensor` in dynamic graph mode, not on the "
                             f"static Variable '{self.name}'. Suggestions:\n  1. In static graph mode, switch to "
                             "dynamic graph mode (paddle.disable_static()).\n  2. In @paddle.jit.to_static code, "
                             f"call paddle.jit.enable_to_static(False), or replace '{api}' with another API.")

    def clear_gradient(self, set_to_zero=True):
        self._dygraph_only("clear_gradient")

    def tolist(self):
        self._dygraph_only("tolist")

    def item(self, *args):
        raise TypeError(f"static Variable '{self.name}' has no value at build time; fetch it with "
                        "exe.run(program, feed=..., fetch_list=[var]) (in @paddle.jit.to_static code, "
                        "x.item() is the one-element Variable itself)")

    def __bool__(self):
        raise TypeError(f"the truth value of static Variable '{self.name}' is not known while the Program is "
                        "being built; use paddle.static.nn.cond / while_loop (or @paddle.jit.to_static) for "
                        "control flow on tensors")

    def __len__(self):
        if not self._shape or self._shape[0] < 0:
            raise TypeError(f"len() of static Variable '{self.name}' with shape {self.shape}: the first "
                            "dimension is unknown at build time; use paddle.shape(x)[0]")
        return self._shape[0]

    def __iter__(self):
        # without it Python iterates through __getitem__ until an IndexError, which a slice of an
        # unknown dimension never raises: iterating a None batch dim would trace forever
        for k in range(len(self)):
            yield self[k]

    def __hash__(self):
        return id(self)

    def __repr__(self):
        kind = _TYPE_NAMES.get(self.type, str(self.type))
        prefix = "persist " if self.persistable else ""
        if isinstance(self, Parameter):
            prefix += "trainable param " if self.trainable else "param "
        else:
            prefix += "var "
        if self.type in (VarType.LOD_TENSOR,):
            return (f"{prefix}{self.name} : {kind}.shape({', '.join(map(str, self._shape))}"
                    f"{',' if len(self._shape) == 1 else ''}).dtype({self._dtype.name})"
                    f".stop_gradient({self.stop_gradient})")
        return f"{prefix}{self.name} : {kind})"

    __str__ = __repr__

    def to_string(self, throw_on_error=False, with_details=False):
        return repr(self)

    def clone(self):
        from ..dispatch import run_op
        return run_op("assign", self)

    def detach(self):
        from ..dispatch import run_op
        out = run_op("assign", self)
        out.stop_gradient = True
        return out

    @property
    def grad_name(self):
        return self.name + "@GRAD"


class Parameter(Variable):
    """A persistable, trainable Variable in the global block (its value lives in the Scope)."""

    is_static_parameter = True   # lets nn.Layer register it like an eager Parameter

    def __init__(self, block, name, shape, dtype, trainable=True, initializer=None, optimize_attr=None,
                 regularizer=None, need_clip=True, do_model_average=False):
        super().__init__(block, name, shape, dtype, persistable=True, stop_gradient=not trainable)
        self.trainable = trainable
        self.initializer = initializer
        self.optimize_attr = optimize_attr or {"learning_rate": 1.0}
        self.regularizer = regularizer
        self.need_clip = need_clip
        self.do_model_average = do_model_average
        self.is_distributed = False


class Operator:
    """One op in a Block: Paddle op type, slot -> variable names, typed attrs, user call site."""

    __slots__ = ("block", "type", "inputs", "outputs", "attrs", "callstack", "role", "note", "__weakref__")

    def __init__(self, block, type, inputs, outputs, attrs, callstack=None, role=ROLE_FORWARD, note=None):
        self.block = block
        self.type = type
        self.inputs = inputs        # dict slot -> list[str]
        self.outputs = outputs      # dict slot -> list[str]
        self.attrs = attrs          # dict name -> value (every schema attr present)
        self.callstack = callstack or []
        self.role = role
        # what the user said about this op, shown when it fails (the message of a converted
        # ``assert``); kept in memory only: Paddle's op has no attribute for it
        self.note = note

    @property
    def opdef(self):
        return lookup(self.type)

    def input(self, slot):
        return self.inputs.get(slot, [])

    def output(self, slot):
        return self.outputs.get(slot, [])

    @property
    def input_arg_names(self):
        return [n for names in self.inputs.values() for n in names]

    @property
    def output_arg_names(self):
        return [n for names in self.outputs.values() for n in names]

    @property
    def input_names(self):
        return list(self.inputs)

    @property
    def output_names(self):
        return list(self.outputs)

    def attr(self, name):
        return self.attrs[name]

    def has_attr(self, name):
        return name in self.attrs

    def _set_attr(self, name, value):
        self.attrs[name] = value
        self.block.program._bump()

    def _rename_input(self, old, new):
        for names in self.inputs.values():
            for i, n in enumerate(names):
                if n == old:
                    names[i] = new

    def _rename_output(self, old, new):
        for names in self.outputs.values():
            for i, n in enumerate(names):
                if n == old:
                    names[i] = new

    def sub_block_ids(self):
        ids = []
        for name, (typ, _) in lookup(self.type).attrs.items():
            if typ == "BLOCK" and name in self.attrs and self.attrs[name] is not None:
                ids.append(self.attrs[name])
            elif typ == "BLOCKS":
                ids.extend(self.attrs.get(name) or [])
        return ids

    def user_location(self):
        """``file:line`` of the user code that built this op, or '' when unknown."""
        return self.callstack[0].split("\n")[0].strip() if self.callstack else ""

    def to_string(self, shapes=True):
        blk = self.block

        def fmt(slots):
            parts = []
            for slot, names in slots.items():
                if not names:
                    continue
                shown = []
                for n in names:
                    v = blk._find_var_recursive(n) if shapes else None
                    shown.append(f"{n}{v.shape}" if v is not None and v.type == VarType.LOD_TENSOR else n)
                parts.append(f"{slot}=[{', '.join(shown)}]")
            return ", ".join(parts)
        attrs = ", ".join(f"{k} = {_fmt_attr(v)}" for k, v in sorted(self.attrs.items()))
        return f"{{{fmt(self.outputs)}}} = {self.type}(inputs={{{fmt(self.inputs)}}}" + \
            (f", {attrs})" if attrs else ")")

    __str__ = to_string

    def __repr__(self):
        return f"<Operator {self.type}>"


def _fmt_attr(v):
    if isinstance(v, float):
        return repr(v)
    if isinstance(v, str):
        return v
    return str(v)


class Block:
    """Variables and ops of one scope level; ``parent_idx`` -1 for the global block."""

    def __init__(self, program, idx, parent_idx=-1):
        self.program = program
        self.idx = idx
        self.parent_idx = parent_idx
        self.forward_block_idx = -1
        self.vars: dict[str, Variable] = {}
        self.ops: list[Operator] = []

    @property
    def parent_block(self):
        return self.program.blocks[self.parent_idx] if self.parent_idx >= 0 else None

    def num_ops(self):
        """How many ops the block holds (a method, as on Paddle's PIR ``Block``)."""
        return len(self.ops)

    def create_var(self, name=None, shape=None, dtype=None, type=VarType.LOD_TENSOR, persistable=False,
                   stop_gradient=True, **kwargs):
        from .. import unique_name
        if name is None:
            name = unique_name.generate("_generated_var")
        if dtype is None:
            dtype = "float32"
        v = Variable(self, name, shape, dtype, type=type, persistable=persistable, stop_gradient=stop_gradient,
                     is_data=kwargs.get("is_data", False), need_check_feed=kwargs.get("need_check_feed", False))
        self.vars[name] = v
        self.program._bump()
        return v

    def create_parameter(self, name, shape, dtype="float32", **kwargs):
        """A Parameter in the global block (parameters always live there)."""
        gb = self.program.global_block()
        if name in gb.vars:
            raise ValueError(f"a variable named '{name}' already exists in the global block")
        p = Parameter(gb, name, shape, dtype, **kwargs)
        gb.vars[name] = p
        self.program._bump()
        return p

    def var(self, name):
        v = self.vars.get(name)
        if v is None:
            raise ValueError(f"variable '{name}' is not in block {self.idx}")
        return v

    def has_var(self, name):
        return name in self.vars

    def _find_var_recursive(self, name):
        blk = self
        while blk is not None:
            v = blk.vars.get(name)
            if v is not None:
                return v
            blk = blk.parent_block
        return None

    def _var_recursive(self, name):
        v = self._find_var_recursive(name)
        if v is None:
            raise ValueError(f"variable '{name}' is not defined in block {self.idx} or its ancestors")
        return v

    def all_parameters(self):
        return [v for v in self.vars.values() if isinstance(v, Parameter)]

    def append_op(self, type, inputs=None, outputs=None, attrs=None, role=None, callstack=None):
        """Paddle's ``block.append_op``: slots map to Variables (or names, or lists of them)."""
        op = Operator(self, type, _names(inputs), _names(outputs), lookup(type).full_attrs(attrs or {}),
                      callstack if callstack is not None else user_callstack(),
                      self.program._role if role is None else role)
        self.ops.append(op)
        self.program._bump()
        return op

    def _insert_op(self, index, op):
        self.ops.insert(index, op)
        self.program._bump()
        return op

    def _remove_op(self, index):
        del self.ops[index]
        self.program._bump()

    def _rename_var(self, old, new):
        v = self.vars.pop(old)
        v.name = new
        self.vars[new] = v
        for blk in self.program.blocks:
            for op in blk.ops:
                op._rename_input(old, new)
                op._rename_output(old, new)
        self.program._bump()
        return v

    def to_string(self, indent=0):
        pad = "    " * indent
        lines = [f"{pad}{{ // block_idx:{self.idx}  parent_idx:{self.parent_idx}  "
                 f"forward_idx:{self.forward_block_idx}  backward_idx:-1"]
        for v in self.vars.values():
            lines.append(f"{pad}    {v!r}")
        for op in self.ops:
            lines.append(f"{pad}    {op.to_string()}")
            for sub in op.sub_block_ids():
                lines.append(self.program.blocks[sub].to_string(indent + 1))
        lines.append(f"{pad}}}")
        return "\n".join(lines)

    __str__ = to_string

    def __repr__(self):
        return f"<Block {self.idx} ({len(self.ops)} ops)>"


def _names(slots):
    out = {}
    for slot, val in (slots or {}).items():
        if val is None:
            out[slot] = []
        elif isinstance(val, (list, tuple)):
            out[slot] = [v if isinstance(v, str) else v.name for v in val]
        else:
            out[slot] = [val if isinstance(val, str) else val.name]
    return out


class Program:
    """A whole static graph: blocks of ops. ``print(program)`` shows every block."""

    _ids = itertools.count()

    def __init__(self):
        self.blocks = [Block(self, 0)]
        self.current_block_idx = 0
        self.version = 0
        self.random_seed = 0
        self.id = next(Program._ids)
        self._role = ROLE_FORWARD
        self._is_test = False
        # eager tensors (parameters, buffers) a program built from eager code reads: name -> Tensor
        self._eager_bindings = {}
        # Python callables used by py_func ops, by id (kept with the program)
        self._py_funcs = {}

    def _bump(self):
        self.version += 1

    @staticmethod
    def parse_from_string(binary_str):
        """The Program of ProgramDesc bytes (``program.desc.serialize_to_string()`` or a .pdmodel's bytes)."""
        from ..formats.pdmodel import parse_program
        return parse_program(binary_str, "<Program.parse_from_string>")[0]

    @property
    def desc(self):
        """Paddle's ProgramDesc methods over this Program (``serialize_to_string``, ``num_blocks`` ...)."""
        from .desc_view import ProgramDescView
        return ProgramDescView(self)

    def global_block(self) -> Block:
        return self.blocks[0]

    def block(self, idx) -> Block:
        return self.blocks[idx]

    def current_block(self) -> Block:
        return self.blocks[self.current_block_idx]

    @property
    def num_blocks(self):
        return len(self.blocks)

    def _create_block(self, parent_idx=None) -> Block:
        parent = self.current_block_idx if parent_idx is None else parent_idx
        blk = Block(self, len(self.blocks), parent)
        self.blocks.append(blk)
        self.current_block_idx = blk.idx
        self._bump()
        return blk

    def _rollback(self):
        self.current_block_idx = self.current_block().parent_idx

    def list_vars(self):
        for blk in self.blocks:
            yield from blk.vars.values()

    def all_parameters(self):
        return self.global_block().all_parameters()

    def clone(self, for_test=False):
        """A deep copy; ``for_test`` keeps only forward ops and switches dropout/batch_norm to inference."""
        p = Program.__new__(Program)
        p.__dict__.update({k: v for k, v in self.__dict__.items() if k not in ("blocks",)})
        p.id = next(Program._ids)
        p._eager_bindings = dict(self._eager_bindings)
        p._py_funcs = dict(self._py_funcs)
        p.blocks = []
        for blk in self.blocks:
            nb = Block(p, blk.idx, blk.parent_idx)
            nb.forward_block_idx = blk.forward_block_idx
            for name, v in blk.vars.items():
                nv = copy.copy(v)
                nv.block = nb
                nb.vars[name] = nv
            for op in blk.ops:
                if for_test and op.role in (ROLE_BACKWARD, ROLE_OPTIMIZE):
                    continue
                attrs = copy.deepcopy(op.attrs)
                if for_test and "is_test" in attrs:
                    attrs["is_test"] = True
                nb.ops.append(Operator(nb, op.type, {k: list(v) for k, v in op.inputs.items()},
                                       {k: list(v) for k, v in op.outputs.items()}, attrs, list(op.callstack),
                                       op.role, op.note))
            p.blocks.append(nb)
        if for_test:
            p._is_test = True
            _drop_unused_grad_vars(p)
        p.version = 0
        return p

    def to_string(self, throw_on_error=False, with_details=False):
        # sub-blocks are printed under the op that owns them; blocks owned by no op follow
        owned = {sid for b in self.blocks for op in b.ops for sid in op.sub_block_ids()}
        return "\n".join(b.to_string() for b in self.blocks if b.idx not in owned)

    __str__ = to_string

    def __repr__(self):
        return f"<Program {self.id}: {self.num_blocks} block(s), {len(self.global_block().ops)} ops in block 0>"

    def verify(self):
        from .verify import verify_program
        verify_program(self)
        return True

    def _sync_with_cpp(self):
        pass


def _drop_unused_grad_vars(program):
    used = set()
    for blk in program.blocks:
        for op in blk.ops:
            used.update(op.input_arg_names)
            used.update(op.output_arg_names)
    for blk in program.blocks:
        for name in [n for n in blk.vars if n.endswith("@GRAD") and n not in used]:
            del blk.vars[name]


# -- default programs and program_guard -------------------------------------------------------------
# The default programs belong to the process (a static graph built in the main thread can be run
# from a worker); `program_guard` and a switch made inside one act on the calling thread only, so
# a to_static function tracing in one thread never appends ops to another thread's Program.

_main = [Program()]
_startup = [Program()]


class _Local(threading.local):
    def __init__(self):
        self.main = None        # this thread's program_guard programs; None: the process defaults
        self.startup = None


_local = _Local()


def default_main_program() -> Program:
    p = _local.main
    return _main[0] if p is None else p


def default_startup_program() -> Program:
    p = _local.startup
    return _startup[0] if p is None else p


def switch_main_program(program):
    """Make ``program`` the main program (of this thread inside a program_guard, else of the
    process); returns the one it replaces."""
    old = default_main_program()
    if _local.main is not None:
        _local.main = program
    else:
        _main[0] = program
    return old


def switch_startup_program(program):
    old = default_startup_program()
    if _local.main is not None or _local.startup is not None:     # inside a program_guard
        _local.startup = program
    else:
        _startup[0] = program
    return old


@contextlib.contextmanager
def program_guard(main_program, startup_program=None):
    """Build into ``main_program`` (and ``startup_program``) inside the block (in this thread)."""
    if not isinstance(main_program, Program):
        raise TypeError(f"program_guard: main_program must be a paddle.static.Program, got "
                        f"{type(main_program).__name__}")
    if startup_program is not None and not isinstance(startup_program, Program):
        raise TypeError(f"program_guard: startup_program must be a paddle.static.Program, got "
                        f"{type(startup_program).__name__}")
    prev = (_local.main, _local.startup)
    _local.main = main_program
    if startup_program is not None:
        _local.startup = startup_program
    try:
        yield
    finally:
        _local.main, _local.startup = prev


@contextlib.contextmanager
def op_role_guard(program, role):
    old = program._role
    program._role = role
    try:
        yield
    finally:
        program._role = old


# -- where did the user build this op? ----------------------------------------------------------------

_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
_INTERNAL = (os.path.join(_ROOT, "runtime") + os.sep, os.path.join(_ROOT, "dy2st") + os.sep)
_internal_files = {}


def _is_internal(filename):
    r = _internal_files.get(filename)
    if r is None:
        r = _internal_files[filename] = filename.startswith(_INTERNAL) or filename.startswith("<frozen")
    return r


def user_callstack(limit=1):
    """Paddle-style ``op_callstack`` entries for the innermost user frames (outside runtime/ and dy2st/)."""
    f = sys._getframe(1)
    out = []
    while f is not None and len(out) < limit:
        fn = f.f_code.co_filename
        if not _is_internal(fn):
            import linecache
            line = linecache.getline(fn, f.f_lineno).strip()
            out.append(f'  File "{fn}", line {f.f_lineno}, in {f.f_code.co_name}\n    {line}')
        f = f.f_back
    return out
