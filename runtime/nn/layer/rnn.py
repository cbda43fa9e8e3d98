"""Recurrent layers: the cells (SimpleRNNCell, LSTMCell, GRUCell), RNN / BiRNN that run a cell
over time, and the multi-layer SimpleRNN / LSTM / GRU.

Gate layouts follow Paddle: ``weight_ih`` is ``[gates * hidden, input]``, ``weight_hh``
``[gates * hidden, hidden]``; LSTM gates are ordered (input, forget, cell, output), GRU gates
(reset, update, candidate), with the GRU update ``h = (h_prev - c) * z + c``. Every weight
and bias starts as U(-1/sqrt(hidden), 1/sqrt(hidden)).
"""
from __future__ import annotations

import math

import runtime as paddle  # top-level tensor functions (split, stack ...) resolved at call time
from ...dispatch import run_op
from ...dtype import get_default_dtype
from .. import functional as F
from ..initializer import Uniform
from .layers import Layer

__all__ = ["RNNCellBase", "SimpleRNNCell", "LSTMCell", "GRUCell", "RNN", "BiRNN", "SimpleRNN", "LSTM", "GRU"]


def _map(fn, structure):
    if isinstance(structure, (list, tuple)):
        return type(structure)(_map(fn, s) for s in structure)
    return fn(structure)


def _map2(fn, a, b):
    if isinstance(a, (list, tuple)):
        return type(a)(_map2(fn, x, y) for x, y in zip(a, b))
    return fn(a, b)


def _is_shape(s):
    return isinstance(s, (list, tuple)) and all(isinstance(d, int) for d in s)


class RNNCellBase(Layer):
    """Base class of RNN cells: one time step, ``cell(inputs, states) -> (outputs, new_states)``."""

    def get_initial_states(self, batch_ref, shape=None, dtype=None, init_value=0.0, batch_dim_idx=0):
        """States filled with ``init_value``, batch size taken from ``batch_ref``, one tensor
        per entry of ``shape`` (default: ``self.state_shape``)."""
        ref = batch_ref
        while isinstance(ref, (list, tuple)):
            ref = ref[0]
        batch = ref.shape[batch_dim_idx]
        if batch < 0:
            # unknown batch size in a static Program: read it at run time
            batch = paddle.shape(ref)[batch_dim_idx]
        shape = self.state_shape if shape is None else shape
        dtype = ref.dtype if dtype is None else dtype

        def build(s):
            return paddle.full([batch] + [int(d) for d in s], init_value, dtype=dtype)

        if _is_shape(shape):
            return build(shape)
        return _map_shapes(build, shape)

    def call(self, inputs, states=None, **kwargs):
        return self.forward(inputs, states, **kwargs)

    @property
    def state_shape(self):
        raise NotImplementedError(f"{type(self).__name__} must define state_shape")

    @property
    def state_dtype(self):
        return get_default_dtype()

    def _linear(self, x, w, b):
        y = run_op("matmul_v2", x, w, trans_x=False, trans_y=True)
        return y if b is None else y + b

    def _init_params(self, input_size, hidden_size, gates, weight_ih_attr, weight_hh_attr, bias_ih_attr,
                     bias_hh_attr, hh_cols=None):
        where = type(self).__name__
        for name, v in (("input_size", input_size), ("hidden_size", hidden_size)):
            if isinstance(v, bool) or not isinstance(v, int) or v <= 0:
                raise ValueError(f"{where}: {name} must be a positive int, got {v!r}")
        std = 1.0 / math.sqrt(hidden_size)
        init = Uniform(-std, std)
        self._dtype = get_default_dtype()
        self.weight_ih = self.create_parameter([gates * hidden_size, input_size], weight_ih_attr,
                                               default_initializer=init)
        self.weight_hh = self.create_parameter([gates * hidden_size, hh_cols or hidden_size], weight_hh_attr,
                                               default_initializer=init)
        self.bias_ih = self.create_parameter([gates * hidden_size], bias_ih_attr, is_bias=True,
                                             default_initializer=init)
        self.bias_hh = self.create_parameter([gates * hidden_size], bias_hh_attr, is_bias=True,
                                             default_initializer=init)
        self.input_size = input_size
        self.hidden_size = hidden_size


def _map_shapes(fn, shape):
    if _is_shape(shape):
        return fn(shape)
    return type(shape)(_map_shapes(fn, s) for s in shape)


class SimpleRNNCell(RNNCellBase):
    """``h = act(x @ W_ih^T + b_ih + h_prev @ W_hh^T + b_hh)`` with act ``tanh`` or ``relu``;
    returns ``(h, h)``."""

    def __init__(self, input_size, hidden_size, activation="tanh", weight_ih_attr=None, weight_hh_attr=None,
                 bias_ih_attr=None, bias_hh_attr=None, name=None):
        super().__init__()
        if activation not in ("tanh", "relu"):
            raise ValueError(f"SimpleRNNCell: activation must be 'tanh' or 'relu', got {activation!r}")
        self._init_params(input_size, hidden_size, 1, weight_ih_attr, weight_hh_attr, bias_ih_attr, bias_hh_attr)
        self.activation = activation

    def forward(self, inputs, states=None):
        if states is None:
            states = self.get_initial_states(inputs, self.state_shape)
        pre_h = states
        i2h = self._linear(inputs, self.weight_ih, self.bias_ih)
        h2h = self._linear(pre_h, self.weight_hh, self.bias_hh)
        h = F.tanh(i2h + h2h) if self.activation == "tanh" else F.relu(i2h + h2h)
        return h, h

    @property
    def state_shape(self):
        return (self.hidden_size,)

    def extra_repr(self):
        s = f"{self.input_size}, {self.hidden_size}"
        if self.activation != "tanh":
            s += f", activation={self.activation}"
        return s


class LSTMCell(RNNCellBase):
    """One LSTM step; ``states = (h, c)``; returns ``(h, (h, c))``. With ``proj_size`` > 0 the
    hidden state is projected by ``weight_ho`` (``[hidden, proj]``)."""

    def __init__(self, input_size, hidden_size, weight_ih_attr=None, weight_hh_attr=None, bias_ih_attr=None,
                 bias_hh_attr=None, proj_size=0, name=None):
        super().__init__()
        if proj_size < 0 or (proj_size and proj_size >= hidden_size):
            raise ValueError(f"LSTMCell: proj_size must be 0 or in (0, hidden_size={hidden_size}), got {proj_size}")
        self._init_params(input_size, hidden_size, 4, weight_ih_attr, weight_hh_attr, bias_ih_attr, bias_hh_attr,
                          hh_cols=proj_size or None)
        self.proj_size = proj_size
        if proj_size > 0:
            std = 1.0 / math.sqrt(hidden_size)
            self.weight_ho = self.create_parameter([hidden_size, proj_size], weight_hh_attr,
                                                   default_initializer=Uniform(-std, std))

    def forward(self, inputs, states=None):
        if states is None:
            states = self.get_initial_states(inputs, self.state_shape)
        pre_hidden, pre_cell = states
        gates = self._linear(inputs, self.weight_ih, self.bias_ih) + \
            self._linear(pre_hidden, self.weight_hh, self.bias_hh)
        i, f, g, o = paddle.split(gates, num_or_sections=4, axis=-1)
        i = F.sigmoid(i)
        f = F.sigmoid(f)
        o = F.sigmoid(o)
        c = f * pre_cell + i * F.tanh(g)
        h = o * F.tanh(c)
        if self.proj_size > 0:
            h = run_op("matmul_v2", h, self.weight_ho)
        return h, (h, c)

    @property
    def state_shape(self):
        return ((self.proj_size or self.hidden_size,), (self.hidden_size,))

    def extra_repr(self):
        s = f"{self.input_size}, {self.hidden_size}"
        if self.proj_size:
            s += f", proj_size={self.proj_size}"
        return s


class GRUCell(RNNCellBase):
    """One GRU step; returns ``(h, h)``."""

    def __init__(self, input_size, hidden_size, weight_ih_attr=None, weight_hh_attr=None, bias_ih_attr=None,
                 bias_hh_attr=None, name=None):
        super().__init__()
        self._init_params(input_size, hidden_size, 3, weight_ih_attr, weight_hh_attr, bias_ih_attr, bias_hh_attr)

    def forward(self, inputs, states=None):
        if states is None:
            states = self.get_initial_states(inputs, self.state_shape)
        pre_hidden = states
        x_gates = self._linear(inputs, self.weight_ih, self.bias_ih)
        h_gates = self._linear(pre_hidden, self.weight_hh, self.bias_hh)
        x_r, x_z, x_c = paddle.split(x_gates, num_or_sections=3, axis=-1)
        h_r, h_z, h_c = paddle.split(h_gates, num_or_sections=3, axis=-1)
        r = F.sigmoid(x_r + h_r)
        z = F.sigmoid(x_z + h_z)
        c = F.tanh(x_c + r * h_c)
        h = (pre_hidden - c) * z + c
        return h, h

    @property
    def state_shape(self):
        return (self.hidden_size,)

    def extra_repr(self):
        return f"{self.input_size}, {self.hidden_size}"


def _run_cell(cell, inputs, initial_states, sequence_length, is_reverse, time_major, **kwargs):
    """Run ``cell`` over the time axis; returns (stacked outputs, final states).

    With ``sequence_length``, a sample's states stop changing after its last step (its later
    outputs are still computed, as in Paddle).
    """
    time_axis = 0 if time_major else 1
    steps = inputs.shape[time_axis]
    if steps is None or steps < 0:
        raise ValueError("RNN: the number of time steps must be known when running eagerly")
    if initial_states is None:
        initial_states = cell.get_initial_states(inputs, cell.state_shape, batch_dim_idx=1 if time_major else 0)
    mask = None
    if sequence_length is not None:
        t_idx = paddle.arange(steps, dtype=sequence_length.dtype)
        mask = paddle.cast(paddle.unsqueeze(sequence_length, -1) > t_idx, inputs.dtype)  # [B, T]
    states = initial_states
    outputs = [None] * steps
    order = range(steps - 1, -1, -1) if is_reverse else range(steps)
    for t in order:
        x_t = inputs[t] if time_major else inputs[:, t]
        out, new_states = cell(x_t, states, **kwargs)
        if mask is not None:
            m = mask[:, t:t + 1]
            new_states = _map2(lambda old, new: old + m * (new - old), states, new_states)
        states = new_states
        outputs[t] = out
    stacked = _stack_outputs(outputs, time_axis)
    return stacked, states


def _stack_outputs(outputs, axis):
    first = outputs[0]
    if isinstance(first, (list, tuple)):
        return type(first)(_stack_outputs([o[i] for o in outputs], axis) for i in range(len(first)))
    return paddle.stack(outputs, axis=axis)


class RNN(Layer):
    """Runs ``cell`` over a sequence (``[B, T, ...]``, or ``[T, B, ...]`` when ``time_major``);
    returns ``(outputs, final_states)``."""

    def __init__(self, cell, is_reverse=False, time_major=False):
        super().__init__()
        self.cell = cell
        self.is_reverse = is_reverse
        self.time_major = time_major

    def forward(self, inputs, initial_states=None, sequence_length=None, **kwargs):
        return _run_cell(self.cell, inputs, initial_states, sequence_length, self.is_reverse, self.time_major,
                         **kwargs)


class BiRNN(Layer):
    """A forward and a backward RNN over the same sequence; outputs are concatenated on the last axis."""

    def __init__(self, cell_fw, cell_bw, time_major=False):
        super().__init__()
        self.cell_fw = cell_fw
        self.cell_bw = cell_bw
        if cell_fw.input_size != cell_bw.input_size:
            raise ValueError(f"BiRNN: input size of the two cells differ: {cell_fw.input_size} vs "
                             f"{cell_bw.input_size}")
        self.time_major = time_major

    def forward(self, inputs, initial_states=None, sequence_length=None, **kwargs):
        if isinstance(initial_states, (list, tuple)):
            if len(initial_states) != 2:
                raise ValueError("BiRNN: initial_states must hold the forward and backward states (2 items), "
                                 f"got {len(initial_states)}")
            states_fw, states_bw = initial_states
        else:
            states_fw = states_bw = initial_states
        out_fw, st_fw = _run_cell(self.cell_fw, inputs, states_fw, sequence_length, False, self.time_major, **kwargs)
        out_bw, st_bw = _run_cell(self.cell_bw, inputs, states_bw, sequence_length, True, self.time_major, **kwargs)
        outputs = _map2(lambda a, b: paddle.concat([a, b], axis=-1), out_fw, out_bw)
        return outputs, (st_fw, st_bw)


class RNNBase(Layer):
    """Multi-layer (optionally bidirectional) RNN built from cells; sublayers "0", "1" ... are
    RNN/BiRNN, and the cells' parameters are also registered flat (``weight_ih_l0``,
    ``weight_hh_l0_reverse`` ...), as in Paddle."""

    _mode = None  # "LSTM" | "GRU" | "RNN_TANH" | "RNN_RELU"

    def __init__(self, mode, input_size, hidden_size, num_layers=1, direction="forward", time_major=False,
                 dropout=0.0, weight_ih_attr=None, weight_hh_attr=None, bias_ih_attr=None, bias_hh_attr=None,
                 proj_size=0):
        super().__init__()
        bidirectional_list = ["bidirectional", "bidirect"]
        if direction not in ["forward"] + bidirectional_list:
            raise ValueError(f"direction should be forward or bidirect (or bidirectional), received direction = "
                             f"{direction}")
        self.mode = mode
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.dropout = dropout
        self.num_directions = 2 if direction in bidirectional_list else 1
        self.direction = direction
        self.time_major = time_major
        self.num_layers = num_layers
        self.proj_size = proj_size
        self.state_components = 2 if mode == "LSTM" else 1

        def make_cell(in_size):
            kw = dict(weight_ih_attr=weight_ih_attr, weight_hh_attr=weight_hh_attr, bias_ih_attr=bias_ih_attr,
                      bias_hh_attr=bias_hh_attr)
            if mode == "LSTM":
                return LSTMCell(in_size, hidden_size, proj_size=proj_size, **kw)
            if mode == "GRU":
                return GRUCell(in_size, hidden_size, **kw)
            return SimpleRNNCell(in_size, hidden_size, activation="relu" if mode == "RNN_RELU" else "tanh", **kw)

        out_size = proj_size or hidden_size
        for i in range(num_layers):
            in_size = input_size if i == 0 else out_size * self.num_directions
            if self.num_directions == 1:
                self.add_sublayer(str(i), RNN(make_cell(in_size), False, time_major))
            else:
                self.add_sublayer(str(i), BiRNN(make_cell(in_size), make_cell(in_size), time_major))
        for i in range(num_layers):
            layer = self._sub_layers[str(i)]
            cells = [layer.cell] if self.num_directions == 1 else [layer.cell_fw, layer.cell_bw]
            for d, cell in enumerate(cells):
                suffix = "_reverse" if d == 1 else ""
                for pname in ("weight_ih", "weight_hh", "bias_ih", "bias_hh"):
                    self.add_parameter(f"{pname}_l{i}{suffix}", getattr(cell, pname))
                if proj_size:
                    self.add_parameter(f"weight_ho_l{i}{suffix}", cell.weight_ho)

    def __len__(self):
        return self.num_layers

    def __getitem__(self, idx):
        return self._sub_layers[str(idx if idx >= 0 else idx + self.num_layers)]

    def __iter__(self):
        return iter(self._sub_layers.values())

    def forward(self, inputs, initial_states=None, sequence_length=None):
        batch_index = 1 if self.time_major else 0
        n = self.num_layers * self.num_directions
        out_size = self.proj_size or self.hidden_size
        if initial_states is None:
            ref_batch = inputs.shape[batch_index]
            if ref_batch < 0:
                ref_batch = paddle.shape(inputs)[batch_index]   # static Program, batch known at run time
            h = paddle.zeros([n, ref_batch, out_size], dtype=inputs.dtype)
            if self.state_components == 2:
                initial_states = (h, paddle.zeros([n, ref_batch, self.hidden_size], dtype=inputs.dtype))
            else:
                initial_states = h
        comps = list(initial_states) if self.state_components == 2 else [initial_states]
        per_state = [paddle.unbind(s, axis=0) for s in comps]  # each: n tensors [B, H]

        def state_at(k):
            parts = [ps[k] for ps in per_state]
            return tuple(parts) if self.state_components == 2 else parts[0]

        x = inputs
        finals = []
        for i in range(self.num_layers):
            if i > 0 and self.dropout > 0:
                x = F.dropout(x, p=self.dropout, training=self.training, mode="upscale_in_train")
            layer = self._sub_layers[str(i)]
            if self.num_directions == 1:
                x, st = layer(x, state_at(i), sequence_length)
                finals.append(st)
            else:
                x, (st_fw, st_bw) = layer(x, (state_at(2 * i), state_at(2 * i + 1)), sequence_length)
                finals.extend([st_fw, st_bw])
        if sequence_length is not None:
            # Paddle's fused rnn op (what LSTM/GRU/SimpleRNN run) writes zeros after each sample's
            # last step; the generic nn.RNN keeps them (see _run_cell)
            steps = x.shape[0 if self.time_major else 1]
            valid = paddle.unsqueeze(sequence_length, -1) > paddle.arange(steps, dtype=sequence_length.dtype)
            valid = paddle.cast(valid, x.dtype)                                 # [B, T]
            x = x * paddle.unsqueeze(paddle.transpose(valid, [1, 0]) if self.time_major else valid, -1)
        if self.state_components == 2:
            final = tuple(paddle.stack([f[c] for f in finals], axis=0) for c in range(2))
        else:
            final = paddle.stack(finals, axis=0)
        return x, final

    def extra_repr(self):
        s = f"{self.input_size}, {self.hidden_size}"
        if self.num_layers != 1:
            s += f", num_layers={self.num_layers}"
        if self.time_major is not False:
            s += f", time_major={self.time_major}"
        if self.dropout != 0:
            s += f", dropout={self.dropout}"
        return s


class SimpleRNN(RNNBase):
    """Multi-layer Elman RNN (tanh or relu); returns ``(outputs, h_n)`` with h_n ``[L*D, B, H]``."""

    def __init__(self, input_size, hidden_size, num_layers=1, direction="forward", time_major=False, dropout=0.0,
                 activation="tanh", weight_ih_attr=None, weight_hh_attr=None, bias_ih_attr=None, bias_hh_attr=None,
                 name=None):
        if activation not in ("tanh", "relu"):
            raise ValueError(f"SimpleRNN: activation must be 'tanh' or 'relu', got {activation!r}")
        mode = "RNN_TANH" if activation == "tanh" else "RNN_RELU"
        super().__init__(mode, input_size, hidden_size, num_layers, direction, time_major, dropout, weight_ih_attr,
                         weight_hh_attr, bias_ih_attr, bias_hh_attr)
        self.activation = activation


class LSTM(RNNBase):
    """Multi-layer LSTM; returns ``(outputs, (h_n, c_n))``, each state ``[L*D, B, H]``."""

    def __init__(self, input_size, hidden_size, num_layers=1, direction="forward", time_major=False, dropout=0.0,
                 weight_ih_attr=None, weight_hh_attr=None, bias_ih_attr=None, bias_hh_attr=None, proj_size=0,
                 name=None):
        super().__init__("LSTM", input_size, hidden_size, num_layers, direction, time_major, dropout, weight_ih_attr,
                         weight_hh_attr, bias_ih_attr, bias_hh_attr, proj_size)


class GRU(RNNBase):
    """Multi-layer GRU; returns ``(outputs, h_n)`` with h_n ``[L*D, B, H]``."""

    def __init__(self, input_size, hidden_size, num_layers=1, direction="forward", time_major=False, dropout=0.0,
                 weight_ih_attr=None, weight_hh_attr=None, bias_ih_attr=None, bias_hh_attr=None, name=None):
        super().__init__("GRU", input_size, hidden_size, num_layers, direction, time_major, dropout, weight_ih_attr,
                         weight_hh_attr, bias_ih_attr, bias_hh_attr)
