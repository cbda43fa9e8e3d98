"""Differential test of the module surface outside the core namespaces against real Paddle 3.3.1: paddle.nn.utils,
paddle.geometric, the Bilinear / Dirac initializers, paddle.device (+ .cuda), single-process paddle.distributed,
and paddle.static.nn's layer functions. ONE Paddle subprocess runs everything.

``CODE``'s ``compute(paddle)`` runs once in real Paddle and once with ``import dy2st as paddle``: values, dtypes,
shapes, gradients and error types are compared. Random results (neighbour sampling) are compared through
properties computed inside ``compute``. For ``paddle.static.nn`` the same script builds the layers in Paddle and
records parameter names and shapes (ours must match), runs Paddle's own ``row_conv`` on fixed weights (ours is a
composite of slices), and loads the inference model our executor saved and runs it on the same feeds.
"""
import json
import textwrap

import numpy as np
import pytest

from .diff_prelude import assert_same_as_paddle, with_helpers

CODE = with_helpers(textwrap.dedent('''
    import numpy as np
    import warnings

    def compute(paddle):
        warnings.simplefilter("ignore")
        out = {}
        h = diff_helpers(paddle, out, err_prefix="err.")
        T, put, err = h.T, h.put, h.err
        rng = np.random.default_rng(7)

        def keys(name, d):
            out[name] = np.array("|".join(d))

        def grads_of(name, res, params):
            w = np.random.default_rng(0).standard_normal(res.shape)
            (res * paddle.to_tensor(w.astype(res.numpy().dtype))).sum().backward()
            for i, p in enumerate(params):
                put(f"{name}.grad{i}", p.grad)

        U = paddle.nn.utils
        # -- weight_norm / remove_weight_norm
        for tag, dim in (("d0", 0), ("d1", 1), ("dnone", None), ("dneg", -1)):
            lin = paddle.nn.Linear(3, 4)
            lin.weight.set_value(rng.standard_normal((3, 4)).astype("float32"))
            lin.bias.set_value(rng.standard_normal(4).astype("float32"))
            U.weight_norm(lin, dim=dim)
            put(f"wn.{tag}.g", lin.weight_g)
            put(f"wn.{tag}.v", lin.weight_v)
            keys(f"wn.{tag}.keys", lin.state_dict())
            keys(f"wn.{tag}.params", [n for n, _ in lin.named_parameters()])
            y = lin(T(rng.standard_normal((2, 3)), "float32"))
            put(f"wn.{tag}.y", y)
            grads_of(f"wn.{tag}", y, [lin.weight_g, lin.weight_v])
            U.remove_weight_norm(lin)
            put(f"wn.{tag}.removed", lin.weight)
            keys(f"wn.{tag}.removed_keys", lin.state_dict())
        conv = paddle.nn.Conv2D(2, 3, 3)
        conv.weight.set_value(rng.standard_normal((3, 2, 3, 3)).astype("float32"))
        U.weight_norm(conv, dim=2)
        put("wn.conv.g", conv.weight_g)
        y = conv(T(rng.standard_normal((1, 2, 5, 5)), "float32"))
        put("wn.conv.y", y)
        grads_of("wn.conv", y, [conv.weight_g, conv.weight_v])
        err("wn.twice", lambda: U.weight_norm(conv, dim=2))
        err("wn.remove_missing", lambda: U.remove_weight_norm(paddle.nn.Linear(2, 2)))
        # -- spectral_norm (u, v set to fixed values: Paddle draws them at random)
        for tag, layer, shape in (("linear", paddle.nn.Linear(4, 3), (4, 3)), ("conv", paddle.nn.Conv2D(2, 3, 2),
                                                                              (3, 2, 2, 2))):
            layer.weight.set_value(rng.standard_normal(shape).astype("float32"))
            U.spectral_norm(layer, n_power_iterations=2)
            keys(f"sn.{tag}.keys", layer.state_dict())
            layer.weight_u.set_value(rng.standard_normal(layer.weight_u.shape).astype("float32"))
            layer.weight_v.set_value(rng.standard_normal(layer.weight_v.shape).astype("float32"))
            x = T(rng.standard_normal((2, 4) if tag == "linear" else (1, 2, 3, 3)), "float32")
            y = layer(x)
            put(f"sn.{tag}.y", y)
            put(f"sn.{tag}.u", layer.weight_u)
            grads_of(f"sn.{tag}", y, [layer.weight_orig])
            layer.eval()
            put(f"sn.{tag}.eval", layer(x))
        # -- parameters <-> vector
        lin = paddle.nn.Linear(2, 3)
        lin.weight.set_value(np.arange(6, dtype="float32").reshape(2, 3))
        vec = U.parameters_to_vector(lin.parameters())
        put("p2v", vec)
        out["p2v.stop_gradient"] = np.array(vec.stop_gradient)
        U.vector_to_parameters(T(np.arange(9) * 0.5, "float32"), lin.parameters())
        put("v2p.w", lin.weight)
        put("v2p.b", lin.bias)
        err("v2p.short", lambda: U.vector_to_parameters(T(np.arange(4), "float32"), lin.parameters()))
        # -- clip_grad_norm_ / clip_grad_value_
        for norm in (2.0, 1, float("inf"), 0):
            a, b = T(rng.standard_normal((3, 2)), "float32", True), T(rng.standard_normal(4), "float32", True)
            ((a * a).sum() * 3 + (b ** 3).sum()).backward()
            put(f"clipnorm.{norm}.total", U.clip_grad_norm_([a, b], max_norm=1.5, norm_type=norm))
            put(f"clipnorm.{norm}.a", a.grad)
            put(f"clipnorm.{norm}.b", b.grad)
        a = T(rng.standard_normal((3, 2)), "float32", True)
        (a * 5).sum().backward()
        put("clipnorm.big", U.clip_grad_norm_(a, max_norm=100.0))
        put("clipnorm.big.a", a.grad)
        err("clipnorm.type3", lambda: U.clip_grad_norm_([a], 1.0, norm_type=3))
        U.clip_grad_value_([a], 0.5)
        put("clipvalue", a.grad)
        # -- Bilinear / Dirac initializers
        I = paddle.nn.initializer
        for dt in ("float32", "float64"):
            put(f"init.bilinear.{dt}", paddle.create_parameter([2, 3, 4, 4], dt, default_initializer=I.Bilinear()))
            put(f"init.bilinear5.{dt}", paddle.create_parameter([1, 2, 5, 5], dt, default_initializer=I.Bilinear()))
        put("init.dirac.conv2d", paddle.create_parameter([4, 2, 3, 3], "float32", default_initializer=I.Dirac()))
        put("init.dirac.groups", paddle.create_parameter([6, 2, 3, 3], "float32", default_initializer=I.Dirac(3)))
        put("init.dirac.conv1d", paddle.create_parameter([2, 5, 3], "float64", default_initializer=I.Dirac()))
        put("init.dirac.conv3d", paddle.create_parameter([3, 3, 2, 3, 2], "float32", default_initializer=I.Dirac()))
        err("init.bilinear.rank", lambda: paddle.create_parameter([2, 3, 4], "float32",
                                                                  default_initializer=I.Bilinear()))
        err("init.dirac.rank", lambda: paddle.create_parameter([2, 3], "float32", default_initializer=I.Dirac()))
        # -- paddle.geometric
        G = paddle.geometric
        data = rng.standard_normal((6, 3))
        data[1] = data[0]           # ties: every row attaining the extreme gets the gradient
        seg = np.array([0, 0, 1, 3, 3, 3])
        for op in ("sum", "mean", "max", "min"):
            for idt in ("int32", "int64"):
                d = T(data, "float64", True)
                res = getattr(G, "segment_" + op)(d, T(seg, idt))
                put(f"segment.{op}.{idt}", res)
                if idt == "int64":
                    grads_of(f"segment.{op}", res, [d])
            put(f"segment.{op}.int", getattr(G, "segment_" + op)(T(np.arange(12).reshape(6, 2), "int64"),
                                                                   T(seg, "int32")))
            put(f"segment.{op}.f32", getattr(G, "segment_" + op)(T(data, "float32"), T(seg, "int64")))
        err("segment.unsorted", lambda: G.segment_sum(T(data), T([1, 0, 1, 2, 2, 2], "int64")))
        x = rng.standard_normal((4, 3))
        src, dst = np.array([0, 1, 2, 0, 3, 1]), np.array([1, 2, 1, 0, 0, 1])
        e = rng.standard_normal((6, 3))
        for op in ("sum", "mean", "max", "min"):
            xt = T(x, "float64", True)
            res = G.send_u_recv(xt, T(src, "int64"), T(dst, "int64"), reduce_op=op)
            put(f"send_u_recv.{op}", res)
            grads_of(f"send_u_recv.{op}", res, [xt])
            put(f"send_u_recv.{op}.size", G.send_u_recv(T(x), T(src, "int32"), T(dst, "int32"), op, out_size=6))
            for mop in ("add", "sub", "mul", "div"):
                xt, et = T(x, "float64", True), T(e, "float64", True)
                res = G.send_ue_recv(xt, et, T(src, "int64"), T(dst, "int64"), mop, op)
                put(f"send_ue_recv.{mop}.{op}", res)
                grads_of(f"send_ue_recv.{mop}.{op}", res, [xt, et])
        put("send_ue_recv.bcast", G.send_ue_recv(T(x), T(e[:, :1]), T(src, "int64"), T(dst, "int64"), "mul", "sum",
                                                 out_size=3))
        put("send_u_recv.int", G.send_u_recv(T(np.arange(8).reshape(4, 2), "int32"), T(src, "int64"),
                                             T(dst, "int64"), "max"))
        for mop in ("add", "sub", "mul", "div"):
            xt, yt = T(x, "float64", True), T(x[::-1] + 3, "float64", True)
            res = G.send_uv(xt, yt, T(src, "int64"), T(dst, "int64"), mop)
            put(f"send_uv.{mop}", res)
            grads_of(f"send_uv.{mop}", res, [xt, yt])
        err("send_u_recv.badop", lambda: G.send_u_recv(T(x), T(src, "int64"), T(dst, "int64"), "prod"))
        err("send_uv.badop", lambda: G.send_uv(T(x), T(x), T(src, "int64"), T(dst, "int64"), "pow"))
        nodes = T([0, 1, 2], "int64")
        nb, cnt = T([8, 9, 0, 4, 7, 6, 7], "int64"), T([2, 3, 2], "int32")
        put("reindex", G.reindex_graph(nodes, nb, cnt))
        put("reindex.i32", G.reindex_graph(T([4, 1], "int32"), T([1, 5, 4, 9], "int32"), T([1, 3], "int32")))
        put("reindex_heter", G.reindex_heter_graph(nodes, [nb, T([0, 2, 3, 5, 1], "int64")],
                                                   [cnt, T([1, 3, 1], "int32")]))
        row = np.array([3, 7, 0, 9, 1, 4, 2, 9, 3, 9, 1, 9, 7])
        colptr = np.array([0, 2, 4, 5, 6, 7, 9, 11, 11, 13, 13])
        query = np.array([0, 8, 1, 2, 5, 6])
        w = np.linspace(0.1, 2.0, 13)
        eids = np.arange(13) * 10
        for k in (1, 2, 5):
            for weighted in (False, True):
                args = (T(row, "int64"), T(colptr, "int64"))
                if weighted:
                    res = G.weighted_sample_neighbors(*args, T(w, "float32"), T(query, "int64"), sample_size=k,
                                                      eids=T(eids, "int64"), return_eids=True)
                else:
                    res = G.sample_neighbors(*args, T(query, "int64"), sample_size=k, eids=T(eids, "int64"),
                                             return_eids=True)
                nbr, count, got_eids = (r.numpy() for r in res)
                tag = f"sample.{int(weighted)}.{k}"
                out[tag + ".count"] = count
                out[tag + ".dtypes"] = np.array(f"{nbr.dtype},{count.dtype},{got_eids.dtype}")
                ok, pos = True, 0
                for q, c in zip(query, count):
                    lo, hi = colptr[q], colptr[q + 1]
                    picked = got_eids[pos:pos + c] // 10
                    ok &= len(set(picked.tolist())) == c and all(lo <= p < hi for p in picked)
                    ok &= bool(np.array_equal(nbr[pos:pos + c], row[picked]))
                    pos += c
                out[tag + ".valid"] = np.array(bool(ok) and pos == len(nbr))
        err("sample.no_eids", lambda: G.sample_neighbors(T(row, "int64"), T(colptr, "int64"), T(query, "int64"),
                                                         sample_size=2, return_eids=True))
        # -- paddle.device / paddle.device.cuda on a CPU build
        D = paddle.device
        out["device.get"] = np.array(D.get_device())
        out["device.flags"] = np.array([D.is_compiled_with_cuda(), D.is_compiled_with_xpu(), D.is_compiled_with_rocm(),
                                        D.is_compiled_with_ipu(), D.is_compiled_with_cinn(),
                                        D.is_compiled_with_custom_device("npu"), D.is_available(),
                                        D.is_current_stream_capturing()])
        out["device.counts"] = np.array([D.device_count(), D.cuda.device_count(),
                                         len(D.get_all_device_type()), len(D.get_all_custom_device_type()),
                                         len(D.get_available_device()), len(D.get_available_custom_device())])
        out["device.cudnn"] = np.array(str(D.get_cudnn_version()))
        out["device.set"] = np.array(repr(D.set_device("cpu")) + repr(D.set_device(paddle.CPUPlace())))
        out["device.tensor_of"] = np.array(D.get_device(T([1.0])))
        out["device.cuda.empty_cache"] = np.array(str(D.cuda.empty_cache()))
        for fac in ("FloatTensor", "DoubleTensor", "HalfTensor", "ByteTensor", "CharTensor", "ShortTensor",
                    "IntTensor", "LongTensor", "BoolTensor"):
            put("device." + fac, getattr(D, fac)([1, 0, 2]))
        put("device.FloatTensor.sizes", paddle.to_tensor(getattr(D, "FloatTensor")(2, 3).shape))
        with D.device_guard("cpu"):
            put("device.guarded", paddle.ones([2]))
        with D.device("cpu") as entered:
            out["device.ctx"] = np.array(repr(entered) + repr(D.device("cpu").place))
        with D.stream_guard(None):
            out["device.stream_guard"] = np.array("ran")
        D.manual_seed(5)
        err("device.set_gpu", lambda: D.set_device("gpu"))
        err("device.set_gpu0", lambda: D.set_device("gpu:0"))
        err("device.set_xpu", lambda: D.set_device("xpu"))
        err("device.set_bad", lambda: D.set_device("tpu"))
        err("device.set_index", lambda: D.set_device(1))
        err("device.guard_gpu", lambda: D.device_guard("gpu"))
        err("device.guard_int", lambda: D.device_guard(3))
        err("device.xpu_place", lambda: D.XPUPlace(0))
        err("device.synchronize", lambda: D.synchronize())
        err("device.current_stream", lambda: D.current_stream())
        err("device.max_mem", lambda: D.max_memory_allocated())
        err("device.reset_peak", lambda: D.reset_peak_memory_stats())
        err("device.ipc_collect", lambda: D.ipc_collect())
        err("cuda.stream", lambda: D.cuda.Stream())
        err("cuda.event", lambda: D.cuda.Event())
        err("cuda.synchronize", lambda: D.cuda.synchronize())
        for fn in ("max_memory_allocated", "max_memory_reserved", "memory_allocated", "memory_reserved",
                   "get_device_properties", "get_device_name", "get_device_capability", "reset_max_memory_allocated",
                   "vmm_compact"):
            err("cuda." + fn, lambda fn=fn: getattr(D.cuda, fn)())
        # -- paddle.distributed on one process
        dist = paddle.distributed
        env = dist.ParallelEnv()
        out["dist.env"] = np.array([dist.get_rank(), dist.get_world_size(), env.rank, env.world_size, env.nranks,
                                    env.local_rank, int(dist.is_initialized()), int(dist.is_available())])
        out["dist.endpoints"] = np.array(repr((env.current_endpoint, env.trainer_endpoints)))
        out["dist.init"] = np.array(str(dist.init_parallel_env()))
        out["dist.reduceop"] = np.array([dist.ReduceOp.SUM, dist.ReduceOp.MAX, dist.ReduceOp.MIN, dist.ReduceOp.PROD,
                                         dist.ReduceOp.AVG])
        out["dist.group"] = np.array(str(dist.get_group()))
        t = T([1.0, 2.0], "float32")
        for name, fn in (("barrier", lambda: dist.barrier()), ("all_reduce", lambda: dist.all_reduce(t)),
                         ("all_gather", lambda: dist.all_gather([], t)), ("broadcast", lambda: dist.broadcast(t, 0)),
                         ("reduce", lambda: dist.reduce(t, 0)), ("scatter", lambda: dist.scatter(t, [t], 0))):
            err("dist." + name, fn)
        model = paddle.nn.Sequential(paddle.nn.Linear(2, 3), paddle.nn.ReLU(), paddle.nn.Linear(3, 1))
        for i, p in enumerate(model.parameters()):
            p.set_value(np.linspace(-1, 1, int(np.prod(p.shape))).reshape(p.shape).astype("float32") * (i + 1))
        dp = paddle.DataParallel(model)
        out["dp.is_dist"] = np.array(dp._layers is model and isinstance(dp, paddle.nn.Layer)
                                     and paddle.DataParallel is dist.DataParallel)
        keys("dp.state_dict", dp.state_dict())
        keys("dp.named_parameters", [n for n, _ in dp.named_parameters()])
        keys("dp.sublayers", [n for n, _ in dp.named_sublayers()])
        xin = T([[0.5, -1.0], [2.0, 0.25]], "float32")
        y = dp(xin)
        put("dp.forward", y)
        y.sum().backward()
        put("dp.grad", model[0].weight.grad)
        with dp.no_sync():
            out["dp.no_sync"] = np.array(dp.grad_need_sync)
        dp.set_state_dict({k: v * 2 for k, v in model.state_dict().items()})
        put("dp.loaded", model[2].weight)
        fleet = paddle.distributed.fleet      # (an import statement would load real Paddle in our process)
        fleet.init(is_collective=True)
        opt = paddle.optimizer.SGD(parameters=model.parameters())
        out["fleet.opt"] = np.array(fleet.distributed_optimizer(opt) is opt)
        out["fleet.workers"] = np.array([fleet.worker_index(), fleet.worker_num()])
        return out
'''))

PADDLE_MAIN = textwrap.dedent('''
    import json
    paddle.set_device("cpu")
    res = compute(paddle)
    np.savez("paddle_out.npz", **res)
    json.dump({k: str(v.dtype) for k, v in res.items()}, open("dtypes.json", "w"))

    # paddle.static.nn: Paddle's own parameter names and shapes, Paddle's row_conv, and our saved model
    paddle.enable_static()
    S = paddle.static
    spec = json.load(open("static_spec.json"))
    main, start = S.Program(), S.Program()
    with S.program_guard(main, start):
        build_layers(paddle, S)
    params = [[p.name, list(p.shape)] for p in main.global_block().all_parameters()]
    main, start = S.Program(), S.Program()
    seq = np.load("seq.npy")
    with S.program_guard(main, start):
        s = S.data("seq", list(seq.shape), "float32")
        rc = S.nn.row_conv(s, 2, param_attr=paddle.ParamAttr(
            initializer=paddle.nn.initializer.Assign(np.load("row_w.npy"))), act="tanh")
    exe = S.Executor()
    exe.run(start)
    row_conv_out = exe.run(main, feed={"seq": seq}, fetch_list=[rc])[0]
    nce_out = build_nce(paddle, S, exe)
    prog, feeds, fetches = S.load_inference_model("ours/model", exe)
    inputs = {n: np.load(f"feed_{n}.npy") for n in spec["feeds"]}
    loaded = exe.run(prog, feed=inputs, fetch_list=fetches)
    np.savez("static_out.npz", row_conv=row_conv_out, nce_cost=nce_out[0], nce_grad=nce_out[1],
             **{f"out{i}": v for i, v in enumerate(loaded)})
    json.dump({"params": params, "feeds": feeds}, open("static_meta.json", "w"))
''')

# the layers built in both frameworks (through the module given as ``paddle``), in static mode
BUILD = textwrap.dedent('''
    import numpy as np


    def build_layers(paddle, S):
        nn = S.nn
        x = S.data("x", [2, 3, 8, 8], "float64")
        x3 = S.data("x3", [2, 3, 4, 4, 4], "float64")
        ids = S.data("ids", [2, 5], "int64")
        f = S.data("f", [2, 4], "float64")
        off = S.data("off", [2, 18, 8, 8], "float64")
        mask = S.data("m", [2, 9, 8, 8], "float64")
        seq = S.data("seq", [2, 5, 4], "float32")
        outs = [nn.conv2d(x, 4, 3, act="relu", padding=1),
                nn.conv2d(x, 6, [3, 1], stride=2, groups=3, padding="SAME", bias_attr=False),
                nn.conv2d(x, 3, 3, groups=3, use_cudnn=False, name="dw", act="tanh"),   # depthwise_conv2d
                nn.conv2d_transpose(x, 2, filter_size=3, stride=2),
                nn.conv2d_transpose(x, 2, output_size=[10, 10]),
                nn.conv3d(x3, 2, 3, padding=1),
                nn.conv3d_transpose(x3, 2, output_size=5),
                nn.batch_norm(x, is_test=True),
                nn.group_norm(x, 3, param_attr=paddle.ParamAttr(initializer=paddle.nn.initializer.Constant(1.5)),
                              bias_attr=paddle.ParamAttr(initializer=paddle.nn.initializer.Constant(0.5))),
                nn.instance_norm(x),
                nn.layer_norm(x, begin_norm_axis=2, act="sigmoid"),
                nn.prelu(x, "channel"), nn.prelu(x, "element"), nn.prelu(x, "all"),
                nn.embedding(ids, (10, 4), padding_idx=3),
                nn.bilinear_tensor_product(f, f, 3, act="tanh"),
                nn.spectral_norm(paddle.static.create_parameter([4, 6], "float64"), dim=1, power_iters=3),
                nn.deform_conv2d(x, off, mask, 2, 3, padding=1),
                nn.deform_conv2d(x, off, None, 2, 3, padding=1, bias_attr=False),
                nn.row_conv(seq, 1, act="relu"),
                nn.fc(f, 3, activation="relu")]
        return [x, x3, ids, f, off, mask, seq], outs

    def build_nce(paddle, S, exe):
        # constant weight rows and bias: with the uniform sampler the cost does not depend on which negatives
        # are drawn, so the two frameworks' different random streams give the same values
        C = paddle.nn.initializer.Constant
        outs = []
        for sampler, seed in (("uniform", 1), ("uniform", 0)):
            main, start = S.Program(), S.Program()
            with S.program_guard(main, start):
                x = S.data("nx", [-1, 3], "float64")
                x.stop_gradient = False
                cost = S.nn.nce(x, S.data("nl", [-1, 2], "int64"), 7, sample_weight=S.data("nw", [-1, 1], "float64"),
                                num_neg_samples=3, sampler=sampler, seed=seed, param_attr=paddle.ParamAttr(
                                    initializer=C(0.3)), bias_attr=paddle.ParamAttr(initializer=C(0.1)))
                grad = S.gradients([cost], [x])[0]
            exe.run(start)
            feed = {"nx": np.linspace(-1, 1, 12).reshape(4, 3), "nl": np.array([[0, 3], [6, 6], [1, 2], [5, 0]]),
                    "nw": np.array([[1.0], [0.5], [2.0], [1.5]])}
            outs.append(exe.run(main, feed=feed, fetch_list=[cost, grad]))
        return np.stack([o[0] for o in outs]), np.stack([o[1] for o in outs])
''')


@pytest.fixture(scope="module")
def both(tmp_path_factory):
    """Our static.nn model saved, then ONE Paddle run of everything; (ours, theirs, dtypes, static results)."""
    from .paddle_runner import run_paddle
    import dy2st
    work = tmp_path_factory.mktemp("module_surface")
    rng = np.random.default_rng(1)
    feeds = {"x": rng.standard_normal((2, 3, 8, 8)), "x3": rng.standard_normal((2, 3, 4, 4, 4)),
             "ids": rng.integers(0, 10, (2, 5)), "f": rng.standard_normal((2, 4)),
             "off": rng.standard_normal((2, 18, 8, 8)) * 0.5, "m": rng.uniform(0, 1, (2, 9, 8, 8)),
             "seq": rng.standard_normal((2, 5, 4)).astype("float32")}
    ns = {}
    exec(compile(BUILD, "<build_layers>", "exec"), ns)
    S = dy2st.static
    dy2st.enable_static()
    names = dy2st.utils.unique_name.guard()      # Paddle's counters start at 0 in its fresh process
    names.__enter__()
    try:
        main, start = S.Program(), S.Program()
        with S.program_guard(main, start):
            data, outs = ns["build_layers"](dy2st, S)
        exe = S.Executor()
        with S.scope_guard(S.Scope()):
            exe.run(start)
            ours_static = exe.run(main, feed=feeds, fetch_list=outs)
            S.save_inference_model(str(work / "ours" / "model"), data, outs, exe, program=main)
        our_params = [[p.name, list(p.shape)] for p in main.global_block().all_parameters()]
        # ours row_conv on the same fixed weights as Paddle's
        main, start = S.Program(), S.Program()
        seq, row_w = feeds["seq"], rng.standard_normal((3, 4)).astype("float32")
        with S.program_guard(main, start):
            s = S.data("seq", list(seq.shape), "float32")
            rc = S.nn.row_conv(s, 2, param_attr=dy2st.ParamAttr(initializer=dy2st.nn.initializer.Assign(row_w)),
                               act="tanh")
        with S.scope_guard(S.Scope()):
            exe.run(start)
            our_row_conv = exe.run(main, feed={"seq": seq}, fetch_list=[rc])[0]
        with S.scope_guard(S.Scope()):
            our_nce = ns["build_nce"](dy2st, S, exe)
    finally:
        names.__exit__(None, None, None)
        dy2st.disable_static()
    for n, v in feeds.items():
        np.save(work / f"feed_{n}.npy", v)
    np.save(work / "seq.npy", seq)
    np.save(work / "row_w.npy", row_w)
    (work / "static_spec.json").write_text(json.dumps({"feeds": list(feeds)}))
    proc = run_paddle(CODE + BUILD + PADDLE_MAIN, work)
    assert proc.returncode == 0, proc.stderr[-4000:]
    theirs = dict(np.load(work / "paddle_out.npz", allow_pickle=False))
    dtypes = json.loads((work / "dtypes.json").read_text())
    code_ns = {}
    exec(compile(CODE, "<module surface interop code>", "exec"), code_ns)
    ours = code_ns["compute"](dy2st)
    static_theirs = dict(np.load(work / "static_out.npz", allow_pickle=False))
    meta = json.loads((work / "static_meta.json").read_text())
    return ours, theirs, dtypes, {"ours": ours_static, "our_params": our_params, "our_row_conv": our_row_conv,
                                  "our_nce": our_nce,
                                  "theirs": static_theirs, "meta": meta}


def test_same_results(both):
    ours, theirs, dtypes, _ = both
    assert_same_as_paddle(ours, theirs, dtypes, double_tol=1e-9)


def test_static_nn_parameter_names_match_paddles(both):
    static = both[3]
    assert static["our_params"] == static["meta"]["params"]


def test_paddle_runs_our_static_nn_program(both):
    static = both[3]
    assert static["meta"]["feeds"] == ["x", "x3", "ids", "f", "off", "m", "seq"]
    for i, want in enumerate(static["ours"]):
        got = static["theirs"][f"out{i}"]
        assert got.shape == want.shape, f"output {i}"
        tol = 1e-5 if want.dtype == np.float32 else 1e-9
        np.testing.assert_allclose(got, want, rtol=tol, atol=tol, err_msg=f"output {i}")


def test_row_conv_matches_paddles_op(both):
    static = both[3]
    np.testing.assert_allclose(static["our_row_conv"], static["theirs"]["row_conv"], rtol=1e-6, atol=1e-6)


def test_nce_matches_paddles_formula(both):
    static = both[3]
    np.testing.assert_allclose(static["our_nce"][0], static["theirs"]["nce_cost"], rtol=1e-7)
    np.testing.assert_allclose(static["our_nce"][1], static["theirs"]["nce_grad"], rtol=1e-7)
