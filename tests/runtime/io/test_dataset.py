"""Datasets: Dataset/IterableDataset contracts, TensorDataset, Compose/Chain/Concat, Subset, random_split."""
import numpy as np
import pytest

import runtime as paddle
from runtime.io import (ChainDataset, ComposeDataset, ConcatDataset, Dataset, IterableDataset, Subset,
                        TensorDataset, random_split)


class ListDataset(Dataset):
    def __init__(self, items):
        self.items = list(items)

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        return self.items[i]


class Count(IterableDataset):
    def __init__(self, n):
        self.n = n

    def __iter__(self):
        return iter(range(self.n))


def test_abstract_dataset_methods_raise():
    d = Dataset()
    with pytest.raises(NotImplementedError, match="__getitem__"):
        d[0]
    with pytest.raises(NotImplementedError, match="__len__"):
        len(d)
    it = IterableDataset()
    with pytest.raises(NotImplementedError, match="__iter__"):
        iter(it)
    with pytest.raises(RuntimeError, match="__getitem__"):
        it[0]
    with pytest.raises(TypeError, match="__len__"):
        len(it)


def test_tensor_dataset_items_and_len():
    x = np.arange(10, dtype=np.float32).reshape(5, 2)
    y = np.arange(5, dtype=np.int64)
    ds = TensorDataset([paddle.Tensor(x), paddle.Tensor(y)])
    assert len(ds) == 5
    xi, yi = ds[3]
    assert isinstance(xi, paddle.Tensor) and isinstance(yi, paddle.Tensor)
    np.testing.assert_array_equal(xi.numpy(), x[3])
    assert xi.dtype == paddle.float32 and yi.dtype == paddle.int64
    assert yi.shape == [] and yi.item() == 3
    assert xi.stop_gradient and yi.stop_gradient


def test_tensor_dataset_accepts_ndarrays():
    ds = TensorDataset([np.arange(6).reshape(3, 2), np.arange(3)])
    a, b = ds[1]
    assert isinstance(a, np.ndarray)
    np.testing.assert_array_equal(a, [2, 3])
    assert b == 1


def test_tensor_dataset_errors():
    with pytest.raises(ValueError, match="same first dimension"):
        TensorDataset([paddle.Tensor(np.ones(3)), paddle.Tensor(np.ones(4))])
    with pytest.raises(TypeError, match="list or tuple"):
        TensorDataset(paddle.Tensor(np.ones(3)))
    with pytest.raises(TypeError, match=r"tensors\[1\]"):
        TensorDataset([np.ones(3), [1, 2, 3]])
    with pytest.raises(ValueError, match="0-D"):
        TensorDataset([np.ones(())])


def test_compose_dataset_flattens_fields():
    c = ComposeDataset([ListDataset(range(3)), ListDataset([(i, 2 * i) for i in range(3)])])
    assert len(c) == 3
    assert c[1] == (1, 1, 2)
    with pytest.raises(ValueError, match="same length"):
        ComposeDataset([ListDataset(range(3)), ListDataset(range(4))])
    with pytest.raises(ValueError, match="empty"):
        ComposeDataset([])
    with pytest.raises(TypeError, match="IterableDataset"):
        ComposeDataset([Count(3)])


def test_chain_and_concat():
    assert list(ChainDataset([Count(2), Count(3)])) == [0, 1, 0, 1, 2]
    with pytest.raises(TypeError, match=r"datasets\[0\]"):
        ChainDataset([ListDataset(range(2))])
    cd = ConcatDataset([ListDataset("abc"), ListDataset("defg")])
    assert len(cd) == 7 and cd.cumulative_sizes == [3, 7]
    assert [cd[i] for i in range(7)] == list("abcdefg")
    assert cd[-1] == "g" and cd[-7] == "a"
    with pytest.raises(IndexError):
        cd[7]
    with pytest.raises(ValueError, match="out of range"):
        cd[-8]


def test_subset():
    s = Subset(ListDataset("abcdef"), [4, 0, 2])
    assert len(s) == 3
    assert [s[i] for i in range(3)] == ["e", "a", "c"]


def test_random_split_counts_and_partition():
    paddle.seed(3)
    parts = random_split(ListDataset(range(10)), [3, 7])
    assert [len(p) for p in parts] == [3, 7]
    got = sorted(parts[0].indices + parts[1].indices)
    assert got == list(range(10))
    with pytest.raises(ValueError, match="does not equal the length"):
        random_split(ListDataset(range(10)), [3, 6])


def test_random_split_fractions():
    # floor(10 * 0.33) = 3 each, the one left over goes to the first split
    parts = random_split(ListDataset(range(10)), [0.33, 0.33, 0.34])
    assert [len(p) for p in parts] == [4, 3, 3]
    parts = random_split(ListDataset(range(10)), [0.7, 0.3])
    assert [len(p) for p in parts] == [7, 3]
    with pytest.raises(ValueError):
        random_split(ListDataset(range(10)), [0.5, 0.6])


def test_random_split_reproducible_with_seed_and_generator():
    paddle.seed(11)
    a = [p.indices for p in random_split(ListDataset(range(20)), [5, 15])]
    paddle.seed(11)
    b = [p.indices for p in random_split(ListDataset(range(20)), [5, 15])]
    assert a == b
    expected = np.random.default_rng(7).permutation(20).tolist()
    c = random_split(ListDataset(range(20)), [5, 15], generator=np.random.default_rng(7))
    assert c[0].indices + c[1].indices == expected
    with pytest.raises(TypeError, match="generator"):
        random_split(ListDataset(range(4)), [2, 2], generator=3)
