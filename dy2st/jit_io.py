"""``paddle.jit.save`` and ``paddle.jit.load`` in Paddle's inference-model format.

``save`` converts the Layer (or function) with to_static, traces the eval-mode Program for
the input specs, prunes it to the outputs (inference copy, ``is_test`` on), and writes
``path.pdmodel`` / ``path.pdiparams`` / ``path.pdiparams.info`` atomically through
`runtime.formats.model_io` — files real PaddlePaddle loads. With
``paddle.set_flags({"FLAGS_enable_pir_api": True})`` (or ``legacy_format=False``) it writes Paddle 3's
default format instead: ``path.json`` (PIR program) + ``path.pdiparams``, which Paddle 3 loads with
default settings. ``load`` reads ours or real Paddle's files, in either format, into a `TranslatedLayer`.

As Paddle 3.3.1: the outermost Layer's forward hooks are saved in the Program; other converted methods
go to ``path.<method>.pdmodel`` / ``.pdiparams`` (loaded back as methods of the TranslatedLayer);
``to_static(property=True)`` values go to ``path.meta`` with ``combine_params=True`` (`property_meta`).
"""
from __future__ import annotations

import inspect
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
    # as Paddle: the last component is the file prefix, also when a directory of that name exists
    # (``out`` writes out.pdmodel beside the directory ``out``); only an empty prefix is refused
    if os.path.basename(p) == "":
        raise ValueError(f"The input path MUST be format of dirname/file_prefix [dirname\\file_prefix in Windows "
                         f"system], but received file_prefix is empty string (path '{p}'); give a directory plus "
                         "a file-name prefix, e.g. 'inference/model' (writes inference/model.pdmodel, .pdiparams, "
                         ".pdiparams.info)")
    return p


def _specs(input_spec, api="jit.save"):
    """``input_spec`` with every Tensor leaf made an InputSpec, keeping its nesting (lists, tuples,
    dicts: Paddle's nested specs); other leaves (non-tensor arguments) stay as they are."""
    if not isinstance(input_spec, (list, tuple)):
        raise TypeError(f"The input input_spec should be 'list', but received input_spec's type is "
                        f"{type(input_spec)}.")

    def rec(s):
        if isinstance(s, Tensor):
            return InputSpec.from_tensor(s)
        if isinstance(s, (list, tuple)):
            return type(s)(rec(x) for x in s)
        if isinstance(s, dict):
            return {k: rec(v) for k, v in s.items()}
        return s
    return list(rec(s) for s in input_spec)


# Paddle's paddle.jit.save configs (``_parse_save_configs``) and dy2st's ``legacy_format``
_SAVE_CONFIGS = ("output_spec", "with_hook", "combine_params", "clip_extra", "skip_forward", "input_names_after_prune",
                 "skip_prune_program", "separate_parameters")


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


def _static_methods(layer):
    """``(name, StaticFunction bound to layer)`` of the Layer's converted methods, sorted by name (as Paddle
    walks them), ``forward`` included when it is converted."""
    out = []
    for name in sorted({n for n in dir(type(layer)) if not n.startswith("__")}):
        member = layer.__dict__.get(name) if name == "forward" else None
        if member is None:
            member = inspect.getattr_static(type(layer), name, None)
            if isinstance(member, StaticFunction):
                member = member.__get__(layer)
        if isinstance(member, StaticFunction):
            out.append((name, member))
    if "forward" in layer.__dict__ and isinstance(layer.__dict__["forward"], StaticFunction) and \
            all(n != "forward" for n, _ in out):
        out.append(("forward", layer.__dict__["forward"]))
        out.sort(key=lambda item: item[0])
    return out


def save(layer, path, input_spec=None, output_spec=None, **configs):
    """Save ``layer`` (a Layer, a StaticFunction, a function, or a loaded TranslatedLayer) for inference.

    As Paddle: the forward goes to ``path.pdmodel`` / ``.pdiparams`` / ``.pdiparams.info``; every other
    method converted with to_static goes to ``path.<method>.pdmodel`` / ``.pdiparams`` (then ``input_spec``
    must be None: each method traces its own to_static input_spec); ``to_static(property=True)`` methods
    are called and, with ``combine_params=True``, their values stored in ``path.meta`` (Paddle's
    ``PropertyVals`` protobuf, keyed ``ClassName.method``). ``combine_params=True`` also writes the
    parameters of every program to one ``path.pdiparams``. The outermost Layer's forward pre/post hooks
    are part of the saved Program (``with_hook``, on whenever the Layer has hooks).
    ``legacy_format=False`` (or ``paddle.set_flags({"FLAGS_enable_pir_api": True})``) writes Paddle 3's
    PIR format (``path.json`` + ``path.pdiparams``) instead."""
    prefix = _check_path(path)
    fmt = save_format(configs)
    for key in configs:
        if key not in _SAVE_CONFIGS:
            raise ValueError(f"The additional config ({key}) of `paddle.jit.save` is not supported.")
    if output_spec is None:
        output_spec = configs.get("output_spec")
    if isinstance(layer, TranslatedLayer):
        program, feeds, fetches, values = layer._export()
        save_model(prefix, program, feeds, fetches, values, format=fmt)
        return
    combine = bool(configs.get("combine_params", False))
    with_hook = bool(configs.get("with_hook", False))
    skip_forward = bool(configs.get("skip_forward", False))
    if not isinstance(layer, Layer) or isinstance(layer, StaticFunction):
        sf = layer if isinstance(layer, StaticFunction) else None
        if sf is not None and sf.is_property:
            # Paddle: a property function alone saves its value (combine_params) and no program
            if combine:
                _write_property(prefix, [(sf(), getattr(sf.dygraph_function, "__qualname__", "property"))])
            return
        program, feed_names, fetch_names, values, structured = inference_program(layer, input_spec, output_spec,
                                                                                 "jit.save")
        save_model(prefix, program, feed_names, fetch_names, values, info=default_info(program, structured),
                   format=fmt)
        return
    methods = _static_methods(layer)
    if input_spec is not None and any(n != "forward" and not sf.is_property for n, sf in methods):
        raise ValueError("If there are static functions other than 'forward' that need to be saved, the input "
                         f"'input_spec' should be None, but received the type of 'input_spec' is {type(input_spec)}.")
    properties = []
    combined_values = {}
    combined_structured = {}
    saved_forward = False
    for name, sf in methods:
        if sf.is_property:
            properties.append((sf(), f"{type(layer).__name__}.{name}"))
            continue
        if name == "forward":
            if skip_forward:
                continue
            saved_forward = True
            program, feed_names, fetch_names, values, structured = inference_program(
                layer, input_spec, output_spec, "jit.save", with_hook=with_hook)
            target = prefix
        else:
            program, feed_names, fetch_names, values, structured = inference_program(
                layer, None, None, "jit.save", method=sf)
            target = f"{prefix}.{name}"
        save_model(target, program, feed_names, fetch_names, values, info=default_info(program, structured),
                   write_info=name == "forward", format=fmt)
        combined_values.update(values)
        combined_structured.update(structured)
    if not saved_forward and not skip_forward:
        program, feed_names, fetch_names, values, structured = inference_program(layer, input_spec, output_spec,
                                                                                 "jit.save", with_hook=with_hook)
        save_model(prefix, program, feed_names, fetch_names, values, info=default_info(program, structured),
                   format=fmt)
        combined_values.update(values)
    if combine:
        _write_combined_params(prefix, combined_values)
        _write_property(prefix, properties)


def _write_combined_params(prefix, values):
    """``combine_params=True``: every program's persistable values, sorted by name, in ``prefix.pdiparams``
    (Paddle's save_vars of the combined variables)."""
    from runtime.formats.model_io import model_paths
    from runtime.formats.pdiparams import params_to_bytes
    from runtime.utils.atomic_write import write_file_atomically
    _, pp, _ = model_paths(prefix)
    write_file_atomically(pp, params_to_bytes({k: np.asarray(values[k]) for k in sorted(values)}))


def _write_property(prefix, property_vals):
    """``prefix.meta``: the values of ``to_static(property=True)`` functions (Paddle's ``_save_property``)."""
    from runtime.utils.atomic_write import write_file_atomically
    from .property_meta import serialize_properties
    write_file_atomically(prefix + ".meta", serialize_properties(property_vals))


def inference_program(layer, input_spec=None, output_spec=None, api="jit.save", with_hook=False, method=None):
    """The pruned eval-mode Program of ``layer`` for ``input_spec``:
    ``(program, feed_names, fetch_names, param values, structured names)``. ``method``: a converted
    method of ``layer`` other than forward (traced from its own to_static input_spec); ``with_hook``: the
    Layer's forward hooks are traced into the Program (always, when it has any, as in Paddle)."""
    if isinstance(layer, TranslatedLayer):
        program, feeds, fetches, values = layer._export()
        return program, feeds, fetches, values, {}
    structured = {}
    if isinstance(layer, Layer):
        if method is not None:
            sf = method
        else:
            forward = layer.__dict__.get("forward") or type(layer).forward
            if isinstance(forward, StaticFunction):
                sf = forward if forward._instance is layer else forward.__get__(layer)
            else:
                sf = StaticFunction(type(layer).forward).__get__(layer)
            if layer._forward_pre_hooks or layer._forward_post_hooks:
                with_hook = True
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
    if sf.is_property:
        raise ValueError(f"{api}: {sf.dygraph_function} is a to_static(property=True) function, which has no "
                         "Program; jit.save of its Layer stores its value (combine_params=True)")
    try:
        if input_spec is not None:
            input_spec = _specs(input_spec, api)
            _warn_nameless(input_spec, sf)
        if input_spec is None and sf._input_spec is None and sf.program_cache._last is None:
            raise ValueError(f"{api}: input_spec is required when the model has not been called yet and its "
                             "to_static has no input_spec, e.g. input_spec=[InputSpec([None, 784], 'float32', "
                             "'x')]")
        was_fn_training = sf._training
        if sf._instance is None:
            sf._training = False        # the inference Program: eval mode, for a plain function too
        try:
            cp = sf.concrete_program_specify_input_spec(input_spec, with_hook=with_hook)
        finally:
            sf._training = was_fn_training
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


def _warn_nameless(input_spec, sf):
    """Paddle warns, for each InputSpec without a name given to jit.save, that the names of to_static
    and jit.save should agree (only when to_static itself has no input_spec)."""
    if sf._input_spec is not None:
        return
    from runtime.static.control_flow import flatten
    for s in flatten(input_spec):
        if isinstance(s, InputSpec) and s.name is None:
            warnings.warn(f"The {s!r}'s name is None. When using jit.save, please set InputSpec's name in "
                          "to_static(input_spec=[]) and jit.save(input_spec=[]) and make sure they are consistent.",
                          stacklevel=4)


def _select_outputs(cp, output_spec):
    """The fetch Variables ``output_spec`` picks, by Paddle 3.3.1's rule: as many entries as the model has
    outputs saves every output, in the model's order (an entry that is not one of them only warns, as in
    Paddle; positions are rejected there: TypeError); fewer or more entries pick outputs by position
    (``int``) or as the output Variables themselves (or a tensor of the same name), anything else is a
    ValueError."""
    outs = []
    for v in cp.outputs:
        if not any(v is u for u in outs):
            outs.append(v)
    spec = list(output_spec)
    if len(spec) == len(outs):
        if any(isinstance(o, int) and not isinstance(o, bool) for o in spec):
            raise TypeError(f"jit.save: output_spec {spec} gives positions for all {len(outs)} outputs of the model; "
                            "Paddle rejects positions unless they select fewer outputs than the model has (its "
                            "'Value Wrapper is only support None and pir.Value' TypeError). Pass output_spec=None to "
                            "save every output, or only the positions to keep.")
        for o in spec:
            if not any(o is v for v in outs):
                warnings.warn(f"tensor `{getattr(o, 'name', o)}` is not support in pir mode, because it is not one of "
                              "the outputs of the traced program (a tensor returned by an earlier call is not); "
                              "every output is saved. Give outputs by position (int) to select some of them.",
                              stacklevel=4)
        return outs
    chosen = []
    for o in spec:
        if isinstance(o, int) and not isinstance(o, bool):
            if o >= len(outs):
                raise ValueError(f"jit.save: output_spec position {o} should be smaller than the number of outputs "
                                 f"of the model ({len(outs)})")
            chosen.append(outs[o])
        elif any(o is v for v in outs):
            chosen.append(o)
        else:
            name = getattr(o, "name", None)
            match = [v for v in outs if name is not None and v.name == name]
            if not match:
                label = name if name is not None else repr(o)
                raise ValueError(f"jit.save: output_spec entry `{label}` is not an "
                                 f"output of the model (outputs: {[v.name for v in outs]}); give outputs by position "
                                 "(output_spec=[0]) — a tensor returned by an earlier call is not one of them")
            chosen.append(match[0])
    return chosen


def load(path, **configs):
    """Load ``path.pdmodel`` / ``.pdiparams`` or Paddle 3's ``path.json`` / ``.pdiparams`` (ours or real
    Paddle's) as a `TranslatedLayer`.

    Every failure to read the files is a `ModelFormatError` naming the file, whatever they hold."""
    prefix = os.fspath(path)
    loaded = load_model(prefix)
    try:
        layer = TranslatedLayer(loaded, prefix)
    except ModelFormatError:
        raise
    except Exception as e:   # the files parsed and checked, but their program cannot back a layer
        from runtime.formats.model_io import program_path
        raise ModelFormatError(f"cannot build a layer from the model ({type(e).__name__}: {str(e)[:300]})",
                               program_path(prefix)) from e
    for name in _saved_methods(prefix):
        method_prefix = f"{prefix}.{name}"
        try:
            layer._add_method(name, load_model(method_prefix))
        except ModelFormatError:
            raise
        except Exception as e:
            from runtime.formats.model_io import program_path
            raise ModelFormatError(f"cannot build method '{name}' from the model ({type(e).__name__}: "
                                   f"{str(e)[:300]})", program_path(method_prefix)) from e
    return layer


def _saved_methods(prefix):
    """Names of the methods jit.save wrote beside ``prefix`` (``prefix.<name>.pdmodel``), as Paddle's
    loader finds them."""
    directory, base = os.path.split(prefix)
    try:
        names = os.listdir(directory or ".")
    except OSError:
        return []
    out = []
    for f in sorted(names):
        if f.startswith(base + ".") and f.endswith(".pdmodel"):
            middle = f[len(base) + 1:-len(".pdmodel")]
            if middle and "." not in middle and middle.isidentifier() and middle != "forward":
                out.append(middle)
    return out
