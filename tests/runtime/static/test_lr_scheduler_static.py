"""A learning-rate scheduler drives the static learning-rate variable on every Executor.run."""
import numpy as np

import runtime as paddle


def test_step_decay_updates_the_static_learning_rate():
    paddle.enable_static()
    try:
        main, startup = paddle.static.Program(), paddle.static.Program()
        with paddle.static.program_guard(main, startup):
            x = paddle.static.data("x", [None, 2])
            w = paddle.static.create_parameter([2, 1], "float32",
                                               default_initializer=paddle.nn.initializer.Constant(1.0))
            loss = paddle.mean(paddle.matmul(x, w))
            sched = paddle.optimizer.lr.StepDecay(1.0, step_size=1, gamma=0.5)
            paddle.optimizer.SGD(sched).minimize(loss)
        main.verify()
        scope = paddle.static.Scope()
        exe = paddle.static.Executor()
        exe.run(startup, scope=scope)
        seen = []
        for _ in range(3):
            exe.run(main, feed={"x": np.ones((1, 2), np.float32)}, fetch_list=[loss], scope=scope)
            seen.append(float(np.asarray(scope.find_var(w.name).get_tensor())[0, 0]))
            sched.step()
    finally:
        paddle.disable_static()
    # d mean(x @ w) / dw = x / 1 = 1 for each entry; lr 1, 0.5, 0.25
    np.testing.assert_allclose(seen, [0.0, -0.5, -0.75])
