"""Differential test of paddle.vision.ops (the detection operators) against real Paddle 3.3.1.

One script (``CODE``) calls every function and layer of paddle.vision.ops on fixed inputs through
whichever module it is given as ``paddle``: once in real Paddle (one subprocess) and once with
``import dy2st as paddle``. Values, dtypes and shapes are compared (float32 to 1e-5, float64 to
1e-10), gradients of a random weighting of each differentiable output too, and errors by type.
A last test saves a static program using roi_align, roi_pool, psroi_pool, box_coder, prior_box and
yolo_box and checks that real Paddle runs it to our values.
"""
import textwrap

import numpy as np
import pytest

from .diff_prelude import assert_same_as_paddle, with_helpers

CODE = with_helpers(textwrap.dedent('''
    import numpy as np

    def compute(paddle):
        V = paddle.vision.ops
        rng = np.random.default_rng(5)
        out = {}
        h = diff_helpers(paddle, out, err_prefix="err.")
        T, put, err = h.T, h.put, h.err

        def grad(name, fn, x, dt="float64"):
            xt = T(x, dt, grad=True)
            res = fn(xt)
            put(name, res)
            w = np.random.default_rng(0).standard_normal(res.shape).astype(dt)
            (res * paddle.to_tensor(w)).sum().backward()
            put(name + ".grad", xt.grad)

        # -- roi_align / roi_pool / psroi_pool
        x = rng.uniform(-1, 1, (2, 8, 9, 10))
        boxes = np.array([[0.5, 1.2, 6.3, 7.9], [2.0, 0.0, 9.5, 4.4], [-1.5, -0.7, 3.2, 2.6],
                          [1.1, 2.2, 1.3, 2.4], [3.7, 3.1, 11.0, 10.5]])
        bn = np.array([2, 3], "int32")
        for dt in ("float32", "float64"):
            for aligned in (True, False):
                for sr in (-1, 2):
                    for scale in (1.0, 0.5):
                        put(f"roi_align.{dt}.{aligned}.{sr}.{scale}",
                            V.roi_align(T(x, dt), T(boxes, dt), T(bn, "int32"), (3, 2), scale, sr, aligned))
            put(f"roi_pool.{dt}", V.roi_pool(T(x, dt), T(boxes, dt), T(bn, "int32"), 3))
            put(f"roi_pool.{dt}.scaled", V.roi_pool(T(x, dt), T(boxes, dt), T(bn, "int32"), (2, 4), 0.6))
            put(f"psroi_pool.{dt}", V.psroi_pool(T(x, dt), T(boxes, dt), T(bn, "int32"), 2))
            put(f"psroi_pool.{dt}.scaled", V.psroi_pool(T(x, dt), T(boxes, dt), T(bn, "int32"), (1, 2), 0.7))
        put("layer.RoIAlign", V.RoIAlign((2, 3), 0.8)(T(x), T(boxes), T(bn, "int32")))
        put("layer.RoIAlign.unaligned", V.RoIAlign(2)(T(x), T(boxes), T(bn, "int32"), aligned=False))
        put("layer.RoIPool", V.RoIPool(2, 0.9)(T(x), T(boxes), T(bn, "int32")))
        put("layer.PSRoIPool", V.PSRoIPool(2, 1.1)(T(x), T(boxes), T(bn, "int32")))
        # Paddle's roi_align_grad clamps an aligned box's size to >= 1 where its forward does not (so its
        # gradient of box 3, 0.2 wide, is not the derivative of its output): the gradient case skips that box
        wide, wn = boxes[[0, 1, 2, 4]], np.array([2, 2], "int32")
        grad("grad.roi_align", lambda t: V.roi_align(t, T(wide), T(wn, "int32"), 2, sampling_ratio=2), x)
        grad("grad.roi_align.adaptive", lambda t: V.roi_align(t, T(boxes), T(bn, "int32"), (3, 2), 0.7,
                                                              aligned=False), x)
        grad("grad.roi_pool", lambda t: V.roi_pool(t, T(boxes), T(bn, "int32"), 2), x)
        grad("grad.psroi_pool", lambda t: V.psroi_pool(t, T(boxes), T(bn, "int32"), 2, 0.8), x)
        err("roi_align_batch", lambda: V.roi_align(T(x), T(boxes), T([5], "int32"), 2))
        put("roi_align.list_size", V.roi_align(T(x), T(boxes), T(bn, "int32"), [2, 2]))
        err("roi_align_size3", lambda: V.roi_align(T(x), T(boxes), T(bn, "int32"), (2, 2, 2)))
        err("psroi_channels", lambda: V.psroi_pool(T(x), T(boxes), T(bn, "int32"), 3))
        err("roi_align_no_num", lambda: V.roi_align(T(x), T(boxes), None, 2))
        err("roi_pool_no_num", lambda: V.roi_pool(T(x), T(boxes), None, 2))
        err("psroi_zero_size", lambda: V.psroi_pool(T(x), T(boxes), T(bn, "int32"), (0, 2)))
        err("psroi_3d", lambda: V.psroi_pool(T(x[0]), T(boxes), T(bn, "int32"), 2))
        err("psroi_one_channel", lambda: V.psroi_pool(T(x[:, :4]), T(boxes), T(bn, "int32"), 2))

        # -- box_coder
        prior = np.array([[0.1, 0.1, 0.5, 0.6], [0.2, 0.3, 0.9, 0.8], [0.0, 0.4, 0.3, 0.9]])
        pvar = np.array([[0.1, 0.1, 0.2, 0.2], [0.2, 0.1, 0.3, 0.2], [0.1, 0.3, 0.2, 0.1]])
        target = np.array([[0.15, 0.2, 0.45, 0.7], [0.3, 0.2, 0.8, 0.9]])
        deltas = rng.uniform(-0.5, 0.5, (2, 3, 4))
        for dt in ("float32", "float64"):
            for norm in (True, False):
                put(f"box_coder.enc.var.{dt}.{norm}", V.box_coder(T(prior, dt), T(pvar, dt), T(target, dt),
                                                                  box_normalized=norm))
                put(f"box_coder.dec0.var.{dt}.{norm}", V.box_coder(T(prior, dt), T(pvar, dt), T(deltas, dt),
                                                                   "decode_center_size", norm, axis=0))
                put(f"box_coder.dec1.var.{dt}.{norm}", V.box_coder(T(prior[:2], dt), T(pvar[:2], dt),
                                                                   T(deltas, dt), "decode_center_size", norm, axis=1))
            put(f"box_coder.enc.list.{dt}", V.box_coder(T(prior, dt), [0.1, 0.2, 0.1, 0.2], T(target, dt)))
        # Paddle's CPU decode reads a variance list through a double pointer for float64 (garbage): float32 only
        put("box_coder.dec0.list", V.box_coder(T(prior, "float32"), [0.1, 0.2, 0.3, 0.4], T(deltas, "float32"),
                                              "decode_center_size", axis=0))
        put("box_coder.dec1.list", V.box_coder(T(prior[:2], "float32"), (0.2, 0.1, 0.2, 0.1),
                                              T(deltas, "float32"), "decode_center_size", False, 1))
        err("box_coder_var_type", lambda: V.box_coder(T(prior), 0.1, T(target)))

        # -- prior_box
        feat, image = T(np.zeros((1, 2, 3, 4)), "float32"), T(np.zeros((1, 3, 30, 36)), "float32")
        put("prior_box.basic", V.prior_box(feat, image, [4.0]))
        put("prior_box.full", V.prior_box(feat, image, [4.0, 9.0], [8.0, 12.0], [1.0, 2.0, 0.5, 3.0],
                                          flip=True, clip=True))
        put("prior_box.order", V.prior_box(feat, image, [5.0, 10.0], [9.0, 20.0], [2.0, 3.0], flip=True,
                                           min_max_aspect_ratios_order=True))
        put("prior_box.steps", V.prior_box(T(np.zeros((1, 2, 3, 4))), T(np.zeros((1, 3, 30, 36))), 6.0,
                                           aspect_ratios=2.0, variance=[0.1, 0.1, 0.1, 0.1], steps=[8.0, 9.0],
                                           offset=0.3))

        # -- yolo_box
        an = [10, 13, 16, 30, 33, 23]
        xy = rng.uniform(-2, 2, (2, 3 * 7, 4, 5))
        img = np.array([[40, 50], [33, 61]], "int32")
        for dt in ("float32", "float64"):
            put(f"yolo_box.{dt}", V.yolo_box(T(xy, dt), T(img, "int32"), an, 2, 0.3, 8))
            put(f"yolo_box.noclip.{dt}", V.yolo_box(T(xy, dt), T(img, "int32"), an, 2, 0.5, 8, clip_bbox=False,
                                                    scale_x_y=1.2))
            xi = rng.uniform(-2, 2, (2, 3 * 8, 4, 5))
            put(f"yolo_box.iou_aware.{dt}", V.yolo_box(T(xi, dt), T(img, "int32"), an, 2, 0.2, 16,
                                                       iou_aware=True, iou_aware_factor=0.3))
        err("yolo_box_channels", lambda: V.yolo_box(T(xy), T(img, "int32"), an, 3, 0.1, 8))

        # -- nms: thresholds, ties, scores, categories, top_k
        nb = np.array([[0, 0, 10, 10], [1, 1, 11, 11], [0, 0, 10, 10], [20, 20, 30, 30], [21, 19, 29, 31],
                       [5, 5, 15, 15], [0, 0, 5, 10]], "float32")
        for th in (0.0, 0.3, 0.5, 1 / 3, 0.7, 1.0):
            put(f"nms.plain.{th}", V.nms(T(nb, "float32"), th))
        sc = np.array([0.9, 0.8, 0.9, 0.3, 0.6, 0.75, 0.5], "float32")
        put("nms.scores", V.nms(T(nb, "float32"), 0.4, T(sc, "float32")))
        put("nms.f64", V.nms(T(nb), 0.2, T(sc)))
        cats = np.array([0, 1, 0, 1, 1, 2, 0], "int64")
        put("nms.categories", V.nms(T(nb, "float32"), 0.4, T(sc, "float32"), T(cats, "int64"), [0, 1, 2]))
        put("nms.top_k", V.nms(T(nb, "float32"), 0.4, T(sc, "float32"), T(cats, "int64"), [0, 1, 2, 3], top_k=3))
        put("nms.empty_cat", V.nms(T(nb, "float32"), 0.4, T(sc, "float32"), T(cats, "int64"), [5, 6]))
        err("nms_top_k", lambda: V.nms(T(nb, "float32"), 0.4, T(sc, "float32"), T(cats, "int64"), [0], top_k=9))
        err("nms_no_categories", lambda: V.nms(T(nb, "float32"), 0.4, T(sc, "float32"), T(cats, "int64")))

        # -- matrix_nms: linear and gaussian decay, thresholds, background, top-k, normalized
        mb = rng.uniform(0, 10, (2, 6, 4))
        mb[..., 2:] = mb[..., :2] + rng.uniform(1, 6, (2, 6, 2))
        ms = rng.uniform(0, 1, (2, 3, 6))
        for dt in ("float32", "float64"):
            for gauss in (False, True):
                put(f"matrix_nms.{dt}.{gauss}", V.matrix_nms(T(mb, dt), T(ms, dt), 0.1, 0.05, -1, -1,
                                                             use_gaussian=gauss, return_index=True))
            put(f"matrix_nms.topk.{dt}", V.matrix_nms(T(mb, dt), T(ms, dt), 0.2, 0.3, 3, 4, use_gaussian=True,
                                                      gaussian_sigma=0.5, background_label=-1, normalized=False,
                                                      return_index=True))
            put(f"matrix_nms.bg1.{dt}", V.matrix_nms(T(mb, dt), T(ms, dt), 0.3, 0.1, 4, 5, background_label=1,
                                                     return_rois_num=False))
        put("matrix_nms.none_kept", V.matrix_nms(T(mb), T(ms * 0.01), 0.5, 0.1, -1, -1, return_index=True))

        # -- generate_proposals: pixel_offset both ways, pre/post top-n, eta
        A, H, W = 3, 4, 5
        gs = rng.uniform(0, 1, (2, A, H, W)).astype("float32")
        gd = rng.uniform(-0.6, 0.6, (2, 4 * A, H, W)).astype("float32")
        cyx = np.stack(np.meshgrid(np.arange(H) * 8.0, np.arange(W) * 8.0, indexing="ij"), -1)
        sizes = np.array([[8, 8], [16, 10], [10, 20]], "float32")
        ga = np.concatenate([cyx[:, :, None, ::-1] - sizes / 2, cyx[:, :, None, ::-1] + sizes / 2], -1)
        ga = ga.astype("float32")
        gv = np.full((H, W, A, 4), 1.0, "float32")
        gv[..., 2:] = 0.5
        gi = np.array([[30, 36], [28, 40]], "float32")
        for po in (False, True):
            put(f"generate_proposals.{po}", V.generate_proposals(T(gs, "float32"), T(gd, "float32"),
                                                                 T(gi, "float32"), T(ga, "float32"),
                                                                 T(gv, "float32"), pre_nms_top_n=40,
                                                                 post_nms_top_n=12, nms_thresh=0.5, min_size=2.0,
                                                                 pixel_offset=po, return_rois_num=True))
        put("generate_proposals.eta", V.generate_proposals(T(gs, "float32"), T(gd, "float32"), T(gi, "float32"),
                                                           T(ga, "float32"), T(gv, "float32"), 1000, 1000, 0.8,
                                                           0.1, 0.7, return_rois_num=True))
        put("generate_proposals.f64", V.generate_proposals(T(gs), T(gd), T(gi), T(ga), T(gv), 30, 10, 0.6,
                                                           return_rois_num=True))
        err("generate_proposals_no_num", lambda: V.generate_proposals(T(gs, "float32"), T(gd, "float32"),
                                                                      T(gi, "float32"), T(ga, "float32"),
                                                                      T(gv, "float32")))

        # -- distribute_fpn_proposals
        fr = np.array([[0, 0, 10, 10], [5, 5, 200, 180], [0, 0, 60, 50], [10, 20, 500, 400], [3, 3, 4, 4],
                       [0, 0, 111, 111], [7, 2, 90, 300]], "float32")
        for po in (False, True):
            for dt in ("float32", "float64"):
                put(f"distribute_fpn.{po}.{dt}", V.distribute_fpn_proposals(T(fr, dt), 2, 5, 4, 224, po,
                                                                            T([3, 4], "int32")))
        put("distribute_fpn.levels", V.distribute_fpn_proposals(T(fr, "float32"), 1, 3, 2, 56,
                                                                rois_num=T([7], "int32")))
        err("distribute_fpn_levels", lambda: V.distribute_fpn_proposals(T(fr), 2, 2, 2, 224, rois_num=T([7], "int32")))
        err("distribute_fpn_no_num", lambda: V.distribute_fpn_proposals(T(fr), 2, 5, 4, 224))

        # -- deform_conv2d / DeformConv2D: v1 and v2 (mask), groups, deformable groups, stride/padding/dilation
        xd = rng.uniform(-1, 1, (2, 4, 6, 7))
        wd = rng.uniform(-0.5, 0.5, (6, 2, 3, 2))
        bd = rng.uniform(-0.5, 0.5, (6,))
        od = rng.uniform(-1.5, 1.5, (2, 2 * 2 * 6, 4, 3))
        md = rng.uniform(0, 1, (2, 2 * 6, 4, 3))
        kw = dict(stride=(1, 2), padding=(1, 0), dilation=(2, 1), deformable_groups=2, groups=2)
        for dt in ("float32", "float64"):
            put(f"deform_conv2d.v2.{dt}", V.deform_conv2d(T(xd, dt), T(od, dt), T(wd, dt), T(bd, dt), mask=T(md, dt),
                                                          **kw))
            put(f"deform_conv2d.v1.{dt}", V.deform_conv2d(T(xd, dt), T(od, dt), T(wd, dt), **kw))
        ts = [T(a, grad=True) for a in (xd, od, wd, bd, md)]
        res = V.deform_conv2d(ts[0], ts[1], ts[2], ts[3], mask=ts[4], **kw)
        put("grad.deform_conv2d", res)
        (res * T(np.random.default_rng(1).standard_normal(res.shape))).sum().backward()
        for i, t in enumerate(ts):
            put(f"grad.deform_conv2d.{i}", t.grad)
        ts = [T(a, grad=True) for a in (xd, od[:, :12], wd)]
        res = V.deform_conv2d(ts[0], ts[1], ts[2], stride=(1, 2), padding=(1, 0), dilation=(2, 1), groups=2)
        (res * T(np.random.default_rng(2).standard_normal(res.shape))).sum().backward()
        for i, t in enumerate(ts):
            put(f"grad.deform_conv2d.v1.{i}", t.grad)
        paddle.seed(3)
        layer = V.DeformConv2D(4, 6, (3, 2), **kw)
        put("layer.DeformConv2D.shapes", np.array([str(list(p.shape)) for p in layer.parameters()]))
        put("layer.DeformConv2D.names", np.array(sorted(layer.state_dict())))
        layer.weight.set_value(T(wd, "float32"))
        layer.bias.set_value(T(bd, "float32"))
        put("layer.DeformConv2D", layer(T(xd, "float32"), T(od, "float32"), T(md, "float32")))
        err("deform_offset_shape", lambda: V.deform_conv2d(T(xd), T(od[:, :5]), T(wd), **kw))

        # -- yolo_loss: label smoothing, gt_score, scale_x_y, ignored and invalid boxes, gradient
        yl_an, yl_mask = [10, 13, 16, 30, 33, 23, 30, 61], [1, 2]
        yx = rng.uniform(-1.5, 1.5, (2, 2 * 8, 6, 6))
        ygt = np.array([[[0.3, 0.4, 0.25, 0.4], [0.7, 0.2, 0.1, 0.15], [0.55, 0.6, 0.5, 0.3], [0.1, 0.1, 0.0, 0.2]],
                        [[0.5, 0.5, 0.6, 0.7], [0.2, 0.8, 0.3, 0.2], [0.81, 0.33, 0.15, 0.4], [0.4, 0.4, 0.1, 0.1]]])
        ylab = np.array([[0, 2, 1, 1], [2, 1, 0, 1]], "int32")
        ysc = rng.uniform(0.5, 1.0, (2, 4))
        for dt in ("float32", "float64"):
            put(f"yolo_loss.{dt}", V.yolo_loss(T(yx, dt), T(ygt, dt), T(ylab, "int32"), yl_an, yl_mask, 3, 0.5, 8))
            put(f"yolo_loss.opts.{dt}", V.yolo_loss(T(yx, dt), T(ygt, dt), T(ylab, "int32"), yl_an, [0, 1], 3, 0.3,
                                                    8, gt_score=T(ysc, dt), use_label_smooth=False, scale_x_y=1.1))
        grad("grad.yolo_loss", lambda t: V.yolo_loss(t, T(ygt), T(ylab, "int32"), yl_an, yl_mask, 3, 0.5, 8,
                                                     gt_score=T(ysc)), yx)
        grad("grad.yolo_loss.f32", lambda t: V.yolo_loss(t, T(ygt, "float32"), T(ylab, "int32"), yl_an, [0, 3], 3,
                                                         0.4, 8, scale_x_y=1.05), yx, dt="float32")
        err("yolo_loss_label_dtype", lambda: V.yolo_loss(T(yx), T(ygt), T(ylab, "int64"), yl_an, yl_mask, 3, 0.5, 8))

        # -- read_file
        import os, tempfile
        d = tempfile.mkdtemp()
        path = os.path.join(d, "bytes.bin")
        with open(path, "wb") as f:
            f.write(bytes(range(256)) * 3 + b"tail")
        put("read_file", V.read_file(path))
        err("read_file_missing", lambda: V.read_file(os.path.join(d, "missing.bin")))
        return out
'''))

OP_TYPES = ["roi_align", "roi_pool", "psroi_pool", "box_coder", "prior_box", "yolo_box", "yolov3_loss", "nms",
            "deformable_conv", "deformable_conv_v1", "matrix_nms", "generate_proposals_v2",
            "distribute_fpn_proposals", "read_file", "decode_jpeg"]

PADDLE_MAIN = textwrap.dedent('''
    import json
    paddle.set_device("cpu")
    res = compute(paddle)
    np.savez("paddle_out.npz", **{k: v for k, v in res.items()})
    json.dump({k: str(v.dtype) for k, v in res.items()}, open("dtypes.json", "w"))
    # the op protos: slots with their flags, attribute types and defaults
    from paddle.base import core, framework
    protos = framework.OpProtoHolder.instance().op_proto_map
    skip = {"op_role", "op_role_var", "op_namescope", "op_callstack", "op_device", "with_quant_attr"}
    dump = {}
    for t in OP_TYPES:
        p = protos[t]
        slot = lambda v: [v.name, bool(v.duplicable), bool(v.dispensable), bool(v.intermediate)]
        defaults = core.get_op_attrs_default_value(t.encode())
        dump[t] = {"inputs": [slot(v) for v in p.inputs], "outputs": [slot(v) for v in p.outputs],
                   "attrs": {a.name: [int(a.type), defaults.get(a.name)] for a in p.attrs
                             if a.name not in skip and not a.extra}}
    json.dump(dump, open("protos.json", "w"))
''').replace("OP_TYPES", repr(OP_TYPES))

# float32 results must agree to 1e-6 (relative and absolute), float64 ones to 1e-10. One exception, explained:
# unclipped yolo_box corners x1 = cx - w / 2 cancel operands near 100 whose float32 ulp is 7.6e-6, and
# Paddle's compiled kernel rounds one step differently (a fused multiply-add), so corners near 0 differ by an ulp
FLOAT32_TOL = 1e-6
TOLERANT = {"yolo_box.noclip.float32.0": 1e-4}


@pytest.fixture(scope="module")
def workdir(tmp_path_factory):
    return tmp_path_factory.mktemp("vision_ops")


@pytest.fixture(scope="module")
def both(workdir):
    from .paddle_runner import differential
    return differential(CODE, PADDLE_MAIN, workdir, "vision_ops")


def test_op_schemas_match_paddle(both, workdir):
    """Slot names and flags, attribute names, types and defaults of every op here, as real Paddle declares
    them (these op types are not in the shared op-proto fixture, so they are read from Paddle itself)."""
    import json
    from runtime.ops.registry import ATTR_TYPES, lookup
    theirs = json.loads((workdir / "protos.json").read_text())
    for t, proto in theirs.items():
        ours = lookup(t)
        for kind, slots in (("inputs", ours.inputs), ("outputs", ours.outputs)):
            want = [(n, dup, disp) for n, dup, disp, _ in proto[kind]]
            assert [(s.name, s.duplicable, s.dispensable) for s in slots] == want, f"{t} {kind}"
        want_inter = [n for n, _, _, inter in proto["outputs"] if inter]
        assert [s.name for s in ours.outputs if s.intermediate] == want_inter, f"{t} intermediate outputs"
        assert sorted(ours.attrs) == sorted(proto["attrs"]), f"{t} attribute names"
        for name, (typ, default) in proto["attrs"].items():
            assert ours.attrs[name][0] == ATTR_TYPES[typ], f"{t}.{name}: type {ours.attrs[name][0]}"
            if default is not None:
                mine = ours.attrs[name][1]
                if isinstance(default, float):
                    assert np.float32(mine) == np.float32(default), f"{t}.{name}: default {mine} vs {default}"
                else:
                    assert (list(mine) if isinstance(mine, (list, tuple)) else mine) == default, \
                        f"{t}.{name}: default {mine!r} vs Paddle's {default!r}"


def test_same_results(both):
    ours, theirs, dtypes = both
    tolerant = {k: FLOAT32_TOL for k, v in theirs.items() if v.dtype == np.float32}
    tolerant.update(TOLERANT)
    assert_same_as_paddle(ours, theirs, dtypes, tolerant, double_tol=1e-10)


def _saved_model_outputs(x, rois, rois_num, prior, target, deltas, head, img_size, offset, mask, gt_box, gt_label):
    """One use of each vision op type that has fixed-size outputs, saved to .pdmodel for real Paddle to run."""
    import dy2st as paddle
    V = paddle.vision.ops
    image = paddle.zeros([1, 3, 32, 40], "float64")
    weight = paddle.full([3, 8, 2, 2], 0.1, "float64")
    return [V.roi_align(x, rois, rois_num, (2, 3), 0.5, 2, True), V.roi_align(x, rois, rois_num, 2, aligned=False),
            V.roi_pool(x, rois, rois_num, 2, 0.8), V.psroi_pool(x, rois, rois_num, 2, 1.0),
            V.box_coder(prior, [0.1, 0.1, 0.2, 0.2], target), V.box_coder(prior, prior * 0 + 0.5, deltas,
                                                                          "decode_center_size", axis=0),
            *V.prior_box(x, image, [4.0, 8.0], [6.0, 12.0], [2.0], flip=True, clip=True),
            *V.yolo_box(head, img_size, [10, 13, 16, 30], 2, 0.2, 8, scale_x_y=1.1),
            V.deform_conv2d(x, offset, weight, paddle.full([3], 0.2, "float64")),
            V.deform_conv2d(x, offset, weight, mask=mask),
            V.yolo_loss(head, gt_box, gt_label, [10, 13, 16, 30], [0, 1], 2, 0.5, 8)]


def test_paddle_loads_our_saved_program(tmp_path):
    """The op types above carry Paddle's slots and attributes: real Paddle runs the saved program."""
    import dy2st
    from .paddle_runner import paddle_runs_our_program
    rng = np.random.default_rng(11)
    vals = [rng.uniform(-1, 1, (2, 8, 8, 8)),
            np.array([[0.5, 1.0, 6.2, 7.1], [2.0, 0.5, 7.5, 3.9], [1.1, 2.2, 5.3, 6.4]]),
            np.array([1, 2], np.int32), np.array([[0.1, 0.1, 0.5, 0.6], [0.2, 0.3, 0.9, 0.8]]),
            np.array([[0.15, 0.2, 0.45, 0.7], [0.3, 0.2, 0.8, 0.9], [0.0, 0.1, 0.5, 0.5]]),
            rng.uniform(-0.5, 0.5, (3, 2, 4)), rng.uniform(-2, 2, (2, 14, 4, 4)),
            np.array([[40, 50], [33, 61]], np.int32),
            rng.uniform(-1, 1, (2, 8, 7, 7)), rng.uniform(0, 1, (2, 4, 7, 7)),
            np.array([[[0.3, 0.4, 0.25, 0.4], [0.7, 0.2, 0.1, 0.15]], [[0.5, 0.5, 0.6, 0.7], [0.2, 0.8, 0.3, 0.2]]]),
            np.array([[0, 1], [1, 0]], np.int32)]
    names = ["x", "rois", "rois_num", "prior", "target", "deltas", "head", "img_size", "offset", "mask", "gt_box",
             "gt_label"]
    feeds = dict(zip(names, vals))
    ours = paddle_runs_our_program(_saved_model_outputs, feeds, tmp_path, "vision ops program")
    eager = _saved_model_outputs(*[dy2st.to_tensor(v) for v in vals])
    for a, b in zip(ours, eager):
        np.testing.assert_allclose(a, b.numpy(), rtol=1e-12, atol=1e-12)
