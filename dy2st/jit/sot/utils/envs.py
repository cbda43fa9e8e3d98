"""``paddle.jit.sot.utils.envs``: SOT's settings, which have no meaning here (see `dy2st.jit.sot`):
each guard raises NotImplementedError when entered."""
from __future__ import annotations

import contextlib

__all__ = ["strict_mode_guard", "min_graph_size_guard", "with_control_flow_guard", "export_guard",
           "allow_dynamic_shape_guard", "faster_guard_guard", "guard_tree_guard", "sot_step_profiler_guard",
           "specialized_dim_numbers_guard", "enable_0_size_fallback_guard"]


def _guard(name):
    @contextlib.contextmanager
    def guard(*args, **kwargs):
        from .. import sot_unavailable
        sot_unavailable(f"paddle.jit.sot.utils.envs.{name}")
        yield
    guard.__name__ = name
    guard.__doc__ = f"SOT's ``{name}``: raises NotImplementedError (there is no SOT here)."
    return guard


strict_mode_guard = _guard("strict_mode_guard")
min_graph_size_guard = _guard("min_graph_size_guard")
with_control_flow_guard = _guard("with_control_flow_guard")
export_guard = _guard("export_guard")
allow_dynamic_shape_guard = _guard("allow_dynamic_shape_guard")
faster_guard_guard = _guard("faster_guard_guard")
guard_tree_guard = _guard("guard_tree_guard")
sot_step_profiler_guard = _guard("sot_step_profiler_guard")
specialized_dim_numbers_guard = _guard("specialized_dim_numbers_guard")
enable_0_size_fallback_guard = _guard("enable_0_size_fallback_guard")
