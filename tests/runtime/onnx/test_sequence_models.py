"""``paddle.onnx.export`` of the sequence and building-block layers real models use: onnxruntime == our
to_static, every output, at two batch sizes (``None`` batch dim; ``None`` spatial dims where stated)."""
# Covered: nn.LSTM / GRU / SimpleRNN (one and two layers, bidirectional, initial states, sequence_length,
# time_major, LSTM proj_size), nn.RNN / BiRNN over cells, nn.TransformerEncoder / Decoder / Transformer with
# masks, nn.MultiHeadAttention (bool and float masks, kdim/vdim, need_weights), Embedding + LayerNorm,
# GroupNorm (NCHW and NHWC) / InstanceNorm 1-D/2-D/3-D, interpolate / Upsample (nearest, bilinear, bicubic,
# linear, trilinear; align_corners both; sizes and scales; run-time spatial sizes), pixel_shuffle /
# pixel_unshuffle, adaptive avg / max pooling 1-D/2-D/3-D to sizes that do not divide the input, on run-time
# sizes, and with the index output. Lowerings added for these live in runtime/onnx/ops_models_extra.py.

import numpy as np
import pytest

import dy2st as paddle
from dy2st.static import InputSpec
from runtime.onnx import UnsupportedOpError

from .helpers import assert_close, needs_ort

pytestmark = needs_ort
nn = paddle.nn
F = nn.functional


def f32(rng, *shape):
    return rng.standard_normal(shape).astype("float32")


class Wrap(nn.Layer):
    """A Layer whose forward is ``fn(self, *inputs)`` over the given sublayers."""

    def __init__(self, fn, **subs):
        super().__init__()
        for k, v in subs.items():
            self.add_sublayer(k, v)
        self.fn = fn

    def forward(self, *args):
        return self.fn(self, *args)


def flat(out):
    if isinstance(out, (list, tuple)):
        return [t for o in out for t in flat(o)]
    return [out]


def _causal(n):
    return np.triu(np.full((n, n), -1e9, np.float32), 1)


class _SkipUp(nn.Layer):
    """A U-Net style skip: upsample to ``x.shape[2:]`` / ``paddle.shape(y)[2:]`` known only at run time
    (a method, not a lambda: to_static converts ``x.shape`` in converted functions, as Paddle)."""

    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv2D(3, 3, 3, padding=1)
        self.c2 = nn.Conv2D(6, 2, 1)

    def forward(self, x, y):
        up = F.interpolate(self.c1(F.max_pool2d(x, 2)), size=x.shape[2:], mode="bilinear")
        b = F.interpolate(x, size=paddle.shape(y)[2:], mode="bilinear", align_corners=True)
        c = F.interpolate(x, size=[paddle.shape(y)[2], 5], mode="nearest")
        return self.c2(paddle.concat([up, x], axis=1)), b, c


# -- recurrent networks -------------------------------------------------------------------------------------

def _rnn_case(cls, num_layers=1, direction="forward", state=False, seq_len=False, time_major=False, **kw):
    rnn = cls(8, 6, num_layers=num_layers, direction=direction, time_major=time_major, **kw)
    lstm = cls is nn.LSTM
    L = num_layers * (1 if direction == "forward" else 2)
    h_size = kw.get("proj_size") or 6

    def fwd(self, x, *rest):
        rest = list(rest)
        st = ((rest.pop(0), rest.pop(0)) if lstm else rest.pop(0)) if state else None
        return flat(self.rnn(x, st, rest.pop(0) if seq_len else None))
    specs = [InputSpec([5, None, 8] if time_major else [None, 5, 8], "float32", "x")]
    if state:
        specs += [InputSpec([L, None, h_size], "float32", "h0")]
        specs += [InputSpec([L, None, 6], "float32", "c0")] if lstm else []
    if seq_len:
        specs += [InputSpec([None], "int64", "seq_len")]

    def feeds(rng, bs):
        d = [f32(rng, 5, bs, 8) if time_major else f32(rng, bs, 5, 8)]
        if state:
            d += [f32(rng, L, bs, h_size)] + ([f32(rng, L, bs, 6)] if lstm else [])
        if seq_len:
            d += [np.array([5, 3, 1, 4][:bs], np.int64)]
        return d
    return Wrap(fwd, rnn=rnn), specs, feeds


def _cases():
    c = {}
    for cls in (nn.LSTM, nn.GRU, nn.SimpleRNN):
        n = cls.__name__
        c[f"{n}_1layer"] = lambda cls=cls: _rnn_case(cls)
        c[f"{n}_2layer_bidirect_states"] = lambda cls=cls: _rnn_case(cls, 2, "bidirect", state=True)
        c[f"{n}_2layer_bidirect_time_major_seq_len"] = lambda cls=cls: _rnn_case(
            cls, 2, "bidirectional", state=True, seq_len=True, time_major=True)
    c["LSTM_1layer_seq_len"] = lambda: _rnn_case(nn.LSTM, seq_len=True)
    c["LSTM_proj_size_bidirect"] = lambda: _rnn_case(nn.LSTM, 1, "bidirect", state=True, proj_size=4)
    c["SimpleRNN_relu"] = lambda: _rnn_case(nn.SimpleRNN, 2, activation="relu")
    c["RNN_reverse_GRUCell_seq_len"] = lambda: (
        Wrap(lambda s, x, n: flat(s.rnn(x, None, n)), rnn=nn.RNN(nn.GRUCell(8, 6), is_reverse=True)),
        [InputSpec([None, 5, 8], "float32", "x"), InputSpec([None], "int64", "n")],
        lambda rng, bs: [f32(rng, bs, 5, 8), np.array([5, 2, 3][:bs], np.int64)])
    c["BiRNN_LSTMCells"] = lambda: (
        Wrap(lambda s, x: flat(s.rnn(x)), rnn=nn.BiRNN(nn.LSTMCell(8, 6), nn.LSTMCell(8, 6))),
        [InputSpec([None, 5, 8], "float32", "x")], lambda rng, bs: [f32(rng, bs, 5, 8)])

    # -- transformers / attention --------------------------------------------------------------------------
    c["TransformerEncoder_float_mask"] = lambda: (
        Wrap(lambda s, x, m: s.enc(x, m), enc=nn.TransformerEncoder(nn.TransformerEncoderLayer(16, 2, 32), 2)),
        [InputSpec([None, 5, 16], "float32", "x"), InputSpec([None, 2, 5, 5], "float32", "mask")],
        lambda rng, bs: [f32(rng, bs, 5, 16), np.where(rng.random((bs, 2, 5, 5)) < 0.3, -1e9, 0).astype("float32")])
    c["TransformerEncoder_prenorm_gelu_dynamic_seq"] = lambda: (
        Wrap(lambda s, x: s.enc(x), enc=nn.TransformerEncoder(
            nn.TransformerEncoderLayer(16, 4, 32, normalize_before=True, activation="gelu"), 2, norm=nn.LayerNorm(16))),
        [InputSpec([None, None, 16], "float32", "x")], lambda rng, bs: [f32(rng, bs, 3 + bs, 16)])
    c["TransformerDecoder_causal"] = lambda: (
        Wrap(lambda s, t, m, tm: s.dec(t, m, tm), dec=nn.TransformerDecoder(nn.TransformerDecoderLayer(16, 2, 32), 2)),
        [InputSpec([None, 4, 16], "float32", "tgt"), InputSpec([None, 6, 16], "float32", "memory"),
         InputSpec([4, 4], "float32", "tgt_mask")],
        lambda rng, bs: [f32(rng, bs, 4, 16), f32(rng, bs, 6, 16), _causal(4)])
    c["Transformer_all_masks_prenorm"] = lambda: (
        Wrap(lambda s, a, b, sm, tm, mm: s.tr(a, b, sm, tm, mm),
             tr=nn.Transformer(16, 2, 2, 2, 32, normalize_before=True)),
        [InputSpec([None, 6, 16], "float32", "src"), InputSpec([None, 4, 16], "float32", "tgt"),
         InputSpec([None, 2, 6, 6], "bool", "src_mask"), InputSpec([4, 4], "float32", "tgt_mask"),
         InputSpec([None, 1, 4, 6], "float32", "memory_mask")],
        lambda rng, bs: [f32(rng, bs, 6, 16), f32(rng, bs, 4, 16), rng.random((bs, 2, 6, 6)) < 0.8, _causal(4),
                         np.where(rng.random((bs, 1, 4, 6)) < 0.2, -1e9, 0).astype("float32")])
    c["MultiHeadAttention_bool_mask_kdim_vdim"] = lambda: (
        Wrap(lambda s, q, k, v, m: s.mha(q, k, v, m), mha=nn.MultiHeadAttention(16, 4, kdim=12, vdim=10)),
        [InputSpec([None, 3, 16], "float32", "q"), InputSpec([None, 5, 12], "float32", "k"),
         InputSpec([None, 5, 10], "float32", "v"), InputSpec([None, 1, 3, 5], "bool", "mask")],
        lambda rng, bs: [f32(rng, bs, 3, 16), f32(rng, bs, 5, 12), f32(rng, bs, 5, 10),
                         rng.random((bs, 1, 3, 5)) < 0.7])
    c["MultiHeadAttention_need_weights_float_mask"] = lambda: (
        Wrap(lambda s, q, m: list(s.mha(q, q, q, m)), mha=nn.MultiHeadAttention(16, 2, need_weights=True)),
        [InputSpec([None, 5, 16], "float32", "q"), InputSpec([5, 5], "float32", "mask")],
        lambda rng, bs: [f32(rng, bs, 5, 16), f32(rng, 5, 5)])

    # -- embedding / normalization ---------------------------------------------------------------------------
    c["Embedding_padding_idx_LayerNorm"] = lambda: (
        Wrap(lambda s, i: s.ln(s.emb(i)), emb=nn.Embedding(20, 8, padding_idx=0), ln=nn.LayerNorm(8)),
        [InputSpec([None, 7], "int64", "ids")], lambda rng, bs: [rng.integers(0, 20, (bs, 7)).astype("int64")])
    c["GroupNorm_InstanceNorm2D"] = lambda: (
        Wrap(lambda s, x: s.inn(s.gn(x)), gn=nn.GroupNorm(2, 4), inn=nn.InstanceNorm2D(4)),
        [InputSpec([None, 4, 5, 6], "float32", "x")], lambda rng, bs: [f32(rng, bs, 4, 5, 6)])
    c["GroupNorm_NHWC_LayerNorm_2d"] = lambda: (
        Wrap(lambda s, x: [s.ln(x), s.gn(x)], ln=nn.LayerNorm([5, 6]), gn=nn.GroupNorm(2, 6, data_format="NHWC")),
        [InputSpec([None, 4, 5, 6], "float32", "x")], lambda rng, bs: [f32(rng, bs, 4, 5, 6)])
    c["InstanceNorm1D_3D"] = lambda: (
        Wrap(lambda s, x, y: [s.a(x), s.b(y)], a=nn.InstanceNorm1D(4), b=nn.InstanceNorm3D(2)),
        [InputSpec([None, 4, 9], "float32", "x"), InputSpec([None, 2, 3, 4, 5], "float32", "y")],
        lambda rng, bs: [f32(rng, bs, 4, 9), f32(rng, bs, 2, 3, 4, 5)])

    # -- resampling ------------------------------------------------------------------------------------------
    for mode in ("nearest", "bilinear", "bicubic"):
        for ac in ((False,) if mode == "nearest" else (False, True)):
            c[f"interpolate_{mode}_align_corners_{ac}"] = lambda mode=mode, ac=ac: (
                Wrap(lambda s, x: [F.interpolate(x, scale_factor=2, mode=mode, align_corners=ac),
                                   F.interpolate(x, size=[7, 5], mode=mode, align_corners=ac)]),
                [InputSpec([None, 3, 5, 6], "float32", "x")], lambda rng, bs: [f32(rng, bs, 3, 5, 6)])
    c["interpolate_bilinear_align_mode_1_nearest_fractional"] = lambda: (
        Wrap(lambda s, x: [F.interpolate(x, size=[9, 11], mode="bilinear", align_mode=1),
                           F.interpolate(x, scale_factor=1.7, mode="nearest")]),
        [InputSpec([None, 3, 5, 6], "float32", "x")], lambda rng, bs: [f32(rng, bs, 3, 5, 6)])
    c["interpolate_dynamic_spatial"] = lambda: (
        Wrap(lambda s, x: [F.interpolate(x, scale_factor=2, mode="bilinear"),
                           F.interpolate(x, scale_factor=[2, 3], mode="nearest"),
                           F.interpolate(x, size=[7, 9], mode="bilinear", align_corners=True)]),
        [InputSpec([None, 3, None, None], "float32", "x")], lambda rng, bs: [f32(rng, bs, 3, 4 + bs, 5 + bs)])
    c["interpolate_NHWC_linear_trilinear"] = lambda: (
        Wrap(lambda s, x, y, z: [F.interpolate(x, scale_factor=2, mode="bilinear", data_format="NHWC"),
                                 F.interpolate(y, size=[11], mode="linear", align_corners=True, data_format="NCW"),
                                 F.interpolate(z, size=[3, 5, 7], mode="trilinear", align_corners=True)]),
        [InputSpec([None, 5, 6, 3], "float32", "x"), InputSpec([None, 3, 6], "float32", "y"),
         InputSpec([None, 2, 3, 4, 5], "float32", "z")],
        lambda rng, bs: [f32(rng, bs, 5, 6, 3), f32(rng, bs, 3, 6), f32(rng, bs, 2, 3, 4, 5)])
    c["interpolate_to_runtime_size_of_another_tensor"] = lambda: (
        _SkipUp(), [InputSpec([None, 3, None, None], "float32", "x"), InputSpec([None, 3, None, None], "float32", "y")],
        lambda rng, bs: [f32(rng, bs, 3, 8 + 2 * bs, 10), f32(rng, bs, 3, 7, 5 + bs)])
    c["Upsample_UpsamplingBilinear2D"] = lambda: (
        Wrap(lambda s, x: [s.u1(x), s.u2(x)], u1=nn.Upsample(scale_factor=1.5, mode="nearest"),
             u2=nn.UpsamplingBilinear2D(size=[8, 10])),
        [InputSpec([None, 3, 5, 6], "float32", "x")], lambda rng, bs: [f32(rng, bs, 3, 5, 6)])
    c["pixel_shuffle_unshuffle_NCHW_NHWC"] = lambda: (
        Wrap(lambda s, x, y: [s.ps(x), F.pixel_shuffle(y, 2, "NHWC"), F.pixel_unshuffle(x, 2),
                              F.pixel_unshuffle(y, 2, "NHWC")], ps=nn.PixelShuffle(2)),
        [InputSpec([None, 8, 4, 6], "float32", "x"), InputSpec([None, 4, 6, 8], "float32", "y")],
        lambda rng, bs: [f32(rng, bs, 8, 4, 6), f32(rng, bs, 4, 6, 8)])
    c["pixel_shuffle_unshuffle_dynamic_spatial"] = lambda: (
        Wrap(lambda s, x: [F.pixel_shuffle(x, 2), F.pixel_unshuffle(x, 2), F.pixel_unshuffle(
            paddle.transpose(x, [0, 2, 3, 1]), 2, "NHWC")]),
        [InputSpec([None, 8, None, None], "float32", "x")], lambda rng, bs: [f32(rng, bs, 8, 2 * bs, 4)])

    # -- adaptive pooling --------------------------------------------------------------------------------------
    c["adaptive_pools_non_divisible"] = lambda: (
        Wrap(lambda s, x: [F.adaptive_avg_pool2d(x, [3, 4]), F.adaptive_max_pool2d(x, [3, 4]),
                           F.adaptive_avg_pool1d(x[:, :, 0], 3), F.adaptive_max_pool1d(x[:, :, 0], 4),
                           F.adaptive_avg_pool2d(x, [7, 5]), F.adaptive_max_pool2d(x, 1)]),
        [InputSpec([None, 3, 7, 10], "float32", "x")], lambda rng, bs: [f32(rng, bs, 3, 7, 10)])
    c["adaptive_pools_dynamic_spatial"] = lambda: (
        Wrap(lambda s, x: [F.adaptive_avg_pool2d(x, [3, 4]), F.adaptive_max_pool2d(x, [2, 5]),
                           F.adaptive_avg_pool1d(x[:, :, 0], 3), F.adaptive_avg_pool2d(
                               paddle.transpose(x, [0, 2, 3, 1]), [3, 4], data_format="NHWC"),
                           s.pool(x)], pool=nn.AdaptiveAvgPool2D([6, 2])),
        [InputSpec([None, 3, None, None], "float32", "x")], lambda rng, bs: [f32(rng, bs, 3, 2 + 3 * bs, 4 + 3 * bs)])
    c["adaptive_pools_3d"] = lambda: (
        Wrap(lambda s, x, y: [F.adaptive_avg_pool3d(x, [2, 3, 4]), F.adaptive_max_pool3d(x, [2, 3, 4]),
                              F.adaptive_max_pool3d(y, [2, 3, 4]),
                              F.adaptive_avg_pool3d(paddle.transpose(y, [0, 2, 3, 4, 1]), [2, 3, 4],
                                                    data_format="NDHWC")]),
        [InputSpec([None, 2, 5, 7, 9], "float32", "x"), InputSpec([None, 2, None, 7, None], "float32", "y")],
        lambda rng, bs: [f32(rng, bs, 2, 5, 7, 9), f32(rng, bs, 2, 3 + bs, 7, 9)])
    c["adaptive_max_pool_return_mask"] = lambda: (
        # few distinct values: ties everywhere, the first maximum's index must win, as in Paddle
        Wrap(lambda s, x, y: [*F.adaptive_max_pool2d(x, [3, 4], return_mask=True),
                              *F.adaptive_max_pool2d(x, [7, 5], return_mask=True),
                              *F.adaptive_max_pool3d(y, [2, 3, 2], return_mask=True)]),
        [InputSpec([None, 3, 7, 10], "float32", "x"), InputSpec([None, 2, 5, 7, 3], "float32", "y")],
        lambda rng, bs: [rng.integers(0, 3, (bs, 3, 7, 10)).astype("float32"),
                         rng.integers(0, 3, (bs, 2, 5, 7, 3)).astype("float32")])
    return c


CASES = _cases()


@pytest.mark.parametrize("name", sorted(CASES))
def test_sequence_and_block_layers(name, tmp_path):
    import onnx
    import onnxruntime as ort
    paddle.seed(11)
    rng = np.random.default_rng(11)
    layer, specs, feeds = CASES[name]()
    layer.eval()
    opset = 13 if sorted(CASES).index(name) % 2 else 17
    static_layer = paddle.jit.to_static(layer, input_spec=specs)
    proto = paddle.onnx.export(layer, str(tmp_path / "m"), input_spec=specs, opset_version=opset)
    onnx.checker.check_model(proto)
    sess = ort.InferenceSession(proto.SerializeToString(), providers=["CPUExecutionProvider"])
    for bs in (1, 3):
        data = feeds(rng, bs)
        ref = [t.numpy() for t in flat(static_layer(*[paddle.to_tensor(v) for v in data]))]
        got = sess.run(None, {i.name: v for i, v in zip(sess.get_inputs(), data)})
        assert len(got) == len(ref)
        for i, (g, r) in enumerate(zip(got, ref)):
            assert_close(g, r, rtol=1e-4, what=f"{name} opset {opset} output {i} batch {bs}")


def test_adaptive_max_mask_on_runtime_sizes_is_refused(tmp_path):
    """The index output of adaptive max pooling needs the plane's sizes at export time: a clear error naming
    the op, the user's line and the fix, not a different model."""
    layer = Wrap(lambda s, x: list(F.adaptive_max_pool2d(x, [3, 4], return_mask=True)))
    spec = [InputSpec([None, 3, None, None], "float32", "x")]
    with pytest.raises(UnsupportedOpError) as e:
        paddle.onnx.export(layer, str(tmp_path / "m"), input_spec=spec)
    msg = str(e.value)
    assert "max_pool2d_with_index" in msg and "return_mask" in msg and "InputSpec" in msg
    assert "test_sequence_models.py" in msg
    # without the mask the same pooling exports (binned max on run-time sizes)
    layer2 = Wrap(lambda s, x: F.adaptive_max_pool2d(x, [3, 4]))
    paddle.onnx.export(layer2, str(tmp_path / "m2"), input_spec=spec)
