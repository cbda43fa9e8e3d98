# Stand-in for the one helper the extracted API classes use from Paddle's op_test.py
# (paddle_static_guard: run the body in static mode, return to dygraph after). Nothing else.
import contextlib
import paddle


@contextlib.contextmanager
def paddle_static_guard():
    try:
        paddle.enable_static()
        yield
    finally:
        paddle.disable_static()


def get_device_place():
    # op_test.get_device_place on a CPU-only build
    return paddle.CPUPlace()


def is_custom_device():
    return False


@contextlib.contextmanager
def dygraph_guard():
    # test/legacy_test/utils.py dygraph_guard: dygraph inside, previous mode restored after
    was_static = not paddle.in_dynamic_mode()
    try:
        paddle.disable_static()
        yield
    finally:
        if was_static:
            paddle.enable_static()


@contextlib.contextmanager
def static_guard():
    was_dynamic = paddle.in_dynamic_mode()
    try:
        paddle.enable_static()
        yield
    finally:
        if was_dynamic:
            paddle.disable_static()


def test_with_pir_api(func):
    # paddle.pir_utils.test_with_pir_api ran a test under the old IR and again under PIR;
    # Paddle 3.3.1 no longer ships it. The adapted files run the test once.
    return func


def get_places():
    # op_test.get_places on a CPU-only build
    return [paddle.CPUPlace()]


def convert_uint16_to_float(x):
    # op_test.convert_uint16_to_float: bfloat16 bits -> float32 (only reached by GPU bf16 tests)
    import numpy as np
    return (np.asarray(x, dtype=np.uint32) << 16).view(np.float32)


def convert_float_to_uint16(x):
    # op_test.convert_float_to_uint16: float32 -> bfloat16 bits, truncated (the upper 16 bits, as op_test)
    import numpy as np
    return (np.ascontiguousarray(x, dtype=np.float32).view(np.uint32) >> 16).astype(np.uint16)
