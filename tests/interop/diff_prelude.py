"""The helpers of the differential tests' ``CODE`` (``T``, ``put``, ``grad``, ``err``, ``inplace``), written once.

A differential test runs the same ``CODE`` text twice: in real Paddle's subprocess and here with ``import
dy2st as paddle``. ``with_helpers(code)`` puts ``HELPERS`` (source text defining ``diff_helpers``) in front of
it, so both runs use one copy; inside ``compute(paddle)``::

    out = {}
    T, put, grad, err, inplace = diff_helpers(paddle, out, err_prefix="err.")

``PADDLE_MAIN`` is the usual Paddle-side tail: it runs ``compute(paddle)`` and writes ``paddle_out.npz`` and
``dtypes.json`` for `paddle_runner.differential`.
"""
import textwrap

HELPERS = textwrap.dedent('''
    import collections as _collections

    import numpy as np

    DiffHelpers = _collections.namedtuple("DiffHelpers", "T put grad err inplace")


    def diff_helpers(paddle, out, *, err_prefix="", lists="split", grad="terms", grad_seed=3):
        """The helpers, each writing results into ``out`` (name -> ndarray).

        ``T(a, dt=None, grad=False)``: a tensor of ``a`` (float64, complex128 for complex data, unless ``dt``).
        ``put(name, v)``: stores a tensor / array / scalar; None as the string "None"; a sparse tensor as its
        parts; a tuple or list element-wise as ``name.0``, ``name.1`` ... -- except with ``lists="scalars"``
        (a list of Python numbers is one array), ``lists="ints"`` (a list of ints is one int64 array) and
        ``lists="flat"`` (no splitting at all: ``np.asarray(v)``).
        ``grad(name, fn, *arrays, ...)``: the gradients of a random weighted sum of ``fn``'s outputs w.r.t.
        every input, as ``name.grad<i>``. ``grad="terms"``: every float output of ``fn`` counts, weights
        from ``default_rng(weights_seed)`` (``grad_seed`` unless given) in float64; ``grad="weighted"``: ``fn``
        returns one tensor, also stored as ``name``, weights from ``default_rng(0)`` in ``dt``.
        ``err(name, fn)``: the class names of the exception ``fn`` raises (or "no error"), stored as
        ``err_prefix + name``.
        ``inplace(name, fn, x, *args)``: ``fn`` on a clone of ``x``; the clone afterwards, and whether ``fn``
        returned that same object (``name.same``).
        """
        if lists not in ("split", "scalars", "ints", "flat") or grad not in ("terms", "weighted"):
            raise ValueError(f"diff_helpers: unknown lists={lists!r} or grad={grad!r}")

        def T(a, dt=None, grad=False):
            a = np.asarray(a)
            if dt is None:
                dt = "complex128" if a.dtype.kind == "c" else "float64"
            return paddle.to_tensor(a.astype(dt), stop_gradient=not grad)

        def put(name, v):
            if lists == "flat":
                out[name] = v.numpy() if hasattr(v, "numpy") else np.asarray(v)
            elif isinstance(v, (tuple, list)):
                if lists == "scalars" and v and isinstance(v[0], (int, float, bool)):
                    out[name] = np.asarray(v)
                elif lists == "ints" and v and isinstance(v[0], int):
                    out[name] = np.asarray(v, dtype="int64")
                else:
                    for i, t in enumerate(v):
                        put(f"{name}.{i}", t)
            elif v is None:           # e.g. no gradient (Paddle defines none for this input)
                out[name] = np.array("None")
            elif hasattr(v, "is_sparse") and v.is_sparse():
                out[name + ".shape"] = np.asarray(list(v.shape), np.int64)
                out[name + ".values"] = v.values().numpy()
                out[name + ".nnz"] = np.asarray(v.nnz())
                if v.is_sparse_coo():
                    out[name + ".indices"] = v.indices().numpy()
                else:
                    out[name + ".crows"] = v.crows().numpy()
                    out[name + ".cols"] = v.cols().numpy()
                out[name + ".dense"] = v.to_dense().numpy()
            else:
                out[name] = v.numpy() if hasattr(v, "numpy") else np.asarray(v)

        def grad_terms(name, fn, *arrays, weights_seed=grad_seed):
            xs = [T(a, grad=True) for a in arrays]
            res = fn(*xs)
            res = res if isinstance(res, (tuple, list)) else [res]
            w = np.random.default_rng(weights_seed)
            loss = None
            for t in res:
                if "float" not in str(t.dtype):
                    continue
                term = (t * paddle.to_tensor(w.standard_normal(t.shape))).sum()
                loss = term if loss is None else loss + term
            loss.backward()
            for i, x in enumerate(xs):
                put(f"{name}.grad{i}", x.grad)

        def grad_weighted(name, fn, *arrays, dt="float64"):
            xs = [T(a, dt, grad=True) for a in arrays]
            res = fn(*xs)
            put(name, res)
            w = np.random.default_rng(0).standard_normal(res.shape).astype(dt)
            (res * paddle.to_tensor(w)).sum().backward()
            for i, x in enumerate(xs):
                put(f"{name}.grad{i}", x.grad)

        def err(name, fn):
            try:
                fn()
                out[err_prefix + name] = np.array("no error")
            except Exception as e:   # the exception's classes are compared (ours must be one of Paddle's)
                out[err_prefix + name] = np.array(",".join(c.__name__ for c in type(e).__mro__))

        def inplace(name, fn, x, *args):
            t = x.clone()
            r = fn(t, *args)
            put(name, t)
            put(name + ".same", np.array(r is t))

        return DiffHelpers(T, put, grad_terms if grad == "terms" else grad_weighted, err, inplace)

''')

PADDLE_MAIN = textwrap.dedent('''
    import json
    paddle.set_device("cpu")
    res = compute(paddle)
    np.savez("paddle_out.npz", **{k: v for k, v in res.items()})
    json.dump({k: str(v.dtype) for k, v in res.items()}, open("dtypes.json", "w"))
''')


def with_helpers(code):
    """``code`` (a differential test's ``CODE``) with the helpers' source in front."""
    return HELPERS + code


def assert_same_as_paddle(ours, theirs, dtypes, tolerant=None, double_tol=1e-9):
    """The check a differential test ends with: the same result names as Paddle's and no result differing
    in shape, dtype, value (``tolerant``: name -> relative tolerance) or exception class."""
    from .paddle_runner import differences
    assert sorted(ours) == sorted(theirs)
    bad = differences(ours, theirs, dtypes, tolerant, double_tol=double_tol)
    assert not bad, "differences from Paddle:\n" + "\n".join(bad)
