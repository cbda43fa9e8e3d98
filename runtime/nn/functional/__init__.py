"""paddle.nn.functional (to be written)."""
