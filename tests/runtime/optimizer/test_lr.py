"""Learning-rate schedulers against their formulas (sequences checked against real Paddle while writing)."""
import math

import numpy as np
import pytest

from runtime.optimizer import lr


def seq(s, n=12):
    out = []
    for _ in range(n):
        out.append(s())
        s.step()
    return out


def close(a, b):
    np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-15)


def test_base_contract():
    s = lr.StepDecay(0.5, step_size=3)
    assert s.last_epoch == 0 and s.last_lr == 0.5 and s() == 0.5 and s.base_lr == 0.5
    s.step()
    assert s.last_epoch == 1


def test_step_decay():
    close(seq(lr.StepDecay(0.5, 3, 0.5)), [0.5 * 0.5 ** (e // 3) for e in range(12)])


def test_multi_step_decay():
    close(seq(lr.MultiStepDecay(0.5, [2, 5, 9], 0.5)),
          [0.5 * 0.5 ** sum(e >= m for m in (2, 5, 9)) for e in range(12)])


def test_exponential_natural_inverse_time():
    close(seq(lr.ExponentialDecay(0.5, 0.9)), [0.5 * 0.9 ** e for e in range(12)])
    close(seq(lr.NaturalExpDecay(0.5, 0.1)), [0.5 * math.exp(-0.1 * e) for e in range(12)])
    close(seq(lr.InverseTimeDecay(0.5, 0.1)), [0.5 / (1 + 0.1 * e) for e in range(12)])


def test_polynomial_decay():
    close(seq(lr.PolynomialDecay(0.5, 5, 0.01, 2.0)),
          [(0.5 - 0.01) * (1 - min(e, 5) / 5) ** 2 + 0.01 for e in range(12)])
    want = []
    for e in range(12):
        steps = 5 * (1 if e == 0 else math.ceil(e / 5))
        want.append((0.5 - 0.01) * (1 - e / steps) ** 2 + 0.01)
    close(seq(lr.PolynomialDecay(0.5, 5, 0.01, 2.0, cycle=True)), want)


def test_piecewise_decay():
    close(seq(lr.PiecewiseDecay([3, 6], [0.1, 0.05, 0.01]), 8), [0.1] * 3 + [0.05] * 3 + [0.01] * 2)


def test_cosine_annealing_matches_closed_form_within_first_period():
    got = seq(lr.CosineAnnealingDecay(0.5, 4, 0.01), 5)
    close(got, [0.01 + 0.49 * (1 + math.cos(math.pi * e / 4)) / 2 for e in range(5)])
    s = lr.CosineAnnealingDecay(0.5, 4, 0.01)
    s.step(7)
    close(s(), 0.01 + 0.49 * (1 + math.cos(math.pi * 7 / 4)) / 2)


def test_cosine_annealing_rises_again_after_t_max():
    got = seq(lr.CosineAnnealingDecay(0.5, 4, 0.01), 9)
    assert got[4] == pytest.approx(0.01) and got[5] > got[4] and got[8] == pytest.approx(0.5)


def test_linear_warmup_float_and_scheduler():
    close(seq(lr.LinearWarmup(0.5, 4, 0.0, 0.5), 7), [0.0, 0.125, 0.25, 0.375, 0.5, 0.5, 0.5])
    got = seq(lr.LinearWarmup(lr.StepDecay(0.5, 2), 3, 0.1, 0.5), 8)
    close(got, [0.1 + 0.4 * e / 3 for e in range(3)] + [0.5 * 0.1 ** ((e - 3) // 2) for e in range(3, 8)])


def test_linear_warmup_state_dict_includes_inner():
    s = lr.LinearWarmup(lr.StepDecay(0.5, 2), 3, 0.1, 0.5)
    for _ in range(6):
        s.step()
    sd = s.state_dict()
    assert sd == {"last_epoch": 6, "last_lr": pytest.approx(0.05),
                  "LinearWarmup_LR": {"last_epoch": 3, "last_lr": pytest.approx(0.05)}}
    t = lr.LinearWarmup(lr.StepDecay(0.5, 2), 3, 0.1, 0.5)
    t.set_state_dict(sd)
    assert t.learning_rate.last_epoch == 3 and t() == pytest.approx(0.05)


def test_noam_lambda_multiplicative():
    close(seq(lr.NoamDecay(16, 4, 2.0), 8),
          [2.0 * 16 ** -0.5 * min(1 if e == 0 else e ** -0.5, 4 ** -1.5 * e) for e in range(8)])
    close(seq(lr.LambdaDecay(0.5, lambda e: 0.9 ** e)), [0.5 * 0.9 ** e for e in range(12)])
    close(seq(lr.MultiplicativeDecay(0.5, lambda e: 0.9)), [0.5 * 0.9 ** e for e in range(12)])


def test_linear_lr():
    got = seq(lr.LinearLR(0.5, 5, 0.2, 0.9), 8)
    close(got, [0.5 * (0.2 + 0.7 * min(e, 5) / 5) for e in range(8)])


def test_cyclic_triangular():
    got = seq(lr.CyclicLR(0.1, 0.5, 3, 2), 10)
    # up over 3 steps, down over 2
    close(got, [0.1, 0.1 + 0.4 / 3, 0.1 + 0.8 / 3, 0.5, 0.3, 0.1, 0.1 + 0.4 / 3, 0.1 + 0.8 / 3, 0.5, 0.3])


def test_cyclic_triangular2_halves_amplitude_each_cycle():
    got = seq(lr.CyclicLR(0.1, 0.5, 2, mode="triangular2"), 9)
    close(got, [0.1, 0.3, 0.5, 0.3, 0.1, 0.2, 0.3, 0.2, 0.1])


def test_one_cycle():
    got = seq(lr.OneCycleLR(0.5, 11, phase_pct=0.3, anneal_strategy="linear"), 11)
    up_end = 0.3 * 11 - 1
    want = []
    for e in range(11):
        if e <= up_end:
            want.append(0.02 + (0.5 - 0.02) * e / up_end)
        else:
            want.append(0.5 + (0.0001 - 0.5) * (e - up_end) / (10 - up_end))
    close(got, want)


def test_cosine_warm_restarts():
    got = seq(lr.CosineAnnealingWarmRestarts(0.5, 3, 2, 0.01), 10)
    want = []
    t_cur, t_i = 0, 3
    for e in range(10):
        want.append(0.01 + 0.49 * (1 + math.cos(math.pi * t_cur / t_i)) / 2)
        t_cur += 1
        if t_cur >= t_i:
            t_cur, t_i = t_cur - t_i, t_i * 2
    close(got, want)


def test_reduce_on_plateau():
    s = lr.ReduceOnPlateau(0.5, patience=2, cooldown=1, factor=0.5)
    out = []
    for m in [5, 4, 4, 4, 4, 3, 3, 3, 3, 3, 3, 3]:
        out.append(s())
        s.step(m)
    # steps 3-5: 4 does not improve on 4, bad epochs 1, 2, 3 > patience -> halve; step 6 is the cooldown
    # (metric ignored); step 7 improves to 3; steps 8-10 are bad again -> halve
    close(out, [0.5] * 5 + [0.25] * 5 + [0.125] * 2)
    assert set(s.state_dict()) == {"cooldown_counter", "best", "num_bad_epochs", "last_epoch", "last_lr"}
    with pytest.raises(TypeError, match="metrics must be a number"):
        s.step("x")


def test_state_dict_round_trip():
    s = lr.ExponentialDecay(0.5, 0.9)
    for _ in range(4):
        s.step()
    t = lr.ExponentialDecay(0.5, 0.9)
    t.set_state_dict(s.state_dict())
    assert (t.last_epoch, t()) == (4, s())
    t.step()
    s.step()
    assert t() == s()
    with pytest.raises(RuntimeError, match="no 'last_lr' entry"):
        t.set_state_dict({"last_epoch": 1})


def test_verbose_prints(capsys):
    s = lr.StepDecay(0.5, 1, verbose=True)
    s.step()
    assert "Epoch 1: StepDecay set learning rate to 0.05" in capsys.readouterr().out


def test_argument_errors():
    with pytest.raises(TypeError, match="learning_rate must be a float"):
        lr.StepDecay("0.1", 2)
    with pytest.raises(TypeError, match="step_size must be an int"):
        lr.StepDecay(0.1, 2.5)
    with pytest.raises(ValueError, match="gamma must be < 1.0"):
        lr.StepDecay(0.1, 2, gamma=2.0)
    with pytest.raises(ValueError, match="milestones must be increasing"):
        lr.MultiStepDecay(0.1, [5, 2])
    with pytest.raises(ValueError, match="values must have"):
        lr.PiecewiseDecay([1, 2], [0.1, 0.2])
    with pytest.raises(ValueError, match="end_lr"):
        lr.LinearWarmup(0.5, 3, 0.5, 0.1)
