"""``paddle.jit.dy2static.partial_program``: ``partial_program_from(concrete_program)``, the runner
(our `dy2st.partial_program.PartialProgram`) of a ConcreteProgram, after Paddle's checks of its
``parameters``: a list or tuple, of eager Tensors (Parameters and persistable buffers)."""
from __future__ import annotations

from ...partial_program import PartialProgram

__all__ = ["partial_program_from", "PartialProgram"]


def _check_parameters(params):
    if not isinstance(params, (list, tuple)):
        raise TypeError("Type of self._params in PartialProgramLayer should be list or tuple, but received "
                        f"{type(params)}. Pass the ConcreteProgram's parameters as a list of Parameters.")
    from runtime.tensor import Tensor
    for i, var in enumerate(params):
        if not isinstance(var, Tensor):
            raise TypeError(f"Type of self._params[{i}] in PartialProgramLayer should be Parameter or Variable, "
                            f"but received {type(var)}.")


def partial_program_from(concrete_program, from_method=False):
    """The PartialProgram running ``concrete_program`` (``from_method``: its first input is ``self``
    and is dropped). TypeError when ``concrete_program.parameters`` is not a list/tuple of Tensors."""
    _check_parameters(concrete_program.parameters)
    inputs = list(concrete_program.inputs)
    if inputs and from_method:
        inputs = inputs[1:]
    return PartialProgram(concrete_program.main_program, inputs, concrete_program.outputs,
                          training=getattr(concrete_program, "training", True))
