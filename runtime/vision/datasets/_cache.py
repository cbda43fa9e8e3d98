"""Where datasets find their files: a given path, or Paddle's dataset cache (never the network).

Paddle downloads a data set once to ``~/.cache/paddle/dataset/<module>/<last part of the URL>``
(``DATA_HOME``, with ``~`` expanded from ``$HOME`` when this module is imported, as Paddle does).
We read that same layout, so files fetched by real Paddle (or copied there by hand) serve both.
A missing file is a `FileNotFoundError` naming the exact path to put it at and the URL it comes
from; a cached file whose md5 differs from the published one is a `ValueError`.
"""
from __future__ import annotations

import os

DATA_HOME = os.path.expanduser(os.path.join("~", ".cache", "paddle", "dataset"))


def cached_path(url, module_name, save_name=None):
    """The path Paddle's downloader uses for ``url``: DATA_HOME/<module_name>/<last part of the URL>."""
    return os.path.join(DATA_HOME, module_name, save_name or url.split("/")[-1])


def md5file(path):
    import hashlib
    digest = hashlib.md5()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def check_exists_and_download(path, url, md5, module_name, download=True, who="dataset", arg="data_file"):
    """``path`` if it exists; otherwise, with ``download``, the file in Paddle's cache (checked
    against ``md5``); otherwise an error that says where the file goes and where it comes from."""
    if path and os.path.exists(path):
        return path
    if path:
        raise FileNotFoundError(f"{who}: {arg} {path!r} does not exist")
    if not download:
        raise ValueError(f"{who}: {arg} is not set and downloading automatically is disabled (download=False); "
                         f"pass {arg}='...' pointing at a local copy of {url}")
    target = cached_path(url, module_name)
    if not os.path.exists(target):
        raise FileNotFoundError(
            f"{who}: {arg} is not set and {target} does not exist. This package does not download data sets: "
            f"download {url} (md5 {md5}) on a machine with network access and put it at {target} (Paddle's "
            f"dataset cache, where real Paddle would save it), or pass {arg}='<path of the file>'.")
    got = md5file(target)
    if md5 is not None and got != md5:
        raise ValueError(f"{who}: {target} has md5 {got}, expected {md5}: the file is incomplete or not the one "
                         f"published at {url}; replace it, or pass {arg}='{target}' to use it as it is")
    return target


def resolve_backend(backend, who):
    """Paddle's image backend rule: None -> paddle.vision.get_image_backend(); 'pil' needs Pillow."""
    if backend is None:
        from .. import get_image_backend
        backend = get_image_backend()
    if backend not in ("pil", "cv2"):
        raise ValueError(f"{who}: Expected backend are one of ['pil', 'cv2'], but got {backend!r}")
    if backend == "pil":
        try:
            import PIL  # noqa: F401
        except ImportError:
            raise ImportError(f"{who}: backend='pil' needs Pillow, which is not installed; pass backend='cv2' to "
                              "get numpy images (or pip install Pillow)") from None
    return backend


def check_mode(mode, allowed, who):
    if not isinstance(mode, str) or mode.lower() not in allowed:
        raise AssertionError(f"{who}: mode should be " + ", ".join(repr(m) for m in allowed) + f", but got {mode!r}")
    return mode.lower()
