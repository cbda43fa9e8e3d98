"""paddle.nn: Layer, containers, layers, functional, initializer (to be written)."""
