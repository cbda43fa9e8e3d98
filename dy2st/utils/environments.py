"""``paddle.utils.environments``: typed views of environment variables and a guard that sets one for
a ``with`` block (what Paddle's test utilities use to switch flags held in the environment)."""
from __future__ import annotations

import os

__all__ = ["strtobool", "EnvironmentVariable", "StringEnvironmentVariable", "BooleanEnvironmentVariable",
           "IntegerEnvironmentVariable", "StringListEnvironmentVariable", "EnvironmentVariableGuard"]

_TRUE = ("y", "yes", "t", "true", "on", "1")
_FALSE = ("n", "no", "f", "false", "off", "0")


def strtobool(val):
    """'yes'/'true'/'on'/'1' ... -> True, 'no'/'false'/'off'/'0' ... -> False, else ValueError."""
    v = val.lower()
    if v in _TRUE:
        return True
    if v in _FALSE:
        return False
    raise ValueError(f"Invalid truth value {val!r}")


class EnvironmentVariable:
    """The variable ``name`` read as a typed value (``default`` when unset); ``set`` writes it."""

    def __init__(self, name, default):
        self.name = name
        self.default = default

    def get(self):
        raw = os.environ.get(self.name)
        return self.default if raw is None else self.parse_from_string(raw)

    def set(self, value):
        os.environ[self.name] = self.convert_to_string(value)

    def delete(self):
        del os.environ[self.name]

    def parse_from_string(self, raw):
        raise NotImplementedError

    def convert_to_string(self, value):
        raise NotImplementedError

    def __repr__(self):
        return f"Env({self.name}={self.get()!r})"


class StringEnvironmentVariable(EnvironmentVariable):
    def __init__(self, name, default):
        if not isinstance(default, str):
            raise TypeError("default must be a string")
        super().__init__(name, default)

    def parse_from_string(self, raw):
        return raw

    def convert_to_string(self, value):
        if not isinstance(value, str):
            raise TypeError("value must be a string")
        return value


class BooleanEnvironmentVariable(EnvironmentVariable):
    def __init__(self, name, default):
        if not isinstance(default, bool):
            raise TypeError("default must be a boolean")
        super().__init__(name, default)

    def parse_from_string(self, raw):
        return strtobool(raw)

    def convert_to_string(self, value):
        if not isinstance(value, bool):
            raise TypeError("value must be a boolean")
        return str(value).lower()

    def __bool__(self):
        raise ValueError("BooleanEnvironmentVariable does not support bool(), please use get() instead.")


class IntegerEnvironmentVariable(EnvironmentVariable):
    def __init__(self, name, default):
        if not isinstance(default, int) or isinstance(default, bool):
            raise TypeError("default must be an integer")
        super().__init__(name, default)

    def parse_from_string(self, raw):
        try:
            return int(raw)
        except ValueError:
            return self.default

    def convert_to_string(self, value):
        if not isinstance(value, int) or isinstance(value, bool):
            raise TypeError("value must be an integer")
        return str(value)


class StringListEnvironmentVariable(EnvironmentVariable):
    def __init__(self, name, default):
        if not isinstance(default, list):
            raise TypeError("default must be a list")
        super().__init__(name, default)

    def parse_from_string(self, raw):
        return raw.split(",")

    def convert_to_string(self, value):
        if not isinstance(value, list) or not all(isinstance(x, str) for x in value):
            raise TypeError("value must be a list of strings")
        return ",".join(value)


class EnvironmentVariableGuard:
    """Set ``variable`` to ``value`` now; the ``with`` block's end puts back the value it had (the
    variable is removed again if it was unset)."""

    def __init__(self, variable, value):
        self.variable = variable
        self._was_set = variable.name in os.environ
        self.original_value = variable.get()
        variable.set(value)

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc_value, traceback):
        if self._was_set:
            self.variable.set(self.original_value)
        else:
            os.environ.pop(self.variable.name, None)
