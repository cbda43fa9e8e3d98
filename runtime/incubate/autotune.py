"""``paddle.incubate.autotune.set_config``: switches for Paddle's kernel, layout and DataLoader auto-tuning.

Kernel and layout tuning choose among GPU algorithms (cuDNN convolutions, NHWC layouts) and never change results;
this CPU numpy runtime has one implementation per op, so the switches are validated (Paddle's warnings for
malformed entries) and recorded in `config()` for inspection, and have no further effect.
"""
from __future__ import annotations

import copy
import json
import warnings

__all__ = ["set_config"]

_state = {"kernel": {"enable": False, "tuning_range": [1, 10]}, "layout": {"enable": False},
          "dataloader": {"enable": False, "tuning_steps": 500}}


def config():
    """The recorded auto-tuning switches (a copy)."""
    return copy.deepcopy(_state)


def _flag(section, key, value, what):
    if isinstance(value, bool):
        _state[section][key] = value
    else:
        warnings.warn(f"The auto-tuning configuration of the {what} is incorrect.The `{key}` should be bool. Use "
                      "default parameter instead.")


def set_config(config=None):
    """Enable all tuning (``None``), or set ``{"kernel": {"enable", "tuning_range"}, "layout": {"enable"},
    "dataloader": {"enable", "tuning_steps"}}`` from a dict or a JSON file path."""
    if config is None:
        for section in _state:
            _state[section]["enable"] = True
        return
    config_dict = {}
    if isinstance(config, dict):
        config_dict = config
    elif isinstance(config, str):
        try:
            with open(config) as fh:
                config_dict = json.load(fh)
        except Exception as e:      # Paddle prints the problem and falls back to the defaults
            print(f"Load config error: {e}")
            warnings.warn("Use default configuration for auto-tuning.")
    kernel = config_dict.get("kernel", {})
    if "enable" in kernel:
        _flag("kernel", "enable", kernel["enable"], "kernel")
    if "tuning_range" in kernel:
        if isinstance(kernel["tuning_range"], list):
            if len(kernel["tuning_range"]) != 2:
                raise AssertionError("tuning_range must be [start, end]")
            _state["kernel"]["tuning_range"] = list(kernel["tuning_range"])
        else:
            warnings.warn("The auto-tuning configuration of the kernel is incorrect.The `tuning_range` should be "
                          "list. Use default parameter instead.")
    layout = config_dict.get("layout", {})
    if "enable" in layout:
        _flag("layout", "enable", layout["enable"], "layout")
    loader = config_dict.get("dataloader", {})
    if "enable" in loader:
        _flag("dataloader", "enable", loader["enable"], "dataloader")
    if "tuning_steps" in loader:
        if isinstance(loader["tuning_steps"], int):
            _state["dataloader"]["tuning_steps"] = loader["tuning_steps"]
        else:
            warnings.warn("The auto-tuning configuration of the dataloader is incorrect.The `tuning_steps` should "
                          "be int. Use default parameter instead.")
