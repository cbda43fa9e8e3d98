"""vision.transforms: ToTensor, Normalize, Resize, Compose; expected values from numpy or real Paddle."""
import numpy as np
import pytest

import runtime as paddle
from runtime import vision
from runtime.vision.transforms import BaseTransform, Compose, Normalize, Resize, ToTensor


def test_vision_namespace():
    assert vision.datasets.MNIST is vision.MNIST
    assert vision.get_image_backend() in ("pil", "cv2")
    old = vision.get_image_backend()
    vision.set_image_backend("cv2")
    assert vision.get_image_backend() == "cv2"
    vision.set_image_backend(old)
    with pytest.raises(ValueError, match="backend"):
        vision.set_image_backend("tf")


def test_to_tensor_uint8_hwc():
    img = np.arange(2 * 3 * 3, dtype=np.uint8).reshape(2, 3, 3) * 10
    t = ToTensor()(img)
    assert isinstance(t, paddle.Tensor) and t.shape == [3, 2, 3] and t.dtype == paddle.float32
    np.testing.assert_allclose(t.numpy(), img.transpose(2, 0, 1) / 255.0, rtol=1e-6)
    assert t.stop_gradient
    t = ToTensor(data_format="HWC")(img)
    assert t.shape == [2, 3, 3]


def test_to_tensor_other_dtypes_and_gray():
    t = ToTensor()(np.full((2, 3), 255, np.uint8))
    assert t.shape == [1, 2, 3] and float(t.numpy().max()) == 1.0
    t = ToTensor()(np.full((2, 3, 3), 255, np.float32))
    assert t.dtype == paddle.float32 and float(t.numpy().max()) == 255.0  # floats are not rescaled
    assert ToTensor()(np.ones((2, 2, 3))).dtype == paddle.float64
    assert ToTensor()(np.ones((2, 2, 3), np.int32)).dtype == paddle.int32
    x = paddle.Tensor(np.ones((3, 2, 2), np.float32))
    assert ToTensor()(x) is x
    with pytest.raises(TypeError, match="PIL Image or Tensor Image or ndarray"):
        ToTensor()([1, 2])
    with pytest.raises(ValueError, match="data_format"):
        ToTensor(data_format="NCHW")(np.zeros((2, 2, 3), np.uint8))  # checked when called, as Paddle


def test_normalize_ndarray_chw_hwc():
    a = np.arange(18, dtype=np.float32).reshape(3, 2, 3)
    out = Normalize([1.0, 2.0, 3.0], [2.0, 2.0, 2.0])(a)
    expected = (a - np.array([1, 2, 3], np.float32).reshape(3, 1, 1)) / 2
    np.testing.assert_allclose(out, expected)
    assert out.dtype == np.float32
    hwc = a.transpose(1, 2, 0)
    out = Normalize([1.0, 2.0, 3.0], [2.0, 2.0, 2.0], data_format="HWC")(hwc)
    np.testing.assert_allclose(out, expected.transpose(1, 2, 0))
    # uint8 -> float32, float64 stays float64 (as in Paddle)
    assert Normalize([0.5], [0.5])(np.ones((1, 2, 2), np.uint8)).dtype == np.float32
    assert Normalize([1.0, 2.0, 3.0], [2.0] * 3)(np.ones((3, 2, 2))).dtype == np.float64
    np.testing.assert_allclose(Normalize(1.0, 2.0)(a), (a - 1) / 2)


def test_normalize_to_rgb_reverses_channels():
    hwc = np.arange(12, dtype=np.float32).reshape(2, 2, 3)
    out = Normalize([1.0, 2.0, 3.0], [2.0, 2.0, 2.0], data_format="HWC", to_rgb=True)(hwc)
    np.testing.assert_allclose(out[0, 0], [(2 - 1) / 2, (1 - 2) / 2, (0 - 3) / 2])


def test_normalize_tensor():
    a = np.arange(12, dtype=np.float32).reshape(3, 2, 2)
    out = Normalize([1.0, 2.0, 3.0], [2.0, 4.0, 8.0])(paddle.Tensor(a))
    assert isinstance(out, paddle.Tensor) and out.dtype == paddle.float32
    mean = np.array([1, 2, 3], np.float32).reshape(3, 1, 1)
    std = np.array([2, 4, 8], np.float32).reshape(3, 1, 1)
    np.testing.assert_allclose(out.numpy(), (a - mean) / std, rtol=1e-6)


def test_normalize_tensor_ignores_to_rgb_and_integer_input():
    # Paddle's Tensor normalize ignores to_rgb (functional_tensor.normalize has no such argument)
    a = np.arange(12, dtype=np.float32).reshape(3, 2, 2)
    out = Normalize([1.0, 2.0, 3.0], [2.0, 2.0, 2.0], to_rgb=True)(paddle.Tensor(a))
    mean = np.array([1, 2, 3], np.float32).reshape(3, 1, 1)
    np.testing.assert_allclose(out.numpy(), (a - mean) / 2, rtol=1e-6)
    out = Normalize([1.0], [2.0])(paddle.Tensor(np.full((1, 2, 2), 5, np.int64)))
    assert out.dtype == paddle.float32
    np.testing.assert_allclose(out.numpy(), np.full((1, 2, 2), 2.0))


def test_normalize_errors():
    with pytest.raises(ValueError, match="do not fit an image of shape"):
        Normalize([1.0, 2.0], [1.0, 1.0])(np.ones((3, 2, 2), np.float32))
    # a number means three channels (Paddle): a 1-channel CHW image broadcasts to 3
    assert Normalize(0.5, 0.5)(np.ones((1, 2, 2), np.float32)).shape == (3, 2, 2)


def test_resize_matches_paddle_bilinear_and_nearest():
    # reference values printed by real Paddle 3.3.1 (Resize on a CHW tensor)
    t = paddle.Tensor(np.arange(16, dtype=np.float32).reshape(1, 4, 4))
    np.testing.assert_allclose(Resize((2, 2))(t).numpy()[0], [[2.5, 4.5], [10.5, 12.5]])
    up = Resize((8, 8))(t).numpy()[0, 0]
    np.testing.assert_allclose(up, [0, 0.25, 0.75, 1.25, 1.75, 2.25, 2.75, 3.0])
    near = Resize((2, 3), interpolation="nearest")(t).numpy()[0]
    np.testing.assert_array_equal(near, [[0, 1, 2], [8, 9, 10]])
    assert Resize(2)(paddle.Tensor(np.zeros((1, 4, 6), np.float32))).shape == [1, 2, 3]


def test_resize_ndarray():
    img = np.arange(16, dtype=np.float32).reshape(4, 4)
    np.testing.assert_allclose(Resize((2, 2))(img), [[2.5, 4.5], [10.5, 12.5]])
    hwc = np.stack([img, 2 * img], axis=-1)
    out = Resize((2, 2))(hwc)
    assert out.shape == (2, 2, 2)
    np.testing.assert_allclose(out[..., 1], 2 * np.array([[2.5, 4.5], [10.5, 12.5]]))
    u8 = Resize((2, 2))(np.arange(16, dtype=np.uint8).reshape(4, 4))
    assert u8.dtype == np.uint8 and u8.tolist() == [[2, 4], [10, 12]]  # 2.5 -> 2, 4.5 -> 4 (round half to even)
    assert Resize(3)(np.zeros((6, 9), np.float32)).shape == (3, 4)
    with pytest.raises(ValueError, match="size"):
        Resize((1, 2, 3))
    with pytest.raises(ValueError, match="interpolation"):
        Resize((2, 2), interpolation="cubic")(img)
    # integer dtypes other than uint8 are rounded and saturated the same way
    assert Resize((2, 2))(np.arange(16, dtype=np.int32).reshape(4, 4)).dtype == np.int32


def test_compose_and_keys():
    pipeline = Compose([ToTensor(), Normalize([0.5], [0.5])])
    t = pipeline(np.full((2, 2), 255, np.uint8))
    np.testing.assert_allclose(t.numpy(), np.ones((1, 2, 2)))
    assert "ToTensor" in repr(pipeline) and "Normalize" in repr(pipeline)
    with pytest.raises(TypeError, match="callable"):
        Compose([1])
    # inputs beyond keys pass through; keys must name an _apply_<key> method (Paddle)
    img, label = ToTensor()((np.zeros((2, 2), np.uint8), 3))
    assert isinstance(img, paddle.Tensor) and label == 3
    with pytest.raises(NotImplementedError, match="label is unsupported"):
        ToTensor(keys=("image", "label"))
    with pytest.raises(ValueError, match="keys should be a sequence"):
        ToTensor(keys=3)

    class AddOne(BaseTransform):
        def _apply_image(self, image):
            return image + 1

    assert AddOne()(1) == 2
