"""``paddle.jit.dy2static.logging_utils``: the translator's log (``paddle.jit.set_verbosity``) and the
printing of converted code (``paddle.jit.set_code_level``), as Paddle's.

Levels come from ``set_verbosity`` / ``set_code_level`` when called, else from the environment variables
``TRANSLATOR_VERBOSITY`` / ``TRANSLATOR_CODE_LEVEL`` (default -1: nothing). Messages go to the
``Dynamic-to-Static`` logger (stderr, ``time name LEVEL: message``) and, when asked, to stdout prefixed
``Dynamic-to-Static INFO:``. What is logged, as in Paddle:

* verbosity >= 1: ``(Level 1) Source code:`` of every function converted;
* code level 100 (``set_code_level()``'s default): the converted code of each function, "After the last
  level ast transformer: 'All Transformers'"; a level ``k`` in 1..N: the code after the k-th of dy2st's
  passes (dy2st's passes are not Paddle's, so intermediate levels show different stages);
* ``warn`` messages (e.g. jit.save's "No input_spec is found, save cached program instead") only once a
  verbosity is set, as Paddle.
"""
from __future__ import annotations

import logging
import os
import sys
import threading

__all__ = ["set_verbosity", "get_verbosity", "set_code_level", "get_code_level", "log", "warn", "error",
           "log_transformed_code", "TranslatorLogger", "VERBOSITY_ENV_NAME", "CODE_LEVEL_ENV_NAME",
           "DEFAULT_VERBOSITY", "DEFAULT_CODE_LEVEL", "LOG_AllTransformer"]

VERBOSITY_ENV_NAME = "TRANSLATOR_VERBOSITY"
CODE_LEVEL_ENV_NAME = "TRANSLATOR_CODE_LEVEL"
DEFAULT_VERBOSITY = -1
DEFAULT_CODE_LEVEL = -1
LOG_AllTransformer = 100

_LOGGER_NAME = "Dynamic-to-Static"
_new_lock = threading.Lock()


def _env_level(name, default):
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        return int(raw)
    except ValueError:
        raise ValueError(f"environment variable {name} must be an integer level, got {raw!r}") from None


def _make_logger():
    logger = logging.getLogger(_LOGGER_NAME)
    logger.setLevel(1)
    if not any(getattr(h, "_dy2st_translator", False) for h in logger.handlers):
        handler = logging.StreamHandler()
        handler.setFormatter(logging.Formatter("%(asctime)s %(name)s %(levelname)s: %(message)s"))
        handler._dy2st_translator = True
        logger.addHandler(handler)
    logger.propagate = False
    return logger


class TranslatorLogger:
    """The translator's logger, a singleton (``TranslatorLogger()`` is always the same object)."""

    def __new__(cls, *args, **kwargs):
        with _new_lock:
            if "_instance" not in cls.__dict__:
                inst = object.__new__(cls)
                inst._initialized = False
                cls._instance = inst
        return cls._instance

    def __init__(self):
        if self._initialized:
            return
        self._initialized = True
        self.logger_name = _LOGGER_NAME
        self._logger = _make_logger()
        self._verbosity_level = None
        self._transformed_code_level = None
        self._need_to_echo_log_to_stdout = None
        self._need_to_echo_code_to_stdout = None

    @property
    def logger(self):
        return self._logger

    @staticmethod
    def check_level(level):
        if not isinstance(level, (int, type(None))) or isinstance(level, bool):
            raise TypeError(f"Level is not an integer: {level}")
        return level

    @property
    def verbosity_level(self):
        if self._verbosity_level is not None:
            return self._verbosity_level
        return _env_level(VERBOSITY_ENV_NAME, DEFAULT_VERBOSITY)

    @verbosity_level.setter
    def verbosity_level(self, level):
        self._verbosity_level = self.check_level(level)

    @property
    def transformed_code_level(self):
        if self._transformed_code_level is not None:
            return self._transformed_code_level
        return _env_level(CODE_LEVEL_ENV_NAME, DEFAULT_CODE_LEVEL)

    @transformed_code_level.setter
    def transformed_code_level(self, level):
        self._transformed_code_level = self.check_level(level)

    @property
    def need_to_echo_log_to_stdout(self):
        return bool(self._need_to_echo_log_to_stdout)

    @need_to_echo_log_to_stdout.setter
    def need_to_echo_log_to_stdout(self, value):
        if not isinstance(value, (bool, type(None))):
            # AssertionError, as Paddle's (an assert there)
            raise AssertionError(f"also_to_stdout must be a bool or None, got {type(value).__name__}")
        self._need_to_echo_log_to_stdout = value

    @property
    def need_to_echo_code_to_stdout(self):
        return bool(self._need_to_echo_code_to_stdout)

    @need_to_echo_code_to_stdout.setter
    def need_to_echo_code_to_stdout(self, value):
        if not isinstance(value, (bool, type(None))):
            # AssertionError, as Paddle's (an assert there)
            raise AssertionError(f"also_to_stdout must be a bool or None, got {type(value).__name__}")
        self._need_to_echo_code_to_stdout = value

    def has_code_level(self, level):
        return self.check_level(level) == self.transformed_code_level

    def has_verbosity(self, level):
        return self.verbosity_level >= self.check_level(level)

    def _output_to_stdout(self, msg, *args):
        sys.stdout.write(f"{self.logger_name} {msg % args if args else msg}\n")

    def error(self, msg, *args, **kwargs):
        self.logger.error(msg, *args, **kwargs)
        if self.need_to_echo_log_to_stdout:
            self._output_to_stdout("ERROR: " + msg, *args)

    def warn(self, msg, *args, **kwargs):
        if self.verbosity_level != -1:
            self.logger.warning(msg, *args, **kwargs)
            if self.need_to_echo_log_to_stdout:
                self._output_to_stdout("WARNING: " + msg, *args)

    def log(self, level, msg, *args, **kwargs):
        if self.has_verbosity(level):
            msg_with_level = f"(Level {level}) {msg}"
            self.logger.info(msg_with_level, *args, **kwargs)
            if self.need_to_echo_log_to_stdout:
                self._output_to_stdout("INFO: " + msg_with_level, *args)

    def log_transformed_code(self, level, ast_node, transformer_name, *args, **kwargs):
        if not self.has_code_level(level):
            return
        from .ast_utils import ast_to_source_code
        source = ast_node if isinstance(ast_node, str) else ast_to_source_code(ast_node)
        if level == LOG_AllTransformer:
            header = f"After the last level ast transformer: '{transformer_name}', the transformed code:\n"
        else:
            header = f"After the level {level} ast transformer: '{transformer_name}', the transformed code:\n"
        msg = header + source
        self.logger.info(msg, *args, **kwargs)
        if self.need_to_echo_code_to_stdout:
            self._output_to_stdout("INFO: " + msg, *args)


_TRANSLATOR_LOGGER = TranslatorLogger()


def set_verbosity(level=0, also_to_stdout=False):
    """Log the translator's messages up to verbosity ``level`` (0: none; ``set_verbosity`` wins over
    ``TRANSLATOR_VERBOSITY``), also on stdout if ``also_to_stdout``."""
    _TRANSLATOR_LOGGER.verbosity_level = level
    _TRANSLATOR_LOGGER.need_to_echo_log_to_stdout = also_to_stdout


def get_verbosity():
    return _TRANSLATOR_LOGGER.verbosity_level


def set_code_level(level=LOG_AllTransformer, also_to_stdout=False):
    """Print the converted code after pass ``level`` (100, the default: after all of them; wins over
    ``TRANSLATOR_CODE_LEVEL``), also on stdout if ``also_to_stdout``."""
    _TRANSLATOR_LOGGER.transformed_code_level = level
    _TRANSLATOR_LOGGER.need_to_echo_code_to_stdout = also_to_stdout


def get_code_level():
    return _TRANSLATOR_LOGGER.transformed_code_level


def error(msg, *args, **kwargs):
    _TRANSLATOR_LOGGER.error(msg, *args, **kwargs)


def warn(msg, *args, **kwargs):
    _TRANSLATOR_LOGGER.warn(msg, *args, **kwargs)


def log(level, msg, *args, **kwargs):
    _TRANSLATOR_LOGGER.log(level, msg, *args, **kwargs)


def log_transformed_code(level, ast_node, transformer_name, *args, **kwargs):
    _TRANSLATOR_LOGGER.log_transformed_code(level, ast_node, transformer_name, *args, **kwargs)
