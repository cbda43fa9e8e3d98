"""MNIST / FashionMNIST read from small IDX files written by the test (plain and gzipped)."""
import gzip
import struct

import numpy as np
import pytest

import runtime as paddle
from runtime.vision.datasets import MNIST, FashionMNIST
from runtime.vision.datasets.mnist import read_idx
from runtime.vision.transforms import Compose, Normalize, ToTensor

N = 5


def _images():
    return (np.arange(N * 28 * 28) % 251).astype(np.uint8).reshape(N, 28, 28)


LABELS = np.array([7, 2, 1, 0, 4], np.uint8)


def _write(path, payload, gz):
    if gz:
        with gzip.open(path, "wb") as f:
            f.write(payload)
    else:
        with open(path, "wb") as f:
            f.write(payload)


@pytest.fixture(params=[True, False], ids=["gz", "plain"])
def idx_files(tmp_path, request):
    gz = request.param
    suffix = ".gz" if gz else ""
    img = tmp_path / ("t10k-images-idx3-ubyte" + suffix)
    lab = tmp_path / ("t10k-labels-idx1-ubyte" + suffix)
    _write(img, struct.pack(">IIII", 2051, N, 28, 28) + _images().tobytes(), gz)
    _write(lab, struct.pack(">II", 2049, N) + LABELS.tobytes(), gz)
    return str(img), str(lab)


def test_read_idx(idx_files):
    img, lab = idx_files
    np.testing.assert_array_equal(read_idx(img), _images())
    np.testing.assert_array_equal(read_idx(lab), LABELS)


def test_mnist_items_numpy_backend(idx_files):
    img, lab = idx_files
    ds = MNIST(image_path=img, label_path=lab, mode="test", backend="cv2")
    assert len(ds) == N
    image, label = ds[3]
    # as Paddle's 'cv2' backend: float32 [28, 28] with raw 0-255 values, label int64 [1]
    assert isinstance(image, np.ndarray) and image.dtype == np.float32 and image.shape == (28, 28)
    np.testing.assert_array_equal(image, _images()[3].astype(np.float32))
    assert isinstance(label, np.ndarray) and label.dtype == np.int64 and label.shape == (1,)
    assert label[0] == 0
    assert ds.images.shape == (N, 784) and ds.labels.shape == (N, 1)


def test_mnist_with_transforms(idx_files):
    img, lab = idx_files
    ds = MNIST(image_path=img, label_path=lab, mode="test", backend="cv2",
               transform=Compose([ToTensor(), Normalize([127.5], [127.5])]))
    image, label = ds[0]
    assert isinstance(image, paddle.Tensor) and image.shape == [1, 28, 28] and image.dtype == paddle.float32
    expected = (_images()[0].astype(np.float32) - 127.5) / 127.5
    np.testing.assert_allclose(image.numpy()[0], expected, rtol=1e-6)
    # Normalize alone on the HW float image gives [1, 28, 28] (numpy broadcasting, as in Paddle)
    ds = MNIST(image_path=img, label_path=lab, mode="test", backend="cv2",
               transform=Normalize(mean=[127.5], std=[127.5], data_format="CHW"))
    image, _ = ds[1]
    assert isinstance(image, np.ndarray) and image.shape == (1, 28, 28) and image.dtype == np.float32
    assert image.min() >= -1 and image.max() <= 1


def test_mnist_in_a_dataloader(idx_files):
    img, lab = idx_files
    ds = MNIST(image_path=img, label_path=lab, mode="test", backend="cv2", transform=ToTensor())
    x, y = next(iter(paddle.io.DataLoader(ds, batch_size=4)))
    assert x.shape == [4, 1, 28, 28] and x.dtype == paddle.float32
    assert y.shape == [4, 1] and y.dtype == paddle.int64
    assert y.numpy()[:, 0].tolist() == [7, 2, 1, 0]


def test_pil_backend_when_pillow_is_installed(idx_files):
    pytest.importorskip("PIL")
    img, lab = idx_files
    image, _ = MNIST(image_path=img, label_path=lab, mode="test", backend="pil")[2]
    assert image.mode == "L" and image.size == (28, 28)
    np.testing.assert_array_equal(np.asarray(image), _images()[2])
    t, _ = MNIST(image_path=img, label_path=lab, mode="test", backend="pil", transform=ToTensor())[2]
    np.testing.assert_allclose(t.numpy()[0], _images()[2] / 255.0, rtol=1e-6)


def test_fashion_mnist_is_mnist(idx_files):
    img, lab = idx_files
    ds = FashionMNIST(image_path=img, label_path=lab, mode="test", backend="cv2")
    assert isinstance(ds, MNIST) and isinstance(ds, paddle.io.Dataset)
    assert ds[4][1][0] == 4


def test_mnist_never_downloads(tmp_path, monkeypatch, idx_files):
    from runtime.vision.datasets import _cache
    monkeypatch.setattr(_cache, "DATA_HOME", str(tmp_path / "cache"))
    with pytest.raises(FileNotFoundError, match="does not download") as info:
        MNIST(backend="cv2")
    assert str(tmp_path / "cache" / "mnist" / "train-images-idx3-ubyte.gz") in str(info.value)
    assert "https://dataset.bj.bcebos.com/mnist/train-images-idx3-ubyte.gz" in str(info.value)
    with pytest.raises(AssertionError, match="label_path is not set and downloading automatically is disabled"):
        FashionMNIST(image_path="x", mode="test", download=False, backend="cv2")
    # files in Paddle's cache are read (after the md5 check Paddle does)
    img, lab = idx_files
    cache = tmp_path / "cache" / "fashion-mnist"
    cache.mkdir(parents=True)
    import shutil
    shutil.copy(img, cache / "t10k-images-idx3-ubyte.gz")
    shutil.copy(lab, cache / "t10k-labels-idx1-ubyte.gz")
    with pytest.raises(ValueError, match="md5"):
        FashionMNIST(mode="test", backend="cv2")
    monkeypatch.setattr(FashionMNIST, "TEST_IMAGE_MD5", _cache.md5file(cache / "t10k-images-idx3-ubyte.gz"))
    monkeypatch.setattr(FashionMNIST, "TEST_LABEL_MD5", _cache.md5file(cache / "t10k-labels-idx1-ubyte.gz"))
    ds = FashionMNIST(mode="test", backend="cv2")
    assert len(ds) == len(MNIST(image_path=img, label_path=lab, backend="cv2"))


def test_mnist_argument_errors(idx_files, tmp_path):
    img, lab = idx_files
    with pytest.raises(ValueError, match="mode should be 'train' or 'test'"):
        MNIST(image_path=img, label_path=lab, mode="valid", backend="cv2")
    with pytest.raises(ValueError, match="backend"):
        MNIST(image_path=img, label_path=lab, backend="tf")
    with pytest.raises(FileNotFoundError, match="image_path"):
        MNIST(image_path=str(tmp_path / "missing"), label_path=lab, backend="cv2")
    with pytest.raises(ValueError, match="magic number is 2049, expected 2051"):
        MNIST(image_path=lab, label_path=lab, backend="cv2")


def test_bad_idx_files(tmp_path):
    short = tmp_path / "labels"
    short.write_bytes(struct.pack(">II", 2049, 10) + b"\x01\x02")
    with pytest.raises(ValueError, match="announces shape"):
        read_idx(str(short))
    bad = tmp_path / "bad"
    bad.write_bytes(struct.pack(">II", 1234, 0))
    with pytest.raises(ValueError, match="unknown IDX magic number 1234"):
        read_idx(str(bad))
    img = tmp_path / "img"
    img.write_bytes(struct.pack(">IIII", 2051, 2, 28, 28) + bytes(2 * 784))
    lab = tmp_path / "lab"
    lab.write_bytes(struct.pack(">II", 2049, 3) + bytes(3))
    with pytest.raises(ValueError, match="2 images but .* 3 labels"):
        MNIST(image_path=str(img), label_path=str(lab), backend="cv2")
