"""Samplers: order, lengths, reproducibility under paddle.seed, argument errors."""
import numpy as np
import pytest

import runtime as paddle
from runtime.io import (BatchSampler, DistributedBatchSampler, RandomSampler, Sampler, SequenceSampler,
                        SubsetRandomSampler, WeightedRandomSampler)

DATA = list(range(10))


def test_sequence_sampler():
    s = SequenceSampler(DATA[:4])
    assert list(s) == [0, 1, 2, 3] and len(s) == 4


def test_base_sampler_needs_iter():
    with pytest.raises(NotImplementedError):
        iter(Sampler(DATA))


def test_random_sampler_is_permutation_and_seeded():
    paddle.seed(1)
    a = list(RandomSampler(DATA))
    paddle.seed(1)
    b = list(RandomSampler(DATA))
    assert a == b and sorted(a) == DATA
    # the same draw as numpy's generator seeded the same way
    assert a == np.random.default_rng(1).permutation(10).tolist()
    s = RandomSampler(DATA)
    paddle.seed(2)  # a seed set after construction still applies
    c = list(s)
    assert c == np.random.default_rng(2).permutation(10).tolist()


def test_random_sampler_replacement_and_num_samples():
    s = RandomSampler(DATA, replacement=True, num_samples=25)
    got = list(s)
    assert len(s) == 25 and len(got) == 25 and all(0 <= i < 10 for i in got)
    s = RandomSampler(DATA, num_samples=4)
    got = list(s)
    assert len(got) == 4 and len(set(got)) == 4
    with pytest.raises(ValueError, match="num_samples"):
        RandomSampler(DATA[:3], num_samples=5)
    with pytest.raises(ValueError, match="num_samples"):
        RandomSampler(DATA, num_samples=0)
    with pytest.raises(TypeError, match="replacement"):
        RandomSampler(DATA, replacement=1)


def test_random_sampler_generators():
    s = RandomSampler(DATA, generator=np.random.default_rng(5))
    assert list(s) == np.random.default_rng(5).permutation(10).tolist()
    # a Python iterator supplies the indices itself (Paddle's meaning of `generator`)
    s = RandomSampler(DATA, generator=iter([9, 8, 7, 6, 5, 4, 3, 2, 1, 0, 42]))
    assert list(s) == [9, 8, 7, 6, 5, 4, 3, 2, 1, 0]


def test_subset_random_sampler():
    paddle.seed(4)
    got = list(SubsetRandomSampler([3, 5, 7]))
    assert sorted(got) == [3, 5, 7]
    perm = np.random.default_rng(4).permutation(3)
    assert got == [[3, 5, 7][i] for i in perm]
    with pytest.raises(ValueError, match="empty"):
        SubsetRandomSampler([])


def test_weighted_random_sampler():
    s = WeightedRandomSampler([0.0, 1.0, 0.0], 6)
    assert len(s) == 6 and list(s) == [1] * 6
    s = WeightedRandomSampler(np.array([1.0, 1.0, 1.0]), 3, replacement=False)
    assert sorted(s) == [0, 1, 2]
    # as in Paddle: the weights are checked when iterating, with AssertionError
    with pytest.raises(AssertionError, match="positive value"):
        list(WeightedRandomSampler([0.1, -0.9], 5))
    with pytest.raises(AssertionError, match="1-D or 2-D"):
        list(WeightedRandomSampler(np.ones((2, 2, 2)), 2))
    with pytest.raises(AssertionError, match="less than num_samples"):
        list(WeightedRandomSampler([1.0, 0.0], 2, replacement=False))
    # a 2-D weights draws num_samples per row
    s = WeightedRandomSampler(np.array([[0.0, 1.0], [1.0, 0.0]]), 3)
    assert len(s) == 6 and list(s) == [1, 1, 1, 0, 0, 0]


def test_batch_sampler_from_dataset():
    bs = BatchSampler(dataset=DATA, batch_size=3)
    assert list(bs) == [[0, 1, 2], [3, 4, 5], [6, 7, 8], [9]] and len(bs) == 4
    bs = BatchSampler(dataset=DATA, batch_size=3, drop_last=True)
    assert list(bs) == [[0, 1, 2], [3, 4, 5], [6, 7, 8]] and len(bs) == 3
    bs = BatchSampler(dataset=DATA, batch_size=5)
    assert len(bs) == 2


def test_batch_sampler_shuffle_and_sampler():
    paddle.seed(9)
    got = list(BatchSampler(dataset=DATA, shuffle=True, batch_size=4))
    perm = np.random.default_rng(9).permutation(10).tolist()
    assert got == [perm[0:4], perm[4:8], perm[8:10]]
    bs = BatchSampler(sampler=SequenceSampler(DATA), batch_size=3, drop_last=True)
    assert list(bs) == [[0, 1, 2], [3, 4, 5], [6, 7, 8]]
    bs = BatchSampler(sampler=[4, 2, 0], batch_size=2)
    assert list(bs) == [[4, 2], [0]]


def test_batch_sampler_errors():
    # Paddle asserts its BatchSampler arguments
    with pytest.raises(AssertionError, match="both dataset and sampler"):
        BatchSampler(dataset=DATA, sampler=SequenceSampler(DATA))
    with pytest.raises(AssertionError, match="either dataset or sampler"):
        BatchSampler()
    with pytest.raises(AssertionError, match="batch_size should be a positive integer"):
        BatchSampler(dataset=DATA, batch_size=0)
    with pytest.raises(AssertionError, match="batch_size"):
        BatchSampler(dataset=DATA, batch_size=2.5)
    with pytest.raises(AssertionError, match="shuffle"):
        BatchSampler(dataset=DATA, shuffle="yes")
    with pytest.raises(AssertionError, match="shuffle should be False"):
        BatchSampler(sampler=SequenceSampler(DATA), shuffle=True)


def test_distributed_batch_sampler_single_and_two_replicas():
    s = DistributedBatchSampler(DATA, 3)
    assert list(s) == [[0, 1, 2], [3, 4, 5], [6, 7, 8], [9]] and len(s) == 4
    # two replicas: 10 samples -> 5 each, dealt as whole batches round-robin, the last round split evenly
    r0 = list(DistributedBatchSampler(DATA, 2, num_replicas=2, rank=0))
    r1 = list(DistributedBatchSampler(DATA, 2, num_replicas=2, rank=1))
    assert r0 == [[0, 1], [4, 5], [8]] and r1 == [[2, 3], [6, 7], [9]]
    sh = DistributedBatchSampler(DATA, 5, shuffle=True)
    sh.set_epoch(3)
    flat = [i for b in sh for i in b]
    expected = list(range(10))
    np.random.RandomState(3).shuffle(expected)
    assert flat == expected


# (num_replicas, rank, batch_size, shuffle, drop_last, epoch) compared with real Paddle's DistributedBatchSampler
_DBS_CONFIGS = [(1, 0, 3, False, False, 0), (2, 0, 2, False, False, 0), (2, 1, 2, False, False, 0),
                (3, 2, 4, False, False, 0), (3, 1, 4, True, False, 5), (1, 0, 4, True, True, 2),
                (4, 3, 3, True, False, 1), (2, 1, 3, False, True, 0)]


def test_distributed_batch_sampler_matches_paddle(tmp_path):
    import json
    from tests.interop.paddle_runner import run_paddle
    code = f"""
import json
from paddle.io import DistributedBatchSampler
out = []
for nr, rank, bs, sh, dl, ep in {_DBS_CONFIGS!r}:
    s = DistributedBatchSampler(list(range(10)), bs, num_replicas=nr, rank=rank, shuffle=sh, drop_last=dl)
    s.set_epoch(ep)
    out.append([list(b) for b in s] + [len(s)])
json.dump(out, open("dbs.json", "w"))
"""
    proc = run_paddle(code, tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    theirs = json.loads((tmp_path / "dbs.json").read_text())
    for cfg, want in zip(_DBS_CONFIGS, theirs):
        nr, rank, bs, sh, dl, ep = cfg
        s = DistributedBatchSampler(DATA, bs, num_replicas=nr, rank=rank, shuffle=sh, drop_last=dl)
        s.set_epoch(ep)
        assert [list(b) for b in s] + [len(s)] == want, cfg


def test_distributed_batch_sampler_errors():
    with pytest.raises(ValueError, match="rank"):
        DistributedBatchSampler(DATA, 2, num_replicas=2, rank=2)
