"""paddle.nn.Layer: sublayers, parameters, buffers, hooks, modes, state_dict, attribute protocol, repr."""
import copy
import pickle
import warnings

import numpy as np
import pytest

import runtime as paddle
from runtime import unique_name
from runtime.nn import initializer as I
from runtime.nn.param_attr import ParamAttr

nn = paddle.nn


class FlatModel(nn.Layer):
    def __init__(self):
        super(FlatModel, self).__init__()
        self.flatten = nn.Flatten()

    def forward(self, inputs):
        return self.flatten(inputs)


class ImgModel(nn.Layer):
    def __init__(self):
        super().__init__()
        img = self.create_parameter([1, 3, 4, 4])
        self.add_parameter("img", img)
        self.flatten = nn.Flatten()

    def forward(self):
        return self.flatten(self.img)


# -- the "models and layers" guide, example by example -----------------------------------------

def test_guide_sublayers_add_apply_children(capsys):
    model = FlatModel()
    assert repr(model.sublayers()) == "[Flatten()]"
    assert [(n, repr(l)) for n, l in model.named_sublayers()] == [("flatten", "Flatten()")]
    fc = nn.Linear(10, 3)
    assert model.add_sublayer("fc", fc) is fc
    assert repr(model.sublayers()) == "[Flatten(), Linear(in_features=10, out_features=3, dtype=float32)]"
    model.apply(print)
    assert capsys.readouterr().out == (
        "Flatten()\nLinear(in_features=10, out_features=3, dtype=float32)\n"
        "FlatModel(\n  (flatten): Flatten()\n  (fc): Linear(in_features=10, out_features=3, dtype=float32)\n)\n")
    assert list(model.children()) == [model.flatten, fc]
    assert [n for n, _ in model.named_children()] == ["flatten", "fc"]


def test_guide_parameters_and_clear_gradients():
    model = ImgModel()
    params = model.parameters()
    assert len(params) == 1 and params[0] is model.img
    assert isinstance(model.img, paddle.Parameter)
    assert model.img.shape == [1, 3, 4, 4] and model.img.dtype == paddle.float32
    assert not model.img.stop_gradient and model.img.persistable and model.img.trainable
    assert [n for n, _ in model.named_parameters()] == ["img"]
    out = model()
    assert out.shape == [1, 48]
    out.sum().backward()
    np.testing.assert_array_equal(model.img.grad.numpy(), np.ones([1, 3, 4, 4], np.float32))
    model.clear_gradients()
    np.testing.assert_array_equal(model.img.grad.numpy(), np.zeros([1, 3, 4, 4], np.float32))
    model.clear_gradients(set_to_zero=False)
    assert model.img.grad is None


def test_guide_create_tensor_and_assign():
    class Model(nn.Layer):
        def __init__(self):
            super().__init__()
            self.saved_tensor = self.create_tensor(name="saved_tensor0")
            self.flatten = nn.Flatten()
            self.fc = nn.Linear(10, 100)

        def forward(self, input):
            y = self.flatten(input)
            paddle.assign(y, self.saved_tensor)
            return self.fc(y)

    model = Model()
    assert model.saved_tensor.name == model.full_name() + ".saved_tensor0"
    assert not model.saved_tensor.persistable
    x = paddle.randn([4, 10, 1])
    out = model(x)
    assert out.shape == [4, 100]
    np.testing.assert_array_equal(model.saved_tensor.numpy(), x.numpy().reshape(4, 10))


def test_guide_register_buffer():
    class Model(nn.Layer):
        def __init__(self):
            super().__init__()
            saved_tensor = self.create_tensor(name="saved_tensor0")
            self.register_buffer("saved_tensor", saved_tensor, persistable=True)
            self.flatten = nn.Flatten()
            self.fc = nn.Linear(10, 100)

        def forward(self, input):
            y = self.flatten(input)
            paddle.assign(y, self.saved_tensor)
            return self.fc(y)

    model = Model()
    assert len(model.buffers()) == 1 and model.buffers()[0] is model.saved_tensor
    assert [n for n, _ in model.named_buffers()] == ["saved_tensor"]
    assert list(model.state_dict()) == ["saved_tensor", "fc.weight", "fc.bias"]
    model(paddle.randn([2, 10]))
    assert model.saved_tensor.shape == [2, 10]


def test_guide_modes_forward_and_hooks(capsys):
    x = paddle.randn([10, 1], "float32")
    model = FlatModel()
    model.eval()
    assert not model.training and not model.flatten.training
    out = model(x)
    model.train()
    assert model.training and model.flatten.training
    out = model(x)
    assert out.shape == [10, 1]
    np.testing.assert_array_equal(model.forward(x).numpy(), x.numpy())

    def forward_post_hook(layer, input, output):
        return 2 * output

    x = paddle.ones([10, 1], "float32")
    model = FlatModel()
    handle = model.flatten.register_forward_post_hook(forward_post_hook)
    np.testing.assert_array_equal(model(x).numpy(), np.full([10, 1], 2.0, np.float32))
    handle.remove()
    np.testing.assert_array_equal(model(x).numpy(), np.ones([10, 1], np.float32))

    def forward_pre_hook(layer, input):
        print(type(input).__name__, len(input))
        return input

    pre = model.flatten.register_forward_pre_hook(forward_pre_hook)
    model(x)
    assert capsys.readouterr().out == "tuple 1\n"
    pre.remove()
    model(x)
    assert capsys.readouterr().out == ""


def test_guide_state_dict_save_and_load(tmp_path):
    save = getattr(paddle, "save", None)
    load = getattr(paddle, "load", None)
    if save is None:
        from runtime.formats.serialization import save, load
    model = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1D(4))
    state = model.state_dict()
    path = str(tmp_path / "paddle_dy.pdparams")
    save(state, path)
    other = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1D(4))
    loaded = load(path)
    assert list(loaded) == list(state)
    missing, unexpected = other.set_state_dict(loaded)
    assert missing == [] and unexpected == []
    for (k1, v1), (k2, v2) in zip(model.state_dict().items(), other.state_dict().items()):
        assert k1 == k2
        np.testing.assert_array_equal(v1.numpy(), v2.numpy())


# -- names ------------------------------------------------------------------------------------

def test_full_name_and_parameter_names():
    with unique_name.guard():
        class MyNetABC(nn.Layer):
            pass

        assert MyNetABC().full_name() == "my_net_abc_0"
        assert MyNetABC().full_name() == "my_net_abc_1"
        assert nn.Layer("scope").full_name() == "scope_0"
        lin = nn.Linear(2, 3)
        assert lin.full_name() == "linear_0"
        assert lin.weight.name == "linear_0.w_0" and lin.bias.name == "linear_0.b_0"
        assert lin.create_parameter([2]).name == "linear_0.w_1"
        assert lin.create_parameter([2], is_bias=True).name == "linear_0.b_1"
        assert nn.Linear(2, 3).weight.name == "linear_1.w_0"
        bn = nn.BatchNorm2D(3)
        assert [p.name for p in bn.parameters()] == ["batch_norm2d_0.w_0", "batch_norm2d_0.b_0",
                                                     "batch_norm2d_0.w_1", "batch_norm2d_0.w_2"]
        assert nn.LSTMCell(2, 3).full_name() == "lstm_cell_0"
        assert nn.ReLU6().full_name() == "re_lu6_0"
        assert nn.Conv2DTranspose(1, 1, 1).full_name() == "conv2d_transpose_0"
        assert nn.Linear(2, 3, weight_attr=ParamAttr(name="my_w")).weight.name == "my_w"
        t = lin.create_tensor()
        assert t.name == "linear_0._generated_var_0"
    # guard restores the outer counters: names made outside do not collide with the inner ones
    with unique_name.guard("pre_"):
        assert nn.Linear(1, 1).full_name() == "pre_linear_0"


# -- attribute protocol -----------------------------------------------------------------------

class Attrs(nn.Layer):
    def __init__(self):
        super().__init__()
        self.t = paddle.ones([2])
        self.register_buffer("b", paddle.zeros([2]))
        self.register_buffer("nb", paddle.zeros([2]), persistable=False)
        self.w = self.create_parameter([2])
        self.sub = nn.Linear(2, 2)
        self.plain = [1, 2]


def test_setattr_registers_and_checks_types():
    a = Attrs()
    assert list(a._parameters) == ["w"]
    assert list(a._sub_layers) == ["sub"]
    assert list(a._buffers) == ["t", "b", "nb"]      # tensor attributes become non-persistable buffers
    assert list(a.state_dict()) == ["w", "b", "sub.weight", "sub.bias"]
    assert list(a.to_static_state_dict()) == ["w", "t", "b", "nb", "sub.weight", "sub.bias"]
    assert "plain" in a.__dict__ and a.plain == [1, 2]
    a.b = paddle.ones([3])
    assert a._buffers["b"].shape == [3] and "b" in a.state_dict()
    with pytest.raises(TypeError, match="assignment to buffers 'b' should be of type Tensor or None, but got 'int'"):
        a.b = 3
    with pytest.raises(TypeError, match="assignment to parameter 'w' should be of type Parameter or None, "
                                        "but got 'Tensor'"):
        a.w = paddle.ones([2])
    with pytest.raises(TypeError, match="assignment to sublayer 'sub' should be of type Layer or None"):
        a.sub = 5
    a.w = None
    assert a.w is None and a.parameters() == a.sub.parameters()
    a.w = a.create_parameter([3])
    assert a.w.shape == [3]
    # re-assigning a name with a different kind moves it between registries
    a.t = nn.ReLU()
    assert "t" in a._sub_layers and "t" not in a._buffers
    del a.b
    assert "b" not in a._buffers
    del a.sub
    assert "sub" not in a._sub_layers
    del a.plain
    assert not hasattr(a, "plain")
    with pytest.raises(AttributeError, match="'Attrs' object has no attribute 'nonexist'"):
        a.nonexist
    d = dir(a)
    assert "w" in d and "t" in d and "nb" in d and "forward" in d


def test_init_must_run_first():
    class Bad(nn.Layer):
        def __init__(self):
            self.fc = nn.Linear(1, 1)

    with pytest.raises(ValueError, match=r"super\(\).__init__\(\) should be called first"):
        Bad()


def test_add_parameter_and_register_buffer_errors():
    layer = nn.Layer()
    p = layer.create_parameter([1])
    with pytest.raises(KeyError, match="can not contain `.`"):
        layer.add_parameter("a.b", p)
    with pytest.raises(KeyError, match="can not be empty"):
        layer.add_parameter("", p)
    with pytest.raises(TypeError, match="should be a Parameter, but received Tensor"):
        layer.add_parameter("q", paddle.ones([1]))
    with pytest.raises(TypeError, match="should be a string"):
        layer.add_parameter(1, p)
    layer.other = 3
    with pytest.raises(KeyError, match="The parameter 'other' already exists"):
        layer.add_parameter("other", p)
    assert layer.add_parameter("p", p) is p and layer.p is p
    with pytest.raises(KeyError, match="can not contain `.`"):
        layer.register_buffer("x.y", paddle.ones([1]))
    with pytest.raises(TypeError, match="should be a Paddle.Tensor, but received Parameter"):
        layer.register_buffer("x", p)
    with pytest.raises(TypeError, match="should be a Paddle.Tensor, but received ndarray"):
        layer.register_buffer("x", np.ones(1))
    with pytest.raises(KeyError, match="attribute 'other' already exists"):
        layer.register_buffer("other", paddle.ones([1]))
    with pytest.raises(TypeError, match="add_sublayer: sublayer must be a paddle.nn.Layer"):
        layer.add_sublayer("s", 3)
    layer.register_buffer("none_buf", None)
    assert layer.buffers() == [] and layer.none_buf is None


# -- traversal --------------------------------------------------------------------------------

class Tree(nn.Layer):
    def __init__(self):
        super().__init__()
        self.a = nn.Linear(2, 2)
        self.seq = nn.Sequential(nn.Linear(2, 2), nn.ReLU())
        self.shared = self.a          # the same layer twice: visited once
        self.register_buffer("buf", paddle.ones([1]))
        self.seq.register_buffer("inner", paddle.ones([1]), persistable=False)


def test_named_sublayers_prefixes_and_duplicates():
    t = Tree()
    assert [n for n, _ in t.named_sublayers()] == ["a", "seq", "seq.0", "seq.1"]
    assert [n for n, _ in t.named_sublayers(prefix="m", include_self=True)] == \
        ["m", "m.a", "m.seq", "m.seq.0", "m.seq.1"]
    assert [n for n, _ in t.named_sublayers(remove_duplicate=False)] == ["a", "seq", "seq.0", "seq.1", "shared"]
    assert t.sublayers(include_self=True)[0] is t
    assert [n for n, _ in t.named_parameters()] == ["a.weight", "a.bias", "seq.0.weight", "seq.0.bias"]
    assert [n for n, _ in t.named_parameters(prefix="net")] == ["net.a.weight", "net.a.bias", "net.seq.0.weight",
                                                                "net.seq.0.bias"]
    assert t.parameters(include_sublayers=False) == []
    assert [n for n, _ in t.named_buffers()] == ["buf", "seq.inner"]
    assert [n for n, _ in t.named_buffers(include_sublayers=False)] == ["buf"]
    assert list(t.state_dict()) == ["buf", "a.weight", "a.bias", "seq.0.weight", "seq.0.bias", "shared.weight",
                                    "shared.bias"]
    assert t.get_sublayer("seq.1") is t.seq[1]
    assert t.get_parameter("seq.0.bias") is t.seq[0].bias
    assert t.get_buffer("seq.inner") is t.seq.inner
    with pytest.raises(AttributeError, match="has no sublayer `zz`"):
        t.get_sublayer("seq.zz")
    relu = nn.ReLU6()
    t.set_sublayer("seq.1", relu)
    assert t.seq[1] is relu
    assert [type(m).__name__ for m in t.modules()] == ["Tree", "Linear", "Sequential", "Linear", "ReLU6"]


def test_apply_and_train_eval_propagate():
    t = Tree()
    seen = []
    assert t.apply(lambda layer: seen.append(type(layer).__name__)) is t
    assert seen == ["Linear", "Linear", "ReLU", "Sequential", "Tree"]
    assert t.eval() is t
    assert all(not layer.training for layer in t.sublayers(include_self=True))
    assert t.train() is t
    assert all(layer.training for layer in t.sublayers(include_self=True))
    t.seq.eval()
    assert t.training and not t.seq.training and not t.seq[0].training and t.a.training
    t.train(False)
    assert not t.a.training


# -- hooks ------------------------------------------------------------------------------------

def test_hooks_replace_inputs_and_outputs_and_remove():
    lin = nn.Linear(2, 2, weight_attr=I.Constant(1.0))
    x = paddle.ones([1, 2])
    calls = []

    def pre_tuple(layer, inputs):
        calls.append("pre_tuple")
        return (inputs[0] * 2,)

    def pre_plain(layer, inputs):
        calls.append("pre_plain")
        return inputs[0] + 1          # a non-tuple result becomes the single input

    def post(layer, inputs, output):
        calls.append("post")
        assert isinstance(inputs, tuple)
        return output * 10

    h1 = lin.register_forward_pre_hook(pre_tuple)
    h2 = lin.register_forward_pre_hook(pre_plain)
    h3 = lin.register_forward_post_hook(post)
    np.testing.assert_allclose(lin(x).numpy(), [[60.0, 60.0]])   # ((1*2)+1)*2 summed, *10
    assert calls == ["pre_tuple", "pre_plain", "post"]
    h2.remove()
    np.testing.assert_allclose(lin(x).numpy(), [[40.0, 40.0]])
    h1.remove()
    h3.remove()
    h3.remove()                           # removing twice is harmless
    np.testing.assert_allclose(lin(x).numpy(), [[2.0, 2.0]])


def test_hook_prepend_kwargs_and_none_results():
    class Scale(nn.Layer):
        def forward(self, x, factor=1.0):
            return x * factor

    layer = Scale()
    order = []
    layer.register_forward_pre_hook(lambda l, i: order.append("a"))
    layer.register_forward_pre_hook(lambda l, i: order.append("b"), prepend=True)
    layer.register_forward_pre_hook(lambda l, args, kwargs: (args, {"factor": 3.0}), with_kwargs=True)
    layer.register_forward_post_hook(lambda l, args, kwargs, out: out + kwargs["factor"], with_kwargs=True)
    out = layer(paddle.ones([2]))
    assert order == ["b", "a"]
    np.testing.assert_allclose(out.numpy(), [6.0, 6.0])
    assert layer.register_forward_hook is not None


def test_post_hook_always_call_runs_on_error():
    class Boom(nn.Layer):
        def forward(self, x):
            raise RuntimeError("boom")

    layer = Boom()
    seen = []
    layer.register_forward_post_hook(lambda l, i, o: seen.append(o), always_call=True)
    with pytest.raises(RuntimeError, match="boom"):
        layer(paddle.ones([1]))
    assert seen == [None]


# -- state dict -------------------------------------------------------------------------------

def _net():
    return nn.Sequential(nn.Linear(2, 3), nn.BatchNorm1D(3))


def test_state_dict_contents_and_order():
    net = _net()
    sd = net.state_dict()
    assert list(sd) == ["0.weight", "0.bias", "1.weight", "1.bias", "1._mean", "1._variance"]
    assert sd["0.weight"] is net[0].weight          # the layer's own tensors
    assert list(net.state_dict(structured_name_prefix="pre.")) == ["pre." + k for k in sd]
    assert list(net.state_dict(include_sublayers=False)) == []
    kept = net.state_dict(keep_vars=False)
    assert kept["0.weight"] is not net[0].weight
    np.testing.assert_array_equal(kept["0.weight"].numpy(), net[0].weight.numpy())


def test_set_state_dict_round_trip_with_numpy_and_names():
    src, dst = _net(), _net()
    values = {k: v.numpy() * 0 + i for i, (k, v) in enumerate(src.state_dict().items())}
    assert dst.set_state_dict(values) == ([], [])
    for i, v in enumerate(dst.state_dict().values()):
        np.testing.assert_array_equal(v.numpy(), np.full(v.shape, i, np.float32))
    # values are copied, not shared
    values["0.bias"][:] = 99
    assert dst[0].bias.numpy()[0] == 1
    by_name = {d.name: s for d, s in zip(dst.state_dict().values(), src.state_dict().values())}
    assert dst.set_state_dict(by_name, use_structured_name=False) == ([], [])
    np.testing.assert_array_equal(dst[0].weight.numpy(), src[0].weight.numpy())
    assert dst.load_dict is not None and dst.set_dict is not None


def test_set_state_dict_missing_unexpected_and_shape_mismatch():
    net = _net()
    sd = dict(net.state_dict())
    del sd["0.bias"]
    sd["extra"] = paddle.ones([1])
    with pytest.warns(UserWarning, match="Skip loading for 0.bias. 0.bias is not found in the provided dict."):
        missing, unexpected = net.set_state_dict(sd)
    assert missing == ["0.bias"] and unexpected == ["extra"]
    before = net[0].weight.numpy().copy()
    bad = {k: v for k, v in net.state_dict().items()}
    bad["0.weight"] = paddle.ones([3, 2])
    with pytest.warns(UserWarning, match=r"Skip loading for 0.weight. 0.weight receives a shape \[3, 2\], "
                                         r"but the expected shape is \[2, 3\]."):
        missing, unexpected = net.set_state_dict(bad)
    assert missing == ["0.weight"] and unexpected == ["0.weight"]
    np.testing.assert_array_equal(net[0].weight.numpy(), before)


def test_set_state_dict_type_errors():
    net = _net()
    sd = dict(net.state_dict())
    sd["0.weight"] = np.ones([2, 3], np.float64)
    with pytest.raises(TypeError, match="'0.weight' has dtype float64 but .* is float32"):
        net.set_state_dict(sd)
    sd["0.weight"] = [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]
    with pytest.raises(TypeError, match="value of '0.weight' must be a Tensor or a numpy ndarray, got list"):
        net.set_state_dict(sd)
    with pytest.raises(TypeError, match="state_dict must be a dict"):
        net.set_state_dict([1, 2])


def test_load_state_dict_strict():
    lin = nn.Linear(2, 3)
    assert repr(lin.load_state_dict(lin.state_dict())) == "<All keys matched successfully>"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(RuntimeError, match='Missing key\\(s\\) in state_dict: "bias"'):
            lin.load_state_dict({"weight": lin.weight})
        res = lin.load_state_dict({"weight": lin.weight}, strict=False)
    assert res.missing_keys == ["bias"] and res.unexpected_keys == []


def test_state_dict_hook_and_buffer_loading():
    lin = nn.Linear(2, 2)
    handle = lin.register_state_dict_hook(lambda sd: {k.upper(): v for k, v in sd.items()})
    assert list(lin.state_dict()) == ["WEIGHT", "BIAS"]
    assert list(lin.state_dict(use_hook=False)) == ["weight", "bias"]
    handle.remove()
    assert list(lin.state_dict()) == ["weight", "bias"]

    class WithBuf(nn.Layer):
        def __init__(self):
            super().__init__()
            self.register_buffer("count", paddle.to_tensor([0], dtype="int64"))
            self.holder = self.create_tensor(name="h", persistable=True)
            self.register_buffer("holder", self.holder)

    w = WithBuf()
    assert w.set_state_dict({"count": np.array([7], np.int64), "holder": np.arange(3, dtype=np.float32)}) == ([], [])
    assert w.count.numpy().tolist() == [7]
    np.testing.assert_array_equal(w.holder.numpy(), [0, 1, 2])   # an empty placeholder adopts the value


# -- dtype / device / copies ------------------------------------------------------------------

def test_to_float_double_and_device():
    lin = nn.Linear(2, 3)
    lin.register_buffer("ib", paddle.to_tensor([1, 2]))
    assert lin.to(dtype="float64") is lin
    assert lin.weight.dtype == paddle.float64 and lin.bias.dtype == paddle.float64
    assert lin.ib.dtype == paddle.float64                    # to() casts every tensor, as Paddle does
    assert isinstance(lin.weight, paddle.Parameter) and lin.weight.name.endswith(".w_0")
    assert repr(lin) == "Linear(in_features=2, out_features=3, dtype=float64)"
    out = lin(paddle.ones([1, 2], dtype="float64"))
    assert out.dtype == paddle.float64
    lin.float()
    assert lin.weight.dtype == paddle.float32
    lin.register_buffer("ib2", paddle.to_tensor([1, 2]))
    lin.double()
    assert lin.weight.dtype == paddle.float64 and lin.ib2.dtype == paddle.int64   # double(): floats only
    assert lin.to("cpu") is lin and lin.to(paddle.CPUPlace()) is lin
    with pytest.raises(ValueError, match="device should be 'cpu'"):
        lin.to("gpu")


def test_deepcopy_and_pickle():
    net = _net()
    clone = copy.deepcopy(net)
    assert clone[0].weight is not net[0].weight
    np.testing.assert_array_equal(clone[0].weight.numpy(), net[0].weight.numpy())
    assert clone[0].weight.name == net[0].weight.name
    clone[0].weight.set_value(np.zeros([2, 3], np.float32))
    assert net[0].weight.numpy().any()
    again = pickle.loads(pickle.dumps(net))
    assert list(again.state_dict()) == list(net.state_dict())
    np.testing.assert_array_equal(again[1]._variance.numpy(), net[1]._variance.numpy())


def test_requires_grad_and_zero_grad():
    lin = nn.Linear(2, 2)
    lin.requires_grad_(False)
    assert all(p.stop_gradient for p in lin.parameters())
    lin.requires_grad_()
    lin(paddle.ones([1, 2])).sum().backward()
    lin.zero_grad()
    assert lin.weight.grad is None


# -- repr -------------------------------------------------------------------------------------

def test_nested_repr_matches_paddle():
    class Model(nn.Layer):
        def __init__(self):
            super().__init__()
            self.flatten = nn.Flatten()
            self.fc = nn.Linear(10, 3)
            self.seq = nn.Sequential(nn.Conv2D(1, 6, 5), nn.ReLU(), nn.MaxPool2D(2, 2), nn.BatchNorm2D(6))
            self.sd = nn.Sequential(("a", nn.Tanh()), ("b", nn.LayerNorm(4)))
            self.ll = nn.LayerList([nn.Linear(2, 2), nn.Dropout(0.5)])

        def forward(self, x):
            return x

    expected = """Model(
  (flatten): Flatten()
  (fc): Linear(in_features=10, out_features=3, dtype=float32)
  (seq): Sequential(
    (0): Conv2D(1, 6, kernel_size=[5, 5], data_format=NCHW)
    (1): ReLU()
    (2): MaxPool2D(kernel_size=2, stride=2, padding=0)
    (3): BatchNorm2D(num_features=6, momentum=0.9, epsilon=1e-05)
  )
  (sd): Sequential(
    (a): Tanh()
    (b): LayerNorm(normalized_shape=[4], epsilon=1e-05)
  )
  (ll): LayerList(
    (0): Linear(in_features=2, out_features=2, dtype=float32)
    (1): Dropout(p=0.5, axis=None, mode=upscale_in_train, inplace=False)
  )
)"""
    assert repr(Model()) == expected
    assert str(Model()) == expected


def test_extra_repr_multiline():
    class Multi(nn.Layer):
        def extra_repr(self):
            return "a=1\nb=2"

    m = Multi()
    assert repr(m) == "Multi(\n  a=1\n  b=2\n)"
    m.child = nn.ReLU()
    assert repr(m) == "Multi(\n  a=1\n  b=2\n\n  (child): ReLU()\n)"


def test_forward_not_implemented():
    with pytest.raises(NotImplementedError, match="Layer must define forward"):
        nn.Layer()(paddle.ones([1]))
