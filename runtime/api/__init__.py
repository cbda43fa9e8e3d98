"""The functional tensor API (``paddle.add``, ``paddle.reshape`` ...), one module per family.

Each function calls `run_op`, so it works eagerly and in static mode alike; functions
that Paddle also offers as Tensor methods are attached with `tensor_method`.
"""
