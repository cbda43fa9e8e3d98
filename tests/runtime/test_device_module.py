"""paddle.device and paddle.device.cuda as Paddle's CPU build answers them (no accelerator: counts 0, empty device
lists, streams/events/memory statistics raising). Paddle's own answers: tests/interop/test_module_surface_interop.py."""
import pytest

import dy2st as paddle


def test_modules_import_at_paddles_paths():
    import dy2st.device.cuda
    from dy2st.device import cuda
    assert cuda is dy2st.device.cuda is paddle.device.cuda
    assert paddle.device.set_device is paddle.set_device
    missing = [n for n in paddle.device.__all__ if not hasattr(paddle.device, n)]
    missing += [n for n in cuda.__all__ if not hasattr(cuda, n)]
    assert not missing


def test_cpu_answers():
    D = paddle.device
    assert D.get_device() == "cpu" and repr(D.set_device("cpu")) == "Place(cpu)"
    assert repr(D.set_device(paddle.CPUPlace())) == "Place(cpu)" and repr(D.set_device(0)) == "Place(cpu)"
    assert D.device_count() == 0 and D.cuda.device_count() == 0
    assert D.get_all_device_type() == [] and D.get_available_device() == [] and D.get_cudnn_version() is None
    assert not any([D.is_compiled_with_cuda(), D.is_compiled_with_xpu(), D.is_compiled_with_rocm(),
                    D.is_compiled_with_ipu(), D.is_compiled_with_cinn(), D.is_compiled_with_custom_device("npu"),
                    D.is_available(), D.is_bf16_supported()])
    assert D.get_device(paddle.ones([1])) == -1
    assert D.empty_cache() is None and D.cuda.empty_cache() is None
    assert str(D.LongTensor([1, 2]).dtype) == "paddle.int64" and D.FloatTensor(2, 3).shape == [2, 3]


def test_guards_and_rng():
    D = paddle.device
    with D.device_guard("cpu"):
        assert D.get_device() == "cpu"
    with D.device_guard(paddle.CPUPlace()), D.stream_guard(None), D.device("cpu") as entered:
        assert entered is None
    D.manual_seed(3)
    a = paddle.rand([3]).numpy()
    state = D.get_rng_state()
    b = paddle.rand([3]).numpy()
    D.set_rng_state(state)
    assert (paddle.rand([3]).numpy() == b).all() and not (a == b).all()


@pytest.mark.parametrize("call, error, match", [
    (lambda D: D.set_device("gpu:1"), ValueError, "not compiled with CUDA"),
    (lambda D: D.set_device("xpu"), ValueError, "not compiled with XPU"),
    (lambda D: D.set_device("tpu"), ValueError, "must be a string which is like"),
    (lambda D: D.set_device(2), ValueError, "only supports index 0"),
    (lambda D: D.device_guard(3), ValueError, "must be a string or an instance"),
    (lambda D: D.XPUPlace(0), ValueError, "XPU"),
    (lambda D: D.Stream(), RuntimeError, "no streams"),
    (lambda D: D.Event(), RuntimeError, "no streams"),
    (lambda D: D.synchronize(), TypeError, "device should be gpu"),
    (lambda D: D.max_memory_allocated(), ValueError, "not supported in CPU"),
    (lambda D: D.ipc_collect(), RuntimeError, "not compiled with CUDA/XPU"),
    (lambda D: D.cuda.Stream(), RuntimeError, "CUDAStream"),
    (lambda D: D.cuda.synchronize(), RuntimeError, "not compiled with CUDA"),
    (lambda D: D.cuda.memory_allocated(), ValueError, "CPU-only"),
    (lambda D: D.cuda.get_device_name(), ValueError, "CPU-only"),
    (lambda D: D.cuda.stream_guard(3).__enter__(), TypeError, "Stream or None"),
])
def test_accelerator_calls_raise_as_paddle(call, error, match):
    with pytest.raises(error, match=match):
        call(paddle.device)
