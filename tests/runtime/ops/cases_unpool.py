"""Table rows for unpool and unpool3d: the reference writes each input value at its flat index of a
zero output plane, one element at a time in input order (later writes win)."""
import numpy as np

from .op_harness import OpCase

rng = np.random.default_rng(71)


def unpool_ref(X, Indices, output_size=(), **_):
    N, C = X.shape[:2]
    out = np.zeros((N, C, int(np.prod(output_size))), dtype=X.dtype)
    for n in range(N):
        for c in range(C):
            for v, i in zip(X[n, c].reshape(-1), Indices[n, c].reshape(-1)):
                out[n, c, i] = v
    return out.reshape((N, C) + tuple(output_size))


def window_argmax_indices(shape, k, out_spatial):
    """Indices as a max pool with kernel = stride = k gives them: one random position per window."""
    idx = np.zeros(shape, dtype=np.int32)
    for pos in np.ndindex(*shape[2:]):
        offs = [rng.integers(0, kk) for kk in k]
        coords = [p * kk + o for p, kk, o in zip(pos, k, offs)]
        flat = int(np.ravel_multi_index(coords, out_spatial))
        idx[(slice(None), slice(None)) + pos] = flat
    return idx


CASES = [
    OpCase("unpool", {"X": rng.uniform(-1, 1, (2, 3, 2, 3)), "Indices": window_argmax_indices((2, 3, 2, 3), (2, 2),
                                                                                              (4, 6))},
           unpool_ref, attrs={"ksize": [2, 2], "strides": [2, 2], "output_size": [4, 6]}),
    OpCase("unpool", {"X": rng.uniform(-1, 1, (1, 2, 2, 2)), "Indices": window_argmax_indices((1, 2, 2, 2), (2, 2),
                                                                                              (5, 5))},
           unpool_ref, name="odd_output", attrs={"ksize": [2, 2], "strides": [2, 2], "output_size": [5, 5]}),
    OpCase("unpool", {"X": np.ones((1, 1, 1, 2)), "Indices": np.array([[[[3, 3]]]], np.int32)}, unpool_ref,
           name="duplicate_index_last_wins", check_grad=False,
           attrs={"ksize": [2, 2], "strides": [2, 2], "output_size": [2, 2]}),
    OpCase("unpool3d", {"X": rng.uniform(-1, 1, (1, 2, 2, 1, 2)),
                        "Indices": window_argmax_indices((1, 2, 2, 1, 2), (2, 2, 2), (4, 2, 4))},
           unpool_ref, attrs={"ksize": [2, 2, 2], "strides": [2, 2, 2], "output_size": [4, 2, 4]}),
]
