"""Graph passes run on a clone of a Program before it is compiled (see manager.optimize)."""
from .manager import ALL, DEFAULT, PASSES, enabled_passes, optimize

__all__ = ["optimize", "enabled_passes", "PASSES", "DEFAULT", "ALL"]
