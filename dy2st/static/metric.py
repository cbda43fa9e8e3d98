"""``paddle.static.auc`` and ``paddle.static.ctr_metric_bundle``: streaming metrics kept in persistable
variables of the main program (so they accumulate over ``Executor.run`` calls, as in Paddle)."""
from __future__ import annotations

from runtime.dispatch import run_op
from runtime.static import Variable, default_main_program

from ._ops import rename_outputs_to_inputs, require_static, state_var, write_into

__all__ = ["auc", "ctr_metric_bundle"]


def _check(v, what, dtypes):
    if not isinstance(v, Variable):
        raise TypeError(f"auc: {what} must be a static Variable, got {type(v).__name__}")
    if v.dtype.name not in dtypes:
        raise TypeError(f"The data type of '{what}' in auc must be {dtypes}, but received {v.dtype.name}.")


def auc(input, label, curve="ROC", num_thresholds=2 ** 12 - 1, topk=1, slide_steps=1, ins_tag_weight=None):
    """``(auc_out, batch_auc_out, [batch_stat_pos, batch_stat_neg, stat_pos, stat_neg])``: the AUC over every
    batch run so far and over the last ``slide_steps`` batches (Paddle's two ``auc`` ops), with their count
    variables. ``input`` is [N, 2] (or [N, 1]) probabilities whose last column is the positive class;
    ``label`` is [N, 1] int. ``topk`` is accepted and unused, as in Paddle."""
    require_static("auc")
    _check(input, "input", ("float32", "float64"))
    _check(label, "label", ("int32", "int64"))
    if ins_tag_weight is None:
        ins_tag_weight = run_op("fill_constant", shape=[1, 1], dtype=5, value=1.0, str_value="1.0")
    else:
        _check(ins_tag_weight, "ins_tag_weight", ("float32", "float64"))
    n = num_thresholds + 1
    batch_len = (1 + slide_steps) * n + 1
    batch_pos = state_var("auc_batch_stat_pos", [batch_len], "int64")
    batch_neg = state_var("auc_batch_stat_neg", [batch_len], "int64")
    stat_pos = state_var("auc_stat_pos", [1, n], "int64")
    stat_neg = state_var("auc_stat_neg", [1, n], "int64")
    block = default_main_program().current_block()
    outs = []
    for sp, sn, steps in ((batch_pos, batch_neg, slide_steps), (stat_pos, stat_neg, 0)):
        res = run_op("auc", input, label, sp, sn, ins_tag_weight, curve=curve, num_thresholds=num_thresholds,
                     slide_steps=steps)
        rename_outputs_to_inputs(block.ops[-1], {"StatPosOut": "StatPos", "StatNegOut": "StatNeg"})
        outs.append(res[0])
    batch_auc_out, auc_out = outs
    return auc_out, batch_auc_out, [batch_pos, batch_neg, stat_pos, stat_neg]


def ctr_metric_bundle(input, label, ins_tag_weight=None):
    """Running sums for CTR metrics: ``(local_sqrerr, local_abserr, local_prob, local_q, local_pos_num,
    local_ins_num)`` — squared and absolute error, sum of predictions, sum of sigmoid(predictions) (times the
    instance weight), positives and instances, each a persistable float32 [1] variable updated every run."""
    require_static("ctr_metric_bundle")
    if list(input.shape) != list(label.shape):
        raise ValueError(f"ctr_metric_bundle: input and label must have the same shape, got {list(input.shape)} "
                         f"and {list(label.shape)}")
    if ins_tag_weight is None:
        ins_tag_weight = run_op("fill_constant", shape=[1, 1], dtype=5, value=1.0, str_value="1.0")
    names = ("sqrerr", "abserr", "prob", "q", "pos_num", "ins_num")
    local = {k: state_var(f"ctr_local_{k}", [1], "float32") for k in names}
    diff = run_op("elementwise_sub", input, label)
    batch = {
        "sqrerr": run_op("squared_l2_norm", diff),
        "abserr": run_op("reshape2", run_op("reduce_sum", run_op("abs", diff), dim=[], reduce_all=True),
                         None, None, shape=[1]),
        "prob": _sum1(input),
        "pos_num": _sum1(label),
    }
    # (the [1, 1] weight makes the instance and q sums [1, 1], as in Paddle)
    weight = run_op("slice", ins_tag_weight, None, None, None, None, axes=[0], starts=[0], ends=[1],
                    decrease_axis=[])
    ones = run_op("fill_any_like", label, value=1.0, dtype=5)
    batch["ins_num"] = run_op("elementwise_mul", _sum1(ones), weight)
    batch["q"] = run_op("elementwise_mul", _sum1(run_op("sigmoid", input)), weight)
    for k in names:
        write_into(local[k], run_op("elementwise_add", batch[k], local[k]))
    return tuple(local[k] for k in names)


def _sum1(x):
    s = run_op("reduce_sum", x, dim=[], reduce_all=True)
    return run_op("reshape2", s, None, None, shape=[1])

