"""``paddle.jit.save`` and ``paddle.jit.load`` in Paddle's inference-model format.

``save`` converts the Layer (or function) with to_static, traces the eval-mode Program for
the input specs, prunes it to the outputs (inference copy, ``is_test`` on), and writes
``path.pdmodel`` / ``path.pdiparams`` / ``path.pdiparams.info`` atomically through
`runtime.formats.model_io` — files real PaddlePaddle loads. With
``paddle.set_flags({"FLAGS_enable_pir_api": True})`` (or ``legacy_format=False``) it writes Paddle 3's
default format instead: ``path.json`` (PIR program) + ``path.pdiparams``, which Paddle 3 loads with
default settings. ``load`` reads ours or real Paddle's files, in either format, into a `TranslatedLayer`.
"""
from __future__ import annotations

import os
import warnings

import numpy as np

from runtime.formats.errors import ModelFormatError
from runtime.formats.model_io import default_info, load_model, save_model
from runtime.nn.layer.layers import Layer
from runtime.static.input_spec import InputSpec
from runtime.static.inference_io import normalize_program
from runtime.tensor import Tensor

from .static_function import StaticFunction
from .translated_layer import TranslatedLayer

__all__ = ["save", "load"]


def _check_path(path):
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"jit.save: path must be a string, got {type(path).__name__}")
    p = os.fspath(path)
    if p == "" or p.endswith(("/", os.sep)) or os.path.isdir(p):
        raise ValueError(f"jit.save: path '{p}' is a directory; give a directory plus a file-name prefix, e.g. "
                         "'inference/model' (writes inference/model.pdmodel, .pdiparams, .pdiparams.info)")
    return p


def _specs(input_spec):
    out = []
    for s in input_spec:
        if isinstance(s, Tensor):
            out.append(InputSpec.from_tensor(s))
        elif isinstance(s, InputSpec):
            out.append(s)
        else:
            raise TypeError(f"jit.save: input_spec entries must be InputSpec or Tensor, got {type(s).__name__}")
    for s in out:
        if s.name is None:
            warnings.warn(f"The {s!r}'s name is None. When using jit.save, please set InputSpec's name in "
                          "to_static(input_spec=[]) and jit.save(input_spec=[]) and make sure they are consistent.",
                          stacklevel=3)
    return out


def save_format(configs, api="jit.save"):
    """"pir" or "pdmodel": ``legacy_format`` when given (Paddle's option of save_inference_model), else
    ``FLAGS_enable_pir_api`` (`paddle.set_flags`), whose dy2st default is the legacy format."""
    legacy = configs.pop("legacy_format", None)
    if legacy is None:
        from runtime.flags import pir_format_enabled
        return "pir" if pir_format_enabled() else "pdmodel"
    if not isinstance(legacy, bool):
        raise TypeError(f"{api}: legacy_format must be True or False, got {legacy!r}")
    return "pdmodel" if legacy else "pir"


def save(layer, path, input_spec=None, output_spec=None, **configs):
    """Save ``layer`` (a Layer, a StaticFunction, a function, or a loaded TranslatedLayer) for inference.

    ``legacy_format=False`` (or ``paddle.set_flags({"FLAGS_enable_pir_api": True})``) writes Paddle 3's
    PIR format (``path.json`` + ``path.pdiparams``); the default is ``.pdmodel`` / ``.pdiparams`` /
    ``.pdiparams.info``."""
    prefix = _check_path(path)
    fmt = save_format(configs)
    if isinstance(layer, TranslatedLayer):
        program, feeds, fetches, values = layer._export()
        save_model(prefix, program, feeds, fetches, values, format=fmt)
        return
    program, feed_names, fetch_names, values, structured = inference_program(layer, input_spec, output_spec,
                                                                             "jit.save")
    save_model(prefix, program, feed_names, fetch_names, values, info=default_info(program, structured), format=fmt)


def inference_program(layer, input_spec=None, output_spec=None, api="jit.save"):
    """The pruned eval-mode Program of ``layer`` for ``input_spec``:
    ``(program, feed_names, fetch_names, param values, structured names)``."""
    if isinstance(layer, TranslatedLayer):
        program, feeds, fetches, values = layer._export()
        return program, feeds, fetches, values, {}
    structured = {}
    if isinstance(layer, Layer):
        forward = layer.__dict__.get("forward") or type(layer).forward
        if isinstance(forward, StaticFunction):
            sf = forward if forward._instance is layer else forward.__get__(layer)
        else:
            sf = StaticFunction(type(layer).forward).__get__(layer)
        for key, t in layer.state_dict().items():
            if isinstance(t, Tensor) and t.name:
                structured[t.name] = key
        was_training = layer.training
        layer.eval()
    elif isinstance(layer, StaticFunction):
        sf, was_training = layer, None
    elif callable(layer):
        sf, was_training = StaticFunction(layer), None
    else:
        raise TypeError(f"{api}: expected a Layer or a function, got {type(layer).__name__}")
    try:
        if input_spec is None:
            input_spec = sf._input_spec
        if input_spec is None:
            last = sf.program_cache.last
            if last is None:
                raise ValueError(f"{api}: input_spec is required when the model has not been called yet and its "
                                 "to_static has no input_spec, e.g. input_spec=[InputSpec([None, 784], 'float32', "
                                 "'x')]")
            input_spec = [InputSpec(v.shape, v.dtype, v.name) for v in last.inputs]
        cp, _ = sf.get_concrete_program(*_specs(input_spec))
    finally:
        if was_training:
            layer.train()
    fetch_vars = list(cp.outputs)
    if output_spec is not None:
        fetch_vars = _select_outputs(cp, output_spec)
    feed_names = [v.name for v in cp.inputs]
    fetch_names = [v.name for v in fetch_vars]
    program, fetch_names = normalize_program(cp.main_program, feed_names, fetch_names)
    values = {name: np.asarray(t._data) for name, t in program._eager_bindings.items()}
    return program, feed_names, fetch_names, values, structured


def _select_outputs(cp, output_spec):
    chosen = []
    for o in output_spec:
        if isinstance(o, int):
            chosen.append(cp.outputs[o])
        elif any(o is v for v in cp.outputs):
            chosen.append(o)
        else:
            names = getattr(o, "name", o)
            match = [v for v in cp.outputs if v.name == names]
            if not match:
                raise ValueError(f"jit.save: output_spec entry {o!r} is not an output of the model (outputs: "
                                 f"{[v.name for v in cp.outputs]})")
            chosen.append(match[0])
    return chosen


def load(path, **configs):
    """Load ``path.pdmodel`` / ``.pdiparams`` or Paddle 3's ``path.json`` / ``.pdiparams`` (ours or real
    Paddle's) as a `TranslatedLayer`.

    Every failure to read the files is a `ModelFormatError` naming the file, whatever they hold."""
    prefix = os.fspath(path)
    loaded = load_model(prefix)
    try:
        return TranslatedLayer(loaded, prefix)
    except ModelFormatError:
        raise
    except Exception as e:   # the files parsed and checked, but their program cannot back a layer
        from runtime.formats.model_io import program_path
        raise ModelFormatError(f"cannot build a layer from the model ({type(e).__name__}: {str(e)[:300]})",
                               program_path(prefix)) from e
