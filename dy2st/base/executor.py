"""``paddle.base.executor``: the static-graph ``Executor`` and scopes."""
from runtime.static import Executor, Scope, global_scope, scope_guard  # noqa: F401

__all__ = ["Executor", "Scope", "global_scope", "scope_guard"]
