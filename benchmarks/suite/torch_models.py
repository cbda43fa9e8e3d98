"""PyTorch versions of the workloads (TorchScript-compatible), same parameter names as workloads.py.

Imported only inside the torch worker. ``load_weights`` takes the suite's numpy weights
(Paddle layouts) and transposes Linear weights to torch's [out, in].
"""
from __future__ import annotations

from typing import List

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


class MLP(nn.Module):
    def __init__(self, d_in: int = 784, d_hidden: int = 256, d_out: int = 10, softmax: bool = True):
        super().__init__()
        self.fc1 = nn.Linear(d_in, d_hidden)
        self.fc2 = nn.Linear(d_hidden, d_out)
        self.softmax = softmax

    def forward(self, x):
        h = F.relu(self.fc1(x))
        out = self.fc2(h)
        if self.softmax:
            out = F.softmax(out, dim=-1)
        return out


class ControlFlow(nn.Module):
    def __init__(self, d_in: int = 16, d_hidden: int = 32, d_out: int = 4):
        super().__init__()
        self.fc1 = nn.Linear(d_in, d_hidden)
        self.fc2 = nn.Linear(d_hidden, d_out)

    def forward(self, x):
        h = F.relu(self.fc1(x))
        if bool(torch.mean(h) > 0.5):
            h = h * 2.0
        else:
            h = h - 1.0
        i = torch.zeros([1], dtype=torch.int64)
        while bool(i < 3):
            h = torch.tanh(h) + h * 0.5
            i = i + 1
        return self.fc2(h)


class LSTM(nn.Module):
    def __init__(self, input_size: int = 32, hidden: int = 128):
        super().__init__()
        self.hidden = hidden
        self.gates = nn.Linear(input_size + hidden, 4 * hidden)

    def forward(self, x):
        h = torch.zeros([x.shape[1], self.hidden], dtype=x.dtype)
        c = torch.zeros([x.shape[1], self.hidden], dtype=x.dtype)
        outs: List[torch.Tensor] = []
        for t in range(x.shape[0]):
            z = self.gates(torch.cat([x[t], h], dim=-1))
            i, f, g, o = torch.chunk(z, 4, dim=-1)
            c = torch.sigmoid(f) * c + torch.sigmoid(i) * torch.tanh(g)
            h = torch.sigmoid(o) * torch.tanh(c)
            outs.append(h)
        return torch.stack(outs, dim=0)


class LeNet5(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 6, 5, padding=2)
        self.conv2 = nn.Conv2d(6, 16, 5)
        self.pool = nn.MaxPool2d(2, 2)
        self.fc1 = nn.Linear(16 * 5 * 5, 120)
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, 10)

    def forward(self, x):
        x = self.pool(F.relu(self.conv1(x)))
        x = self.pool(F.relu(self.conv2(x)))
        x = torch.flatten(x, 1)
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        return self.fc3(x)


class EncoderBlock(nn.Module):
    def __init__(self, d_model: int = 64, heads: int = 4, d_ff: int = 256):
        super().__init__()
        self.heads = heads
        self.dh = d_model // heads
        self.q = nn.Linear(d_model, d_model)
        self.k = nn.Linear(d_model, d_model)
        self.v = nn.Linear(d_model, d_model)
        self.o = nn.Linear(d_model, d_model)
        self.norm1 = nn.LayerNorm(d_model)
        self.norm2 = nn.LayerNorm(d_model)
        self.ff1 = nn.Linear(d_model, d_ff)
        self.ff2 = nn.Linear(d_ff, d_model)

    def split_heads(self, t, seq: int):
        return t.reshape(-1, seq, self.heads, self.dh).permute(0, 2, 1, 3)

    def forward(self, x):
        seq = x.shape[1]
        d = x.shape[2]
        q = self.split_heads(self.q(x), seq)
        k = self.split_heads(self.k(x), seq)
        v = self.split_heads(self.v(x), seq)
        att = F.softmax(torch.matmul(q, k.transpose(-1, -2)) * (self.dh ** -0.5), dim=-1)
        ctx = torch.matmul(att, v).permute(0, 2, 1, 3).reshape(-1, seq, d)
        x = self.norm1(x + self.o(ctx))
        return self.norm2(x + self.ff2(F.gelu(self.ff1(x), approximate="tanh")))


class TrainNet(nn.Module):
    def __init__(self, net: nn.Module):
        super().__init__()
        self.net = net

    def forward(self, x, label):
        return F.cross_entropy(self.net(x), label)


def build(model, cfg):
    if model == "mlp":
        return MLP(cfg["d_in"], cfg["d_hidden"], cfg["d_out"], softmax=True)
    if model == "control_flow":
        return ControlFlow(cfg["d_in"], cfg["d_hidden"], cfg["d_out"])
    if model == "lstm":
        return LSTM(cfg["input_size"], cfg["hidden"])
    if model == "lenet":
        return LeNet5()
    if model == "transformer":
        return EncoderBlock(cfg["d_model"], cfg["heads"], cfg["d_ff"])
    if model == "train_mlp":
        return TrainNet(MLP(cfg["d_in"], cfg["d_hidden"], cfg["d_out"], softmax=False))
    if model == "train_lenet":
        return TrainNet(LeNet5())
    raise KeyError(model)


def linear_weight_names(module):
    return {f"{n}.weight" for n, m in module.named_modules() if isinstance(m, nn.Linear)}


def load_weights(module, weights):
    """Copy Paddle-layout numpy weights in; returns the set of transposed (Linear) names."""
    lin = linear_weight_names(module)
    sd = module.state_dict()
    if sorted(sd) != sorted(weights):
        raise ValueError(f"torch model parameters {sorted(sd)} != suite weights {sorted(weights)}")
    new = {}
    for k, v in weights.items():
        arr = np.ascontiguousarray(v.T) if k in lin else v
        if tuple(sd[k].shape) != arr.shape:
            raise ValueError(f"{k}: torch shape {tuple(sd[k].shape)} != {arr.shape}")
        new[k] = torch.from_numpy(arr.copy())
    module.load_state_dict(new)
    return lin
