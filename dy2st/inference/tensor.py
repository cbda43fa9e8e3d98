"""``paddle.inference.Tensor`` (Paddle's ``PaddleInferTensor``): a predictor's input or output handle.

An input handle takes data with ``copy_from_cpu`` (a copy) or ``share_external_data`` (no copy) and
reports its shape and type; an output handle reads the last ``run()``'s result with ``copy_to_cpu``.
The handle reads its predictor's storage, so a handle taken before ``run()`` sees every later result.
"""
from __future__ import annotations

import numpy as np

from .enums import dtype_of_numpy

__all__ = ["PaddleInferTensor", "Tensor"]


class PaddleInferTensor:
    """``predictor.get_input_handle(name)`` / ``get_output_handle(name)``."""

    def __init__(self, predictor, name, var, is_input):
        self._predictor = predictor
        self._name = name
        self._var = var              # the program's Variable: its declared dtype and shape
        self._is_input = is_input

    def _data(self):
        store = self._predictor._inputs if self._is_input else self._predictor._outputs
        return store.get(self._name)

    # -- inputs -------------------------------------------------------------------------------------

    def reshape(self, shape):
        """Set the input's shape (the data given next by ``copy_from_cpu`` decides it in the end)."""
        self._input_only("reshape")
        if isinstance(shape, (int, np.integer)) and not isinstance(shape, bool):
            shape = [int(shape)]
        if not isinstance(shape, (list, tuple)) or not all(
                isinstance(d, (int, np.integer)) and not isinstance(d, bool) for d in shape):
            raise TypeError(f"reshape(): expected a list of ints (or one int), got {shape!r}")
        if any(d < 0 for d in shape):
            raise ValueError(f"reshape(): input '{self._name}': the shape {list(shape)} has a negative dimension; "
                             "give the real size of every dimension")
        self._predictor._shapes[self._name] = [int(d) for d in shape]

    def copy_from_cpu(self, data):
        """Copy a numpy array into the input (Paddle also accepts ``list[str]`` for string inputs, which the
        models this package runs do not have)."""
        self._input_only("copy_from_cpu")
        if isinstance(data, list) and data and isinstance(data[0], str):
            raise ValueError(f"copy_from_cpu(): input '{self._name}' is a {self._var.dtype.name} tensor; a list of "
                             "strings can only fill a string (vocabulary) input")
        if not isinstance(data, np.ndarray):
            raise TypeError("In copy_from_cpu, we only support numpy ndarray and list[str] data type. "
                            f"(input '{self._name}' got {type(data).__name__}; convert it with numpy.asarray)")
        if dtype_of_numpy(data.dtype) is None:
            raise TypeError(f"copy_from_cpu(): input '{self._name}': numpy dtype {data.dtype} is not an inference "
                            "data type (float32, float64, float16, int64, int32, int8, uint8, bool)")
        self._predictor._set_input(self._name, np.array(data, copy=True, order="C"))

    def share_external_data(self, data):
        """Use a ``paddle.Tensor``'s data as the input without copying it."""
        self._input_only("share_external_data")
        from runtime.static.program import Variable
        from runtime.tensor import Tensor as EagerTensor
        if isinstance(data, Variable):
            raise TypeError("The interface 'share_external_data' can only be used in dynamic graph mode. "
                            "Maybe you called 'paddle.enable_static()' and you are in static graph mode now. "
                            "Please use 'copy_from_cpu' instead.")
        if not isinstance(data, EagerTensor):
            raise TypeError("In share_external_data, we only support Tensor and DenseTensor. "
                            f"(input '{self._name}' got {type(data).__name__})")
        self._predictor._set_input(self._name, np.asarray(data._data))

    def share_external_data_by_ptr_name(self, data, shape, dtype, place):
        raise NotImplementedError("share_external_data_by_ptr_name() shares device memory by pointer, which this "
                                  "package (numpy on the CPU) has no use for; use copy_from_cpu(array) or "
                                  "share_external_data(paddle_tensor)")

    # -- outputs ------------------------------------------------------------------------------------

    def copy_to_cpu(self):
        """The data as a new numpy array (an output: the last ``run()``'s result)."""
        data = self._data()
        if data is None:
            if self._is_input:
                raise RuntimeError(f"copy_to_cpu(): input '{self._name}' holds no data; give it data with "
                                   "copy_from_cpu(array) first")
            raise RuntimeError(f"copy_to_cpu(): output '{self._name}' holds no data yet: call predictor.run() "
                               "before reading the outputs")
        return np.array(data, copy=True)

    # -- description --------------------------------------------------------------------------------

    def shape(self):
        data = self._data()
        if data is not None:
            return [int(d) for d in np.shape(data)]
        if self._is_input and self._name in self._predictor._shapes:
            return list(self._predictor._shapes[self._name])
        return [0]          # as Paddle: a tensor that holds nothing has the shape [0]

    def type(self):
        """The `DataType` of the data (before any: the model's declared type)."""
        data = self._data()
        if data is not None:
            found = dtype_of_numpy(np.asarray(data).dtype)
            if found is not None:
                return found
        found = dtype_of_numpy(self._var.dtype.np)
        if found is None:
            raise ValueError(f"'{self._name}' has dtype {self._var.dtype.name}, which the inference API has no "
                             "DataType for")
        return found

    def lod(self):
        return [list(level) for level in self._predictor._lods.get(self._name, [])]

    def set_lod(self, lod):
        if not isinstance(lod, (list, tuple)) or not all(isinstance(level, (list, tuple)) for level in lod):
            raise TypeError(f"set_lod(): expected a list of lists of ints, got {lod!r}")
        self._predictor._lods[self._name] = [[int(i) for i in level] for level in lod]

    def name(self):
        """The variable's name (the C++ API's ``Tensor::name()``; Paddle's Python binding has no such method)."""
        return self._name

    def _input_only(self, what):
        if not self._is_input:
            raise RuntimeError(f"{what}(): '{self._name}' is an output of the model; {what} applies to input handles "
                               "(predictor.get_input_handle(name))")

    def __repr__(self):
        kind = "input" if self._is_input else "output"
        return f"<paddle.inference.Tensor {kind} '{self._name}' shape={self.shape()} type={self.type()}>"


Tensor = PaddleInferTensor

