"""Dygraph core behaviour found by running Paddle's test/legacy_test imperative files, against real Paddle
3.3.1 (one subprocess): container errors (Sequential.insert of a non-Layer, LayerDict.update of a
non-iterable), tensor hook handles (``remove()`` is True then False), ``Tensor._register_backward_hook``
(a void hook run after a leaf's gradient is accumulated; ValueError on non-leaf / stop_gradient tensors),
``_grad_ivar()`` before and after backward, zero gradients for the unreached outputs of a multi-output op
(split, unbind) that retain_grads sees, ``Parameter.do_model_average``, ``paddle.tensor.random.gaussian``,
forward post-hooks with ``always_call=True`` (run when forward or a pre-hook raises), in-place APIs'
``inplace_version`` counts and argument errors (pow_, where_, relu_ on a leaf, assign into an output), a
one-element ``grad_outputs`` entry for a 0-D output in paddle.grad, paddle.grad's argument checks and
Tensor.backward's grad_tensor checks."""
import textwrap

from .diff_prelude import PADDLE_MAIN, assert_same_as_paddle, with_helpers

CODE = with_helpers(textwrap.dedent('''
    import copy

    def compute(paddle):
        out = {}
        T, put, grad, err, inplace = diff_helpers(paddle, out, err_prefix="err.")

        # containers: the error classes Paddle raises for bad arguments
        err("seq_insert_int", lambda: paddle.nn.Sequential().insert(0, 1))
        err("seq_insert_range", lambda: paddle.nn.Sequential().insert(1, paddle.nn.ReLU()))
        err("layerdict_update_int", lambda: paddle.nn.LayerDict().update(1))
        err("layerdict_update_triple",
            lambda: paddle.nn.LayerDict().update([("a", paddle.nn.ReLU(), "a")]))
        s = paddle.nn.Sequential(paddle.nn.ReLU())
        s.insert(-1, paddle.nn.Sigmoid())
        put("seq_insert_neg.types", np.array([type(l).__name__ for l in s]))

        # tensor hooks: the handle's remove() result
        x = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
        h = x.register_hook(lambda g: g * 2)
        put("hook_remove", np.array([h.remove(), h.remove()]))

        # Tensor._register_backward_hook: called after the leaf's grad is accumulated, on every backward
        x = paddle.to_tensor([5.0], stop_gradient=False)
        seen = []
        ret = x._register_backward_hook(lambda: seen.append(float(x.grad.numpy()[0])))
        put("void_hook.ret", np.array(ret is None))
        for i in range(3):
            paddle.pow(x, 2.0).backward()
        put("void_hook.seen", np.array(seen))
        err("void_hook.interior", lambda: paddle.pow(x, 2.0)._register_backward_hook(lambda: None))
        err("void_hook.stop_gradient", lambda: paddle.to_tensor([1.0])._register_backward_hook(lambda: None))

        # _grad_ivar: None before any backward, the gradient after; a pruned branch keeps None
        lin1, lin2 = paddle.nn.Linear(3, 2), paddle.nn.Linear(3, 2)
        put("grad_ivar.before", np.array(lin1.weight._grad_ivar() is None))
        inp = paddle.to_tensor(np.arange(6.0, dtype="float32").reshape(2, 3))
        y = lin1(inp)
        _ = lin2(inp)
        y.sum().backward()
        put("grad_ivar.after", lin1.weight._grad_ivar())
        put("grad_ivar.unused", np.array(lin2.weight._grad_ivar() is None))

        # a multi-output node that runs gives its unreached outputs zero gradients (seen by retain_grads)
        x = T([[1.0, 2.0, 3.0, 4.0]], grad=True)
        a, b = paddle.split(x, 2, axis=1)
        b.retain_grads()
        a.sum().backward()
        put("split_unused.grad", b.grad)
        put("split_unused.x_grad", x.grad)
        x = T([[1.0, 2.0], [3.0, 4.0]], grad=True)
        a, b = paddle.unbind(x)
        b.retain_grads()
        (a * 3).sum().backward()
        put("unbind_unused.grad", b.grad)
        v, _ = paddle.topk(x, 1)
        v.retain_grads()
        (x * 1).sum().backward()
        put("unreached_node.grad", np.array(v.grad is None))

        # paddle.tensor.random.gaussian (test_imperative_auto_prune uses it). Until dy2st.tensor exports it,
        # our run takes it from runtime.api.random, where it lives.
        rnd = paddle.tensor.random
        gauss = rnd.gaussian if hasattr(rnd, "gaussian") else __import__(
            "runtime.api.random", fromlist=["gaussian"]).gaussian
        paddle.seed(7)
        for name, kw in (("f32", {}), ("f64", {"dtype": "float64"}), ("c64", {"mean": 1 + 1j, "dtype": "complex64"}),
                         ("ms", {"mean": 1.0, "std": 2.0})):
            g = gauss([4000, 5], **kw)
            put(f"gauss.{name}.zeros", g * 0)          # dtype and shape, exactly
            put(f"gauss.{name}.stop_gradient", np.array(g.stop_gradient))
            v = g.numpy()
            m = 1.0 if "mean" in kw else 0.0
            sd = 2.0 if "std" in kw else 1.0
            part_var = 0.5 if v.dtype.kind == "c" else 1.0   # a complex sample's parts each get half the variance
            put(f"gauss.{name}.moments_ok", np.array([abs(v.real.mean() - m) < 0.1,
                                                      abs(v.real.var() / sd ** 2 - part_var) < 0.1]))
        put("gauss.requires_grad", np.array(gauss([2], requires_grad=True).stop_gradient))
        err("gauss.complex_mean_real_dtype", lambda: gauss([2], mean=1 + 1j))
        err("gauss.complex_mean_unequal", lambda: gauss([2], mean=1 + 2j, dtype="complex64"))

        # forward post-hooks with always_call=True run when forward, a pre-hook or another post-hook raises
        class Fails(paddle.nn.Layer):
            def forward(self, x, fail=True):
                if fail:
                    raise RuntimeError("failing in forward")
                return x

        log = []
        net = Fails()
        pre = net.register_forward_pre_hook(lambda m, i: log.append(1))
        post = net.register_forward_post_hook(lambda m, i, o: log.append(-1 if o is None else -2), always_call=True)
        err("always_call.forward_raises", lambda: net(paddle.ones([2])))
        net(paddle.ones([2]), fail=False)
        pre.remove()

        def bad_pre(m, i):
            log.append(3)
            raise RuntimeError("failing in pre hook")
        net.register_forward_pre_hook(bad_pre)
        err("always_call.pre_hook_raises", lambda: net(paddle.ones([2]), fail=False))

        def throw(m, i, o):
            raise RuntimeError("failing in post hook")
        h2 = net.register_forward_post_hook(throw, prepend=True, always_call=True)
        import warnings
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            err("always_call.both_raise", lambda: net(paddle.ones([2]), fail=False))
        put("always_call.log", np.array(log))
        post.remove()
        h2.remove()
        put("always_call.left", np.array(len(net._forward_post_hooks_always_called)))

        # in-place APIs: Paddle's inplace_version counts (some APIs count several steps) and argument errors
        f = lambda: paddle.to_tensor(np.array([[1.5, -2.0], [3.0, 4.0]], "float32"))
        i = lambda: paddle.to_tensor(np.array([[4, 6], [3, 8]], "int32"))
        counts = {
            "hypot_": lambda: paddle.hypot_(f(), f()),
            "ldexp_": lambda: paddle.ldexp_(f(), paddle.to_tensor([2], dtype="int32")),
            "nan_to_num_": lambda: paddle.nan_to_num_(f()),
            "lcm_": lambda: paddle.lcm_(i(), i()),
            "gcd_": lambda: paddle.gcd_(i(), i()),
            "index_fill_": lambda: paddle.index_fill_(f(), paddle.to_tensor([0]), 1, -1.0),
            "relu_": lambda: paddle.nn.functional.relu_(f()),
            "copysign_": lambda: paddle.copysign_(f(), f()),
            "tanh_": lambda: f().tanh_(),
        }
        for name, fn in counts.items():
            x = fn()
            put(f"version.{name}", np.array(x.inplace_version))
        x = f()
        paddle.assign(paddle.ones([2, 2]), x)
        put("version.assign_output", np.array(x.inplace_version))
        put("hypot_.value", paddle.hypot_(f(), f()))
        err("pow_.list", lambda: paddle.pow_(f(), [2]))
        err("pow_.tensor", lambda: paddle.pow_(f(), paddle.to_tensor(2.0)))
        put("pow_.value", paddle.pow_(f(), 2))
        cond = paddle.to_tensor([[False, True], [True, False]])
        err("where_.scalars", lambda: paddle.where_(cond, 1, 2))
        err("where_.none", lambda: paddle.where_(cond, None, None))
        err("relu_.leaf", lambda: paddle.nn.functional.relu_(T([1.0, -2.0], "float32", grad=True)))

        # paddle.grad takes a one-element grad_outputs entry for a 0-D output (triple grad of a 1-D matmul);
        # Tensor.backward checks its grad_tensor's type and shape with AssertionErrors
        x, y = T([0.1, 0.2, 0.3], "float32", grad=True), T([0.4, 0.5, 0.6], "float32", grad=True)
        o = paddle.matmul(x, y)
        dout = T([1.0], "float32", grad=True)
        dx, dy = paddle.grad([o], [x, y], [dout], retain_graph=True, create_graph=True)
        ddx, ddy = T([1.0, 1.0, 1.0], "float32", grad=True), T([1.0, 2.0, 3.0], "float32", grad=True)
        dxx, dyy = paddle.grad([dx, dy], [x, y], [ddx, ddy], retain_graph=True, create_graph=True)
        put("one_element_grad_outputs", paddle.grad([dxx, dyy], [dout, ddx, ddy]))
        loss = (x * x).sum()
        err("backward.numpy_grad", lambda: loss.backward(np.ones([], "float32"), True))
        err("backward.shape", lambda: loss.backward(T([1.0], "float32"), True))

        # paddle.grad's argument checks (AssertionErrors)
        v = T([1.0, 2.0], grad=True)
        w = v * 2
        for name, args, kw in (("none", (None, None), {}), ("int_outputs", (1, v), {}), ("int_inputs", (w, 1), {}),
                               ("list_int", ([1], [v]), {}), ("grad_outputs_len", ([w, w], [v], [v]), {}),
                               ("no_grad_list", ([w], [v]), {"no_grad_vars": [1]}),
                               ("no_grad_int", ([w], [v]), {"no_grad_vars": 1})):
            err(f"grad_args.{name}", lambda: paddle.grad(*args, **kw))

        # Parameter.do_model_average follows ParamAttr (default True) and survives deepcopy
        p = paddle.nn.Linear(2, 2, weight_attr=paddle.ParamAttr(do_model_average=False))
        put("do_model_average", np.array([p.weight.do_model_average, p.bias.do_model_average,
                                          copy.deepcopy(p.weight).do_model_average]))
        return out
'''))


def test_dygraph_core_matches_paddle(tmp_path):
    from .paddle_runner import differential
    ours, theirs, dtypes = differential(CODE, PADDLE_MAIN, tmp_path, "dygraph_core")
    assert_same_as_paddle(ours, theirs, dtypes)
