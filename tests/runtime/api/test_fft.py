"""``paddle.fft``, ``paddle.signal`` and the complex-number functions: the namespaces, dtype rules,
argument handling, numpy references for every transform, stft/istft against a direct computation,
the cases where we deliberately differ from Paddle 3.3.1 (its failures), and eager == static
Program == to_static (values and gradients) for a model using them.

The ops are covered by the op table (tests/runtime/ops/cases_fft.py, cases_complex.py) and real
Paddle's values and gradients by tests/interop/test_fft_interop.py.
"""
import numpy as np
import pytest

import dy2st
import runtime as paddle
from runtime import static

F = paddle.fft
S = paddle.signal
rng = np.random.default_rng(21)

# Paddle 3.3.1's paddle.fft.__all__ / paddle.signal.__all__ (read from Paddle)
PADDLE_FFT = ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft", "fft2", "ifft2", "rfft2", "irfft2", "hfft2", "ihfft2",
              "fftn", "ifftn", "rfftn", "irfftn", "hfftn", "ihfftn", "fftfreq", "rfftfreq", "fftshift", "ifftshift"]
PADDLE_SIGNAL = ["stft", "istft"]


def T(a, dtype=None, stop_gradient=True):
    a = np.asarray(a)
    return paddle.to_tensor(a if dtype is None else a.astype(dtype), stop_gradient=stop_gradient)


def r(*s):
    return rng.uniform(-1, 1, s)


def c(*s):
    return r(*s) + 1j * r(*s)


def test_namespaces_match_paddle():
    assert sorted(F.__all__) == sorted(PADDLE_FFT)
    assert sorted(S.__all__) == sorted(PADDLE_SIGNAL)
    assert dy2st.fft is F and dy2st.signal is S
    import dy2st.fft as dfft
    import dy2st.signal as dsig
    assert dfft.rfft is F.rfft and dsig.frame is S.frame and dsig.overlap_add is S.overlap_add
    for name in ("real", "imag", "conj", "angle", "complex", "as_real", "as_complex", "is_complex"):
        assert callable(getattr(dy2st, name)), name


# every 1-D transform against numpy, over n / axis / norm
_NP_1D = {"fft": (np.fft.fft, c), "ifft": (np.fft.ifft, c), "rfft": (np.fft.rfft, r), "irfft": (np.fft.irfft, c),
          "hfft": (np.fft.hfft, c), "ihfft": (np.fft.ihfft, r)}


@pytest.mark.parametrize("name", sorted(_NP_1D))
@pytest.mark.parametrize("n,axis,norm", [(None, -1, "backward"), (7, 0, "ortho"), (4, 1, "forward"),
                                         (10, -2, "backward")])
def test_1d_transforms_match_numpy(name, n, axis, norm):
    ref_fn, make = _NP_1D[name]
    x = make(5, 6)
    got = getattr(F, name)(T(x), n=n, axis=axis, norm=norm).numpy()
    np.testing.assert_allclose(got, ref_fn(x, n=n, axis=axis, norm=norm), rtol=1e-10, atol=1e-12)


_NP_ND = {"fftn": (np.fft.fftn, c), "ifftn": (np.fft.ifftn, c), "rfftn": (np.fft.rfftn, r),
          "irfftn": (np.fft.irfftn, c), "fft2": (np.fft.fft2, c), "ifft2": (np.fft.ifft2, c),
          "rfft2": (np.fft.rfft2, r), "irfft2": (np.fft.irfft2, c)}


@pytest.mark.parametrize("name", sorted(_NP_ND))
@pytest.mark.parametrize("s,axes,norm", [(None, None, "backward"), ([3, 6], [0, 2], "ortho"),
                                         ([5, 4], [-1, 1], "forward"), ([4, 3], None, "backward")])
def test_nd_transforms_match_numpy(name, s, axes, norm):
    ref_fn, make = _NP_ND[name]
    x = make(3, 4, 5)
    if name.endswith("2") and axes is None:
        kw = {} if s is None else {"s": s}   # the 2-D forms default to the last two axes
    else:
        kw = {"s": s, "axes": axes}
    got = getattr(F, name)(T(x), norm=norm, **kw).numpy()
    ref_kw = dict(kw)
    if ref_kw.get("axes") is None and ref_kw.get("s") is not None:
        ref_kw["axes"] = list(range(x.ndim - len(s), x.ndim))   # Paddle's rule, numpy 2 wants it spelled out
    np.testing.assert_allclose(got, ref_fn(x, norm=norm, **ref_kw), rtol=1e-10, atol=1e-12)


def test_hermitian_nd_transforms_match_their_definitions():
    # numpy has no hfftn / ihfftn: hfftn(x) = irfftn(conj(x)) * N and ihfftn(x) = conj(rfftn(x)) / N
    z, x = c(3, 4, 3), r(3, 4, 5)
    np.testing.assert_allclose(F.hfftn(T(z), axes=[0, 2]).numpy(),
                               np.fft.irfftn(np.conj(z), axes=[0, 2], norm="forward"), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(F.hfft2(T(z), s=[4, 6], norm="ortho").numpy(),
                               np.fft.irfft2(np.conj(z), s=[4, 6], norm="ortho"), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(F.ihfftn(T(x), s=[2, 6]).numpy(),
                               np.conj(np.fft.rfftn(x, s=[2, 6], axes=[1, 2], norm="forward")), rtol=1e-10,
                               atol=1e-12)
    np.testing.assert_allclose(F.ihfft2(T(x), axes=(0, 1)).numpy(),
                               np.conj(np.fft.rfft2(x, axes=(0, 1), norm="forward")), rtol=1e-10, atol=1e-12)


def test_dtypes_follow_paddle():
    assert F.fft(T(r(4), "float32")).dtype == paddle.complex64
    assert F.fft(T(r(4))).dtype == paddle.complex128
    assert F.rfft(T(np.arange(4))).dtype == paddle.complex64        # integers: the default float dtype
    assert F.irfft(T(r(3), "float32")).dtype == paddle.float32     # real input cast to complex64 first
    assert F.irfft(T(c(3), "complex64")).dtype == paddle.float32
    assert F.hfft(T(c(3))).dtype == paddle.float64
    assert F.fftfreq(4).dtype == paddle.float32 and F.rfftfreq(4, dtype="float64").dtype == paddle.float64
    paddle.set_default_dtype("float64")
    try:
        assert F.fft(T(np.arange(4))).dtype == paddle.complex128
        assert F.fftfreq(4).dtype == paddle.float64
    finally:
        paddle.set_default_dtype("float32")


def test_freqs_and_shifts_match_numpy():
    np.testing.assert_allclose(F.fftfreq(9, 0.3).numpy(), np.fft.fftfreq(9, 0.3), rtol=1e-6)
    np.testing.assert_allclose(F.rfftfreq(10, 2.0, dtype="float64").numpy(), np.fft.rfftfreq(10, 2.0))
    x = r(4, 5, 3)
    # one axis, as an int, [k] or (k,), and 1-D inputs: Paddle 3.3.1 raises there (SystemError from roll
    # with a one-element shifts tensor, ValueError for [-1]); we give numpy's result
    for axes in (None, 1, [2], (0,), [-1], [0, 2], (2, 1, 0)):
        np.testing.assert_array_equal(F.fftshift(T(x), axes=axes).numpy(), np.fft.fftshift(x, axes=axes))
        np.testing.assert_array_equal(F.ifftshift(T(x), axes=axes).numpy(), np.fft.ifftshift(x, axes=axes))
    np.testing.assert_array_equal(F.fftshift(T(np.arange(7))).numpy(), np.fft.fftshift(np.arange(7)))
    f = F.fftfreq(6, requires_grad=True)
    assert not f.stop_gradient and F.rfftfreq(6).stop_gradient
    # a negative n gives an empty result as in Paddle (a float arange whose step points away from its end)
    assert F.fftfreq(-4).shape == [0] and paddle.arange(2.0, -2.0).shape == [0]
    np.testing.assert_allclose(paddle.arange(2.0, -2.0, -1.5).numpy(), [2.0, 0.5, -1.0])


def test_aliases_out_and_argument_errors():
    z = c(3, 4)
    np.testing.assert_allclose(F.fft(input=T(z), dim=0).numpy(), np.fft.fft(z, axis=0))
    np.testing.assert_allclose(F.fftn(input=T(z), dim=[1]).numpy(), np.fft.fftn(z, axes=[1]))
    np.testing.assert_allclose(F.fftshift(input=T(z), dim=[0]).numpy(), np.fft.fftshift(z, axes=[0]))
    dest = T(np.zeros((3, 4), np.complex128))
    res = F.ifft(T(z), out=dest)
    np.testing.assert_allclose(dest.numpy(), np.fft.ifft(z))
    np.testing.assert_allclose(res.numpy(), dest.numpy())
    with pytest.raises(ValueError, match="Unexpected norm: bogus"):
        F.fft(T(z), norm="bogus")
    with pytest.raises(ValueError, match="should be positive"):
        F.rfft(T(r(4)), n=-2)
    with pytest.raises(ValueError, match="should be an integer"):
        F.fft(T(z), n=np.int64(3))   # Paddle wants a Python int
    with pytest.raises(ValueError, match=r"Invalid FFT axis \(2\)"):
        F.fft(T(z), axis=2)
    with pytest.raises(ValueError, match="does not match"):
        F.fftn(T(c(2, 3, 4)), s=[2, 2], axes=[0])
    with pytest.raises(ValueError, match="sequence of 2 integers"):
        F.rfft2(T(r(3, 4)), axes=[0])
    with pytest.raises(ValueError, match="should >= 2"):
        F.ifft2(T(c(4)))
    with pytest.raises(ValueError, match="d or n should not be 0"):
        F.rfftfreq(4, 0.0)
    with pytest.raises(RuntimeError, match="complex64 or complex128"):
        paddle.real(T(r(3)))


def _stft_reference(x, n_fft, hop, win, center, pad_mode, normalized):
    """stft by hand: pad, slice frames, window, rfft (numpy), frequencies first."""
    if center:
        x = np.pad(x, [(0, 0), (n_fft // 2, n_fft // 2)], mode=pad_mode)
    n = 1 + (x.shape[-1] - n_fft) // hop
    frames = np.stack([x[:, j * hop:j * hop + n_fft] for j in range(n)], axis=1) * win
    spec = np.fft.rfft(frames, axis=-1, norm="ortho" if normalized else "backward")
    return np.swapaxes(spec, 1, 2)


@pytest.mark.parametrize("center,pad_mode,normalized,win_length", [
    (True, "reflect", False, 14), (True, "constant", True, 14),
    # without centring the first and last samples must be covered by non-zero window values (NOLA)
    (False, "reflect", False, 16)])
def test_stft_matches_a_direct_computation_and_istft_inverts_it(center, pad_mode, normalized, win_length):
    x = r(2, 50)
    win = 0.2 + np.hanning(win_length)
    left = (16 - win_length) // 2
    full = np.pad(win, (left, 16 - win_length - left))   # the window centred in n_fft 16
    spec = S.stft(T(x), 16, hop_length=4, win_length=win_length, window=T(win), center=center, pad_mode=pad_mode,
                  normalized=normalized)
    np.testing.assert_allclose(spec.numpy(), _stft_reference(x, 16, 4, full, center, pad_mode, normalized),
                               rtol=1e-10, atol=1e-12)
    back = S.istft(spec, 16, hop_length=4, win_length=win_length, window=T(win), center=center, normalized=normalized,
                   length=50 if center else None)
    covered = back.shape[-1]
    np.testing.assert_allclose(back.numpy(), x[:, :covered], rtol=1e-9, atol=1e-10)


def test_signal_frame_overlap_add_and_errors():
    x = r(3, 11)
    fr = S.frame(T(x), 4, 3)
    assert fr.shape == [3, 4, 3]
    np.testing.assert_array_equal(fr.numpy()[:, :, 2], x[:, 6:10])
    ones = S.overlap_add(paddle.ones([4, 3]), 2)
    # 3 frames of 4 every 2 samples cover 0-3, 2-5, 4-7: each output counts the frames covering it
    np.testing.assert_array_equal(ones.numpy(), [1, 1, 2, 2, 2, 2, 1, 1])
    with pytest.raises(ValueError, match="Unexpected axis"):
        S.frame(T(x), 4, 3, axis=1)
    with pytest.raises(ValueError, match="less equal than sequence length"):
        S.frame(T(x), 12, 3)
    with pytest.raises(AssertionError, match="n_fft should be in"):
        S.stft(T(x), 16)
    with pytest.raises(AssertionError, match="onesided should be False"):
        S.stft(T(c(1, 20)), 8, onesided=True)
    with pytest.raises(ValueError, match="NOLA"):
        # frames every 8 samples whose window is zero in its second half leave samples nothing covers
        S.istft(S.stft(T(r(40)), 8, hop_length=8), 8, hop_length=8, window=T(np.r_[np.ones(4), np.zeros(4)]))


def test_complex_tensor_methods():
    z = c(2, 3)
    t = T(z)
    np.testing.assert_array_equal(t.real().numpy(), z.real)
    np.testing.assert_array_equal(t.imag().numpy(), z.imag)
    np.testing.assert_array_equal(t.conj().numpy(), np.conj(z))
    np.testing.assert_allclose(t.angle().numpy(), np.angle(z))
    np.testing.assert_array_equal(t.as_real().numpy(), np.stack([z.real, z.imag], -1))
    np.testing.assert_array_equal(t.as_real().as_complex().numpy(), z)
    assert t.is_complex() and not T(r(2)).is_complex() and paddle.is_complex(t)
    np.testing.assert_array_equal(paddle.complex(T(z.real), T(z.imag)).numpy(), z)
    with pytest.raises(ValueError, match="same dtype"):
        paddle.complex(T(r(2)), T(r(2), "float32"))


def test_gradients_through_complex_tensors():
    # Parseval: sum |fft(x)|^2 = n * sum(x^2), so the gradient is 2 n x (through abs, pow and a complex output)
    x = r(2, 6)
    t = T(x, stop_gradient=False)
    (paddle.abs(F.fft(t)) ** 2).sum().backward()
    np.testing.assert_allclose(t.grad.numpy(), 2 * 6 * x, rtol=1e-10)
    assert t.grad.dtype == paddle.float64   # a real input gets a real gradient

    z = c(3, 5)
    tz = T(z, stop_gradient=False)
    w = c(3, 8)
    # a complex input: Paddle's gradient dL/dRe + i dL/dIm, measured by central differences on numpy's irfft
    loss = (F.irfft(tz, n=8) * T(w.real)).sum()
    loss.backward()
    eps = 1e-6
    num = np.zeros_like(z)
    for idx in np.ndindex(z.shape):
        for unit in (1, 1j):
            d = np.zeros_like(z)
            d[idx] = eps * unit
            f = (np.sum(np.fft.irfft(z + d, n=8) * w.real) - np.sum(np.fft.irfft(z - d, n=8) * w.real)) / (2 * eps)
            num[idx] += f * unit
    np.testing.assert_allclose(tz.grad.numpy(), num, rtol=1e-6, atol=1e-8)


def _model(x, w):
    spec = F.rfft(x, n=10, norm="ortho")
    z = paddle.complex(x, x * 0.5)
    return [paddle.abs(spec) * 2.0, F.irfft(spec * paddle.cast(w, "complex128"), n=10),
            paddle.real(F.fftn(z, s=[3, 6])), F.fftshift(paddle.imag(F.ifft2(z)), axes=[1, 0]),
            F.hfft(spec[:, :4], n=6, norm="forward"), S.stft(x[0], 4, hop_length=2).abs()]


def test_eager_static_and_to_static_agree():
    xv, wv = r(3, 8), r(6)
    eager = [t.numpy() for t in _model(T(xv), T(wv))]

    main = static.Program()
    paddle.enable_static()
    try:
        with static.program_guard(main, static.Program()):
            xs = static.data("x", [3, 8], "float64")
            ws = static.data("w", [6], "float64")
            outs = _model(xs, ws)
            for o, e in zip(outs, eager):
                assert list(o.shape) == list(e.shape), (o.shape, e.shape)
        main.verify()
        got = static.Executor().run(main, feed={"x": xv, "w": wv}, fetch_list=outs)
    finally:
        paddle.disable_static()
    for k, (e, s) in enumerate(zip(eager, got)):
        np.testing.assert_allclose(s, e, rtol=1e-10, atol=1e-12, err_msg=f"static output {k}")

    fn = dy2st.jit.to_static(_model)
    conv = [t.numpy() for t in fn(T(xv), T(wv))]
    for k, (e, cv) in enumerate(zip(eager, conv)):
        np.testing.assert_allclose(cv, e, rtol=1e-10, atol=1e-12, err_msg=f"to_static output {k}")


def _loss(x, w):
    return sum((o * o).sum() if o.dtype != paddle.float64 else (o * 1.5).sum() for o in _model(x, w)[:5])


def test_static_and_to_static_gradients_equal_eager():
    xv, wv = r(3, 8), r(6)
    x, w = T(xv, stop_gradient=False), T(wv, stop_gradient=False)
    _loss(x, w).backward()

    main = static.Program()
    paddle.enable_static()
    try:
        with static.program_guard(main, static.Program()):
            xs = static.data("x", [3, 8], "float64")
            ws = static.data("w", [6], "float64")
            xs.stop_gradient = ws.stop_gradient = False
            gx, gw = static.gradients(_loss(xs, ws), [xs, ws])
        got = static.Executor().run(main, feed={"x": xv, "w": wv}, fetch_list=[gx, gw])
    finally:
        paddle.disable_static()
    np.testing.assert_allclose(got[0], x.grad.numpy(), rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(got[1], w.grad.numpy(), rtol=1e-9, atol=1e-12)

    x2, w2 = T(xv, stop_gradient=False), T(wv, stop_gradient=False)
    dy2st.jit.to_static(_loss)(x2, w2).backward()
    np.testing.assert_allclose(x2.grad.numpy(), x.grad.numpy(), rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(w2.grad.numpy(), w.grad.numpy(), rtol=1e-9, atol=1e-12)


def test_unknown_dims_in_static_programs():
    paddle.enable_static()
    try:
        main = static.Program()
        with static.program_guard(main, static.Program()):
            x = static.data("x", [None, 8], "float32")
            y = F.rfft(x)
            z = F.irfft(y, n=8)
            sh = F.fftshift(x)           # the batch size is read at run time (shape op)
            st = S.stft(x, 4, hop_length=2)
            assert list(y.shape) == [-1, 5] and list(z.shape) == [-1, 8] and list(st.shape) == [-1, 3, 5]
            assert y.dtype == paddle.complex64 and z.dtype == paddle.float32
        xv = r(5, 8).astype("float32")
        got = static.Executor().run(main, feed={"x": xv}, fetch_list=[y, z, sh, st])
    finally:
        paddle.disable_static()
    np.testing.assert_allclose(got[0], np.fft.rfft(xv), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(got[1], xv, rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(got[2], np.fft.fftshift(xv))
    assert got[3].shape == (5, 3, 5)


def test_istft_refuses_a_real_input_only_in_static_programs():
    # Paddle's dtype check runs only when building a static program; eager fft_c2r casts the input
    out = S.istft(T(r(2, 5, 3) + 0.5), 8, hop_length=2)
    assert out.dtype == paddle.float64
    paddle.enable_static()
    try:
        with static.program_guard(static.Program(), static.Program()):
            with pytest.raises(TypeError, match="complex64"):
                S.istft(static.data("s", [5, 3], "float64"), 8, hop_length=2)
    finally:
        paddle.disable_static()


def test_complex_product_and_quotient_grads_also_with_create_graph():
    # the fast grad ops and the differentiable (create_graph) rules both conjugate the other factor
    z, w = c(3), c(3)

    def f(v):
        return np.real(v * w / (v + 2)).sum()

    eps = 1e-6
    num = np.array([(f(z + eps * u) - f(z - eps * u)) / (2 * eps) + 1j * (f(z + 1j * eps * u) - f(z - 1j * eps * u))
                    / (2 * eps) for u in np.eye(3)])
    for create_graph in (False, True):
        x = T(z, stop_gradient=False)
        (g,) = paddle.grad(paddle.real(x * T(w) / (x + 2)).sum(), x, create_graph=create_graph)
        np.testing.assert_allclose(g.numpy(), num, rtol=1e-6, atol=1e-8, err_msg=f"create_graph={create_graph}")
