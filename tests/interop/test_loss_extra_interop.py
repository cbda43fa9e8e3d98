"""Differential test of the sequence and sampled losses against real Paddle 3.3.1, in ONE subprocess.

``CODE`` calls ctc_loss / CTCLoss, rnnt_loss / RNNTLoss, hsigmoid_loss / HSigmoidLoss,
adaptive_log_softmax_with_loss / AdaptiveLogSoftmaxWithLoss (forward, log_prob, predict, parameters),
dice_loss, npair_loss, sigmoid_focal_loss, margin_cross_entropy and class_center_sample on fixed
inputs through whichever module it is given as ``paddle``: once in real Paddle, once as dy2st.
Values, dtypes, shapes and the gradients of a random weighting of each output are compared;
errors by exception type.

Two stand-ins, each because Paddle cannot give the value on CPU: Paddle has no CPU kernel for
margin_cross_entropy (it raises), so on the Paddle side its formula is composed from Paddle's own
ops (acos, cos, one_hot, softmax_with_cross_entropy) and our op is compared with that, gradients
included; class_center_sample draws its negatives from Paddle's own random engine, so only what the
draw cannot change is compared (the sorted positive centres, the remapped labels, the shapes, the
negatives being distinct, new and in range).

The same Paddle process also loads a static program of ours that uses warpctc, warprnnt and
hierarchical_sigmoid (saved with save_inference_model) and runs it.
"""
import textwrap

import numpy as np
import pytest

from .diff_prelude import PADDLE_MAIN, assert_same_as_paddle, with_helpers

CODE = with_helpers(textwrap.dedent('''
    import numpy as np

    def compute(paddle):
        F = paddle.nn.functional
        nn = paddle.nn
        real = paddle.__name__ == "paddle"
        rng = np.random.default_rng(5)
        def r(*s, lo=-1.0, hi=1.0):
            return rng.uniform(lo, hi, s)
        out = {}
        T, put, grad, err, _ = diff_helpers(paddle, out, err_prefix="err.", grad="weighted")

        I32 = lambda a: T(a, "int32")      # noqa: E731
        I64 = lambda a: T(a, "int64")      # noqa: E731

        # -- ctc_loss: repeated labels, label length 0 and max, an impossible alignment, blank, reductions
        logits = r(6, 5, 4, lo=-2, hi=2)
        labels = np.array([[1, 2, 2], [3, 3, 3], [1, 1, 2], [2, 3, 1], [1, 0, 0]])
        il, ll = np.array([6, 5, 3, 6, 4]), np.array([3, 3, 3, 0, 1])
        for dt in ("float64", "float32"):
            for red in ("none", "sum", "mean"):
                put(f"ctc.{dt}.{red}", F.ctc_loss(T(logits, dt), I32(labels), I64(il), I64(ll), reduction=red))
        put("ctc.zero_inf", F.ctc_loss(T(logits), I32(labels), I64(il), I64(ll), reduction="none", zero_infinity=True))
        put("ctc.blank3", F.ctc_loss(T(logits), I32(labels % 3), I64(il), I64(ll), blank=3, reduction="none"))
        ll2 = np.array([3, 2, 1, 3, 1])
        grad("grad.ctc", lambda x: F.ctc_loss(x, I32(labels), I64(il), I64(ll2), reduction="none"), logits)
        grad("grad.ctc.mean", lambda x: F.ctc_loss(x, I32(labels), I64(il), I64(ll2)), logits)
        grad("grad.ctc.norm_by_times", lambda x: F.ctc_loss(x, I32(labels), I64(il), I64(ll2), reduction="sum",
                                                             norm_by_times=True), logits)
        grad("grad.ctc.f32", lambda x: F.ctc_loss(x, I32(labels), I64(il), I64(ll), reduction="sum"), logits,
             dt="float32")
        grad("grad.ctc.blank2", lambda x: F.ctc_loss(x, I32(np.where(labels == 2, 0, labels)), I64(il), I64(ll2),
                                                     blank=2, reduction="none"), logits)
        put("layer.CTCLoss", nn.CTCLoss(blank=0, reduction="sum")(T(logits), I32(labels), I64(il), I64(ll2)))
        grad("grad.layer.CTCLoss", lambda x: nn.CTCLoss(reduction="mean")(x, I32(labels), I64(il), I64(ll2),
                                                                          norm_by_times=True), logits)
        err("ctc_reduction", lambda: F.ctc_loss(T(logits), I32(labels), I64(il), I64(ll), reduction="max"))
        err("ctc_labels_int64", lambda: F.ctc_loss(T(logits), I64(labels), I64(il), I64(ll)))
        err("ctc_lengths_int32", lambda: F.ctc_loss(T(logits), I32(labels), I32(il), I64(ll)))
        err("ctc_label_lengths_int32", lambda: F.ctc_loss(T(logits), I32(labels), I64(il), I32(ll)))
        err("ctc_int_logits", lambda: F.ctc_loss(T(logits, "int32"), I32(labels), I64(il), I64(ll)))
        err("ctc_2d_logits", lambda: F.ctc_loss(T(logits[0]), I32(labels), I64(il), I64(ll)))

        # -- rnnt_loss: different T and U per utterance, blank, FastEmit, reductions
        acts = r(3, 4, 4, 5, lo=-2, hi=0)
        rl = np.array([[1, 2, 1], [4, 4, 0], [2, 0, 0]])
        rt, ru = np.array([4, 2, 3]), np.array([3, 2, 0])
        for red in ("none", "sum", "mean"):
            put(f"rnnt.{red}", F.rnnt_loss(T(acts), I32(rl), I32(rt), I32(ru), reduction=red))
        put("rnnt.f32", F.rnnt_loss(T(acts, "float32"), I32(rl), I32(rt), I32(ru), reduction="none"))
        put("rnnt.blank4", F.rnnt_loss(T(acts), I32(rl % 4), I32(rt), I32(ru), blank=4, reduction="none"))
        for lam in (0.0, 0.001, 0.5):
            grad(f"grad.rnnt.{lam}", lambda x: F.rnnt_loss(x, I32(rl), I32(rt), I32(ru), fastemit_lambda=lam,
                                                           reduction="none"), acts)
        grad("grad.rnnt.mean", lambda x: F.rnnt_loss(x, I32(rl), I32(rt), I32(ru)), acts)
        grad("grad.rnnt.f32", lambda x: F.rnnt_loss(x, I32(rl), I32(rt), I32(ru), reduction="sum"), acts,
             dt="float32")
        put("layer.RNNTLoss", nn.RNNTLoss(fastemit_lambda=0.0, reduction="sum")(T(acts), I32(rl), I32(rt), I32(ru)))
        grad("grad.layer.RNNTLoss", lambda x: nn.RNNTLoss(blank=4)(x, I32(rl % 4), I32(rt), I32(ru)), acts)
        err("rnnt_reduction", lambda: F.rnnt_loss(T(acts), I32(rl), I32(rt), I32(ru), reduction="max"))
        err("rnnt_lengths_int64", lambda: F.rnnt_loss(T(acts), I32(rl), I64(rt), I32(ru)))
        err("rnnt_label_int64", lambda: F.rnnt_loss(T(acts), I64(rl), I32(rt), I32(ru)))
        err("rnnt_blank_range", lambda: F.rnnt_loss(T(acts), I32(rl), I32(rt), I32(ru), blank=5))

        # -- hsigmoid_loss: default tree (with / without bias), custom tree, is_sparse, layer
        hx, hw, hb = r(5, 3), r(6, 3), r(6, 1)
        hl = np.array([[0], [6], [3], [5], [1]])
        put("hsig.default", F.hsigmoid_loss(T(hx), I64(hl), 7, T(hw), T(hb)))
        put("hsig.no_bias.f32", F.hsigmoid_loss(T(hx, "float32"), I64(hl), 7, T(hw, "float32")))
        put("hsig.two_classes", F.hsigmoid_loss(T(hx), I64(hl % 2), 2, T(hw[:1])))
        grad("grad.hsig", lambda x, w, b: F.hsigmoid_loss(x, I64(hl), 7, w, b), hx, hw, hb)
        table = np.array([[0, 1, 3], [0, 2, -1], [0, 1, 4], [0, 2, -1], [0, 1, 3]])
        code = np.array([[1, 0, 1], [0, 1, 0], [1, 1, 0], [0, 0, 0], [0, 1, 1]])
        put("hsig.custom", F.hsigmoid_loss(T(hx), I64(hl), 5, T(hw[:5]), T(hb[:5]), I64(table), I64(code)))
        grad("grad.hsig.custom", lambda x, w, b: F.hsigmoid_loss(x, I64(hl), 5, w, b, I64(table), I64(code)),
             hx, hw[:5], hb[:5])
        put("hsig.sparse", F.hsigmoid_loss(T(hx), I64(hl), 5, T(hw[:5]), T(hb[:5]), I64(table), I64(code),
                                           is_sparse=True))
        hs = nn.HSigmoidLoss(3, 7)
        put("layer.HSigmoidLoss.shapes", np.array([list(p.shape) for p in hs.parameters()]))
        hs.weight.set_value(T(hw, "float32"))
        hs.bias.set_value(T(hb, "float32"))
        put("layer.HSigmoidLoss", hs(T(hx, "float32"), I64(hl)))
        hc = nn.HSigmoidLoss(3, 5, is_custom=True, bias_attr=False)
        put("layer.HSigmoidLoss.custom.params", np.array([n for n, _ in hc.named_parameters()]))
        hc.weight.set_value(T(hw[:5], "float32"))
        put("layer.HSigmoidLoss.custom", hc(T(hx, "float32"), I64(hl), I64(table), I64(code)))
        put("hsig.label_1d", F.hsigmoid_loss(T(hx), I64(hl.reshape(-1)), 7, T(hw), T(hb)))
        err("hsig_classes", lambda: F.hsigmoid_loss(T(hx), I64(hl), 1, T(hw)))
        err("hsig_label_int32", lambda: F.hsigmoid_loss(T(hx), I32(hl), 7, T(hw)))
        err("hsig_layer_classes", lambda: nn.HSigmoidLoss(3, 1))

        # -- adaptive_log_softmax_with_loss: functional (head bias, head-only / tail-only / mixed labels, 0-D)
        ax = r(6, 8)
        head_w, head_b = r(8, 5), r(5)
        tails = [[r(8, 4), r(4, 3)], [r(8, 2), r(2, 4)]]            # cutoffs [3, 6, 10]
        cut = [3, 6, 10]
        def alsm(x, hw_, hb_, t00, t01, t10, t11, lab):
            return F.adaptive_log_softmax_with_loss(x, I64(lab), hw_, [[t00, t01], [t10, t11]], cut, hb_)
        flat_tails = [a for pair in tails for a in pair]
        for tag, lab in (("mixed", [0, 4, 9, 2, 7, 5]), ("head", [0, 1, 2, 2, 1, 0]), ("tail", [3, 9, 8, 4, 6, 7])):
            put(f"alsm.{tag}", alsm(T(ax), T(head_w), T(head_b), *[T(a) for a in flat_tails], lab))
        grad("grad.alsm", lambda x, w, b, a, c, d, e: alsm(x, w, b, a, c, d, e, [0, 4, 9, 2, 7, 5])[1],
             ax, head_w, head_b, *flat_tails)
        grad("grad.alsm.out", lambda x, w: F.adaptive_log_softmax_with_loss(
            x, I64([5, 1, 8, 3, 3, 0]), w, [[T(a) for a in tails[0]], [T(a) for a in tails[1]]], cut)[0],
             ax, head_w)
        put("alsm.0d", F.adaptive_log_softmax_with_loss(T(ax[0]), I64(7), T(head_w), [[T(a) for a in p] for p in tails],
                                                         cut))
        err("alsm_label_range", lambda: alsm(T(ax), T(head_w), T(head_b), *[T(a) for a in flat_tails],
                                             [0, 4, 10, 2, 7, 5]))
        err("alsm_2d_label", lambda: F.adaptive_log_softmax_with_loss(T(ax), I64([[1]]), T(head_w), tails, cut))
        # the layer: parameter names and shapes, forward, log_prob, predict
        layer = nn.AdaptiveLogSoftmaxWithLoss(8, 10, [3, 6], div_value=2.0, head_bias=True)
        put("layer.ALSM.params", np.array([n for n, _ in layer.named_parameters()]))
        put("layer.ALSM.state_dict", np.array(list(layer.state_dict().keys())))
        put("layer.ALSM.tail_shapes", np.array([list(w.shape) for p in layer.tail_weights for w in p]))
        layer.head_weight.set_value(T(head_w, "float32"))
        layer.head_bias.set_value(T(head_b, "float32"))
        for p, vals in zip(layer.tail_weights, tails):
            for w, v in zip(p, vals):
                w.set_value(T(v, "float32"))
        put("layer.ALSM", layer(T(ax, "float32"), I64([0, 4, 9, 2, 7, 5])))
        put("layer.ALSM.log_prob", layer.log_prob(T(ax, "float32")))
        put("layer.ALSM.predict", layer.predict(T(ax, "float32")))
        layer.head_bias.set_value(T([9.0, 0, 0, 0, 0], "float32"))
        put("layer.ALSM.predict.head", layer.predict(T(ax, "float32")))
        layer.head_bias.set_value(T([0.0, 0, 0, 9.0, 9.0], "float32"))
        put("layer.ALSM.predict.tail", layer.predict(T(ax, "float32")))
        err("alsm_cutoffs", lambda: nn.AdaptiveLogSoftmaxWithLoss(8, 10, [6, 3]))
        err("alsm_cutoffs_max", lambda: nn.AdaptiveLogSoftmaxWithLoss(8, 10, [3, 10]))

        # -- dice_loss
        dp = r(3, 4, 5, lo=0.0, hi=1.0)
        dl = rng.integers(0, 5, (3, 4, 1))
        put("dice", F.dice_loss(T(dp), I64(dl)))
        put("dice.f32.eps", F.dice_loss(T(dp, "float32"), I32(dl), epsilon=0.1))
        put("dice.2d", F.dice_loss(T(dp[:, 0]), I64(dl[:, 0])))
        grad("grad.dice", lambda x: F.dice_loss(x, I64(dl)), dp)
        err("dice_label_last", lambda: F.dice_loss(T(dp), I64(np.zeros((3, 4, 2)))))
        err("dice_rank", lambda: F.dice_loss(T(dp), I64(np.zeros((3, 4)))))

        # -- npair_loss
        na, npos = r(6, 4), r(6, 4)
        nl = np.array([1.0, 2.0, 1.0, 3.0, 2.0, 4.0])
        # (Paddle's npair_loss fails on float64 embeddings: its float32 soft labels meet float64 logits in
        # one kernel; ours computes them, tests/runtime/nn/test_loss_extra.py checks that against numpy)
        put("npair", F.npair_loss(T(na, "float32"), T(npos, "float32"), T(nl, "float32")))
        put("npair.int_labels", F.npair_loss(T(na, "float32"), T(npos, "float32"), I64(nl), l2_reg=0.1))
        err("npair_int", lambda: F.npair_loss(I64(na), I64(npos), I64(nl)))
        grad("grad.npair", lambda a, p: F.npair_loss(a, p, T(nl, "float32"), l2_reg=0.05), na, npos, dt="float32")

        # -- sigmoid_focal_loss
        fl = r(4, 3, lo=-3, hi=3)
        ft = rng.integers(0, 2, (4, 3)).astype("float64")
        for red in ("sum", "mean", "none"):
            put(f"focal.{red}", F.sigmoid_focal_loss(T(fl), T(ft), reduction=red))
        put("focal.norm", F.sigmoid_focal_loss(T(fl), T(ft), normalizer=T([3.0]), alpha=0.5, gamma=1.5))
        put("focal.f32", F.sigmoid_focal_loss(T(fl, "float32"), T(ft, "float32"), gamma=0.0, reduction="none"))
        grad("grad.focal", lambda x: F.sigmoid_focal_loss(x, T(ft), reduction="none"), fl)
        grad("grad.focal.norm", lambda x: F.sigmoid_focal_loss(x, T(ft), normalizer=T(2.0), gamma=3.0,
                                                                reduction="mean"), fl)
        err("focal_int_label", lambda: F.sigmoid_focal_loss(T(fl), I64(ft)))
        err("focal_reduction", lambda: F.sigmoid_focal_loss(T(fl), T(ft), reduction="max"))
        err("focal_normalizer_rank", lambda: F.sigmoid_focal_loss(T(fl), T(ft), normalizer=T([[1.0]])))

        # -- margin_cross_entropy (Paddle: no CPU kernel, so its formula from Paddle ops; see the docstring)
        def mce(logits, label, m1=1.0, m2=0.5, m3=0.0, s=64.0, return_softmax=False, reduction="mean"):
            if not real:
                return F.margin_cross_entropy(logits, label, m1, m2, m3, s, group=False,
                                              return_softmax=return_softmax, reduction=reduction)
            onehot = F.one_hot(label.reshape([-1]), logits.shape[1]).astype(logits.dtype)
            margin = paddle.cos(m1 * paddle.acos(logits) + m2) - m3
            z = s * (onehot * margin + (1 - onehot) * logits)
            # (the softmax output of softmax_with_cross_entropy crashes Paddle's backward when only it is used)
            loss, softmax = F.softmax_with_cross_entropy(z, label.reshape([-1, 1])), F.softmax(z, axis=1)
            if reduction == "mean":
                loss = loss.mean()
            elif reduction == "sum":
                loss = loss.sum()
            return (loss, softmax) if return_softmax else loss
        ml = r(4, 6, lo=-0.9, hi=0.9)
        mlab = np.array([1, 0, 5, 3])
        # (scale 30, not the default 64: Paddle's CPU softmax clips shifted logits at -64, which the composite
        # reference would feel; the margin_cross_entropy kernel has no such clip)
        put("mce", mce(T(ml), I64(mlab), s=30.0))
        put("mce.softmax", mce(T(ml), I64(mlab), 0.9, 0.3, 0.1, 8.0, return_softmax=True, reduction="none"))
        put("mce.sum", mce(T(ml), I32(mlab.reshape(-1, 1)), 1.0, 0.0, 0.35, 16.0, reduction="sum"))
        grad("grad.mce", lambda x: mce(x, I64(mlab), s=4.0, reduction="none"), ml)
        grad("grad.mce.combined", lambda x: mce(x, I64(mlab), 0.8, 0.2, 0.1, 6.0), ml)
        grad("grad.mce.cosface", lambda x: mce(x, I64(mlab), 1.0, 0.0, 0.3, 5.0, reduction="sum"), ml)
        grad("grad.mce.softmax", lambda x: mce(x, I64(mlab), s=3.0, return_softmax=True)[1], ml)
        err("mce_group", lambda: F.margin_cross_entropy(T(ml), I64(mlab), group="x"))
        err("mce_label_rank", lambda: F.margin_cross_entropy(T(ml), I64(np.zeros((4, 1, 1)))))

        # -- class_center_sample: what Paddle's random draw cannot change
        for tag, lab, nc, ns in (("neg", [11, 3, 7, 3, 0, 11], 20, 9), ("pos_only", [4, 1, 4, 2], 6, 2),
                                 ("all", [2, 0], 5, 5)):
            for dt in ("int64", "int32"):
                remap, sampled = F.class_center_sample(T(lab, dt), nc, ns)
                s = sampled.numpy()
                npos = len(set(lab))
                put(f"ccs.{tag}.{dt}.remap", remap)
                put(f"ccs.{tag}.{dt}.positive", s[:npos])
                put(f"ccs.{tag}.{dt}.shape", np.array(s.shape))
                put(f"ccs.{tag}.{dt}.dtype", np.array(str(s.dtype)))
                put(f"ccs.{tag}.{dt}.checks", np.array([len(set(s.tolist())) == s.size, s.min() >= 0, s.max() < nc,
                                                        np.array_equal(s[remap.numpy()], np.array(lab))]))
        err("ccs_samples", lambda: F.class_center_sample(I64([1, 2]), 5, 6))
        err("ccs_float", lambda: F.class_center_sample(T([1, 2], "float32"), 5, 3))
        err("ccs_rank", lambda: F.class_center_sample(I64([[1, 2]]), 5, 3))
        return out
'''))

SAVED_FEEDS = {"logits": np.random.default_rng(2).uniform(-2, 2, (5, 3, 4)),
               "acts": np.random.default_rng(3).uniform(-2, 0, (2, 3, 3, 4)),
               "hx": np.random.default_rng(4).uniform(-1, 1, (4, 3))}


def _saved_program(logits, acts, hx):
    """One use of each new op type Paddle has a CPU kernel for, saved as .pdmodel for real Paddle."""
    import dy2st as paddle
    F = paddle.nn.functional
    i32 = lambda a: paddle.to_tensor(np.array(a, dtype="int32"))    # noqa: E731
    i64 = lambda a: paddle.to_tensor(np.array(a, dtype="int64"))    # noqa: E731
    ctc = F.ctc_loss(logits, i32([[1, 2], [3, 3], [2, 0]]), i64([5, 4, 3]), i64([2, 2, 1]), reduction="none")
    rnnt = F.rnnt_loss(acts, i32([[1, 2], [3, 0]]), i32([3, 2]), i32([2, 1]), fastemit_lambda=0.0, reduction="none")
    w = paddle.to_tensor(np.linspace(-1, 1, 15).reshape(5, 3))
    b = paddle.to_tensor(np.linspace(-0.5, 0.5, 5).reshape(5, 1))
    hsig = F.hsigmoid_loss(hx, i64([[0], [5], [3], [2]]), 6, w, b)
    return [ctc, rnnt, hsig]


def _save_our_program(workdir):
    """Our static program and its outputs; writes the manifest the Paddle process reads."""
    import runtime
    from runtime import static
    from .paddle_runner import CHECK_MODELS  # noqa: F401  (the loader script the Paddle process runs)
    import json
    names = list(SAVED_FEEDS)
    runtime.enable_static()
    try:
        main, startup = static.Program(), static.Program()
        with static.program_guard(main, startup):
            data = [static.data(n, list(SAVED_FEEDS[n].shape), "float64") for n in names]
            outs = _saved_program(*data)
        exe = static.Executor()
        ours = exe.run(main, feed=dict(SAVED_FEEDS), fetch_list=outs)
        prefix = workdir / "model"
        static.save_inference_model(str(prefix), data, outs, exe, program=main)
    finally:
        runtime.disable_static()
    paths = []
    for k, n in enumerate(names):
        p = workdir / f"m.in{k}.npy"
        np.save(p, SAVED_FEEDS[n])
        paths.append(str(p))
    (workdir / "manifest.json").write_text(json.dumps([{"name": "m", "prefix": str(prefix), "inputs": paths,
                                                         "feed_names": names, "loaders": ["static", "predictor"]}]))
    return ours


@pytest.fixture(scope="module")
def both(tmp_path_factory):
    """One Paddle process: the differential script, then loading our saved program."""
    import json
    import dy2st
    from .paddle_runner import CHECK_MODELS, run_paddle
    workdir = tmp_path_factory.mktemp("loss_extra")
    saved = _save_our_program(workdir)
    proc = run_paddle(CODE + PADDLE_MAIN + CHECK_MODELS, workdir)
    assert proc.returncode == 0, proc.stderr[-3000:]
    theirs = dict(np.load(workdir / "paddle_out.npz", allow_pickle=False))
    dtypes = json.loads((workdir / "dtypes.json").read_text())
    loaded = json.loads((workdir / "results.json").read_text())["m"]
    ns = {}
    exec(compile(CODE, "<loss_extra interop code>", "exec"), ns)
    return ns["compute"](dy2st), theirs, dtypes, saved, loaded


def test_same_results(both):
    ours, theirs, dtypes, _, _ = both
    assert_same_as_paddle(ours, theirs, dtypes, double_tol=1e-9)


def test_paddle_runs_our_saved_program(both):
    """warpctc, warprnnt and hierarchical_sigmoid carry Paddle's slots and attrs: Paddle loads and runs them."""
    from .paddle_runner import assert_outputs_match
    _, _, _, ours, loaded = both
    for loader in ("static", "predictor"):
        assert f"{loader}_error" not in loaded, loaded.get(f"{loader}_error")
        assert_outputs_match(loaded[loader], ours, f"loss program via Paddle's {loader}", rtol=1e-9, atol=1e-10)
