"""paddle.nn.BeamSearchDecoder and paddle.nn.dynamic_decode (Paddle's decoding semantics, eager and static).

A `Decoder` has ``initialize(inits) -> (inputs, states, finished)``, ``step(time, inputs, states) ->
(outputs, next_states, next_inputs, finished)`` and optionally ``finalize``. `dynamic_decode` calls
``step`` until every entry is finished (or ``max_step_num`` is passed: at most ``max_step_num + 1``
steps), stacks the per-step outputs on a new time axis and calls ``finalize``; `BeamSearchDecoder`
keeps ``beam_size`` hypotheses per batch entry (log-softmax scores summed along a beam, top-k over
beam x vocab, finished beams only extend with ``end_token`` at no cost) and its ``finalize``
backtracks the parent beams with ``gather_tree``.
"""
from __future__ import annotations

import warnings
from typing import NamedTuple

import numpy as np

from ..framework import state as _mode

__all__ = ["Decoder", "BeamSearchDecoder", "dynamic_decode"]


def _is_leaf(x):
    return not isinstance(x, (list, tuple, dict))


def _flatten(struct):
    if _is_leaf(struct):
        return [struct]
    items = struct.values() if isinstance(struct, dict) else struct
    return [leaf for item in items for leaf in _flatten(item)]


def _map(fn, *structs):
    """``fn`` over the leaves of equally nested tuples / lists / dicts / namedtuples, keeping the nesting."""
    first = structs[0]
    if _is_leaf(first):
        return fn(*structs)
    if isinstance(first, dict):
        return type(first)((k, _map(fn, *[s[k] for s in structs])) for k in first)
    for s in structs[1:]:
        if _is_leaf(s) or len(s) != len(first):
            raise ValueError(f"dynamic_decode: structures do not match: {type(first).__name__} of {len(first)} "
                             f"vs {type(s).__name__}")
    mapped = [_map(fn, *parts) for parts in zip(*structs)]
    if hasattr(first, "_fields"):          # namedtuple
        return type(first)(*mapped)
    return type(first)(mapped)


class Decoder:
    """Base class of decoders driven by `dynamic_decode` (subclass and implement the three methods)."""

    def initialize(self, inits):
        raise NotImplementedError

    def step(self, time, inputs, states, **kwargs):
        raise NotImplementedError

    def finalize(self, outputs, final_states, sequence_lengths):
        raise NotImplementedError

    @property
    def tracks_own_finished(self):
        """True when ``step`` already keeps finished entries finished (dynamic_decode then trusts it)."""
        return False


class BeamSearchDecoder(Decoder):
    """Beam search over an RNN cell: ``cell(inputs, states) -> (outputs, new_states)``; ``embedding_fn`` maps
    token ids to the next inputs and ``output_fn`` the cell outputs to vocabulary logits."""

    class OutputWrapper(NamedTuple):
        scores: object
        predicted_ids: object
        parent_ids: object

    class StateWrapper(NamedTuple):
        cell_states: object
        log_probs: object
        finished: object
        lengths: object

    def __init__(self, cell, start_token, end_token, beam_size, embedding_fn=None, output_fn=None):
        self.cell = cell
        self.embedding_fn = embedding_fn
        self.output_fn = output_fn
        self.start_token = start_token
        self.end_token = end_token
        self.beam_size = beam_size

    # -- batch/beam reshaping ----------------------------------------------------------------------

    @staticmethod
    def tile_beam_merge_with_batch(x, beam_size):
        """[batch, ...] -> [batch * beam_size, ...], each entry repeated beam_size times in a row."""
        import runtime as paddle
        x = paddle.unsqueeze(x, [1])
        times = [1] * len(x.shape)
        times[1] = beam_size
        x = paddle.tile(x, times)
        return paddle.reshape(x, [-1] + list(x.shape[2:]))

    def _split_batch_beams(self, x):
        import runtime as paddle
        return paddle.reshape(x, [-1, self.beam_size] + list(x.shape[1:]))

    def _merge_batch_beams(self, x):
        import runtime as paddle
        return paddle.reshape(x, [-1] + list(x.shape[2:]))

    def _expand_to_beam_size(self, x):
        import runtime as paddle
        x = paddle.unsqueeze(x, [1])
        times = [1] * len(x.shape)
        times[1] = self.beam_size
        return paddle.tile(x, times)

    def _gather(self, x, indices, batch_size=None):
        """x[b, indices[b, k]] for every batch entry b and beam k (x: [batch, beam, ...]).

        The batch positions come from a cumulative sum, so a static Program works for any batch size."""
        import runtime as paddle
        first = paddle.ones_like(indices[:, :1])
        batch_pos = paddle.tile(paddle.cumsum(first, axis=0) - 1, [1, self.beam_size])
        coords = paddle.stack([batch_pos, indices], axis=2)
        coords.stop_gradient = True
        return paddle.gather_nd(x, coords)

    def _mask_probs(self, probs, finished):
        """A finished beam may only emit end_token, at no cost; an unfinished one keeps its probs."""
        import runtime as paddle
        fin = paddle.unsqueeze(paddle.cast(finished, probs.dtype), [2])
        return paddle.tile(fin, [1, 1, self.vocab_size]) * self.noend_mask_tensor - probs * (fin - 1)

    # -- Decoder interface -------------------------------------------------------------------------

    def initialize(self, initial_cell_states):
        import runtime as paddle
        self.kinf = 1e9
        state = _flatten(initial_cell_states)[0]
        self.batch_size = state.shape[0]
        self.start_token_tensor = paddle.full([1], self.start_token, dtype="int64")
        self.end_token_tensor = paddle.full([1], self.end_token, dtype="int64")
        init_cell_states = _map(self._expand_to_beam_size, initial_cell_states)
        # [batch, beam] tensors built from the state, so an unknown (static) batch size works too
        zero_col = paddle.reshape(paddle.zeros_like(state, dtype="int64"), [0, -1])[:, :1]
        zeros = paddle.tile(zero_col, [1, self.beam_size])
        init_inputs = zeros + self.start_token
        first = np.array([[0.0] + [-self.kinf] * (self.beam_size - 1)], dtype="float32")
        log_probs = paddle.cast(zeros, "float32") + paddle.to_tensor(first)
        if paddle.get_default_dtype() == "float64":
            log_probs = paddle.cast(log_probs, "float64")
        init_finished = paddle.cast(zeros, "bool")
        init_lengths = paddle.zeros_like(init_inputs)
        if self.embedding_fn:
            init_inputs = self.embedding_fn(init_inputs)
        return init_inputs, self.StateWrapper(init_cell_states, log_probs, init_finished, init_lengths), init_finished

    def _beam_search_step(self, time, logits, next_cell_states, beam_state):
        import runtime as paddle
        import runtime.nn.functional as F
        self.vocab_size = logits.shape[-1]
        noend = np.full([self.vocab_size], -self.kinf, dtype="float32")
        noend[self.end_token] = 0
        self.noend_mask_tensor = paddle.to_tensor(noend)
        if paddle.get_default_dtype() == "float64":
            self.noend_mask_tensor = paddle.cast(self.noend_mask_tensor, "float64")
        step_log_probs = paddle.log(F.softmax(logits))
        step_log_probs = self._mask_probs(step_log_probs, beam_state.finished)
        log_probs = step_log_probs + paddle.unsqueeze(beam_state.log_probs, [2])
        scores = paddle.reshape(log_probs, [-1, self.beam_size * self.vocab_size])
        topk_scores, topk_indices = paddle.topk(scores, k=self.beam_size)
        vocab = paddle.full([1], self.vocab_size, dtype="int64")
        beam_indices = paddle.floor_divide(topk_indices, vocab)
        token_indices = paddle.remainder(topk_indices, vocab)
        next_log_probs = self._gather(scores, topk_indices, self.batch_size)
        next_cell_states = _map(lambda x: self._gather(x, beam_indices, self.batch_size), next_cell_states)
        next_finished = self._gather(beam_state.finished, beam_indices, self.batch_size)
        next_lengths = self._gather(beam_state.lengths, beam_indices, self.batch_size)
        next_lengths = next_lengths + paddle.cast(paddle.logical_not(next_finished), beam_state.lengths.dtype)
        next_finished = paddle.logical_or(next_finished, paddle.equal(token_indices, self.end_token_tensor))
        return (self.OutputWrapper(topk_scores, token_indices, beam_indices),
                self.StateWrapper(next_cell_states, next_log_probs, next_finished, next_lengths))

    def step(self, time, inputs, states, **kwargs):
        inputs = _map(self._merge_batch_beams, inputs)
        cell_states = _map(self._merge_batch_beams, states.cell_states)
        cell_outputs, next_cell_states = self.cell(inputs, cell_states, **kwargs)
        cell_outputs = _map(self._split_batch_beams, cell_outputs)
        next_cell_states = _map(self._split_batch_beams, next_cell_states)
        if self.output_fn is not None:
            cell_outputs = self.output_fn(cell_outputs)
        out, new_state = self._beam_search_step(time, cell_outputs, next_cell_states, states)
        sample_ids = out.predicted_ids
        sample_ids.stop_gradient = True
        next_inputs = self.embedding_fn(sample_ids) if self.embedding_fn else sample_ids
        return out, new_state, next_inputs, new_state.finished

    def finalize(self, outputs, final_states, sequence_lengths):
        import runtime as paddle
        import runtime.nn.functional as F
        ids = F.gather_tree(outputs.predicted_ids, outputs.parent_ids)
        return paddle.cast(ids, outputs.predicted_ids.dtype), final_states

    @property
    def tracks_own_finished(self):
        return True


def _keep_finished(state, new_state, finished):
    """Finished entries keep their old state (impute_finished)."""
    import runtime as paddle
    dtype = state.dtype
    is_bool = str(dtype).endswith("bool")
    if is_bool:
        state, new_state = paddle.cast(state, "float32"), paddle.cast(new_state, "float32")
    mask = paddle.unsqueeze(paddle.cast(finished, state.dtype), [1])
    mask.stop_gradient = True
    out = state * mask - new_state * (mask - 1)
    return paddle.cast(out, dtype) if is_bool else out


def _next_bookkeeping(decoder, states, finished, sequence_lengths, next_states, next_finished, impute_finished,
                      eager):
    """(next_states, next_finished, next_sequence_lengths) after one step, by Paddle's rules.

    For a decoder that does not track its own finished flags, Paddle's eager loop first writes the new
    flags into ``finished`` (``paddle.assign``) and only then counts lengths and imputes states, so the
    step at which an entry finishes is not counted and its state not kept; its static loop uses the
    flags from before the step. Each mode here does as Paddle's does.
    """
    import runtime as paddle
    if not decoder.tracks_own_finished:
        next_finished = paddle.logical_or(next_finished, finished)
        done = next_finished if eager else finished
        next_lengths = sequence_lengths + paddle.cast(paddle.logical_not(done), sequence_lengths.dtype)
        if impute_finished:
            next_states = _map(lambda old, new: _keep_finished(old, new, done), states, next_states)
        return next_states, next_finished, next_lengths
    if not hasattr(next_states, "lengths"):
        warnings.warn("`next_states` has no `lengths` attribute, the returned `sequence_lengths` would be "
                      "all zeros.")
    return next_states, next_finished, getattr(next_states, "lengths", sequence_lengths)


def _finish(decoder, final_outputs, final_states, sequence_lengths, output_time_major, return_length):
    import runtime as paddle
    try:
        final_outputs, final_states = decoder.finalize(final_outputs, final_states, sequence_lengths)
    except NotImplementedError:
        pass
    if not output_time_major:
        final_outputs = _map(lambda x: paddle.transpose(x, [1, 0] + list(range(2, len(x.shape)))), final_outputs)
    if return_length:
        return final_outputs, final_states, sequence_lengths
    return final_outputs, final_states


def dynamic_decode(decoder, inits=None, max_step_num=None, output_time_major=False, impute_finished=False,
                   is_test=False, return_length=False, **kwargs):
    """Run ``decoder`` step by step until every entry is finished or ``max_step_num`` steps have passed.

    Returns ``(final_outputs, final_states)`` plus ``sequence_lengths`` when ``return_length``; outputs are
    batch-major ([batch, time, ...]) unless ``output_time_major``. In a static Program (or under
    to_static) the loop becomes a ``while`` op whose step outputs go to tensor arrays, as in Paddle;
    ``is_test`` is passed to it. Extra keyword arguments go to ``decoder.step``.
    """
    import runtime as paddle
    if _mode.static:
        return _dynamic_decode_static(decoder, inits, max_step_num, output_time_major, impute_finished, is_test,
                                      return_length, **kwargs)
    inputs, states, finished = decoder.initialize(inits)
    sequence_lengths = paddle.cast(paddle.zeros_like(finished), "int64")
    steps = []
    time = paddle.full([1], 0, dtype="int64")
    while not bool(paddle.all(finished).numpy()):
        step_outputs, next_states, next_inputs, next_finished = decoder.step(time, inputs, states, **kwargs)
        next_states, next_finished, next_lengths = _next_bookkeeping(
            decoder, states, finished, sequence_lengths, next_states, next_finished, impute_finished, eager=True)
        steps.append(step_outputs)
        inputs, states, finished, sequence_lengths = next_inputs, next_states, next_finished, next_lengths
        time = time + 1
        if max_step_num is not None and len(steps) > max_step_num:
            break
    if not steps:
        raise ValueError("dynamic_decode: every entry is finished before the first step (decoder.initialize "
                         "returned all-True `finished`), so there are no outputs to stack")
    final_outputs = _map(lambda *xs: paddle.stack(list(xs), axis=0), *steps)
    return _finish(decoder, final_outputs, states, sequence_lengths, output_time_major, return_length)


def _dynamic_decode_static(decoder, inits, max_step_num, output_time_major, impute_finished, is_test,
                           return_length, **kwargs):
    """The loop as a ``while`` op: loop vars (time, inputs, states, finished, lengths); each step's outputs
    are written at index ``time`` of tensor arrays created before the loop, then stacked."""
    import runtime as paddle
    from ..static.control_flow import while_loop
    from ..static.program import default_main_program
    from ..static.tensor_array import array_write, create_array, tensor_array_to_tensor
    inputs, states, finished = decoder.initialize(inits)
    sequence_lengths = paddle.cast(paddle.zeros_like(finished), "int64")
    time = paddle.full([1], 0, dtype="int64")
    limit = None if max_step_num is None else paddle.full([1], int(max_step_num), dtype="int64")
    program = default_main_program()
    outer_idx = program.current_block_idx
    arrays = []          # one structure of tensor arrays, made at the first (only) trace of the body

    # a decoder tracking its own finished flags keeps the lengths in its states: then the lengths are not a
    # loop variable (one the body never reads would reach real Paddle's jit.load without a value)
    carry_lengths = not decoder.tracks_own_finished

    def cond(time, inputs, states, finished, *lengths):
        go = paddle.logical_not(paddle.all(finished))
        if limit is not None:
            go = paddle.logical_and(go, paddle.reshape(paddle.less_equal(time, limit), []))
        return go

    def body(time, inputs, states, finished, *lengths):
        step_outputs, next_states, next_inputs, next_finished = decoder.step(time, inputs, states, **kwargs)
        next_states, next_finished, next_lengths = _next_bookkeeping(
            decoder, states, finished, lengths[0] if lengths else sequence_lengths, next_states, next_finished,
            impute_finished, eager=False)
        if not arrays:
            # the arrays live outside the loop (created in the body they would restart every iteration)
            body_idx = program.current_block_idx
            program.current_block_idx = outer_idx
            try:
                arrays.append(_map(lambda x: create_array(x.dtype), step_outputs))
            finally:
                program.current_block_idx = body_idx
        _map(lambda x, arr: array_write(x, time, arr), step_outputs, arrays[0])
        return [time + 1, next_inputs, next_states, next_finished] + ([next_lengths] if carry_lengths else [])

    # a value that is two loop variables (BeamSearchDecoder's `finished` is also states.finished) gets its
    # own copy: each loop variable of a while op must be a distinct variable
    seen = set()

    def distinct(x):
        if id(x) in seen:
            return paddle.assign(x)
        seen.add(id(x))
        return x
    loop_vars = _map(distinct, [time, inputs, states, finished] + ([sequence_lengths] if carry_lengths else []))
    final = while_loop(cond, body, loop_vars, is_test=is_test)
    states = final[2]
    if carry_lengths:
        sequence_lengths = final[4]
    else:
        sequence_lengths = getattr(states, "lengths", sequence_lengths)
    final_outputs = _map(lambda arr: tensor_array_to_tensor(arr, axis=0, use_stack=True)[0], arrays[0])
    return _finish(decoder, final_outputs, states, sequence_lengths, output_time_major, return_length)
