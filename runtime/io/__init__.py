"""paddle.io: datasets and data loading (to be written)."""
