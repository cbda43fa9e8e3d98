"""Static-mode initializers and the startup Program's ``random_seed`` (Paddle's rule: an initializer
whose own seed is 0 takes the Program's ``random_seed`` as its op's seed, so each parameter's initial
value does not depend on which other initializers ran before it, and equals what dynamic mode draws
right after ``paddle.seed`` with the same seed -- what Paddle's hapi tests compare).
Values come from dy2st's generator (numpy's), so this is not a differential test against Paddle.
"""
import numpy as np

import dy2st as paddle


def test_static_initializer_takes_the_startup_programs_random_seed():
    paddle.seed(1024)
    want = paddle.nn.Linear(20, 10).weight.numpy()
    paddle.enable_static()
    try:
        main, startup = paddle.static.Program(), paddle.static.Program()
        main.random_seed = startup.random_seed = 1024
        with paddle.static.program_guard(main, startup):
            paddle.nn.Linear(7, 3)           # initialized first: must not shift the next one's draw
            lin = paddle.nn.Linear(20, 10)
        exe = paddle.static.Executor(paddle.CPUPlace())
        paddle.seed(5)                      # the global generator plays no part
        exe.run(startup)
        got = np.array(paddle.static.global_scope().find_var(lin.weight.name).get_tensor())
    finally:
        paddle.disable_static()
    np.testing.assert_array_equal(got, want)


def test_static_initializer_without_program_seed_uses_the_global_generator():
    paddle.enable_static()
    try:
        outs = []
        for _ in range(2):
            main, startup = paddle.static.Program(), paddle.static.Program()
            with paddle.static.program_guard(main, startup):
                lin = paddle.nn.Linear(4, 3)
            paddle.seed(7)
            paddle.static.Executor(paddle.CPUPlace()).run(startup)
            outs.append(np.array(paddle.static.global_scope().find_var(lin.weight.name).get_tensor()))
        main, startup = paddle.static.Program(), paddle.static.Program()
        with paddle.static.program_guard(main, startup):
            lin = paddle.nn.Linear(4, 3)
        paddle.seed(8)
        paddle.static.Executor(paddle.CPUPlace()).run(startup)
        other = np.array(paddle.static.global_scope().find_var(lin.weight.name).get_tensor())
    finally:
        paddle.disable_static()
    np.testing.assert_array_equal(outs[0], outs[1])
    assert not np.array_equal(outs[0], other)
