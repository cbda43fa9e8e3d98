"""paddle.text.viterbi_decode and ViterbiDecoder: best CRF tag paths through Paddle's ``viterbi_decode`` op."""
from __future__ import annotations

from ..dispatch import run_op
from ..nn.layer.layers import Layer

__all__ = ["viterbi_decode", "ViterbiDecoder"]


def _dtype_name(t):
    return str(t.dtype).replace("paddle.", "")


def viterbi_decode(potentials, transition_params, lengths, include_bos_eos_tag=True, name=None):
    """Highest-scoring tag sequence per batch entry: returns ``(scores, path)``.

    potentials [batch, seq_len, num_tags] (float32/float64), transition_params [num_tags, num_tags],
    lengths [batch] int64. With ``include_bos_eos_tag`` the last row of the transitions scores the start
    tag and the second-to-last row the stop tag. path is [batch, max(lengths)] int64, 0 past a length.
    """
    for what, t in (("potentials", potentials), ("transition_params", transition_params)):
        if _dtype_name(t) not in ("float32", "float64"):
            raise TypeError(f"viterbi_decode: {what} must be float32 or float64, got {_dtype_name(t)}")
    if _dtype_name(lengths) != "int64":
        raise ValueError(f"viterbi_decode: lengths must be int64, got {_dtype_name(lengths)}; "
                        "cast it with lengths.astype('int64')")
    if not isinstance(include_bos_eos_tag, bool):
        raise TypeError(f"viterbi_decode: include_bos_eos_tag must be a bool, got {type(include_bos_eos_tag).__name__}")
    return run_op("viterbi_decode", potentials, transition_params, lengths, include_bos_eos_tag=include_bos_eos_tag)


class ViterbiDecoder(Layer):
    """Decodes with fixed ``transitions``: ``forward(potentials, lengths) -> (scores, path)``."""

    def __init__(self, transitions, include_bos_eos_tag=True, name=None):
        super().__init__()
        self.transitions = transitions
        self.include_bos_eos_tag = include_bos_eos_tag
        self._viterbi_name = name

    def forward(self, potentials, lengths):
        return viterbi_decode(potentials, self.transitions, lengths, self.include_bos_eos_tag, self._viterbi_name)
