"""``paddle.jit.dy2static.logging_utils``: the dy2st translator's log levels (``paddle.jit.set_verbosity``,
``paddle.jit.set_code_level``), read from ``TRANSLATOR_VERBOSITY`` / ``TRANSLATOR_CODE_LEVEL`` unless set.

Messages go to the ``paddle.jit.dy2static`` logger (and stdout when asked). The converted source of
a function is available as ``static_fn.code``; ``log_transformed_code`` prints code at a code level.
"""
from __future__ import annotations

import logging
import os
import sys

__all__ = ["set_verbosity", "get_verbosity", "set_code_level", "get_code_level", "log", "warn", "error",
           "log_transformed_code", "TranslatorLogger", "VERBOSITY_ENV_NAME", "CODE_LEVEL_ENV_NAME"]

VERBOSITY_ENV_NAME = "TRANSLATOR_VERBOSITY"
CODE_LEVEL_ENV_NAME = "TRANSLATOR_CODE_LEVEL"
DEFAULT_VERBOSITY = -1
DEFAULT_CODE_LEVEL = -1
LOG_AllTransformer = 100


def _env_level(name, default):
    try:
        return int(os.environ.get(name, default))
    except ValueError:
        return default


class TranslatorLogger:
    """Verbosity and code levels (a set value wins over the environment variable) and a logger."""

    def __init__(self):
        self.logger = logging.getLogger("paddle.jit.dy2static")
        self._verbosity_level = None
        self._code_level = None
        self.need_to_echo_log_to_stdout = False
        self.need_to_echo_code_to_stdout = False

    @property
    def verbosity_level(self):
        if self._verbosity_level is not None:
            return self._verbosity_level
        return _env_level(VERBOSITY_ENV_NAME, DEFAULT_VERBOSITY)

    @verbosity_level.setter
    def verbosity_level(self, level):
        if not isinstance(level, int):
            raise TypeError(f"verbosity level must be an int, got {type(level).__name__}")
        self._verbosity_level = level

    @property
    def transformed_code_level(self):
        if self._code_level is not None:
            return self._code_level
        return _env_level(CODE_LEVEL_ENV_NAME, DEFAULT_CODE_LEVEL)

    @transformed_code_level.setter
    def transformed_code_level(self, level):
        if not isinstance(level, int):
            raise TypeError(f"code level must be an int, got {type(level).__name__}")
        self._code_level = level

    def has_verbosity(self, level):
        return level <= self.verbosity_level

    def _emit(self, log_level, msg, echo):
        self.logger.log(log_level, msg)
        if echo:
            print(msg, file=sys.stdout)

    def log(self, level, msg, *args, **kwargs):
        if self.has_verbosity(level):
            self._emit(logging.INFO, msg % args if args else msg, self.need_to_echo_log_to_stdout)

    def warn(self, msg, *args, **kwargs):
        self._emit(logging.WARNING, msg % args if args else msg, self.need_to_echo_log_to_stdout)

    def error(self, msg, *args, **kwargs):
        self._emit(logging.ERROR, msg % args if args else msg, self.need_to_echo_log_to_stdout)

    def log_transformed_code(self, level, ast_node, transformer_name, *args, **kwargs):
        code_level = self.transformed_code_level
        if code_level < 0 or not (level == code_level or (code_level >= LOG_AllTransformer and level >= code_level)):
            return
        from .ast_utils import ast_to_source_code
        source = ast_node if isinstance(ast_node, str) else ast_to_source_code(ast_node)
        self._emit(logging.INFO, f"After the {transformer_name}:\n{source}", self.need_to_echo_code_to_stdout)


_TRANSLATOR_LOGGER = TranslatorLogger()


def set_verbosity(level=0, also_to_stdout=False):
    """Log translator messages of verbosity ``level`` and below (0: none), also to stdout if asked."""
    _TRANSLATOR_LOGGER.verbosity_level = level
    _TRANSLATOR_LOGGER.need_to_echo_log_to_stdout = also_to_stdout


def get_verbosity():
    return _TRANSLATOR_LOGGER.verbosity_level


def set_code_level(level=LOG_AllTransformer, also_to_stdout=False):
    """Log converted code at ``level`` (100: after all passes), also to stdout if asked."""
    _TRANSLATOR_LOGGER.transformed_code_level = level
    _TRANSLATOR_LOGGER.need_to_echo_code_to_stdout = also_to_stdout


def get_code_level():
    return _TRANSLATOR_LOGGER.transformed_code_level


def log(level, msg, *args, **kwargs):
    _TRANSLATOR_LOGGER.log(level, msg, *args, **kwargs)


def warn(msg, *args, **kwargs):
    _TRANSLATOR_LOGGER.warn(msg, *args, **kwargs)


def error(msg, *args, **kwargs):
    _TRANSLATOR_LOGGER.error(msg, *args, **kwargs)


def log_transformed_code(level, ast_node, transformer_name, *args, **kwargs):
    _TRANSLATOR_LOGGER.log_transformed_code(level, ast_node, transformer_name, *args, **kwargs)
