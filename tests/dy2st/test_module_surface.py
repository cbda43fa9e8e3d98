"""Paddle's smaller module paths: paddle.sysconfig, paddle.io.dataloader, the Tensor-method-only functions of
paddle.tensor, and the new packages importable at Paddle's paths as the same module objects."""
import importlib
import os

import numpy as np

import dy2st as paddle


def test_module_paths_are_the_implementation():
    for path, impl in (("dy2st.nn.utils", "runtime.nn.utils"), ("dy2st.device.cuda", "runtime.device.cuda"),
                       ("dy2st.distributed", "runtime.distributed"), ("dy2st.distributed.fleet",
                                                                      "runtime.distributed.fleet"),
                       ("dy2st.geometric", "runtime.geometric"), ("dy2st.io.dataloader", "runtime.io.dataloader")):
        assert importlib.import_module(path) is importlib.import_module(impl), path
    assert paddle.DataParallel is paddle.distributed.DataParallel
    assert paddle.nn.initializer.Bilinear and paddle.nn.initializer.Dirac


def test_sysconfig_paths_are_in_the_package():
    root = os.path.dirname(paddle.__file__)
    assert paddle.sysconfig.get_include() == os.path.join(root, "include")
    assert paddle.sysconfig.get_lib() == os.path.join(root, "libs")


def test_io_dataloader_names():
    from dy2st.io.dataloader import (BatchSampler, Dataset, DistributedBatchSampler, TensorDataset,  # noqa: F401
                                     get_worker_info, random_split)
    assert Dataset is paddle.io.Dataset and paddle.io.dataloader.collate.default_collate_fn is not None
    ds = TensorDataset([paddle.arange(4)])
    assert [int(b[0]) for b in BatchSampler(ds, batch_size=3)] == [0, 3]


def test_tensor_method_functions():
    x = paddle.to_tensor([1.0, -2.0, 3.0])
    assert paddle.tensor.math.clip_(x, -1.0, 1.0) is x
    np.testing.assert_array_equal(x.numpy(), [1.0, -1.0, 1.0])
    np.testing.assert_array_equal(paddle.tensor.add_(x, paddle.ones([3])).numpy(), [2.0, 0.0, 2.0])
    parts = paddle.tensor.manipulation.split_with_sizes(paddle.arange(5), [2, 3])
    assert [p.shape for p in parts] == [[2], [3]]
