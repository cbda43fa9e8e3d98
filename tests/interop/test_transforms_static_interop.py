"""Differential test (against real Paddle 3.3.1) of paddle.vision.transforms on static-graph
Variables and of the gradients of the Tensor transforms that Paddle builds from ops: resize
(F.interpolate), hflip / vflip (flip), crop (slicing), rotate (grid_sample) and erase (set_value).
One Paddle subprocess for the module. A local test checks that static RandomHorizontalFlip /
RandomCrop / RandomRotation draw on every run (RandomCrop's offsets as Paddle's randint gives them),
and that the random transforms dy2st cannot draw inside a Program raise NotImplementedError instead
of fixing one draw into it.
"""
import textwrap

import numpy as np
import pytest

from .diff_prelude import PADDLE_MAIN, assert_same_as_paddle, with_helpers
from .paddle_runner import differential

CODE = with_helpers(textwrap.dedent('''
    import numpy as np

    def compute(paddle):
        out = {}
        h = diff_helpers(paddle, out, err_prefix="err.")
        T, put, err = h.T, h.put, h.err
        F = paddle.vision.transforms.functional
        TR = paddle.vision.transforms
        rng = np.random.default_rng(11)
        img = (rng.random((3, 12, 10)) * 255).astype("float32")

        # -- static Programs: the same transforms on a fed Variable
        cases = {
            "resize_int": lambda x: TR.Resize(6)(x),
            "resize_hw": lambda x: TR.Resize((7, 5))(x),
            "resize_nearest": lambda x: F.resize(x, (5, 8), "nearest"),
            "hflip1": lambda x: TR.RandomHorizontalFlip(1.0)(x),
            "vflip1": lambda x: TR.RandomVerticalFlip(1)(x),
            "vflip0": lambda x: TR.RandomVerticalFlip(0)(x),
            "crop": lambda x: F.crop(x, 2, 1, 6, 7),
            "center_crop": lambda x: TR.CenterCrop(5)(x),
            "random_crop_same": lambda x: TR.RandomCrop((12, 10))(x),
            # (Paddle's static rotate needs a Tensor angle: RandomRotation with equal bounds draws one)
            "rotate": lambda x: TR.RandomRotation((33.0, 33.0))(x),
            "rotate_expand_fill": lambda x: TR.RandomRotation((20.0, 20.0), expand=True, fill=3)(x),
            "rotate_bilinear": lambda x: TR.RandomRotation((-50.0, -50.0), interpolation="bilinear",
                                                           center=(3, 4))(x),
            "erase": lambda x: F.erase(x, 2, 3, 4, 5, 0.5),
        }
        paddle.enable_static()
        try:
            main = paddle.static.Program()
            with paddle.static.program_guard(main, paddle.static.Program()):
                x = paddle.static.data(name="img", shape=[3, 12, 10], dtype="float32")
                names, fetch = zip(*[(k, fn(x)) for k, fn in cases.items()])
            exe = paddle.static.Executor(paddle.CPUPlace())
            res = exe.run(main, feed={"img": img}, fetch_list=list(fetch))
            for k, v in zip(names, res):
                out["static." + k] = np.asarray(v)
            with paddle.static.program_guard(paddle.static.Program(), paddle.static.Program()):
                y = paddle.static.data(name="y", shape=[-1, -1, -1], dtype="float32")
                err("static.resize_unknown_size", lambda: TR.Resize(4)(y))
        finally:
            paddle.disable_static()

        # -- eager Tensors: values and gradients (float64)
        def g(name, fn):
            t = T(img / 255.0, grad=True)
            r = fn(t)
            put(name, r)
            w = np.random.default_rng(1).standard_normal(r.shape)
            (r * T(w)).sum().backward()
            put(name + ".grad", t.grad)

        g("grad.resize", lambda t: F.resize(t, (7, 6)))
        g("grad.resize_bicubic", lambda t: F.resize(t, 5, "bicubic"))
        g("grad.hflip", F.hflip)
        g("grad.vflip", F.vflip)
        g("grad.crop", lambda t: F.crop(t, 1, 2, 5, 4))
        g("grad.erase", lambda t: F.erase(t, 1, 2, 3, 3, 0.0))
        put("eager.resize_uint8", F.resize(paddle.to_tensor(img.astype("uint8")), (5, 4)))
        return out
'''))


@pytest.fixture(scope="module")
def both(tmp_path_factory):
    """Paddle runs with its default flags (PIR static mode: its transforms' static cond needs it), then ours."""
    return differential(CODE, PADDLE_MAIN, tmp_path_factory.mktemp("transforms_static"), "transforms static",
                        default_flags=True)


def test_same_results_and_errors(both):
    ours, theirs, dtypes = both
    # Paddle's float64 bilinear interpolation carries its float32 source-index weights (~2e-7 off)
    assert_same_as_paddle(ours, theirs, dtypes, tolerant={"grad.resize": 1e-6, "grad.resize.grad": 1e-6})


def test_static_random_flip_draws_per_run_and_random_params_refused():
    import dy2st as paddle
    TR = paddle.vision.transforms
    img = np.arange(24, dtype="float32").reshape(2, 3, 4)
    paddle.enable_static()
    try:
        main = paddle.static.Program()
        with paddle.static.program_guard(main, paddle.static.Program()):
            x = paddle.static.data(name="img", shape=[2, 3, 4], dtype="float32")
            y = TR.RandomHorizontalFlip(0.5)(x)
            c = TR.RandomCrop((2, 2))(x)
            r = TR.RandomRotation((30 - 1e-6, 30 + 1e-6), interpolation="bilinear", center=(1, 2))(x)
            for t in (TR.RandomResizedCrop(2), TR.RandomRotation(30, expand=True), TR.RandomErasing(prob=1),
                      TR.RandomAffine(10), TR.RandomPerspective(prob=1)):
                with pytest.raises(NotImplementedError, match="inside a static-graph Program"):
                    t(x)
        exe = paddle.static.Executor(paddle.CPUPlace())
        seen = {exe.run(main, feed={"img": img}, fetch_list=[y])[0].tobytes() for _ in range(40)}
        crops = {exe.run(main, feed={"img": img}, fetch_list=[c])[0].tobytes() for _ in range(40)}
        rotated = exe.run(main, feed={"img": img}, fetch_list=[r])[0]
    finally:
        paddle.disable_static()
    # the angle drawn in the Program (here within 1e-6 degrees of 30) rotates as the eager F.rotate does
    want = paddle.vision.transforms.functional.rotate(paddle.to_tensor(img), 30.0, "bilinear", center=(1, 2))
    np.testing.assert_allclose(rotated, want.numpy(), rtol=1e-4, atol=1e-3)
    assert seen == {img.tobytes(), img[..., ::-1].copy().tobytes()}
    # Paddle's static RandomCrop draws offsets with paddle.randint (high exclusive): rows 0 only, columns 0-1
    assert crops == {img[:, 0:2, j:j + 2].copy().tobytes() for j in (0, 1)}
