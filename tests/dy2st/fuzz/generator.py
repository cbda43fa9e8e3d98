"""Random small functions (as source text) for differential fuzzing of to_static.

Every generated function has the signature ``f(x, y, m, n, flag)``: ``x``/``y`` float tensors of
one shape and dtype, ``m`` a small int64 tensor (a loop bound), ``n`` a Python int and ``flag`` a
Python bool. Bodies mix if/elif/else, while (bounded by a tensor or Python counter incremented
first thing in the body), for over ``range(int)`` and ``range(tensor)``, break, continue, early
return (inside ifs and loops), nested loops, and/or/not and ternaries. Predicates are tensor
reductions compared with constants, tensor counters, or Python values, so different inputs take
different paths. Every path returns the same structure (one or two float tensors).

Optional features (each on for a share of programs): ``box`` / ``nest`` dicts changed by item
assignment; a list ``lst`` of tensors changed with append / pop (with and without index, guarded by
``len(lst) > 1`` so it never empties) / insert / extend / item assignment anywhere, including tensor
loops and branches (a tensor array there), its stacked mean added to every return; ``acc``, a
Python int that tensor loops turn into a float tensor (dtype-changing loop state), added to every
return; ``for k, row in enumerate(x)`` and ``for a, b in zip(x, y)`` loops when ``x`` has a first dim;
names bound on only some paths through a tensor loop (``p<k>``: first bound in its body, or in one branch of
an if there) and read after it — where the run did not bind it, eager Python raises UnboundLocalError
and the converted function must fail too, with its clear run-time error.

`generate(choices)` builds a `Program` from any `Choices` source: `RandomChoices` (plain Python,
seeded) or `programs()` (a hypothesis strategy drawing each choice, so failures shrink).
"""
from __future__ import annotations

import random

FLOAT_SHAPES = ([], [1], [2, 3])
FLOAT_DTYPES = ("float32", "float64")
THRESHOLDS = ("-0.5", "0.0", "0.3", "1.0")
SCALES = ("0.5", "-0.5", "1.5", "2.0")
# Use the Python int counter ``cnt`` in float arithmetic too. Off: ``cnt`` modified under tensor
# control flow becomes an int64 tensor (as in Paddle's AST mode), and float32 * int64 tensor then
# differs from float32 * int eagerly (real Paddle 3.3.1 raises TypeError for it; our runtime
# silently promotes to float64). An inherent AST-mode difference, not a converter bug.
INT_ARITH = False


class Choices:
    """Where the generator's decisions come from."""

    def int(self, lo, hi):          # inclusive
        raise NotImplementedError

    def choice(self, seq):
        return seq[self.int(0, len(seq) - 1)]

    def chance(self, percent):
        return self.int(0, 99) < percent

    def weighted(self, table):
        """``table``: list of (weight, value); weights are ints."""
        total = sum(w for w, _ in table)
        k = self.int(0, total - 1)
        for w, v in table:
            if k < w:
                return v
            k -= w
        return table[-1][1]


class RandomChoices(Choices):
    def __init__(self, seed):
        self.rng = random.Random(seed)

    def int(self, lo, hi):
        return self.rng.randint(lo, hi)


class Program:
    """One generated function: ``source`` defines ``name``; inputs are described by the rest."""

    def __init__(self, name, source, shape, dtype, m_shape, arity):
        self.name, self.source, self.shape, self.dtype, self.m_shape, self.arity = \
            name, source, shape, dtype, m_shape, arity

    def __repr__(self):
        return f"Program({self.name}, shape={self.shape}, dtype={self.dtype})\n{self.source}"


class _Scope:
    """What a block may read: float tensors, Python ints safe in arithmetic, ints and tensor ints
    for predicates; and whether break/continue are allowed (inside a loop)."""

    def __init__(self, floats, scal, pyints, tints, in_loop, depth, no_if=True):
        self.floats, self.scal, self.pyints, self.tints = list(floats), list(scal), list(pyints), list(tints)
        self.in_loop, self.depth = in_loop, depth
        # outside every if: ``acc`` (int before its loop, float after) may change here. Changed in one
        # branch of a tensor if it would be an int64 tensor in one branch and a float one in the other,
        # which a Program cannot merge (refused clearly; Paddle refuses it too)
        self.no_if = no_if

    def child(self, in_loop=None, depth_inc=1, in_if=True):
        return _Scope(self.floats, self.scal, self.pyints, self.tints,
                      self.in_loop if in_loop is None else in_loop, self.depth + depth_inc,
                      self.no_if and not (in_if and in_loop is None))


class _Gen:
    def __init__(self, c, name, max_stmts, max_depth):
        self.c = c
        self.name = name
        self.budget = max_stmts
        self.max_depth = max_depth
        self.counter = 0
        self.lines = []
        self.arity = 1
        self.int_arith = INT_ARITH
        self.containers = False
        self.lists = False
        self.acc = False
        self.rows = False       # x / y have a first dim: enumerate / zip over them
        self.shape = []

    def fresh(self, kind):
        self.counter += 1
        return f"{kind}{self.counter}"

    def emit(self, indent, text):
        self.lines.append("    " * indent + text)

    # -- expressions --------------------------------------------------------------------------------
    def var(self, sc):
        return self.c.choice(sc.floats)

    def fexpr(self, sc, depth=0):
        c = self.c
        kinds = [(3, "var"), (2, "add"), (2, "sub"), (2, "scale"), (1, "addc"), (2, "tanhmul"), (1, "tanh"),
                 (1, "sin")]
        if sc.scal:
            kinds.append((1, "pyint"))
        if depth == 0:
            kinds.append((1, "ternary"))
        k = c.weighted(kinds)
        if k == "var":
            return self.var(sc)
        if k == "add":
            return f"{self.var(sc)} + {self.var(sc)}"
        if k == "sub":
            return f"{self.var(sc)} - {self.var(sc)}"
        if k == "scale":
            return f"{self.var(sc)} * {c.choice(SCALES)}"
        if k == "addc":
            return f"{self.var(sc)} + {c.choice(SCALES)}"
        if k == "tanhmul":
            return f"paddle.tanh({self.var(sc)} * {self.var(sc)})"
        if k == "tanh":
            return f"paddle.tanh({self.var(sc)})"
        if k == "sin":
            return f"paddle.sin({self.var(sc)})"
        if k == "pyint":
            return f"{self.var(sc)} * {c.choice(sc.scal)}"
        return f"({self.fexpr(sc, 1)} if {self.pred(sc, 1)} else {self.fexpr(sc, 1)})"

    def tensor_pred(self, sc):
        c = self.c
        kinds = [(3, "mean"), (2, "sum"), (1, "max")]
        if sc.tints:
            kinds.append((2, "tint"))
        k = c.weighted(kinds)
        op = c.choice((">", "<"))
        if k == "mean":
            return f"paddle.mean({self.var(sc)}) {op} {c.choice(THRESHOLDS)}"
        if k == "sum":
            return f"{self.var(sc)}.sum() {op} {c.choice(THRESHOLDS)}"
        if k == "max":
            return f"paddle.max({self.var(sc)}) {op} {c.choice(THRESHOLDS)}"
        return f"{c.choice(sc.tints)} {c.choice(('>', '<', '=='))} {c.int(0, 2)}"

    def python_pred(self, sc):
        c = self.c
        k = c.weighted([(2, "n"), (1, "flag"), (1, "notflag"), (2, "int")])
        if k == "n":
            return f"n > {c.int(0, 2)}"
        if k == "flag":
            return "flag"
        if k == "notflag":
            return "not flag"
        v = c.choice(sc.pyints)
        return f"{v} % 2 == 0" if c.chance(50) else f"{v} < {c.int(0, 3)}"

    def pred(self, sc, depth=0):
        c = self.c
        table = [(5, "tensor"), (3, "python")]
        if depth == 0:
            table += [(1, "and"), (1, "or"), (1, "not")]
        k = c.weighted(table)
        if k == "tensor":
            return self.tensor_pred(sc)
        if k == "python":
            return self.python_pred(sc)
        if k == "not":
            return f"not ({self.pred(sc, 1)})"
        return f"({self.pred(sc, 1)}) {k} ({self.pred(sc, 1)})"

    def ret_value(self, sc):
        vals = [self.fexpr(sc) for _ in range(self.arity)]
        if self.lists:
            vals[0] = f"({vals[0]}) + paddle.stack(lst).mean(0)"
        if self.acc:
            vals[0] = f"({vals[0]}) + acc"
        return ", ".join(vals)

    def list_stmt(self, sc, indent):
        c = self.c
        k = c.weighted([(3, "append"), (2, "pop"), (2, "pop0"), (2, "insert"), (2, "extend"), (3, "setitem")])
        if k == "append":
            self.emit(indent, f"lst.append({self.fexpr(sc)})")
        elif k in ("pop", "pop0"):
            # never empties it (the returns stack it); under a tensor loop len() is a tensor: a tensor if
            self.emit(indent, "if len(lst) > 1:")
            self.emit(indent + 1, "lst.pop()" if k == "pop" else f"lst.pop({c.choice(('0', '1', '-2'))})")
        elif k == "insert":
            self.emit(indent, f"lst.insert({c.choice(('0', '1', '-1'))}, {self.fexpr(sc)})")
        elif k == "extend":
            self.emit(indent, f"lst.extend([{self.fexpr(sc)}, {self.fexpr(sc)}])")
        else:
            self.emit(indent, f"lst[{c.choice(('0', '-1'))}] = {self.fexpr(sc)}")

    # -- statements ---------------------------------------------------------------------------------
    def block(self, sc, indent, n_min=1, n_max=3, prelude=None):
        """Emit a block; returns True when it ends with a jump (break/continue/return)."""
        if prelude:
            for line in prelude:
                self.emit(indent, line)
        n = self.c.int(n_min, n_max)
        emitted = bool(prelude)
        for _ in range(n):
            if self.budget <= 0 and emitted:
                break
            ended = self.stmt(sc, indent)
            emitted = True
            if ended:
                return True
        if not emitted:
            self.emit(indent, "pass")
        return False

    def stmt(self, sc, indent):
        c = self.c
        self.budget -= 1
        nested_ok = sc.depth < self.max_depth and self.budget > 0
        table = [(4, "assign"), (1, "aug"), (1, "cnt"), (1, "temp")]
        if nested_ok:
            table += [(4, "if"), (2, "while_t"), (1, "while_py"), (1, "for_py"), (2, "for_t"), (1, "while_true"),
                      (1, "def_both"), (1, "bind_in_loop")]
        # programs with ``lst`` or ``acc`` have no jumps: the flags of a break / continue / return wrap the
        # rest in a tensor if, and a tensor loop there would turn the list into a tensor array (or ``acc``
        # into a float) in one branch only, which is refused clearly (a Program cannot merge a list with
        # a tensor array, nor an int64 tensor with a float one; Paddle refuses both too)
        jumps = not (self.lists or self.acc)
        if sc.in_loop and jumps:
            table += [(2, "break"), (2, "continue")]
        if sc.depth > 0 and jumps:
            table += [(1, "return")]
        if not jumps:
            table = [(w, k) for w, k in table if k != "while_true"]
        if self.containers and not sc.in_loop:
            table += [(2, "nest")]
        if self.lists and sc.no_if:
            table += [(4, "list")]
        if self.acc and sc.in_loop and sc.no_if:
            table += [(2, "acc")]
        if self.rows and nested_ok:
            table += [(1, "enumerate"), (1, "zip")]
        k = c.weighted(table)
        if k == "list":
            self.list_stmt(sc, indent)
        elif k == "acc":
            self.emit(indent, f"acc = acc + {self.var(sc)}.sum() * {c.choice(SCALES)}")
        elif k == "enumerate":
            kv, row = self.fresh("k"), self.fresh("row")
            self.emit(indent, f"for {kv}, {row} in enumerate({c.choice(('x', 'y'))}):")
            target = c.choice(["s", "t"])
            inner = sc.child(in_loop=True)
            inner.tints.append(kv)
            self.block(inner, indent + 1, prelude=[f"{target} = {target} + {row} * ({kv} + 1)"])
        elif k == "zip":
            a, b = self.fresh("a"), self.fresh("b")
            self.emit(indent, f"for {a}, {b} in zip(x, {c.choice(('y', 's', 't'))}):")
            target = c.choice(["s", "t"])
            self.block(sc.child(in_loop=True), indent + 1, prelude=[f"{target} = {target} + {a} * {b}"])
        elif k == "nest":
            self.emit(indent, f"nest['l'][0] = {self.fexpr(sc)}")
        elif k == "assign":
            target = c.choice([v for v in sc.floats if not v.startswith("nest")])
            e = self.fexpr(sc)
            self.emit(indent, f"{target} = {e}")
        elif k == "aug":
            target = c.choice([v for v in sc.floats if not v.startswith("nest")])
            self.emit(indent, f"{target} {c.choice(('+=', '-='))} {self.var(sc)}")
        elif k == "cnt":
            self.emit(indent, f"cnt {c.choice(('+= 1', '+= 2', '-= 1'))}")
        elif k == "temp":
            name = self.fresh("u")
            note = ": paddle.Tensor" if c.chance(30) else ""     # annotated names convert too
            self.emit(indent, f"{name}{note} = {self.fexpr(sc)}")
            sc.floats.append(name)        # readable by the rest of this block only
        elif k == "if":
            self.if_stmt(sc, indent)
        elif k == "while_t":
            i = self.fresh("i")
            start = c.choice(("paddle.zeros([1], dtype='int64')", "paddle.to_tensor(0)",
                              "paddle.full([], 0, dtype='int64')"))
            self.emit(indent, f"{i} = {start}")
            test = f"{i} < {c.int(1, 3)}"
            if c.chance(30):
                test = f"{test} and {self.pred(sc, 1)}"
            self.emit(indent, f"while {test}:")
            inner = sc.child(in_loop=True)
            inner.tints.append(i)
            self.block(inner, indent + 1, prelude=[f"{i} = {i} + 1"])
        elif k == "while_py":
            j = self.fresh("j")
            self.emit(indent, f"{j} = 0")
            test = f"{j} < {c.int(1, 3)}"
            if c.chance(40):
                test = f"{test} and {self.pred(sc, 1)}"
            self.emit(indent, f"while {test}:")
            inner = sc.child(in_loop=True)
            inner.pyints.append(j)
            self.block(inner, indent + 1, prelude=[f"{j} += 1"])
        elif k == "while_true":
            # ``while True`` ending by a counter break: Python at first, staged once the flag is a tensor
            if c.chance(60):
                i = self.fresh("i")
                self.emit(indent, f"{i} = paddle.zeros([1], dtype='int64')")
                inc, bound = f"{i} = {i} + 1", f"{i} > {c.int(0, 2)}"
                inner = sc.child(in_loop=True)
                inner.tints.append(i)
            else:
                i = self.fresh("j")
                self.emit(indent, f"{i} = 0")
                inc, bound = f"{i} += 1", f"{i} > {c.int(0, 2)}"
                inner = sc.child(in_loop=True)
                inner.pyints.append(i)
            self.emit(indent, "while True:")
            self.block(inner, indent + 1, prelude=[inc, f"if {bound}:", "    break"])
        elif k == "def_both":
            # a new name bound in every branch of an if, used after it
            name = self.fresh("w")
            self.emit(indent, f"if {self.pred(sc)}:")
            self.emit(indent + 1, f"{name} = {self.fexpr(sc)}")
            for _ in range(c.int(0, 1)):
                self.emit(indent, f"elif {self.pred(sc)}:")
                self.emit(indent + 1, f"{name} = {self.fexpr(sc)}")
            self.emit(indent, "else:")
            self.emit(indent + 1, f"{name} = {self.fexpr(sc)}")
            sc.floats.append(name)
        elif k == "bind_in_loop":
            self.bind_in_loop(sc, indent)
        elif k == "for_py":
            kv = self.fresh("k")
            self.emit(indent, f"for {kv} in range({c.choice(('n', str(c.int(0, 3))))}):")
            inner = sc.child(in_loop=True)
            inner.scal.append(kv)
            inner.pyints.append(kv)
            self.block(inner, indent + 1)
        elif k == "for_t":
            kv = self.fresh("k")
            bound = c.choice(("m", f"paddle.to_tensor({c.int(0, 3)})", "m + 1"))
            self.emit(indent, f"for {kv} in range({bound}):")
            inner = sc.child(in_loop=True)
            inner.tints.append(kv)
            self.block(inner, indent + 1)
        elif k in ("break", "continue"):
            if c.chance(70):
                self.emit(indent, f"if {self.pred(sc)}:")
                self.emit(indent + 1, k)
                if c.chance(30):
                    self.emit(indent, "else:")
                    self.block(sc.child(), indent + 1, 1, 2)
            else:
                self.emit(indent, k)
                return True
        elif k == "return":
            self.emit(indent, f"return {self.ret_value(sc)}")
            return True
        return False

    def bind_in_loop(self, sc, indent):
        """A name first bound inside a tensor loop (in its body, or in one branch of an if there, or of
        an if in a nested loop) and readable after the loop: bound on some paths only."""
        c = self.c
        name = self.fresh("p")
        if c.chance(50):
            i = self.fresh("i")
            self.emit(indent, f"{i} = paddle.zeros([1], dtype='int64')")
            self.emit(indent, f"while {i} < {c.int(1, 3)}:")
            inner = sc.child(in_loop=True)
            inner.tints.append(i)
            prelude = [f"{i} = {i} + 1"]
        else:
            kv = self.fresh("k")
            self.emit(indent, f"for {kv} in range({c.choice(('m', 'm + 1'))}):")
            inner = sc.child(in_loop=True)
            inner.tints.append(kv)
            prelude = []
        for line in prelude:
            self.emit(indent + 1, line)
        if c.chance(30) and self.block(inner, indent + 1, 0, 1):
            return      # the block ended with a jump: a binding after it would be dead code
        how = c.weighted([(3, "if"), (1, "body"), (1, "else")])
        if how == "body":
            self.emit(indent + 1, f"{name} = {self.fexpr(inner)}")
        else:
            self.emit(indent + 1, f"if {self.tensor_pred(inner)}:")
            if how == "if":
                self.emit(indent + 2, f"{name} = {self.fexpr(inner)}")
            else:
                self.block(inner.child(), indent + 2, 1, 1)
                self.emit(indent + 1, "else:")
                self.emit(indent + 2, f"{name} = {self.fexpr(inner)}")
        if c.chance(30):
            self.block(inner, indent + 1, 0, 1)
        sc.floats.append(name)

    def if_stmt(self, sc, indent):
        c = self.c
        self.emit(indent, f"if {self.pred(sc)}:")
        self.block(sc.child(), indent + 1)
        while c.chance(25):
            self.emit(indent, f"elif {self.pred(sc)}:")
            self.block(sc.child(), indent + 1)
        if c.chance(55):
            self.emit(indent, "else:")
            self.block(sc.child(), indent + 1)

    def function(self):
        c = self.c
        self.arity = 2 if c.chance(20) else 1
        self.emit(0, f"def {self.name}(x, y, m, n, flag):")
        self.emit(1, f"s = x * {c.choice(SCALES)}")
        self.emit(1, f"t = y + {c.choice(SCALES)}")
        self.emit(1, "cnt = 0")
        scal = ["n", "cnt"] if self.int_arith else ["n"]
        floats = ["x", "y", "s", "t"]
        self.containers = c.chance(35)
        if self.containers:
            # Python containers holding tensors: ``box`` is rebound by item assignment (branch and
            # loop state), ``nest``'s inner list is changed in place (merged item by item after a
            # tensor if; refused in a tensor loop body, so only assigned outside loops)
            self.emit(1, f"box = {{'v': x * {c.choice(SCALES)}, 'k': 1}}")
            self.emit(1, f"nest = {{'l': [y * {c.choice(SCALES)}]}}")
            floats += ["box['v']", "nest['l'][0]"]
        self.lists = c.chance(22)
        if self.lists:
            self.emit(1, f"lst = [x * {c.choice(SCALES)}]")
        self.acc = c.chance(15)
        if self.acc:
            self.emit(1, "acc = 0")
        self.rows = bool(self.shape) and c.chance(40)
        sc = _Scope(floats, scal, ["n", "cnt"], ["m"], False, 0)
        ended = False
        while self.budget > 0 and not ended:
            ended = self.stmt(sc, 1)
        if not ended:
            self.emit(1, f"return {self.ret_value(sc)}")
        return "\n".join(self.lines) + "\n"


def generate(choices, name="f", max_stmts=None, max_depth=3):
    """One random `Program` named ``name``."""
    c = choices
    if max_stmts is None:
        max_stmts = c.int(3, 12)
    shape = c.choice(FLOAT_SHAPES)
    dtype = c.choice(FLOAT_DTYPES)
    m_shape = c.choice(([], [1]))
    g = _Gen(c, name, max_stmts, max_depth)
    g.shape = list(shape)
    src = g.function()
    return Program(name, src, list(shape), dtype, list(m_shape), g.arity)


def generate_batch(seed, count, prefix="f"):
    """``count`` programs from one seed, named ``{prefix}{k}``."""
    rc = RandomChoices(seed)
    return [generate(rc, f"{prefix}{k}") for k in range(count)]


def programs(max_stmts=None, max_depth=3):
    """A hypothesis strategy of `Program` s (each choice is a drawn integer: failures shrink)."""
    from hypothesis import strategies as st

    class _Draw(Choices):
        def __init__(self, draw):
            self.draw = draw

        def int(self, lo, hi):
            return self.draw(st.integers(lo, hi))

    @st.composite
    def _programs(draw):
        return generate(_Draw(draw), "f", max_stmts, max_depth)
    return _programs()
