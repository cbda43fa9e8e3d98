"""Containers: Sequential, LayerList, LayerDict, ParameterList."""
from collections import OrderedDict

import numpy as np
import pytest

import runtime as paddle

nn = paddle.nn


class AddConst(nn.Layer):
    def __init__(self, c):
        super().__init__()
        self.c = c

    def forward(self, x):
        return x + self.c

    def extra_repr(self):
        return f"c={self.c}"


def test_sequential_positional_forward_index_slice():
    seq = nn.Sequential(AddConst(1.0), AddConst(2.0), AddConst(4.0))
    x = paddle.zeros([2])
    np.testing.assert_allclose(seq(x).numpy(), [7.0, 7.0])
    assert len(seq) == 3
    assert list(seq._sub_layers) == ["0", "1", "2"]
    assert seq[0].c == 1.0 and seq[-1].c == 4.0 and seq["1"].c == 2.0
    sub = seq[1:]
    assert isinstance(sub, nn.Sequential) and [l.c for l in sub] == [2.0, 4.0]
    np.testing.assert_allclose(sub(x).numpy(), [6.0, 6.0])
    assert [l.c for l in seq] == [1.0, 2.0, 4.0]
    with pytest.raises(IndexError, match="index 5 is out of range"):
        seq[5]
    with pytest.raises(IndexError, match="index -4 is out of range"):
        seq[-4]


def test_sequential_named_pairs_and_ordered_dict():
    seq = nn.Sequential(("a", AddConst(1.0)), ("b", AddConst(10.0)))
    assert list(seq._sub_layers) == ["a", "b"]
    assert seq[0] is seq["a"] and seq[1] is seq.b
    np.testing.assert_allclose(seq(paddle.zeros([1])).numpy(), [11.0])
    od = nn.Sequential(OrderedDict([("x", AddConst(3.0)), ("y", AddConst(5.0))]))
    assert list(od._sub_layers) == ["x", "y"]
    assert repr(od) == "Sequential(\n  (x): AddConst(c=3.0)\n  (y): AddConst(c=5.0)\n)"
    with pytest.raises(TypeError, match="every argument must be one"):
        nn.Sequential(("a", AddConst(1.0)), AddConst(2.0))
    with pytest.raises(TypeError, match="argument 1 must be a paddle.nn.Layer"):
        nn.Sequential(AddConst(1.0), 3)


def test_sequential_mutation():
    seq = nn.Sequential(AddConst(1.0), AddConst(2.0))
    seq[0] = AddConst(100.0)
    assert seq[0].c == 100.0 and list(seq._sub_layers) == ["0", "1"]
    seq.append(AddConst(3.0))
    del seq[0]
    assert list(seq._sub_layers) == ["1", "2"] and len(seq) == 2      # keys are not renumbered (Paddle)
    assert [l.c for l in seq] == [2.0, 3.0]
    seq.insert(0, AddConst(0.5))
    assert [l.c for l in seq] == [0.5, 2.0, 3.0] and list(seq._sub_layers) == ["0", "1", "2"]
    seq.extend([AddConst(7.0)])
    assert [l.c for l in seq] == [0.5, 2.0, 3.0, 7.0]
    lin = nn.Sequential(nn.Linear(2, 2), nn.Linear(2, 1))
    assert [n for n, _ in lin.named_parameters()] == ["0.weight", "0.bias", "1.weight", "1.bias"]


def test_layerlist_ops():
    ll = nn.LayerList([AddConst(0.0), AddConst(1.0)])
    assert len(ll) == 2 and ll[-1].c == 1.0
    ll.append(AddConst(2.0))
    ll.insert(1, AddConst(0.5))
    assert [l.c for l in ll] == [0.0, 0.5, 1.0, 2.0]
    assert list(ll._sub_layers) == ["0", "1", "2", "3"]
    ll.insert(-1, AddConst(1.5))
    assert [l.c for l in ll] == [0.0, 0.5, 1.0, 1.5, 2.0]
    ll.extend([AddConst(3.0), AddConst(4.0)])
    assert len(ll) == 7
    sl = ll[1:3]
    assert isinstance(sl, nn.LayerList) and [l.c for l in sl] == [0.5, 1.0]
    del ll[0]
    assert [l.c for l in ll] == [0.5, 1.0, 1.5, 2.0, 3.0, 4.0]
    assert list(ll._sub_layers) == [str(i) for i in range(6)]      # renumbered
    ll[0] = AddConst(9.0)
    assert ll[0].c == 9.0
    popped = ll.pop()
    assert popped.c == 4.0 and len(ll) == 5
    with pytest.raises(IndexError, match=r"index 10 is out of range, should be an integer in range \[-5, 5\)"):
        ll[10]
    ll += [AddConst(5.0)]
    assert len(ll) == 6
    both = ll + nn.LayerList([AddConst(6.0)])
    assert len(both) == 7 and both[-1].c == 6.0
    x = paddle.zeros([1])
    for layer in ll:
        x = layer(x)
    np.testing.assert_allclose(x.numpy(), [9.0 + 1.0 + 1.5 + 2.0 + 3.0 + 5.0])


def test_layerlist_parameters_and_repr():
    ll = nn.LayerList([nn.Linear(2, 2), nn.ReLU(), nn.Linear(2, 3)])
    assert [n for n, _ in ll.named_parameters()] == ["0.weight", "0.bias", "2.weight", "2.bias"]

    class Net(nn.Layer):
        def __init__(self):
            super().__init__()
            self.blocks = nn.LayerList([nn.Linear(2, 2) for _ in range(2)])

    assert list(Net().state_dict()) == ["blocks.0.weight", "blocks.0.bias", "blocks.1.weight", "blocks.1.bias"]
    assert repr(nn.LayerList([nn.ReLU(), nn.Tanh()])) == "LayerList(\n  (0): ReLU()\n  (1): Tanh()\n)"


def test_layerdict_ops():
    ld = nn.LayerDict({"b": AddConst(1.0), "a": AddConst(2.0)})
    assert list(ld) == ["b", "a"] and list(ld.keys()) == ["b", "a"]
    assert "a" in ld and "z" not in ld and len(ld) == 2
    assert ld["a"].c == 2.0
    ld["c"] = AddConst(3.0)
    assert [v.c for v in ld.values()] == [1.0, 2.0, 3.0]
    assert [k for k, _ in ld.items()] == ["b", "a", "c"]
    assert ld.pop("b").c == 1.0 and list(ld) == ["a", "c"]
    del ld["a"]
    assert list(ld) == ["c"]
    ld.update([("z", AddConst(9.0))])
    ld.update(OrderedDict([("y", AddConst(8.0))]))
    ld.update(nn.LayerDict({"w": AddConst(7.0)}))
    assert list(ld) == ["c", "z", "y", "w"]
    assert repr(nn.LayerDict({"a": nn.ReLU()})) == "LayerDict(\n  (a): ReLU()\n)"
    with pytest.raises(ValueError, match="element 0 must be a \\(name, layer\\) pair"):
        ld.update([AddConst(1.0)])
    ld.clear()
    assert len(ld) == 0


def test_parameterlist():
    ps = [paddle.create_parameter([2], "float32") if hasattr(paddle, "create_parameter")
          else nn.Layer().create_parameter([2]) for _ in range(3)]
    pl = nn.ParameterList(ps)
    assert len(pl) == 3 and pl[0] is ps[0] and pl[-1] is ps[2]
    assert [n for n, _ in pl.named_parameters()] == ["0", "1", "2"]
    extra = nn.Layer().create_parameter([1])
    pl.append(extra)
    assert pl[3] is extra and list(pl) == ps + [extra]
    new = nn.Layer().create_parameter([4])
    pl[0] = new
    assert pl.parameters()[0] is new
    with pytest.raises(TypeError, match="can only hold Parameters"):
        pl[0] = paddle.ones([1])
    assert repr(pl) == "ParameterList()"

    class Net(nn.Layer):
        def __init__(self):
            super().__init__()
            self.pl = nn.ParameterList([nn.Layer().create_parameter([1])])

    assert list(Net().state_dict()) == ["pl.0"]
