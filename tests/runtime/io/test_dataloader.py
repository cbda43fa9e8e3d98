"""DataLoader: Paddle's default collate (dtypes, nesting), batching modes, shuffling, iterable datasets."""
import numpy as np
import pytest

import runtime as paddle
from runtime.io import BatchSampler, DataLoader, Dataset, IterableDataset, TensorDataset, get_worker_info
from runtime.io.collate import default_collate_fn


class Mixed(Dataset):
    """Every kind of field the default collate handles."""

    def __len__(self):
        return 5

    def __getitem__(self, i):
        return (np.full([2], i, np.float32), i, float(i), {"a": i, "b": np.ones(3) * i}, True,
                np.int32(i), "s%d" % i)


class Single(Dataset):
    def __len__(self):
        return 5

    def __getitem__(self, i):
        return np.full([2], i, np.float32)


class Stream(IterableDataset):
    def __init__(self, n=7):
        self.n = n

    def __iter__(self):
        for i in range(self.n):
            yield np.array([i], np.float32), i


def test_default_collate_dtypes_and_nesting():
    # dtypes as real Paddle 3.3.1 gives them: Python int -> int64, Python float -> float64,
    # bool -> bool, numpy scalars keep their dtype, strings stay a list.
    loader = DataLoader(Mixed(), batch_size=2)
    assert len(loader) == 3
    batch = next(iter(loader))
    assert isinstance(batch, list) and len(batch) == 7
    arr, ints, floats, d, flags, np_ints, strs = batch
    assert isinstance(arr, paddle.Tensor) and arr.shape == [2, 2] and arr.dtype == paddle.float32
    np.testing.assert_array_equal(arr.numpy(), [[0, 0], [1, 1]])
    assert ints.dtype == paddle.int64 and ints.numpy().tolist() == [0, 1]
    assert floats.dtype == paddle.float64 and floats.numpy().tolist() == [0.0, 1.0]
    assert set(d) == {"a", "b"}
    assert d["a"].dtype == paddle.int64 and d["b"].shape == [2, 3] and d["b"].dtype == paddle.float64
    assert flags.dtype == paddle.bool and flags.numpy().tolist() == [True, True]
    assert np_ints.dtype == paddle.int32
    assert strs == ["s0", "s1"]
    assert all(t.stop_gradient for t in (arr, ints, floats, flags))


def test_single_array_samples_give_a_tensor_not_a_list():
    batches = list(DataLoader(Single(), batch_size=2))
    assert [type(b) for b in batches] == [paddle.Tensor] * 3
    assert [b.shape for b in batches] == [[2, 2], [2, 2], [1, 2]]
    ints = list(DataLoader(list(range(5)), batch_size=2))
    assert [b.numpy().tolist() for b in ints] == [[0, 1], [2, 3], [4]]


def test_collate_stacks_tensor_fields():
    class T(Dataset):
        def __len__(self):
            return 4

        def __getitem__(self, i):
            return paddle.Tensor(np.array([i, i])), paddle.Tensor(np.float32(i))

    a, b = next(iter(DataLoader(T(), batch_size=3)))
    assert a.shape == [3, 2] and a.dtype == paddle.int64
    assert b.shape == [3] and b.dtype == paddle.float32
    np.testing.assert_array_equal(b.numpy(), [0, 1, 2])


def test_collate_errors():
    with pytest.raises(ValueError, match="same number of fields"):
        default_collate_fn([(1, 2), (1,)])
    with pytest.raises(TypeError, match="object"):
        default_collate_fn([object(), object()])
    with pytest.raises(ValueError, match=r"different shapes \[\[2\], \[3\]\]"):
        default_collate_fn([np.ones(2), np.ones(3)])


def test_tensor_dataset_batches_match_stacked_rows():
    x = np.arange(20, dtype=np.float32).reshape(10, 2)
    y = np.arange(10, dtype=np.int64)
    ds = TensorDataset([paddle.Tensor(x), paddle.Tensor(y)])
    paddle.seed(0)
    fast = list(DataLoader(ds, batch_size=4, shuffle=True))
    paddle.seed(0)
    # collate_fn given -> the generic path that reads samples one by one
    slow = list(DataLoader(ds, batch_size=4, shuffle=True,
                           collate_fn=lambda b: [np.stack([s[0].numpy() for s in b]),
                                                 np.stack([s[1].numpy() for s in b])]))
    assert len(fast) == len(slow) == 3
    for (fx, fy), (sx, sy) in zip(fast, slow):
        np.testing.assert_array_equal(fx.numpy(), sx.numpy())
        np.testing.assert_array_equal(fy.numpy(), sy.numpy())
        np.testing.assert_array_equal(fx.numpy(), x[fy.numpy()])
    perm = np.random.default_rng(0).permutation(10)
    np.testing.assert_array_equal(np.concatenate([b[1].numpy() for b in fast]), perm)


def test_drop_last_and_len():
    ds = TensorDataset([np.arange(10)])
    assert len(DataLoader(ds, batch_size=4)) == 3
    loader = DataLoader(ds, batch_size=4, drop_last=True)
    assert len(loader) == 2 and [b[0].shape for b in loader] == [[4], [4]]


def test_shuffle_reproducible_with_seed_and_differs_between_epochs():
    ds = TensorDataset([np.arange(50)])
    loader = DataLoader(ds, batch_size=10, shuffle=True)
    paddle.seed(123)
    e1 = np.concatenate([b[0].numpy() for b in loader])
    e2 = np.concatenate([b[0].numpy() for b in loader])
    paddle.seed(123)
    again = np.concatenate([b[0].numpy() for b in loader])
    np.testing.assert_array_equal(e1, again)
    assert sorted(e1.tolist()) == list(range(50))
    assert not np.array_equal(e1, e2)


def test_num_workers_gives_the_same_batches():
    ds = Mixed()
    paddle.seed(5)
    a = list(DataLoader(ds, batch_size=2, shuffle=True))
    paddle.seed(5)
    b = list(DataLoader(ds, batch_size=2, shuffle=True, num_workers=2, use_shared_memory=False,
                        prefetch_factor=4, persistent_workers=True))
    assert len(a) == len(b)
    for x, y in zip(a, b):
        np.testing.assert_array_equal(x[0].numpy(), y[0].numpy())
        np.testing.assert_array_equal(x[1].numpy(), y[1].numpy())
    assert get_worker_info() is None


def test_batch_sampler_argument():
    ds = TensorDataset([np.arange(7)])
    loader = DataLoader(ds, batch_sampler=BatchSampler(ds, batch_size=3))
    assert len(loader) == 3
    assert [b[0].numpy().tolist() for b in loader] == [[0, 1, 2], [3, 4, 5], [6]]
    loader = DataLoader(ds, batch_sampler=[[6, 0], [3]])
    assert [b[0].numpy().tolist() for b in loader] == [[6, 0], [3]]


def test_batch_size_none_yields_converted_samples():
    out = list(DataLoader(Mixed(), batch_size=None))
    assert len(out) == 5
    first = out[0]
    assert isinstance(first, list)
    assert isinstance(first[0], paddle.Tensor) and first[0].shape == [2]
    assert first[1] == 0 and first[2] == 0.0  # numbers are left alone
    assert isinstance(first[3]["b"], paddle.Tensor)


def test_custom_collate_fn_output_is_converted():
    loader = DataLoader(Single(), batch_size=2, collate_fn=lambda b: {"x": np.stack(b), "n": len(b)})
    batch = next(iter(loader))
    assert isinstance(batch["x"], paddle.Tensor) and batch["n"] == 2


def test_iterable_dataset_batching():
    loader = DataLoader(Stream(), batch_size=3)
    got = [(x.numpy()[:, 0].tolist(), y.numpy().tolist()) for x, y in loader]
    assert got == [([0, 1, 2], [0, 1, 2]), ([3, 4, 5], [3, 4, 5]), ([6], [6])]
    got = [y.numpy().tolist() for _, y in DataLoader(Stream(), batch_size=3, drop_last=True)]
    assert got == [[0, 1, 2], [3, 4, 5]]
    unbatched = list(DataLoader(Stream(3), batch_size=None))
    assert [u[1] for u in unbatched] == [0, 1, 2] and unbatched[0][0].shape == [1]
    with pytest.raises(TypeError, match="length"):
        len(DataLoader(Stream(), batch_size=2))
    assert len(list(DataLoader(Stream(), batch_size=2))) == 4


def test_dataloader_argument_errors():
    ds = TensorDataset([np.arange(4)])
    with pytest.raises(ValueError, match="should not be set when batch_sampler"):
        DataLoader(ds, batch_sampler=BatchSampler(ds, batch_size=2), batch_size=2)
    with pytest.raises(ValueError, match="should not be set when batch_sampler"):
        DataLoader(ds, batch_sampler=BatchSampler(ds, batch_size=2), shuffle=True)
    with pytest.raises(ValueError, match="batch_size should be None or a positive integer"):
        DataLoader(ds, batch_size=0)
    with pytest.raises(ValueError, match="num_workers"):
        DataLoader(ds, num_workers=-1)
    with pytest.raises(ValueError, match="shuffle"):
        DataLoader(Stream(), batch_size=2, shuffle=True)
    with pytest.raises(ValueError, match="batch_sampler"):
        DataLoader(Stream(), batch_sampler=BatchSampler(ds, batch_size=2))
    with pytest.raises(TypeError, match="collate_fn"):
        DataLoader(ds, collate_fn=3)
