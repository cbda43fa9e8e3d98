"""Optimizer base: accumulator names, state_dict / set_state_dict, resuming, scheduler state."""
import numpy as np
import pytest

import runtime as paddle
from runtime.formats.serialization import load, save
from runtime.optimizer import SGD, Adam, Momentum, RMSProp

from .util import V0, grads_for, param, set_grad, train


def snapshot(sd):
    return {k: (v.numpy().copy() if hasattr(v, "numpy") else v) for k, v in sd.items()}


def test_accumulator_names_count_per_prefix():
    p = param(name="acc_names.w_0")
    a, b = Adam(0.1, parameters=[p]), Adam(0.1, parameters=[p])
    train(a, [p], steps=1)
    train(b, [p], steps=1)
    assert "acc_names.w_0_moment1_0" in a.state_dict()
    assert "acc_names.w_0_moment1_1" in b.state_dict()


def test_accumulators_created_lazily_and_persistable():
    p = param()
    opt = Momentum(0.1, parameters=[p])
    assert opt.state_dict() == {}
    train(opt, [p], steps=1)
    (acc,) = opt.state_dict().values()
    assert acc.persistable and acc.shape == list(V0.shape)


@pytest.mark.parametrize("make", [lambda ps: Adam(0.1, parameters=ps),
                                  lambda ps: Momentum(0.1, momentum=0.7, parameters=ps, use_nesterov=True),
                                  lambda ps: RMSProp(0.01, centered=True, momentum=0.3, parameters=ps)],
                         ids=["adam", "momentum", "rmsprop"])
def test_state_dict_round_trip_resumes_identically(make):
    p = param(name="resume.w_0")
    opt = make([p])
    train(opt, [p], steps=2)
    saved_param, saved_state = p.numpy().copy(), snapshot(opt.state_dict())
    set_grad(p, grads_for(0, 3)[2])
    opt.step()
    expected = p.numpy().copy()

    q = param(saved_param, name="resume.w_0")      # a fresh run with the same parameter name
    fresh = make([q])
    fresh.set_state_dict(saved_state)
    assert set(fresh.state_dict()) == set(saved_state)   # loaded but not yet claimed
    set_grad(q, grads_for(0, 3)[2])
    fresh.step()
    np.testing.assert_array_equal(q.numpy(), expected)


def test_set_state_dict_after_accumulators_exist():
    p = param(name="late.w_0")
    a = Adam(0.1, parameters=[p])
    train(a, [p], steps=2)
    state = snapshot(a.state_dict())
    b = Adam(0.1, parameters=[p])
    train(b, [p], steps=1)
    b.set_state_dict(state)
    for k, v in b.state_dict().items():
        stem = k.rsplit("_", 1)[0]
        (src,) = [s for s in state if s.rsplit("_", 1)[0] == stem]
        np.testing.assert_array_equal(v.numpy(), state[src])


def test_set_state_dict_shape_mismatch():
    p = param(name="shape.w_0")
    opt = Adam(0.1, parameters=[p])
    train(opt, [p], steps=1)
    bad = {k: np.zeros((7,)) for k in opt.state_dict()}
    with pytest.raises(ValueError, match=r"has shape \[7\]"):
        opt.set_state_dict(bad)


def test_lr_scheduler_state_saved_and_restored(tmp_path):
    p = param(name="sched.w_0")
    sched = paddle.optimizer.lr.StepDecay(0.1, step_size=2)
    opt = Adam(sched, parameters=[p])
    train(opt, [p], steps=3, after_step=lambda s: sched.step())
    sd = opt.state_dict()
    assert sd["LR_Scheduler"] == {"last_epoch": 3, "last_lr": pytest.approx(0.01)}
    save(sd, str(tmp_path / "opt.pdopt"))

    sched2 = paddle.optimizer.lr.StepDecay(0.1, step_size=2)
    opt2 = Adam(sched2, parameters=[param(name="sched.w_0")])
    opt2.set_state_dict(load(str(tmp_path / "opt.pdopt")))
    assert sched2.last_epoch == 3 and opt2.get_lr() == pytest.approx(0.01)


def test_sgd_has_empty_state():
    p = param()
    opt = SGD(0.1, parameters=[p])
    train(opt, [p])
    assert opt.state_dict() == {}


def test_unnamed_parameter_gets_a_generated_name():
    from runtime.tensor import Parameter
    p = Parameter(np.array(V0))
    opt = Adam(0.1, parameters=[p])
    train(opt, [p], steps=1)
    assert all(k.startswith(p.name + "_") for k in opt.state_dict())
