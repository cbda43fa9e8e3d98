"""Table rows for the complex-number ops (real, imag, conj, angle, complex, as_real, as_complex) and
for the complex forms of abs, the holomorphic unary functions, matmul_v2, elementwise_mul and elementwise_div
(their gradients conjugate, as Paddle's do). Complex inputs are grad-checked part by part
(dL/dRe + i dL/dIm, see op_harness)."""
import numpy as np

from .op_harness import OpCase

rng = np.random.default_rng(5)


def r(*shape):
    return rng.uniform(-1, 1, shape)


def c(*shape):
    # kept away from 0 so abs / angle / division are smooth where the differences probe them
    mag = rng.uniform(0.5, 1.5, shape)
    return mag * np.exp(1j * rng.uniform(-3, 3, shape))


CASES = [
    OpCase("real", {"X": c(2, 3)}, lambda X: X.real, grad=("X",)),
    OpCase("imag", {"X": c(2, 3)}, lambda X: X.imag, grad=("X",)),
    OpCase("conj", {"X": c(2, 3)}, lambda X: X.real - 1j * X.imag, grad=("X",)),
    OpCase("conj", {"X": r(4)}, lambda X: X, name="real_input"),
    OpCase("conj", {"X": rng.integers(-3, 3, (4,))}, lambda X: X, name="int"),
    OpCase("angle", {"X": c(2, 3)}, lambda X: np.arctan2(X.imag, X.real), grad=("X",)),
    OpCase("angle", {"X": np.array([-1.5, -0.3, 0.4, 2.0])}, lambda X: np.array([np.pi, np.pi, 0, 0]),
           name="real_input"),
    # -0.0 gives 0 (Paddle's x < 0 test), not atan2's pi; the step at 0 has no finite difference
    OpCase("angle", {"X": np.array([-0.0, 0.0])}, lambda X: np.zeros(2), name="signed_zero", check_grad=False),
    OpCase("complex", {"X": r(2, 3), "Y": r(3)}, lambda X, Y: X + 1j * Y),
    OpCase("complex", {"X": r(2, 1).astype(np.float32), "Y": r(1, 3).astype(np.float32)},
           lambda X, Y: (X + 1j * Y).astype(np.complex64), name="f32", check_grad=False),
    OpCase("as_real", {"X": c(2, 3)}, lambda X: np.stack([X.real, X.imag], -1), grad=("X",)),
    OpCase("as_complex", {"X": r(3, 2)}, lambda X: X[:, 0] + 1j * X[:, 1]),
    OpCase("abs", {"X": c(2, 3)}, lambda X: np.sqrt(X.real ** 2 + X.imag ** 2), name="complex", grad=("X",)),
    OpCase("abs", {"X": c(3).astype(np.complex64)}, lambda X: np.sqrt(X.real ** 2 + X.imag ** 2).astype(np.float32),
           name="complex64", check_grad=False, rtol=1e-5),
    # holomorphic unary functions: the gradient is dout * conj(f'(x))
    *[OpCase(op, {"X": c(2, 3)}, lambda X, f=ref: f(X), name="complex", grad=("X",)) for op, ref in (
        ("exp", np.exp), ("log", np.log), ("sqrt", np.sqrt), ("square", np.square), ("sin", np.sin),
        ("cos", np.cos), ("tan", np.tan), ("atan", np.arctan), ("sinh", np.sinh), ("cosh", np.cosh),
        ("reciprocal", lambda X: 1 / X), ("log1p", np.log1p), ("expm1", np.expm1), ("log10", np.log10))],
    OpCase("matmul_v2", {"X": c(2, 3), "Y": c(4, 3)}, lambda X, Y, trans_y: X @ Y.T, attrs={"trans_y": True},
           name="complex", grad=("X", "Y")),
    OpCase("matmul_v2", {"X": c(2, 2, 3), "Y": c(3)}, lambda X, Y: X @ Y, name="complex_batched_vector",
           grad=("X", "Y")),
    OpCase("elementwise_mul", {"X": c(2, 3), "Y": c(3)}, lambda X, Y: X * Y, name="complex", grad=("X", "Y")),
    OpCase("elementwise_mul", {"X": r(2, 3), "Y": c(2, 3)}, lambda X, Y: X * Y, name="real_by_complex",
           grad=("X", "Y")),
    OpCase("elementwise_div", {"X": c(2, 3), "Y": c(2, 3)}, lambda X, Y: X / Y, name="complex", grad=("X", "Y")),
    OpCase("elementwise_add", {"X": c(2, 3), "Y": r(3)}, lambda X, Y: X + Y, name="complex_plus_real",
           grad=("X", "Y")),
]
