"""``pd_op.rnn`` (paddle.nn.LSTM / GRU / SimpleRNN in a PIR program) lowered to elementary ops.

Our op registry has no fused ``rnn`` op, so the reader unrolls the recurrence over the sequence
length, which must be known from the file (``[T, batch, input]``, time-major inside the op; the
layers transpose batch-major inputs around it). Operands: input, the initial states as a list
(``[h0]`` or ``[h0, c0]``, each ``[layers * directions, batch, hidden]``), the weight list (every
``W_ih, W_hh`` pair by layer and direction, then every ``b_ih, b_hh`` pair), an optional
sequence-length tensor (padded batches: step ``t`` of a sequence shorter than ``t + 1`` leaves the
states unchanged and outputs zeros, as Paddle's kernel does; the reverse direction therefore starts at
each sequence's own last step), the dropout state. Results: the output
``[T, batch, directions * hidden]``, the dropout state, the final states as a list, a reserve.

Gate layouts are Paddle's cells (paddle.nn.LSTMCell / GRUCell / SimpleRNNCell): LSTM gates
``i, f, g, o`` with ``c = f*c + i*tanh(g)``, ``h = o*tanh(c)``; GRU ``r, z, c`` with
``c = tanh(x_c + r * (h W_hc + b_hc))``, ``h = (h - c) * z + c``. Inference only: the dropout
between layers is the identity (``is_test``), which is what a saved inference program holds.
"""
from __future__ import annotations

from .pir_read import _Vec

__all__ = ["lower_rnn"]

_GATES = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}


def lower_rnn(tr, blk, op):
    mode = tr.attr(op, "mode", "LSTM")
    if mode not in _GATES:
        tr.fail(op.where, f"rnn mode '{mode:.20}' is not supported")
    layers = tr.attr(op, "num_layers", 1)
    dirs = 2 if tr.attr(op, "is_bidirec", False) else 1
    if not 1 <= layers <= 64:
        tr.fail(op.where, f"rnn with {layers} layers")
    x = tr.arg(blk, op, 0)
    xv = blk._var_recursive(x)
    if len(xv.shape) != 3 or xv.shape[0] < 0:
        tr.fail(op.where, f"rnn needs a known sequence length to unroll; the input has shape {xv.shape} "
                          "(save the model with a fixed sequence length in its InputSpec)")
    steps = xv.shape[0]
    seq_len = tr.arg(blk, op, 3) if len(op.operands) > 3 and op.operands[3] != 0 else None
    states = tr.vec(blk, op, 1)
    weights = tr.vec(blk, op, 2)
    n = layers * dirs
    if len(states) != (2 if mode == "LSTM" else 1) or len(weights) not in (2 * n, 4 * n):
        tr.fail(op.where, f"rnn has {len(states)} initial states and {len(weights)} weights for {n} cells")
    has_bias = len(weights) == 4 * n

    def emit(type_, ins, attrs=None, outs=1):
        names = [tr.scratch(f"rnn_{op.results[0][0]}.{type_}") for _ in range(outs)]
        tr.emit(blk, type_, ins, attrs or {}, {_out_slot(type_): names}, op)
        return names if outs > 1 else names[0]

    def pick(t, i):   # t[i] along axis 0
        return emit("slice", {"Input": [t]}, {"axes": [0], "starts": [i], "ends": [i + 1], "infer_flags": [1],
                                              "decrease_axis": [0]})

    def linear(v, w, b):
        y = emit("matmul_v2", {"X": [v], "Y": [w]}, {"trans_y": True})
        return emit("elementwise_add", {"X": [y], "Y": [b]}, {"axis": -1}) if b is not None else y

    def add(p, q):
        return emit("elementwise_add", {"X": [p], "Y": [q]}, {"axis": -1})

    def mul(p, q):
        return emit("elementwise_mul", {"X": [p], "Y": [q]}, {"axis": -1})

    def act(type_, v):
        return emit(type_, {"X": [v]})

    def split(v, k):
        if k == 1:
            return [v]
        return emit("split", {"X": [v]}, {"num": k, "axis": -1}, outs=k)

    keep, drop = [None] * steps, [None] * steps      # per step: 1/0 where the step is inside/outside a sequence
    if seq_len is not None:
        lv = blk._var_recursive(seq_len)
        if len(lv.shape) != 1:
            tr.fail(op.where, f"rnn sequence_length must be 1-D [batch], got shape {list(lv.shape)}")
        fdt = xv.dtype.proto
        for t in range(steps):
            step = emit("fill_constant", {}, {"shape": [1], "dtype": lv.dtype.proto, "value": float(t)})
            inside = emit("less_than", {"X": [step], "Y": [seq_len]})
            m = emit("cast", {"X": [inside]}, {"in_dtype": 0, "out_dtype": fdt})
            keep[t] = emit("unsqueeze2", {"X": [m]}, {"axes": [1]})
            drop[t] = emit("scale", {"X": [keep[t]]}, {"scale": -1.0, "bias": 1.0})

    def masked(t, new, old):
        # m * new + (1 - m) * old: exactly ``new`` inside a sequence and ``old`` outside (m is 0 or 1)
        if keep[t] is None:
            return new
        return add(mul(new, keep[t]), mul(old, drop[t]))

    layer_in = x
    last_h, last_c = [], []
    for layer in range(layers):
        seq_in = [pick(layer_in, t) for t in range(steps)]
        dir_outs = []
        for d in range(dirs):
            cell = layer * dirs + d
            w_ih, w_hh = weights[2 * cell], weights[2 * cell + 1]
            b_ih, b_hh = (weights[2 * n + 2 * cell], weights[2 * n + 2 * cell + 1]) if has_bias else (None, None)
            h = pick(states[0], cell)
            c = pick(states[1], cell) if mode == "LSTM" else None
            outs = [None] * steps
            order = range(steps) if d == 0 else range(steps - 1, -1, -1)
            for t in order:
                xg, hg = linear(seq_in[t], w_ih, b_ih), linear(h, w_hh, b_hh)
                h_prev, c_prev = h, c
                if mode == "LSTM":
                    i, f, g, o = split(add(xg, hg), 4)
                    c = add(mul(act("sigmoid", f), c), mul(act("sigmoid", i), act("tanh", g)))
                    h = mul(act("sigmoid", o), act("tanh", c))
                elif mode == "GRU":
                    x_r, x_z, x_c = split(xg, 3)
                    h_r, h_z, h_c = split(hg, 3)
                    r, z = act("sigmoid", add(x_r, h_r)), act("sigmoid", add(x_z, h_z))
                    cand = act("tanh", add(x_c, mul(r, h_c)))
                    diff = emit("elementwise_sub", {"X": [h], "Y": [cand]}, {"axis": -1})
                    h = add(mul(diff, z), cand)
                else:
                    h = act("tanh" if mode == "RNN_TANH" else "relu", add(xg, hg))
                outs[t] = h if keep[t] is None else mul(h, keep[t])
                h = masked(t, h, h_prev)
                if c is not None:
                    c = masked(t, c, c_prev)
            last_h.append(h)
            last_c.append(c)
            dir_outs.append(emit("stack", {"X": outs}, {"axis": 0}))
        layer_in = dir_outs[0] if dirs == 1 else emit("concat", {"X": dir_outs}, {"axis": 2})
    out = tr.result(op, 0)
    tr.emit(blk, "assign", {"X": [layer_in]}, {}, {"Out": [out]}, op)
    final = [emit("stack", {"X": last_h}, {"axis": 0})]
    if mode == "LSTM":
        final.append(emit("stack", {"X": last_c}, {"axis": 0}))
    if len(op.results) > 2:
        tr.bind(op, 2, _Vec(final))


def _out_slot(type_):
    return {"stack": "Y", "conv2d": "Output", "layer_norm": "Y"}.get(type_, "Out")
