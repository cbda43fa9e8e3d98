"""A runnable tour of paddle.nn.Layer's API ("Models and layers in Paddle"), printing what each call returns.

    python examples/layer_api_tour.py

Sections: sublayers, adding sublayers, apply / children, parameters, clearing gradients,
non-parameter tensors, buffers, train/eval, calling a layer, forward pre/post hooks, and
saving/restoring a state_dict. Only the import line differs from a Paddle script.
"""
from __future__ import annotations

import os
import sys
import tempfile

import numpy as np

import dy2st as paddle


def section(title):
    print()
    print(f"== {title} " + "=" * max(0, 70 - len(title)))


class Model(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.flatten = paddle.nn.Flatten()

    def forward(self, inputs):
        y = self.flatten(inputs)
        return y


class ImageModel(paddle.nn.Layer):
    """A parameter used as the input (as in style transfer): create_parameter + add_parameter."""

    def __init__(self):
        super().__init__()
        img = self.create_parameter([1, 3, 256, 256])
        self.add_parameter("img", img)
        self.flatten = paddle.nn.Flatten()

    def forward(self):
        y = self.flatten(self.img)
        return y


class SavingModel(paddle.nn.Layer):
    """Keeps an intermediate value in a tensor made by create_tensor (not part of state_dict)."""

    def __init__(self):
        super().__init__()
        self.saved_tensor = self.create_tensor(name="saved_tensor0")
        self.flatten = paddle.nn.Flatten()
        self.fc = paddle.nn.Linear(10, 100)

    def forward(self, input):
        y = self.flatten(input)
        # Save intermediate tensor
        paddle.assign(y, self.saved_tensor)
        y = self.fc(y)
        return y


class BufferModel(paddle.nn.Layer):
    """Same, but the tensor is registered as a persistable buffer (so state_dict keeps it)."""

    def __init__(self):
        super().__init__()
        saved_tensor = self.create_tensor(name="saved_tensor0")
        self.register_buffer("saved_tensor", saved_tensor, persistable=True)
        self.flatten = paddle.nn.Flatten()
        self.fc = paddle.nn.Linear(10, 100)

    def forward(self, input):
        y = self.flatten(input)
        # Save intermediate tensor
        paddle.assign(y, self.saved_tensor)
        y = self.fc(y)
        return y


def main():
    paddle.seed(0)

    section("sublayers() and named_sublayers()")
    model = Model()
    print(model.sublayers())
    print("----------------------")
    for item in model.named_sublayers():
        print(item)

    section("add_sublayer()")
    fc = paddle.nn.Linear(10, 3)
    returned = model.add_sublayer("fc", fc)
    print("add_sublayer returned the layer itself:", returned is fc)
    print(model.sublayers())

    section("apply(): run a function on every sublayer, then the layer itself")

    def function(layer):
        print(layer)

    result = model.apply(function)
    print("apply returned the model itself:", result is model)

    section("children() and named_children()")
    for sublayer in model.children():
        print(sublayer)
    for name, sublayer in model.named_children():
        print(name, "->", type(sublayer).__name__)

    section("create_parameter() + add_parameter(), parameters(), named_parameters()")
    model = ImageModel()
    params = model.parameters()
    print(f"parameters(): {len(params)} parameter(s); the first has shape {list(params[0].shape)}, "
          f"dtype {params[0].dtype}, stop_gradient={params[0].stop_gradient}")
    print("model.img is the registered parameter:", model.img is params[0])
    print("----------------------------------------------------------------------------------")
    for name, param in model.named_parameters():
        print(f"('{name}', Parameter(shape={list(param.shape)}, dtype={param.dtype}, "
              f"trainable={param.trainable}))")

    section("clear_gradients()")
    out = model()
    loss = out.sum()
    loss.backward()
    grad = model.img.grad
    print("after backward: img.grad shape", grad.shape, "sum", float(grad.numpy().sum()))
    model.clear_gradients()
    grad = model.img.grad
    print("after clear_gradients: img.grad is",
          "None" if grad is None else f"zeros (sum {float(grad.numpy().sum())})")

    section("create_tensor(): a non-parameter tensor filled by paddle.assign in forward")
    model = SavingModel()
    x = paddle.ones([4, 10], "float32")
    y = model(x)
    print("output shape:", y.shape)
    print("saved_tensor after forward: shape", model.saved_tensor.shape,
          "sum", float(model.saved_tensor.numpy().sum()))
    print("state_dict keys (no saved_tensor):", list(model.state_dict().keys()))

    section("register_buffer(), buffers(), named_buffers()")
    model = BufferModel()
    print("buffers():", [type(b).__name__ for b in model.buffers()])
    for name, buf in model.named_buffers():
        print("named buffer:", name, "persistable =", buf.persistable)
    model(paddle.ones([2, 10], "float32"))
    print("after forward the buffer holds shape", model.saved_tensor.shape)
    print("state_dict keys (buffer included):", list(model.state_dict().keys()))

    section("train() / eval()")
    x = paddle.randn([10, 1], "float32")
    model = Model()
    model.eval()  # set model to eval mode
    print("after eval(): model.training =", model.training,
          ", flatten.training =", model.flatten.training)
    out = model(x)
    model.train()  # set model to train mode
    print("after train(): model.training =", model.training,
          ", flatten.training =", model.flatten.training)
    out = model(x)
    print("output shape:", out.shape, "dtype:", out.dtype)

    section("calling the layer: __call__ runs forward()")
    model = Model()
    x = paddle.randn([10, 1], "float32")
    out = model(x)
    print("model(x) equals model.forward(x):", bool(np.array_equal(out.numpy(), model.forward(x).numpy())))
    print(out)

    section("register_forward_post_hook(): the hook's return value replaces the output")

    def forward_post_hook(layer, input, output):
        return 2 * output

    x = paddle.ones([10, 1], "float32")
    model = Model()
    forward_post_hook_handle = model.flatten.register_forward_post_hook(forward_post_hook)
    out = model(x)
    print(out)
    forward_post_hook_handle.remove()
    print("after handle.remove(): output sum", float(model(x).numpy().sum()), "(was",
          float(out.numpy().sum()), ")")

    section("register_forward_pre_hook(): sees (and may replace) the inputs")

    def forward_pre_hook(layer, input):
        print("pre-hook got a", type(input).__name__, "of", len(input), "input(s); first shape",
              input[0].shape)
        return input

    x = paddle.ones([10, 1], "float32")
    model = Model()
    forward_pre_hook_handle = model.flatten.register_forward_pre_hook(forward_pre_hook)
    out = model(x)
    forward_pre_hook_handle.remove()

    section("state_dict() / paddle.save / paddle.load / set_state_dict()")
    model = paddle.nn.Sequential(paddle.nn.Linear(4, 3), paddle.nn.ReLU(), paddle.nn.Linear(3, 2))
    state_dict = model.state_dict()
    print("state_dict:", {k: v.shape for k, v in state_dict.items()})
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "paddle_dy.pdparams")
        paddle.save(state_dict, path)
        print("saved", os.path.basename(path), os.path.getsize(path), "bytes")
        restored = paddle.nn.Sequential(paddle.nn.Linear(4, 3), paddle.nn.ReLU(), paddle.nn.Linear(3, 2))
        loaded = paddle.load(path)
        restored.set_state_dict(loaded)
    x = paddle.randn([5, 4], "float32")
    same = np.allclose(model(x).numpy(), restored(x).numpy())
    print("restored model gives the same outputs:", same)
    if not same:
        raise SystemExit("state_dict round trip changed the model's outputs")
    print()
    print("layer API tour finished")


if __name__ == "__main__":
    main()
