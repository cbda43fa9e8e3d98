"""paddle.optimizer (to be written)."""
