"""paddle.utils.download: find pretrained weights (and other files) in Paddle's local cache.

Paddle keeps downloaded weights in ``~/.cache/paddle/hapi/weights`` (``WEIGHTS_HOME``; ``~`` is
expanded from ``$HOME`` when this module is imported, as Paddle does), named by the last part of
the URL. We read that same layout, so weights fetched once by real Paddle (or copied there by
hand) serve both. This package never downloads: a missing file is a `FileNotFoundError` that
names the URL and the exact path to put the file at, and a file whose md5 differs from the
expected one is a `ValueError` (a partial or different file would otherwise load silently
wrong weights).
"""
from __future__ import annotations

import hashlib
import os.path as osp
import tarfile
import zipfile

__all__ = ["get_weights_path_from_url"]

WEIGHTS_HOME = osp.expanduser("~/.cache/paddle/hapi/weights")


def is_url(path):
    """Whether ``path`` is an http(s) URL."""
    return isinstance(path, str) and path.startswith(("http://", "https://"))


def get_weights_path_from_url(url, md5sum=None):
    """The local path of the weights file ``url`` names, in ``WEIGHTS_HOME``.

    The module attribute is read at each call, so ``paddle.utils.download.WEIGHTS_HOME = dir``
    redirects it (as in Paddle)."""
    return get_path_from_url(url, WEIGHTS_HOME, md5sum)


def _map_path(url, root_dir):
    # Paddle's layout: the file name is the URL's last path component, directly under root_dir
    return osp.join(root_dir, osp.split(url)[-1])


def get_path_from_url(url, root_dir, md5sum=None, check_exist=True, decompress=True, method="get"):
    """The path of ``url``'s file under ``root_dir`` when it is there (and its md5 matches
    ``md5sum`` when given); archives (.tar*, .zip) are unpacked beside it and the unpacked path
    returned, as Paddle does. Never downloads: see the module docstring."""
    if not is_url(url):
        raise ValueError(f"get_path_from_url: {url!r} is not an http(s) URL")
    if method not in ("get", "wget"):
        raise ValueError(f"get_path_from_url: method must be 'get' or 'wget', got {method!r}")
    fullpath = _map_path(url, root_dir)
    if not osp.exists(fullpath):
        raise FileNotFoundError(
            f"{fullpath} does not exist, and this package does not download files.\n"
            f"Download {url} on a machine with network access"
            + (f" (md5 {md5sum})" if md5sum else "")
            + f" and put it at {fullpath} (the directory is Paddle's cache layout: "
            f"{root_dir}/<last part of the URL>).")
    if check_exist and md5sum is not None:
        _md5check(fullpath, md5sum, url)
    if decompress and (tarfile.is_tarfile(fullpath) or zipfile.is_zipfile(fullpath)):
        return _decompress(fullpath)
    return fullpath


def _md5check(fullname, md5sum, url=None):
    digest = hashlib.md5()
    with open(fullname, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            digest.update(chunk)
    got = digest.hexdigest()
    if got != md5sum:
        src = f" from {url}" if url else ""
        raise ValueError(f"{fullname} has md5 {got}, expected {md5sum}: the file is incomplete or not the "
                         f"one expected; replace it with the file{src}")
    return True


def _inside(root, target):
    root = osp.realpath(root)
    return osp.commonpath([root, osp.realpath(target)]) == root


def _decompress(fname):
    """Unpack an archive: a single top-level file or directory goes beside the archive and its
    path is returned; several entries go into a directory named after the archive (Paddle's rule)."""
    root = osp.dirname(fname)
    is_tar = tarfile.is_tarfile(fname)
    archive = tarfile.open(fname, "r:*") if is_tar else zipfile.ZipFile(fname)
    with archive:
        names = archive.getnames() if is_tar else archive.namelist()
        tops = sorted({n.strip("/").split("/")[0] for n in names if n.strip("/")})
        if len(tops) == 1:
            dest, result = root, osp.join(root, tops[0])
        else:
            base = osp.basename(fname)
            for ext in (".tar.gz", ".tgz", ".tar", ".zip"):
                if base.endswith(ext):
                    base = base[: -len(ext)]
                    break
            dest = result = osp.join(root, base)
        # refuse links and names escaping the directory: a hostile archive could overwrite files
        for n in names:
            if not _inside(dest, osp.join(dest, n)):
                raise ValueError(f"{fname}: refusing to extract the unsafe archive member {n!r}")
        if is_tar:
            for m in archive.getmembers():
                if m.issym() or m.islnk():
                    raise ValueError(f"{fname}: refusing to extract the link {m.name!r}")
        archive.extractall(dest)
    return result
