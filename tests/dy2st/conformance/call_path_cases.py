"""Cases of the to_static call path run by both dy2st and real Paddle (test_call_path_paddle.py).

`run(paddle)` takes the framework module (``dy2st`` or ``paddle``), so that one file serves both
sides: Paddle imports it in its subprocess, dy2st in the test process. Every case's result is
plain JSON (output stop_gradient flags, or the error type and message), compared as they are.
"""
from __future__ import annotations


def _flags(out):
    outs = out if isinstance(out, (tuple, list)) else (out,)
    return [bool(o.stop_gradient) for o in outs]


def _error(thunk):
    try:
        thunk()
    except Exception as e:   # noqa: BLE001 -- the type and message are the result
        return ["raise", type(e).__name__, str(e).splitlines()[0] if str(e) else ""]
    return ["ok"]


def output_flags(paddle):
    """stop_gradient of what a converted function returns, for tensors made inside it and for outputs of
    parameters, in train and eval mode, with and without no_grad, for inputs that need gradients or not."""

    def made_inside(x):
        return paddle.to_tensor([1.0, 2.0], stop_gradient=False)

    def made_inside_times_x(x):
        y = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
        return y * x

    def made_inside_and_x(x):
        y = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
        return y, x * 2

    def constant(x):
        return paddle.to_tensor([1.0, 2.0])

    def flag_set_inside(x):
        y = paddle.to_tensor([1.0, 2.0])
        y.stop_gradient = False
        return y + 1

    def detached(x):
        return paddle.to_tensor([1.0, 2.0], stop_gradient=False).detach()

    res = {}
    for fn in (made_inside, made_inside_times_x, made_inside_and_x, constant, flag_set_inside, detached):
        sf = paddle.jit.to_static(fn, full_graph=True)
        for x_sg in (True, False):
            x = paddle.ones([2])
            x.stop_gradient = x_sg
            res[f"{fn.__name__} x_sg={x_sg}"] = _flags(sf(x))
            with paddle.no_grad():
                res[f"{fn.__name__} x_sg={x_sg} no_grad"] = _flags(sf(x))
        sf.eval()
        res[f"{fn.__name__} eval"] = _flags(sf(paddle.ones([2])))

    class Net(paddle.nn.Layer):
        def __init__(self):
            super().__init__()
            self.fc = paddle.nn.Linear(2, 3)

        def forward(self, x):
            y = self.fc(x)
            # (not argmax: Paddle's PIR marks its int output stop_gradient=False, its eager mode True; our
            # traced Variable has True)
            return y, x + 1

    net = paddle.jit.to_static(Net(), full_graph=True)
    for x_sg in (True, False):
        x = paddle.ones([1, 2])
        x.stop_gradient = x_sg
        for mode in ("train", "eval"):
            getattr(net, mode)()
            res[f"Net {mode} x_sg={x_sg}"] = _flags(net(x))
            with paddle.no_grad():
                res[f"Net {mode} x_sg={x_sg} no_grad"] = _flags(net(x))
    return res


def plain_class_methods(paddle):
    """to_static on methods of objects that are not Layers: Paddle's errors (and a Layer's method works)."""

    class Plain:
        def __init__(self):
            self.k = 2.0

        @paddle.jit.to_static(full_graph=True)
        def decorated(self, x):
            return x + self.k

        def method(self, x):
            return x * 2

    class WithTraining:
        training = True

        @paddle.jit.to_static(full_graph=True)
        def decorated(self, x):
            return x + 1

    class Net(paddle.nn.Layer):
        def twice(self, x):
            return x * 2

    x = paddle.ones([2])
    plain, with_training, net = Plain(), WithTraining(), Net()
    return {
        "decorated method of a plain object": _error(lambda: plain.decorated(x)),
        "to_static of a plain object's bound method": _error(
            lambda: paddle.jit.to_static(plain.method, full_graph=True)),
        "plain object with a training flag": _error(lambda: with_training.decorated(x)),
        "instance deleted before the call": _error(lambda: Plain().decorated(x)),
        "to_static of a Layer's bound method": [float(v) for v in
                                                paddle.jit.to_static(net.twice, full_graph=True)(x).numpy()],
    }


def run(paddle):
    return {"output_flags": output_flags(paddle), "plain_class_methods": plain_class_methods(paddle)}
