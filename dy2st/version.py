"""``paddle.version``: this package's version, in the names of Paddle's ``paddle/version/__init__.py``.

The numbers are dy2st's own (``dy2st.__version__``), not Paddle's; ``paddle_api_version`` is the
Paddle release whose API this package follows (``paddle.utils.require_version`` checks against it).
This package has no CUDA, cuDNN, XPU, CINN or TensorRT: those functions answer ``'False'`` as Paddle's
CPU build does. ``cuda`` is a string that can be called (``paddle.version.cuda()``), as in Paddle.
"""
from __future__ import annotations

import os

from . import __version__ as full_version

__all__ = ["cuda", "cudnn", "nccl", "show", "xpu", "xpu_xre", "xpu_xccl", "xpu_xhpc", "tensorrt", "cuda_archs",
           "hip"]

paddle_api_version = "3.3.1"

_parts = (full_version.split("rc")[0].split(".") + ["0", "0", "0"])[:3]
major, minor, patch = _parts
rc = full_version.split("rc")[1] if "rc" in full_version else "0"
nccl_version = "0"
cuda_version = "False"
cudnn_version = "False"
hip_version = None
xpu_xre_version = "False"
xpu_xccl_version = "False"
xpu_xhpc_version = "False"
cinn_version = "False"
tensorrt_version = "None"
with_mkl = "OFF"          # numpy's BLAS does the linear algebra; no MKL is linked into this package
with_hml = ""
with_pip_cuda_libraries = "OFF"
with_pip_tensorrt = "OFF"
compiled_cuda_archs = []
is_tagged = True


def _git_commit():
    """The commit of the source tree this package runs from ('unknown' outside a git checkout)."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    head_path = os.path.join(root, ".git", "HEAD")
    try:
        with open(head_path) as f:
            head = f.read(256).strip()
        if head.startswith("ref: "):
            ref = head[5:]
            ref_path = os.path.join(root, ".git", *ref.split("/"))
            if os.path.isfile(ref_path):
                with open(ref_path) as f:
                    head = f.read(64).strip()
            else:
                head = ""
                with open(os.path.join(root, ".git", "packed-refs")) as f:
                    for line in f:
                        if line.rstrip().endswith(" " + ref):
                            head = line.split()[0]
                            break
        ok = len(head) == 40 and all(c in "0123456789abcdef" for c in head)
        return head if ok else "unknown"
    except OSError:
        return "unknown"


commit = _git_commit()
branch = "HEAD"


CUDA_FUNC_DOC = """Get cuda version of this package.

    Returns:
        string: the CUDA version the package was built with; 'False' here (no CUDA: CPU only).
    """


class CudaVersion(str):
    """A version string that also answers when called (``paddle.version.cuda()``), as Paddle's."""

    def __call__(self):
        return str(self)

    def __repr__(self):
        return f"CudaVersion('{self}')"

    @property
    def __doc__(self):
        return CUDA_FUNC_DOC


cuda = CudaVersion(cuda_version)
hip = hip_version


def show():
    """Print the versions, one ``name: value`` line each, as Paddle does."""
    if is_tagged:
        print("full_version:", full_version)
        print("major:", major)
        print("minor:", minor)
        print("patch:", patch)
        print("rc:", rc)
    else:
        print("commit:", commit)
    print("cuda:", cuda_version)
    print("cudnn:", cudnn_version)
    print("hip:", hip_version)
    print("nccl:", nccl_version)
    print("xpu_xre:", xpu_xre_version)
    print("xpu_xccl:", xpu_xccl_version)
    print("xpu_xhpc:", xpu_xhpc_version)
    print("cinn:", cinn_version)
    print("tensorrt_version:", tensorrt_version)
    print("cuda_archs:", compiled_cuda_archs)


def mkl():
    return with_mkl


def hml():
    return with_hml


def nccl():
    return nccl_version


def cudnn():
    return cudnn_version


def xpu():
    return xpu_xhpc_version


def xpu_xre():
    return xpu_xre_version


def xpu_xccl():
    return xpu_xccl_version


def xpu_xhpc():
    return xpu_xhpc_version


def cinn():
    return cinn_version


def tensorrt():
    return tensorrt_version


def cuda_archs():
    return compiled_cuda_archs
