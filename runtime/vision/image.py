"""paddle.vision.image: the global image backend ('pil', 'cv2' or 'tensor') that datasets and
``DatasetFolder``'s default loader follow, and ``image_load``.

dy2st does not need OpenCV: the 'cv2' backend means "numpy arrays laid out as OpenCV gives them".
``image_load(path, 'cv2')`` therefore decodes with Pillow and returns what ``cv2.imread`` returns for
an 8-bit image: an HxWx3 uint8 array in BGR channel order (gray and RGBA files become 3-channel BGR,
as with OpenCV's default ``IMREAD_COLOR``). JPEG decoders may differ from OpenCV's by a few levels
per pixel. As in Paddle 3.3.1, ``image_load(path, 'tensor')`` returns None.
"""
import numpy as np

_BACKENDS = ("pil", "cv2", "tensor")


def _default_backend():
    try:
        import PIL  # noqa: F401
        return "pil"
    except ImportError:
        return "cv2"


_image_backend = [_default_backend()]


def _check(backend, who):
    if not isinstance(backend, str) or backend not in _BACKENDS:
        raise ValueError(f"{who}: Expected backend are one of ['pil', 'cv2', 'tensor'], but got {backend}")


def set_image_backend(backend):
    """Choose the global image backend: 'pil' (PIL images), 'cv2' (numpy HWC arrays) or 'tensor'."""
    _check(backend, "set_image_backend")
    _image_backend[0] = backend


def get_image_backend():
    """The global image backend ('pil' unless changed by `set_image_backend`)."""
    return _image_backend[0]


def image_load(path, backend=None):
    """Load the image file ``path``: a PIL image for backend 'pil', a BGR uint8 HxWx3 ndarray for
    'cv2' (None when the file cannot be decoded, like ``cv2.imread``), None for 'tensor'.
    ``backend=None`` uses `get_image_backend()`."""
    if backend is None:
        backend = get_image_backend()
    _check(backend, "image_load")
    if backend == "tensor":
        return None
    try:
        from PIL import Image, UnidentifiedImageError
    except ImportError:
        raise ImportError("image_load: decoding images needs Pillow (pip install Pillow)") from None
    if backend == "pil":
        return Image.open(path)
    try:
        with open(path, "rb") as f:
            rgb = np.array(Image.open(f).convert("RGB"))
    except (FileNotFoundError, UnidentifiedImageError):
        return None
    return np.ascontiguousarray(rgb[..., ::-1])


__all__ = ["set_image_backend", "get_image_backend", "image_load"]
