"""``paddle.utils.run_check`` (train a tiny network in static and dynamic mode and check the numbers) and
``paddle.utils.require_version`` (check the Paddle API version this package follows)."""
from __future__ import annotations

import re

import numpy as np

__all__ = ["run_check", "require_version"]


def _check(what, got, want):
    got, want = np.asarray(got), np.asarray(want)
    if got.shape != want.shape or not np.allclose(got, want, rtol=1e-5, atol=1e-6):
        raise RuntimeError(f"run_check: {what} is {got.tolist()}, expected {want.tolist()}: this installation "
                           "computes wrong results; reinstall the package (pip install -e .) and report it")


def _data():
    return np.array([[0.5, -1.0], [2.0, 0.25], [-0.75, 1.5]], dtype=np.float32)


def _run_static():
    import dy2st as paddle
    x_np = _data()
    paddle.enable_static()
    try:
        with paddle.static.scope_guard(paddle.static.Scope()):
            main, startup = paddle.static.Program(), paddle.static.Program()
            with paddle.static.program_guard(main, startup):
                x = paddle.static.data(name="x", shape=[-1, 2], dtype="float32")
                w = paddle.static.create_parameter(
                    shape=[2, 4], dtype="float32", name="run_check_w",
                    default_initializer=paddle.nn.initializer.Constant(0.5))
                out = paddle.sum(paddle.matmul(x, w))
                grads = paddle.static.append_backward(out, parameter_list=[w])
            exe = paddle.static.Executor(paddle.CPUPlace())
            exe.run(startup)
            loss, w_grad = exe.run(main, feed={"x": x_np}, fetch_list=[out, grads[0][1]])
    finally:
        paddle.disable_static()
    _check("the static program's output", loss, (x_np @ np.full((2, 4), 0.5, np.float32)).sum())
    _check("the static program's weight gradient", w_grad, np.repeat(x_np.sum(0)[:, None], 4, axis=1))


def _run_dygraph():
    import dy2st as paddle
    x_np = _data()
    linear = paddle.nn.Linear(2, 4, weight_attr=paddle.ParamAttr(initializer=paddle.nn.initializer.Constant(0.5)),
                              bias_attr=paddle.ParamAttr(initializer=paddle.nn.initializer.Constant(1.0)))
    out = paddle.sum(linear(paddle.to_tensor(x_np)))
    out.backward()
    _check("the dynamic-mode output", out.numpy(), (x_np @ np.full((2, 4), 0.5, np.float32) + 1.0).sum())
    _check("the dynamic-mode weight gradient", linear.weight.grad.numpy(), np.repeat(x_np.sum(0)[:, None], 4, 1))
    opt = paddle.optimizer.SGD(learning_rate=0.1, parameters=linear.parameters())
    opt.step()
    _check("the weight after one SGD step", linear.weight.numpy(), 0.5 - 0.1 * np.repeat(x_np.sum(0)[:, None], 4, 1))


def run_check():
    """Check that the package works: a tiny network's forward, backward and an optimizer step, in static
    and in dynamic mode, checked against numpy; prints Paddle's lines (a wrong number raises RuntimeError)."""
    print("Running verify PaddlePaddle program ... ")
    _run_static()
    _run_dygraph()
    print("PaddlePaddle works well on 1 CPU.")
    print("PaddlePaddle is installed successfully! Let's start deep learning with PaddlePaddle now.")


_VERSION = re.compile(r"\d+(\.\d+){0,3}")


def require_version(min_version, max_version=None):
    """Raise unless the Paddle API version this package follows (``paddle.version.paddle_api_version``,
    not dy2st's own number) is in ``[min_version, max_version]``."""
    if not isinstance(min_version, str):
        raise TypeError(f"The type of 'min_version' in require_version must be str, but received {type(min_version)}.")
    if not isinstance(max_version, (str, type(None))):
        raise TypeError("The type of 'max_version' in require_version must be str or type(None), but received "
                        f"{type(max_version)}.")
    for what, v in (("min_version", min_version), ("max_version", max_version)):
        if v is not None:
            m = _VERSION.match(v)
            if m is None or m.group() != v:
                raise ValueError(f"The value of '{what}' in require_version must be in format '\\d+(\\.\\d+){{0,3}}', "
                                 f"like '1.5.2.0', but received {v}")
    from .. import version
    installed = version.paddle_api_version

    def parts(v):
        p = [int(x) for x in v.split(".")]
        return p + [0] * (4 - len(p))

    have = parts(installed)
    if max_version is not None:
        if have > parts(max_version) or have < parts(min_version):
            raise Exception(f"VersionError: PaddlePaddle version in [{min_version}, {max_version}] required, but "
                            f"{installed} installed.")
    elif have < parts(min_version):
        raise Exception(f"VersionError: PaddlePaddle version {min_version} or higher is required, but {installed} "
                        f"installed, please upgrade your PaddlePaddle to {min_version} or other higher version.")

