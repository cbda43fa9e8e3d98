"""DatasetFolder and ImageFolder: images (or any files, with ``loader``) read from a directory tree."""
from __future__ import annotations

import os

import numpy as np

from ...dtype import get_default_dtype
from ...io.dataset import Dataset

__all__ = ["DatasetFolder", "ImageFolder", "IMG_EXTENSIONS", "has_valid_extension", "make_dataset",
           "default_loader", "pil_loader", "cv2_loader"]

IMG_EXTENSIONS = (".jpg", ".jpeg", ".png", ".ppm", ".bmp", ".pgm", ".tif", ".tiff", ".webp")


def has_valid_extension(filename, extensions):
    """Whether ``filename`` ends (case-insensitively) with one of ``extensions``."""
    if not isinstance(extensions, (list, tuple)):
        raise AssertionError("`extensions` must be list or tuple.")
    return filename.lower().endswith(tuple(x.lower() for x in extensions))


def make_dataset(dir, class_to_idx, extensions, is_valid_file=None):
    """``[(path, class_index)]`` for the files under each class folder, walked in sorted order."""
    images = []
    dir = os.path.expanduser(dir)
    if extensions is not None:
        def is_valid_file(x):
            return has_valid_extension(x, extensions)
    for target in sorted(class_to_idx.keys()):
        d = os.path.join(dir, target)
        if not os.path.isdir(d):
            continue
        for root, _, fnames in sorted(os.walk(d, followlinks=True)):
            for fname in sorted(fnames):
                path = os.path.join(root, fname)
                if is_valid_file(path):
                    images.append((path, class_to_idx[target]))
    return images


def pil_loader(path):
    """The file as an RGB PIL image."""
    from PIL import Image
    with open(path, "rb") as f:
        img = Image.open(f)
        return img.convert("RGB")


def cv2_loader(path):
    """The file as an RGB uint8 HWC ndarray (what Paddle's cv2 loader returns), decoded by Pillow
    (OpenCV is not needed); ``.npy`` files are loaded with numpy (no pickles)."""
    if path.lower().endswith(".npy"):
        return np.load(path, allow_pickle=False)
    try:
        from PIL import Image
    except ImportError:
        raise ImportError(f"cv2_loader: decoding {path!r} needs Pillow (pip install Pillow), or pass loader= "
                          "with your own decoder") from None
    with open(path, "rb") as f:
        return np.array(Image.open(f).convert("RGB"))


def default_loader(path):
    """`cv2_loader` when paddle.vision's image backend is 'cv2', else `pil_loader`."""
    from .. import get_image_backend
    return cv2_loader(path) if get_image_backend() == "cv2" else pil_loader(path)


class DatasetFolder(Dataset):
    """Samples laid out as ``root/<class>/**/<file>``: ``dataset[i]`` is ``(sample, class_index)``
    with classes numbered in sorted folder-name order. Files are kept when their extension is
    in ``extensions`` (``None`` means `IMG_EXTENSIONS`). As in Paddle 3.3.1, ``is_valid_file`` is
    accepted but never consulted, because ``extensions`` is never None by the time files are
    filtered. ``loader(path)`` reads a sample (default: by image backend)."""

    def __init__(self, root, loader=None, extensions=None, transform=None, is_valid_file=None):
        self.root = root
        self.transform = transform
        if extensions is None:
            extensions = IMG_EXTENSIONS
        if not os.path.isdir(os.path.expanduser(root)):
            raise FileNotFoundError(f"DatasetFolder: root {root!r} is not a directory")
        classes, class_to_idx = self._find_classes(os.path.expanduser(self.root))
        samples = make_dataset(self.root, class_to_idx, extensions, is_valid_file)
        if len(samples) == 0:
            raise RuntimeError("Found 0 directories in subfolders of: " + self.root + "\n"
                               "Supported extensions are: " + ",".join(extensions))
        self.loader = default_loader if loader is None else loader
        self.extensions = extensions
        self.classes = classes
        self.class_to_idx = class_to_idx
        self.samples = samples
        self.targets = [s[1] for s in samples]
        self.dtype = get_default_dtype()

    def _find_classes(self, dir):
        classes = sorted(d.name for d in os.scandir(dir) if d.is_dir())
        return classes, {c: i for i, c in enumerate(classes)}

    def __getitem__(self, index):
        path, target = self.samples[index]
        sample = self.loader(path)
        if self.transform is not None:
            sample = self.transform(sample)
        return sample, target

    def __len__(self):
        return len(self.samples)


class ImageFolder(Dataset):
    """Every valid file under ``root`` (walked in sorted order), without labels: ``dataset[i]`` is
    ``[sample]``. ``loader``, ``extensions``, ``transform`` and ``is_valid_file`` as in `DatasetFolder`."""

    def __init__(self, root, loader=None, extensions=None, transform=None, is_valid_file=None):
        self.root = root
        if extensions is None:
            extensions = IMG_EXTENSIONS
        path = os.path.expanduser(root)
        if not os.path.isdir(path):
            raise FileNotFoundError(f"ImageFolder: root {root!r} is not a directory")
        if extensions is not None:
            def is_valid_file(x):
                return has_valid_extension(x, extensions)
        samples = []
        for dirpath, _, fnames in sorted(os.walk(path, followlinks=True)):
            for fname in sorted(fnames):
                f = os.path.join(dirpath, fname)
                if is_valid_file(f):
                    samples.append(f)
        if len(samples) == 0:
            raise RuntimeError("Found 0 files in subfolders of: " + self.root + "\n"
                               "Supported extensions are: " + ",".join(extensions))
        self.loader = default_loader if loader is None else loader
        self.extensions = extensions
        self.samples = samples
        self.transform = transform

    def __getitem__(self, index):
        sample = self.loader(self.samples[index])
        if self.transform is not None:
            sample = self.transform(sample)
        return [sample]

    def __len__(self):
        return len(self.samples)
