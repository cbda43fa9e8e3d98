"""Static analyses over a function's gast tree, in the style of AutoGraph's pyct.

- `cfg`: a control-flow graph of the function's statements.
- `activity`: which names a piece of code reads and modifies.
- `liveness`: which names are live before / after each compound statement.
- `reaching_definitions`: which names are definitely defined when a statement starts.

`annotate(fn_node)` runs all of them and stores the results on the compound statements
(`If`, `While`, `For`, `IfExp`) as attributes of `anno.Info` under ``node.dy2st``; the
transformers only read those annotations.
"""
from .annotations import Info, annotate, info  # noqa: F401
