"""paddle.io: datasets, samplers and the DataLoader (eager, single-process data loading)."""
from .dataset import (Dataset, IterableDataset, TensorDataset, ComposeDataset, ChainDataset,  # noqa: F401
                      ConcatDataset, Subset, random_split)
from .sampler import (Sampler, SequenceSampler, RandomSampler, SubsetRandomSampler,  # noqa: F401
                      WeightedRandomSampler, BatchSampler, DistributedBatchSampler)
from .collate import default_collate_fn, default_convert_fn  # noqa: F401
from .dataloader import DataLoader, get_worker_info  # noqa: F401

__all__ = ["Dataset", "IterableDataset", "TensorDataset", "ComposeDataset", "ChainDataset", "ConcatDataset",
           "Subset", "random_split", "Sampler", "SequenceSampler", "RandomSampler", "SubsetRandomSampler",
           "WeightedRandomSampler", "BatchSampler", "DistributedBatchSampler", "DataLoader", "get_worker_info"]

# paddle.io.dataloader (a package in Paddle) holds the dataset and sampler classes and their modules too:
# give the dataloader module those names, so `from paddle.io.dataloader import Dataset` works
from . import dataloader as _dataloader, dataset as _dataset_mod, sampler as _sampler_mod, collate as _collate_mod  # noqa: E402
for _name in ("Dataset", "IterableDataset", "TensorDataset", "ComposeDataset", "ChainDataset", "ConcatDataset",
              "Subset", "random_split", "Sampler", "SequenceSampler", "RandomSampler", "SubsetRandomSampler",
              "WeightedRandomSampler", "BatchSampler", "DistributedBatchSampler"):
    setattr(_dataloader, _name, globals()[_name])
_dataloader.dataset, _dataloader.sampler, _dataloader.batch_sampler, _dataloader.collate = (
    _dataset_mod, _sampler_mod, _sampler_mod, _collate_mod)
del _name
