"""Realistic small models written against Paddle's public API, the way Paddle's docs and tutorials
write them. The same file runs under dy2st (default) and under real Paddle (ZOO_BACKEND=paddle),
so test_zoo.py can compare both frameworks on identical weights and inputs."""
import os

import numpy as np

if os.environ.get("ZOO_BACKEND") == "paddle":
    import paddle
    import paddle.nn as nn
    import paddle.nn.functional as F
else:
    import dy2st as paddle
    import dy2st.nn as nn
    import dy2st.nn.functional as F


class CNNClassifier(nn.Layer):
    def __init__(self, num_classes=10):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2D(3, 8, 3, padding=1), nn.BatchNorm2D(8), nn.ReLU(), nn.MaxPool2D(2, 2),
            nn.Conv2D(8, 16, 3, padding=1), nn.BatchNorm2D(16), nn.ReLU(),
            nn.AdaptiveAvgPool2D((1, 1)))
        self.flatten = nn.Flatten()
        self.dropout = nn.Dropout(0.5)
        self.fc = nn.Linear(16, num_classes)

    def forward(self, x):
        x = self.features(x)
        x = self.flatten(x)
        return self.fc(self.dropout(x))


class BasicBlock(nn.Layer):
    expansion = 1

    def __init__(self, inplanes, planes, stride=1):
        super().__init__()
        self.conv1 = nn.Conv2D(inplanes, planes, 3, stride=stride, padding=1, bias_attr=False)
        self.bn1 = nn.BatchNorm2D(planes)
        self.relu = nn.ReLU()
        self.conv2 = nn.Conv2D(planes, planes, 3, padding=1, bias_attr=False)
        self.bn2 = nn.BatchNorm2D(planes)
        self.downsample = None
        if stride != 1 or inplanes != planes:
            self.downsample = nn.Sequential(nn.Conv2D(inplanes, planes, 1, stride=stride, bias_attr=False),
                                            nn.BatchNorm2D(planes))

    def forward(self, x):
        identity = x
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        if self.downsample is not None:
            identity = self.downsample(x)
        return self.relu(out + identity)


class TinyResNet(nn.Layer):
    def __init__(self):
        super().__init__()
        self.stem = nn.Conv2D(3, 4, 3, padding=1)
        self.layer1 = BasicBlock(4, 4)
        self.layer2 = BasicBlock(4, 8, stride=2)
        self.pool = nn.AdaptiveAvgPool2D(1)
        self.fc = nn.Linear(8, 5)

    def forward(self, x):
        x = self.layer2(self.layer1(self.stem(x)))
        return self.fc(paddle.flatten(self.pool(x), 1))


class LSTMClassifier(nn.Layer):
    def __init__(self, vocab=30, emb=8, hidden=12, classes=3):
        super().__init__()
        self.embedding = nn.Embedding(vocab, emb)
        self.lstm = nn.LSTM(emb, hidden, num_layers=2)
        self.fc = nn.Linear(hidden, classes)

    def forward(self, ids):
        x = self.embedding(ids)
        out, (h, c) = self.lstm(x)
        return self.fc(h[-1]), out


class BiGRUTagger(nn.Layer):
    def __init__(self, vocab=30, emb=8, hidden=6, tags=4):
        super().__init__()
        self.embedding = nn.Embedding(vocab, emb, padding_idx=0)
        self.gru = nn.GRU(emb, hidden, direction="bidirect")
        self.fc = nn.Linear(2 * hidden, tags)

    def forward(self, ids):
        out, _ = self.gru(self.embedding(ids))
        return F.log_softmax(self.fc(out), axis=-1)


class TextCNN(nn.Layer):
    def __init__(self, vocab=30, emb=8, filters=4, sizes=(2, 3), classes=2):
        super().__init__()
        self.embedding = nn.Embedding(vocab, emb)
        self.convs = nn.LayerList([nn.Conv2D(1, filters, (k, emb)) for k in sizes])
        self.fc = nn.Linear(filters * len(sizes), classes)

    def forward(self, ids):
        x = self.embedding(ids).unsqueeze(1)          # [B, 1, T, E]
        pooled = []
        for conv in self.convs:
            h = F.relu(conv(x)).squeeze(3)            # [B, F, T-k+1]
            pooled.append(paddle.max(h, axis=2))
        return self.fc(paddle.concat(pooled, axis=1))


class TransformerClassifier(nn.Layer):
    def __init__(self, d_model=16, nhead=2, layers=2, classes=3):
        super().__init__()
        layer = nn.TransformerEncoderLayer(d_model, nhead, dim_feedforward=32, dropout=0.1)
        self.encoder = nn.TransformerEncoder(layer, layers, norm=nn.LayerNorm(d_model))
        self.fc = nn.Linear(d_model, classes)

    def forward(self, x):
        h = self.encoder(x)
        return self.fc(h.mean(axis=1))


class GreedyDecoder(nn.Layer):
    """A seq2seq-style decode loop: a tensor-bounded while with an early break on a tensor test."""

    def __init__(self, hidden=8):
        super().__init__()
        self.cell = nn.GRUCell(hidden, hidden)
        self.out = nn.Linear(hidden, hidden)

    def forward(self, x, max_len):
        h = paddle.zeros([x.shape[0], 8], dtype="float32")
        inp = x
        step = paddle.zeros([1], dtype="int64")
        total = paddle.zeros_like(x)
        while step < max_len:
            y, h = self.cell(inp, h)
            inp = paddle.tanh(self.out(y))
            total = total + inp
            step = step + 1
            if paddle.abs(inp).mean() < 0.05:
                break
        return total, step


class MaskedScores(nn.Layer):
    """Attention-ish scoring with where / masking / gather / topk / argmax / cumsum / one_hot."""

    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(6, 6)

    def forward(self, x, lengths):
        s = self.proj(x)                                             # [B, 6]
        pos = paddle.arange(6, dtype="int64").unsqueeze(0)
        mask = pos < lengths.unsqueeze(1)                            # [B, 6]
        s = paddle.where(mask, s, paddle.full_like(s, -1e4))
        p = F.softmax(s, axis=-1)
        vals, idx = paddle.topk(p, k=2, axis=-1)
        best = paddle.argmax(p, axis=-1)
        picked = paddle.take_along_axis(x, idx, axis=1)
        oh = F.one_hot(best, num_classes=6).astype("float32")
        c = paddle.cumsum(p, axis=-1)
        rows = paddle.gather(s, paddle.to_tensor([1, 0]), axis=0)
        return p, vals, idx, best, picked * oh[:, :2], c, rows


class LossZoo(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(5, 4)
        self.bce = nn.BCEWithLogitsLoss()

    def forward(self, x, soft, hard, target01):
        logits = self.fc(x)
        ce_soft = F.cross_entropy(logits, soft, soft_label=True)
        ce_hard = F.cross_entropy(logits, hard)
        nll = F.nll_loss(F.log_softmax(logits, axis=1), hard.squeeze(1))
        mse = F.mse_loss(F.sigmoid(logits), target01)
        bce = self.bce(logits, target01)
        return ce_soft + ce_hard + nll + mse + bce, ce_soft, nll


class ShapeOps(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(12, 4)

    def forward(self, x):
        b = x.shape[0]
        h = x.reshape([b, -1])                       # [B, 12]
        n = paddle.shape(x)[1]
        h = self.fc(h)
        h = paddle.reshape(h, [-1, 2, 2]).transpose([0, 2, 1])
        return h.flatten(1) * n.astype("float32"), paddle.shape(h)


class TensorIf(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def forward(self, x):
        y = self.fc(x)
        if x.sum() > 0:
            y = F.relu(y) * 2.0
        else:
            y = -y + 1.0
        return y


class ForRangeTensor(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def forward(self, x, n):
        h = x
        for i in range(n):
            h = 0.5 * h + paddle.tanh(self.fc(h))
        return h


class ListStack(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 5)

    def forward(self, x):
        outs = []
        for t in range(x.shape[1]):
            outs.append(F.relu(self.fc(x[:, t, :])))
        return paddle.stack(outs, axis=1)


class DictOutput(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 3)

    def forward(self, x):
        logits = self.fc(x)
        return {"logits": logits, "probs": F.softmax(logits, axis=-1)}


class NoGradBlock(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def forward(self, x):
        with paddle.no_grad():
            center = self.fc(x).mean(axis=0, keepdim=True)
        return self.fc(x) - center


class ItemAssign(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def forward(self, x):
        y = self.fc(x)
        y[:, 0] = 0.0
        y[:, 1] = x[:, 0] * 2.0
        return y


class ResidualMLP(nn.Layer):
    def __init__(self, d=8):
        super().__init__()
        self.norm = nn.LayerNorm(d)
        self.fc1 = nn.Linear(d, 2 * d)
        self.fc2 = nn.Linear(2 * d, d)
        self.act = nn.GELU()

    def forward(self, x):
        return x + self.fc2(self.act(self.fc1(self.norm(x))))


class SelfAttention(nn.Layer):
    def __init__(self):
        super().__init__()
        self.mha = nn.MultiHeadAttention(8, 2)
        self.fc = nn.Linear(8, 2)

    def forward(self, x, mask):
        h = self.mha(x, x, x, attn_mask=mask)
        return self.fc(h)


class Conv1DNet(nn.Layer):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv1D(4, 6, 3, padding=1)
        self.pool = nn.AvgPool1D(2)
        self.norm = nn.LayerNorm(6)
        self.fc = nn.Linear(6, 2)

    def forward(self, x):
        h = self.pool(F.relu(self.conv(x)))          # [B, 6, T/2]
        h = self.norm(h.transpose([0, 2, 1]))
        return self.fc(h.mean(axis=1))


class EarlyReturn(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def forward(self, x):
        y = self.fc(x)
        if y.mean() > 0:
            return y * 3.0
        z = y - 1.0
        return z * z


class NewtonSqrt(nn.Layer):
    """while with a tensor condition computed from loop-carried values."""

    def forward(self, a):
        x = paddle.ones_like(a)
        it = 0
        err = paddle.max(paddle.abs(x * x - a))
        while err > 1e-4:
            x = 0.5 * (x + a / x)
            err = paddle.max(paddle.abs(x * x - a))
            it += 1
        return x, err


class TensorMath(nn.Layer):
    def __init__(self):
        super().__init__()
        self.w = self.create_parameter([4, 4])

    def forward(self, x):
        a, b = paddle.split(x, 2, axis=1)
        c = paddle.concat([paddle.exp(a.clip(-2.0, 2.0)), paddle.log(paddle.abs(b) + 1.0)], axis=1)
        d = paddle.matmul(c, self.w, transpose_y=True)
        e = paddle.maximum(d, x).pow(2)
        parts = paddle.chunk(e, 2, axis=0)
        return paddle.concat([parts[1], parts[0]], axis=0).sum(axis=-1), e.max(axis=0)


class SeqClassifier(nn.Layer):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(6, 8), nn.LeakyReLU(0.1), nn.Linear(8, 8), nn.Hardswish(),
                                 nn.Dropout(0.2), nn.Linear(8, 3), nn.Softmax())

    def forward(self, x):
        return self.net(x)


class UpDecoder(nn.Layer):
    def __init__(self):
        super().__init__()
        self.up = nn.Conv2DTranspose(4, 2, 2, stride=2)
        self.conv = nn.Conv2D(2, 2, 3, padding=1)

    def forward(self, x):
        h = F.relu(self.up(x))
        h2 = F.interpolate(x[:, :2], scale_factor=2, mode="nearest")
        return self.conv(h + h2)


class GRUCellUnroll(nn.Layer):
    def __init__(self):
        super().__init__()
        self.cell = nn.GRUCell(3, 5)
        self.head = nn.Linear(5, 1)

    def forward(self, x):
        h = None
        outs = []
        for t in range(4):
            y, h = self.cell(x[:, t], h)
            outs.append(self.head(y))
        return paddle.concat(outs, axis=1)


class MaskedMeanPool(nn.Layer):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(20, 6, padding_idx=0)
        self.fc = nn.Linear(6, 2)

    def forward(self, ids):
        mask = (ids != 0).astype("float32").unsqueeze(-1)
        e = self.emb(ids) * mask
        pooled = e.sum(axis=1) / paddle.clip(mask.sum(axis=1), min=1.0)
        return self.fc(pooled)


class ManualAttention(nn.Layer):
    """Hand-written scaled dot-product attention with masked_fill, bmm and a padding mask."""

    def __init__(self, d=8):
        super().__init__()
        self.qkv = nn.Linear(d, 3 * d)

    def forward(self, x, lengths):
        q, k, v = paddle.chunk(self.qkv(x), 3, axis=-1)
        scores = paddle.bmm(q, k.transpose([0, 2, 1])) / (x.shape[-1] ** 0.5)
        pos = paddle.arange(x.shape[1]).unsqueeze(0)
        keep = (pos < lengths.unsqueeze(-1)).unsqueeze(1)                      # [B, 1, T]
        scores = scores.masked_fill(keep == False, -1e9)                        # noqa: E712
        att = F.softmax(scores, axis=-1)
        return paddle.bmm(att, v), att


class ConvNorms(nn.Layer):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2D(2, 4, 3, padding=1)
        self.gn = nn.GroupNorm(2, 4)
        self.inorm = nn.InstanceNorm2D(4)
        self.shuffle = nn.PixelShuffle(2)

    def forward(self, x):
        h = F.relu(self.gn(self.conv(x)))
        h = self.inorm(h)
        up = F.interpolate(h, size=[6, 6], mode="bilinear", align_corners=True)
        return self.shuffle(h), up, F.pad(x, [1, 1, 0, 2], mode="constant", value=0.5)


class LoopLayers(nn.Layer):
    def __init__(self):
        super().__init__()
        self.blocks = nn.LayerList([nn.Linear(4, 4) for _ in range(3)])
        self.scale = paddle.to_tensor([0.5])

    def helper(self, h):
        if h.mean() > 0:
            h = h * 0.9
        return h

    def forward(self, x):
        h = x
        for i, blk in enumerate(self.blocks):
            if i % 2 == 0:
                h = F.relu(blk(h))
            else:
                h = h + blk(h) * self.scale
            h = self.helper(h)
        hs = [h * float(j) for j in range(3)]
        return sum(hs), paddle.full([x.shape[0], 1], 0.5) + h[:, :1]


class AndOrCond(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def forward(self, x):
        y = self.fc(x)
        if y.mean() > -5.0 and y.max() < 100.0:
            y = y + 1.0
        if y.min() > 100.0 or x.sum() > 0:
            y = y * 2.0
        return y


class LoopEarlyReturn(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 3)

    def forward(self, x):
        h = x
        for _ in range(5):
            h = paddle.tanh(self.fc(h)) + h
            if h.abs().max() > 3.0:
                return h, paddle.ones([1])
        return h, paddle.zeros([1])


class IndexingOps(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def forward(self, x, idx):
        y = self.fc(x)
        rows = y[idx]                                 # tensor index
        z = y.clone()
        z[x > 0.5] = 0.0                              # boolean item assignment
        srt = paddle.sort(y, axis=-1, descending=True)
        order = paddle.argsort(y, axis=0)
        q = paddle.floor_divide(order, paddle.full_like(order, 2)) + order % 3
        return rows, z, srt, order, q, y[:, ::2], y[-1]


class SmoothCE(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(5, 4)

    def forward(self, x, label):
        logits = self.fc(x)
        soft = F.label_smooth(F.one_hot(label, 4), epsilon=0.1)
        l1 = F.cross_entropy(logits, soft, soft_label=True, reduction="none")
        l2 = F.cross_entropy(logits, label.unsqueeze(-1), ignore_index=1, reduction="mean")
        l3 = F.smooth_l1_loss(logits, soft) + F.l1_loss(logits, soft) + F.kl_div(F.log_softmax(logits), soft)
        return l1, l2, l3


class EinsumProj(nn.Layer):
    def __init__(self):
        super().__init__()
        self.w = self.create_parameter([3, 4])

    def forward(self, x):
        return paddle.einsum("bi,ij->bj", x, self.w)


class Norms(nn.Layer):
    def __init__(self):
        super().__init__()
        self.w = self.create_parameter([3, 4])

    def forward(self, x):
        y = paddle.matmul(x, self.w)
        n = F.normalize(y, axis=1)
        return n, paddle.norm(y, p=2, axis=-1), paddle.linalg.norm(x), y.std(axis=0), y.var()


class TensorWhileList(nn.Layer):
    """A tensor-bounded while that collects step outputs in a list, stacked afterwards."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 3)

    def forward(self, x, steps):
        outs = []
        i = paddle.zeros([1], "int64")
        h = x
        while i < steps:
            h = paddle.tanh(self.fc(h))
            outs.append(h)
            i += 1
        return paddle.stack(outs, axis=0).sum(axis=0), i


class LSTMWithLengths(nn.Layer):
    """Padded batches: nn.LSTM with sequence_length, then the last valid step gathered per row."""

    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(20, 6, padding_idx=0)
        self.lstm = nn.LSTM(6, 5, direction="bidirect")
        self.fc = nn.Linear(10, 2)

    def forward(self, ids, lengths):
        out, (h, c) = self.lstm(self.emb(ids), sequence_length=lengths)
        last = paddle.concat([h[0], h[1]], axis=-1)
        return self.fc(last), out


class ShapeArith(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def forward(self, x, scale=2.0):
        b = x.shape[0]
        pos = paddle.arange(b).astype("float32").unsqueeze(-1)
        y = self.fc(x) * scale + pos
        y = F.dropout(y, p=0.3, training=self.training and False)
        if self.training:
            y = y + 1.0
        cnt = paddle.full([b, 1], 1.0) * b
        parts = paddle.unbind(y, axis=1)
        return paddle.stack(parts[::-1], axis=1), cnt, paddle.expand_as(y[:, :1], y)


class GatherScatter(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def forward(self, x, idx):
        y = self.fc(x)
        a = paddle.index_select(y, idx, axis=0)
        b = paddle.gather_nd(y, paddle.stack([idx, idx], axis=1))
        c = paddle.scatter(y, idx, a * 2.0, overwrite=True)
        d = paddle.logsumexp(y, axis=1) + paddle.amax(y, axis=1) + paddle.cumprod(y, dim=1)[:, -1]
        e = paddle.tile(y[:1], [2, 1]) + paddle.squeeze(y[:2].unsqueeze(0), axis=[0])
        return a, b, c, d, e


class UndefinedInBranch(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def forward(self, x):
        y = self.fc(x)
        if y.sum() > 0:
            z = y * 2.0
            w = z + 1.0
        else:
            z = y - 1.0
            w = z * z
        outs = [F.relu(t) if i == 0 else t for i, t in enumerate([z, w])]
        return paddle.concat(outs, axis=-1)


class NestedLoopBreak(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 3)

    def forward(self, x):
        h = x
        total = paddle.zeros([1])
        for i in range(3):
            for j in range(4):
                h = paddle.tanh(self.fc(h))
                total = total + h.mean()
                if h.mean() > 0.2:
                    break
            if total > 1.0:
                break
        return h, total


class ZipLayers(nn.Layer):
    def __init__(self):
        super().__init__()
        self.a = nn.LayerList([nn.Linear(4, 4), nn.Linear(4, 4)])
        self.b = nn.LayerList([nn.LayerNorm(4), nn.LayerNorm(4)])
        self.register_buffer("offset", paddle.to_tensor([0.1, 0.2, 0.3, 0.4]))

    def forward(self, x):
        assert x.shape[-1] == 4
        h = x
        for lin, norm in zip(self.a, self.b):
            h = norm(F.silu(lin(h))) + self.offset
        return h


class AlexNetish(nn.Layer):
    """Old-school CNN pieces: LocalResponseNorm, Maxout, LogSigmoid."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2D(3, 8, 3, padding=1)
        self.lrn = nn.LocalResponseNorm(5, alpha=0.1, beta=0.75, k=2.0)
        self.maxout = nn.Maxout(2)
        self.fc = nn.Linear(4, 3)

    def forward(self, x):
        h = self.maxout(self.lrn(F.relu(self.conv(x))))       # [B, 4, H, W]
        h = F.adaptive_max_pool2d(h, 1).flatten(1)
        return F.logsigmoid(self.fc(h))


class SDPAEncoder(nn.Layer):
    """Attention written with F.scaled_dot_product_attention and a padding mask from F.sequence_mask."""

    def __init__(self, d=8, heads=2):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(d, 3 * d)
        self.out = nn.Linear(d, d)

    def forward(self, x, lengths):
        b, t = x.shape[0], x.shape[1]
        q, k, v = paddle.split(self.qkv(x), 3, axis=-1)
        q, k, v = [z.reshape([b, t, self.heads, -1]) for z in (q, k, v)]
        keep = F.sequence_mask(lengths, maxlen=t, dtype="bool").unsqueeze(1).unsqueeze(1)   # [B, 1, 1, T]
        h = F.scaled_dot_product_attention(q, k, v, attn_mask=keep)
        c = F.scaled_dot_product_attention(q, k, v, is_causal=True, scale=0.5)
        pad = F.sequence_mask(lengths, dtype="float32")
        return self.out((h + c).reshape([b, t, -1])), pad


# ---------------------------------------------------------------- cases
def _f(rng, *shape, lo=-1.0, hi=1.0):
    return rng.uniform(lo, hi, shape).astype(np.float32)


def _soft(rng, n, k):
    p = rng.uniform(0.1, 1.0, (n, k)).astype(np.float32)
    return p / p.sum(1, keepdims=True)


def _ids(rng, *shape, hi=30, lo=0):
    return rng.integers(lo, hi, shape).astype(np.int64)


def _padded_ids(rng):
    ids = rng.integers(1, 20, (3, 5)).astype(np.int64)
    ids[0, 3:] = 0
    ids[2, 1:] = 0
    return ids


def _attn_mask(rng):
    m = np.zeros((2, 2, 5, 5), np.float32)
    m[:, :, :, 4] = -1e9
    return m


# name -> (Layer factory, inputs(rng) -> [ndarray], input specs [(shape, dtype)], train mode for (a)/(b));
# the models with dropout run in eval mode (a to_static model in eval mode has no gradients, as in Paddle)
CASES = {
    "cnn_classifier": (CNNClassifier, lambda r: [_f(r, 2, 3, 8, 8)], [([None, 3, 8, 8], "float32")], False),
    "resnet_basicblock": (TinyResNet, lambda r: [_f(r, 2, 3, 8, 8)], [([None, 3, 8, 8], "float32")], True),
    "lstm_classifier": (LSTMClassifier, lambda r: [_ids(r, 2, 5)], [([None, 5], "int64")], True),
    "bigru_tagger": (BiGRUTagger, lambda r: [_ids(r, 2, 5)], [([None, 5], "int64")], True),
    "text_cnn": (TextCNN, lambda r: [_ids(r, 3, 6)], [([None, 6], "int64")], True),
    "transformer_encoder": (TransformerClassifier, lambda r: [_f(r, 2, 5, 16)], [([None, 5, 16], "float32")],
                            False),
    "greedy_decoder": (GreedyDecoder, lambda r: [_f(r, 2, 8), np.array([6], np.int64)],
                       [([None, 8], "float32"), ([1], "int64")], True),
    "masked_scores": (MaskedScores, lambda r: [_f(r, 2, 6), np.array([4, 6], np.int64)],
                      [([2, 6], "float32"), ([2], "int64")], True),
    "losses": (LossZoo, lambda r: [_f(r, 3, 5), _soft(r, 3, 4), _ids(r, 3, 1, hi=4), r.integers(0, 2, (3, 4))
                                   .astype(np.float32)],
               [([None, 5], "float32"), ([None, 4], "float32"), ([None, 1], "int64"), ([None, 4], "float32")],
               True),
    "shape_ops": (ShapeOps, lambda r: [_f(r, 3, 3, 4)], [([None, 3, 4], "float32")], True),
    "tensor_if_pos": (TensorIf, lambda r: [_f(r, 2, 4, lo=0.1)], [([None, 4], "float32")], True),
    "tensor_if_neg": (TensorIf, lambda r: [_f(r, 2, 4, hi=-0.1)], [([None, 4], "float32")], True),
    "for_range_tensor": (ForRangeTensor, lambda r: [_f(r, 2, 4), np.array(3, np.int64)],
                         [([None, 4], "float32"), ([], "int64")], True),
    "list_append_stack": (ListStack, lambda r: [_f(r, 2, 4, 3)], [([None, 4, 3], "float32")], True),
    "dict_output": (DictOutput, lambda r: [_f(r, 3, 4)], [([None, 4], "float32")], True),
    "no_grad_block": (NoGradBlock, lambda r: [_f(r, 3, 4)], [([None, 4], "float32")], True),
    "item_assign": (ItemAssign, lambda r: [_f(r, 3, 4)], [([None, 4], "float32")], True),
    "residual_mlp": (ResidualMLP, lambda r: [_f(r, 2, 3, 8)], [([None, 3, 8], "float32")], True),
    "self_attention": (SelfAttention, lambda r: [_f(r, 2, 5, 8), _attn_mask(r)],
                       [([None, 5, 8], "float32"), ([None, 2, 5, 5], "float32")], True),
    "conv1d_net": (Conv1DNet, lambda r: [_f(r, 2, 4, 8)], [([None, 4, 8], "float32")], True),
    "early_return": (EarlyReturn, lambda r: [_f(r, 2, 4)], [([None, 4], "float32")], True),
    "newton_sqrt": (NewtonSqrt, lambda r: [_f(r, 2, 3, lo=0.5, hi=4.0)], [([None, 3], "float32")], True),
    "tensor_math": (TensorMath, lambda r: [_f(r, 4, 4)], [([4, 4], "float32")], True),
    "seq_classifier": (SeqClassifier, lambda r: [_f(r, 3, 6)], [([None, 6], "float32")], False),
    "up_decoder": (UpDecoder, lambda r: [_f(r, 1, 4, 3, 3)], [([None, 4, 3, 3], "float32")], True),
    "grucell_unroll": (GRUCellUnroll, lambda r: [_f(r, 2, 4, 3)], [([None, 4, 3], "float32")], True),
    "masked_mean_pool": (MaskedMeanPool, lambda r: [_padded_ids(r)], [([None, 5], "int64")], True),
    "manual_attention": (ManualAttention, lambda r: [_f(r, 2, 4, 8), np.array([4, 2], np.int64)],
                         [([None, 4, 8], "float32"), ([None], "int64")], True),
    "conv_norms": (ConvNorms, lambda r: [_f(r, 2, 2, 3, 3)], [([None, 2, 3, 3], "float32")], True),
    "loop_layers": (LoopLayers, lambda r: [_f(r, 2, 4)], [([None, 4], "float32")], True),
    "and_or_cond": (AndOrCond, lambda r: [_f(r, 2, 4)], [([None, 4], "float32")], True),
    "loop_early_return": (LoopEarlyReturn, lambda r: [_f(r, 2, 3, lo=-2, hi=2)], [([None, 3], "float32")], True),
    "indexing_ops": (IndexingOps, lambda r: [_f(r, 4, 4), np.array([2, 0], np.int64)],
                     [([4, 4], "float32"), ([2], "int64")], True),
    "smooth_ce": (SmoothCE, lambda r: [_f(r, 3, 5), np.array([0, 3, 1], np.int64)],
                  [([None, 5], "float32"), ([None], "int64")], True),
    "norms": (Norms, lambda r: [_f(r, 2, 3)], [([None, 3], "float32")], True),
    "einsum": (EinsumProj, lambda r: [_f(r, 2, 3)], [([None, 3], "float32")], True),
    "tensor_while_list": (TensorWhileList, lambda r: [_f(r, 2, 3), np.array([3], np.int64)],
                          [([None, 3], "float32"), ([1], "int64")], True),
    "lstm_with_lengths": (LSTMWithLengths, lambda r: [_padded_ids(r), np.array([3, 5, 1], np.int64)],
                          [([None, 5], "int64"), ([None], "int64")], True),
    "shape_arith": (ShapeArith, lambda r: [_f(r, 3, 4)], [([None, 4], "float32")], True),
    "gather_scatter": (GatherScatter, lambda r: [_f(r, 4, 4), np.array([3, 1], np.int64)],
                       [([4, 4], "float32"), ([2], "int64")], True),
    "undefined_in_branch_pos": (UndefinedInBranch, lambda r: [_f(r, 2, 4, lo=1.0, hi=2.0)],
                                [([None, 4], "float32")], True),
    "nested_loop_break": (NestedLoopBreak, lambda r: [_f(r, 2, 3)], [([None, 3], "float32")], True),
    "alexnetish": (AlexNetish, lambda r: [_f(r, 2, 3, 5, 5)], [([None, 3, 5, 5], "float32")], True),
    "sdpa_encoder": (SDPAEncoder, lambda r: [_f(r, 2, 4, 8), np.array([4, 2], np.int64)],
                     [([None, 4, 8], "float32"), ([None], "int64")], True),
    "zip_layers": (ZipLayers, lambda r: [_f(r, 2, 4)], [([None, 4], "float32")], True),
}


def flatten_outputs(out):
    """Tensors of a model's output in a fixed order (dicts by sorted key)."""
    if isinstance(out, dict):
        return [t for k in sorted(out) for t in flatten_outputs(out[k])]
    if isinstance(out, (list, tuple)):
        return [t for o in out for t in flatten_outputs(o)]
    return [out]


def cotangent(shape):
    """A fixed, non-uniform weighting so the scalar loss sees every output element."""
    n = int(np.prod(shape)) if len(shape) else 1
    return np.cos(np.arange(n, dtype=np.float64) * 0.7 + 0.3).reshape(shape).astype(np.float32)


def scalar_loss(outs):
    loss = None
    for o in outs:
        if "float" not in str(o.dtype) or o.stop_gradient:
            continue
        term = paddle.sum(o * paddle.to_tensor(cotangent(tuple(o.shape))))
        loss = term if loss is None else loss + term
    return loss


# models trained for a few optimizer steps in both frameworks (no dropout: the masks would differ)
TRAIN_CASES = ["resnet_basicblock", "lstm_classifier", "residual_mlp", "losses", "bigru_tagger", "conv_norms"]
TRAIN_STEPS = 3


def make_optimizer(parameters):
    """(optimizer, lr scheduler). epsilon 1e-6, not 1e-8: Adam turns a gradient element of float32
    round-off size (1e-9) into a step of lr size, so the frameworks' round-off would show."""
    scheduler = paddle.optimizer.lr.StepDecay(learning_rate=0.01, step_size=2, gamma=0.5)
    opt = paddle.optimizer.AdamW(learning_rate=scheduler, parameters=parameters, weight_decay=0.01, epsilon=1e-6,
                                 grad_clip=nn.ClipGradByGlobalNorm(1.0))
    return opt, scheduler
