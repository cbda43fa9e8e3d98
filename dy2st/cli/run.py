"""``dy2st run``: run a saved model (``paddle.jit.load``) on ``.npy`` inputs; print or save the outputs."""
from __future__ import annotations

import os
import re

from ._common import CLIError, fmt_shape, model_prefix, var_desc

NAME = "run"
HELP = "run a saved model on .npy inputs and print (or save) its outputs"
DESCRIPTION = ("Load PREFIX.pdmodel/.pdiparams (ours or PaddlePaddle's) with paddle.jit.load, feed it arrays from "
               ".npy files and print each output's name, dtype, shape and values (numpy printing, shortened for big "
               "arrays), or save them as .npy files with --output.")
EXAMPLES = """\
examples:
  dy2st run build/mlp --input x=batch.npy
  dy2st run build/mlp --input batch.npy                 # a model with one input: the name may be left out
  dy2st run build/pair --input x=x.npy --input y=y.npy --output results/
  python -c "import numpy as np; np.save('batch.npy', np.random.rand(2, 784).astype('float32'))"
"""


def add_arguments(p):
    p.add_argument("model", metavar="PREFIX", help="the model: PREFIX, PREFIX.pdmodel, or a directory holding one "
                   ".pdmodel")
    p.add_argument("-i", "--input", action="append", default=[], metavar="NAME=FILE.npy",
                   help="an input array (np.save); repeat for each input; NAME= may be left out for a "
                        "one-input model")
    p.add_argument("-o", "--output", metavar="DIR", help="save each output as DIR/<output name>.npy instead of "
                   "printing its values")
    p.add_argument("--full", action="store_true", help="print every value (no '...' for big arrays)")


def _read_inputs(entries, feed_names, feed_vars):
    import numpy as np
    if not entries:
        raise CLIError(f"no inputs given; the model takes {_list(feed_names, feed_vars)}: pass --input NAME=FILE.npy",
                       code=2)
    given = {}
    for k, entry in enumerate(entries):
        name, sep, path = entry.partition("=")
        if not sep:
            name, path = None, entry
        elif not name:
            raise CLIError(f"--input '{entry}': the name before '=' is empty; expected NAME=FILE.npy", code=2)
        if name is None:
            if len(feed_names) != 1:
                raise CLIError(f"--input {entry}: the model has {len(feed_names)} inputs "
                               f"({', '.join(feed_names)}); name each one: --input NAME=FILE.npy", code=2)
            name = feed_names[0]
        if name not in feed_names:
            raise CLIError(f"--input {entry}: the model has no input '{name}'; its inputs are "
                           f"{_list(feed_names, feed_vars)}")
        if name in given:
            raise CLIError(f"--input {entry}: input '{name}' is given twice", code=2)
        if not os.path.exists(path):
            raise CLIError(f"input file not found: {path}")
        with open(path, "rb") as f:
            magic = f.read(6)
        if magic != b"\x93NUMPY":
            raise CLIError(f"{path} is not a .npy file; write each input with numpy.save(path, array)")
        try:
            arr = np.load(path, allow_pickle=False)
        except Exception as e:
            raise CLIError(f"cannot read {path} as a .npy array ({type(e).__name__}: {e}); write it with "
                           "numpy.save") from None
        v = feed_vars[feed_names.index(name)]
        want = list(v.shape)
        if arr.ndim != len(want) or any(d >= 0 and d != s for d, s in zip(want, arr.shape)):
            raise CLIError(f"{path}: shape {list(arr.shape)} does not fit input '{name}' {var_desc(v)} "
                           "(None: any size)")
        if arr.dtype != v.dtype.np:
            raise CLIError(f"{path}: dtype {arr.dtype} does not match input '{name}' {var_desc(v)}; save it with "
                           f".astype('{v.dtype.name}')")
        given[name] = arr
    missing = [n for n in feed_names if n not in given]
    if missing:
        raise CLIError(f"missing input(s) {', '.join(missing)}; the model takes {_list(feed_names, feed_vars)}",
                       code=2)
    return [given[n] for n in feed_names]


def _list(names, vs):
    return ", ".join(f"{n} {var_desc(v)}" for n, v in zip(names, vs))


def _file_name(name, taken):
    base = re.sub(r"[^A-Za-z0-9_.-]", "_", name) or "output"
    cand, k = base, 1
    while cand in taken:
        k += 1
        cand = f"{base}_{k}"
    taken.add(cand)
    return cand + ".npy"


def run(args, ui):
    import numpy as np

    from .. import jit, no_grad
    prefix = model_prefix(args.model)
    ui.progress(f"loading {prefix}")
    layer = jit.load(prefix)
    arrays = _read_inputs(args.input, layer._feed_names, layer._feed_vars)
    ui.progress("running")
    with no_grad():
        outs = layer(*arrays)
    outs = outs if isinstance(outs, list) else [outs]
    results = [np.asarray(o.numpy()) for o in outs]
    names = layer._fetch_names
    if args.output:
        os.makedirs(args.output, exist_ok=True)
        taken = set()
        for k, (n, a) in enumerate(zip(names, results)):
            path = os.path.join(args.output, _file_name(n, taken))
            np.save(path, a)
            ui.print(f"output {k} {n}: {a.dtype}{fmt_shape(a.shape)} -> {path}")
        return 0
    opts = {"threshold": np.inf} if args.full else {"threshold": 200, "edgeitems": 3}
    with np.printoptions(**opts):
        for k, (n, a) in enumerate(zip(names, results)):
            if k:
                ui.print()
            ui.print(f"output {k} {n}: {a.dtype}{fmt_shape(a.shape)}")
            ui.print(np.array2string(a, separator=", ") if a.ndim else repr(a.item()))
    return 0
