"""``paddle.hapi.logger.setup_logger``: the ``hapi`` logger, writing to stdout and optionally to a file."""
from __future__ import annotations

import logging
import os
import sys

__all__ = []

_FORMAT = "%(asctime)s - %(name)s - %(levelname)s - %(message)s"


def setup_logger(output=None, name="hapi", log_level=logging.INFO):
    """The logger ``name`` at ``log_level``, printing to stdout (once) and, with ``output``, also to a
    file: ``output`` itself when it ends in .txt or .log, else ``output/log.txt``."""
    logger = logging.getLogger(name)
    logger.propagate = False
    logger.setLevel(log_level)
    rank = int(os.getenv("PADDLE_TRAINER_ID", "0"))
    if rank == 0 and not logger.handlers:
        console = logging.StreamHandler(stream=sys.stdout)
        console.setLevel(log_level)
        console.setFormatter(logging.Formatter(_FORMAT))
        logger.addHandler(console)
    if output is not None:
        filename = output if output.endswith((".txt", ".log")) else os.path.join(output, "log.txt")
        if rank > 0:
            filename += f".rank{rank}"
        directory = os.path.dirname(filename)
        if directory:
            os.makedirs(directory, exist_ok=True)
        # Paddle 3.3.1 hands the file name to a StreamHandler, which fails at the first record
        handler = logging.FileHandler(filename)
        handler.setLevel(log_level)
        handler.setFormatter(logging.Formatter(_FORMAT))
        logger.addHandler(handler)
    return logger
