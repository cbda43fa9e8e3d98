"""paddle.vision (to be written)."""
