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
