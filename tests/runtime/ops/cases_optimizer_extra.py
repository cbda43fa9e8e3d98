"""Table rows for adadelta, adamax, asgd, lamb, nadam, radam and rprop (none is differentiable).

References are the update rules of Paddle's optimizer documentation written out in numpy (float64).
"""
import numpy as np

from .op_harness import OpCase

rng = np.random.default_rng(17)


def r(*shape):
    return rng.uniform(-1.0, 1.0, shape)


def pos(*shape):
    return rng.uniform(0.1, 1.0, shape)


P, G = r(3, 4), r(3, 4)
LR = np.array([0.05])


def adadelta_ref(Param, Grad, AvgSquaredGrad, AvgSquaredUpdate, LearningRate, rho=0.95, epsilon=1e-6, **_):
    eg = rho * AvgSquaredGrad + (1 - rho) * Grad ** 2
    dx = -np.sqrt(AvgSquaredUpdate + epsilon) / np.sqrt(eg + epsilon) * Grad
    return Param + LearningRate[0] * dx, eg, rho * AvgSquaredUpdate + (1 - rho) * dx ** 2, None


def adamax_ref(Param, Grad, LearningRate, Moment, InfNorm, Beta1Pow, beta1=0.9, beta2=0.999, epsilon=1e-8, **_):
    m = beta1 * Moment + (1 - beta1) * Grad
    u = np.maximum(np.abs(Grad), beta2 * InfNorm + epsilon)
    return Param - LearningRate[0] / (1 - Beta1Pow[0]) * m / u, m, u, None


def asgd_ref(param, grad, learning_rate, d, y, n, **_):
    d_new = d - y + grad
    return param - learning_rate[0] / n[0] * d_new, d_new, grad, None


def lamb_ref(Param, Grad, LearningRate, Moment1, Moment2, Beta1Pow, Beta2Pow, SkipUpdate=None, weight_decay=0.01,
             beta1=0.9, beta2=0.999, epsilon=1e-6, always_adapt=False, **_):
    if SkipUpdate is not None and SkipUpdate[0]:
        return Param, Moment1, Moment2, Beta1Pow, Beta2Pow, None
    m = beta1 * Moment1 + (1 - beta1) * Grad
    v = beta2 * Moment2 + (1 - beta2) * Grad ** 2
    rt = (m / (1 - Beta1Pow[0])) / (np.sqrt(v / (1 - Beta2Pow[0])) + epsilon) + weight_decay * Param
    ratio = 1.0
    if weight_decay > 0 or always_adapt:
        pn, tn = np.linalg.norm(Param), np.linalg.norm(rt)
        if pn > 0 and tn > 0:
            ratio = pn / tn
    return Param - LearningRate[0] * ratio * rt, m, v, Beta1Pow * beta1, Beta2Pow * beta2, None


def nadam_ref(param, grad, learning_rate, momentum_decay_pow, beta2_pow, mu_product, moment1, moment2, beta1=0.9,
              beta2=0.999, epsilon=1e-8, momentum_decay=0.004, **_):
    # momentum_decay_pow is 0.96^(t-1) coming in; mu_t uses 0.96^(t psi), mu_{t+1} uses 0.96^((t+1) psi)
    t_pow = momentum_decay_pow * 0.96
    mu_t = beta1 * (1 - 0.5 * t_pow ** momentum_decay)
    mu_next = beta1 * (1 - 0.5 * (t_pow * 0.96) ** momentum_decay)
    prod = mu_product * mu_t
    m = beta1 * moment1 + (1 - beta1) * grad
    v = beta2 * moment2 + (1 - beta2) * grad ** 2
    b2p = beta2_pow * beta2
    m_hat = mu_next * m / (1 - prod * mu_next) + (1 - mu_t) * grad / (1 - prod)
    v_hat = v / (1 - b2p)
    return param - learning_rate[0] * m_hat / (np.sqrt(v_hat) + epsilon), t_pow, b2p, prod, m, v, None


def radam_ref(param, grad, learning_rate, beta1_pow, beta2_pow, rho, moment1, moment2, beta1=0.9, beta2=0.999,
              epsilon=1e-8, **_):
    # rho holds t beta2^t / (1 - beta2^t); with beta2^t = beta2_pow * beta2 the recursion gives the next t
    b1p, b2p = beta1_pow * beta1, beta2_pow * beta2
    rho_new = (rho * (beta2 - b2p) + b2p) / (1 - b2p)
    rho_inf = 2 / (1 - beta2) - 1
    rho_t = rho_inf - 2 * rho_new.reshape(-1)[0]
    m = beta1 * moment1 + (1 - beta1) * grad
    v = beta2 * moment2 + (1 - beta2) * grad ** 2
    m_hat = m / (1 - b1p)
    if rho_t > 5:
        lt = np.sqrt(1 - b2p) / (np.sqrt(v) + epsilon)
        rt = np.sqrt((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t))
        new = param - learning_rate[0] * m_hat * rt * lt
    else:
        new = param - learning_rate[0] * m_hat
    return new, b1p, b2p, rho_new, m, v, None


def rprop_ref(param, grad, prev, learning_rate, learning_rate_range, etas, **_):
    lo, hi = learning_rate_range.reshape(-1)
    eta_minus, eta_plus = etas.reshape(-1)
    sign = grad * prev
    step = learning_rate * np.where(sign > 0, eta_plus, np.where(sign < 0, eta_minus, 1.0))
    step = np.clip(step, lo, hi)
    g = np.where(sign < 0, 0.0, grad)
    return param - np.sign(g) * step, g, step, None


LAMB_IN = {"Param": P, "Grad": G, "LearningRate": LR, "Moment1": r(3, 4) * 0.1, "Moment2": pos(3, 4) * 0.1,
           "Beta1Pow": np.array([0.9 ** 2]), "Beta2Pow": np.array([0.999 ** 2])}
T3 = 3   # the accumulators below are as after 3 steps
NADAM_IN = {"param": P, "grad": G, "learning_rate": LR, "momentum_decay_pow": np.full((3, 4), 0.96 ** T3),
            "beta2_pow": np.full((3, 4), 0.999 ** T3), "mu_product": np.full((3, 4), 0.5),
            "moment1": r(3, 4) * 0.1, "moment2": pos(3, 4) * 0.1}


def _radam_in(t, beta2=0.999):
    b2t = beta2 ** t
    rho = t * b2t / (1 - b2t) if t else 1.0
    return {"param": P, "grad": G, "learning_rate": LR, "beta1_pow": np.full((3, 4), 0.9 ** t),
            "beta2_pow": np.full((3, 4), b2t), "rho": np.full((3, 4), rho),
            "moment1": r(3, 4) * 0.1, "moment2": pos(3, 4) * 0.1}


PREV = r(3, 4)
PREV[0, 0] = 0.0
RPROP_IN = {"param": P, "grad": G, "prev": PREV, "learning_rate": np.full((3, 4), 0.01),
            "learning_rate_range": np.array([[1e-3, 0.011]]), "etas": np.array([[0.5, 1.2]])}


CASES = [
    OpCase("adadelta", {"Param": P, "Grad": G, "AvgSquaredGrad": pos(3, 4), "AvgSquaredUpdate": pos(3, 4) * 0.1,
                        "LearningRate": LR}, adadelta_ref, attrs={"rho": 0.9, "epsilon": 1e-4}, check_grad=False),
    OpCase("adadelta", {"Param": P.astype(np.float32), "Grad": G.astype(np.float32),
                        "AvgSquaredGrad": pos(3, 4).astype(np.float32),
                        "AvgSquaredUpdate": pos(3, 4).astype(np.float32), "LearningRate": LR.astype(np.float32)},
           adadelta_ref, name="float32", check_grad=False, rtol=1e-5, atol=1e-6),
    OpCase("adamax", {"Param": P, "Grad": G, "LearningRate": LR, "Moment": r(3, 4) * 0.1, "InfNorm": pos(3, 4),
                      "Beta1Pow": np.array([0.9 ** 3])}, adamax_ref, check_grad=False),
    OpCase("adamax", {"Param": P, "Grad": G * 3, "LearningRate": LR, "Moment": r(3, 4) * 0.1,
                      "InfNorm": pos(3, 4) * 0.1, "Beta1Pow": np.array([0.8])}, adamax_ref,
           attrs={"beta1": 0.8, "beta2": 0.9, "epsilon": 1e-3}, name="attrs", check_grad=False),
    OpCase("asgd", {"param": P, "grad": G, "learning_rate": LR, "d": r(3, 4), "y": r(3, 4), "n": np.array([3.0])},
           asgd_ref, check_grad=False),
    OpCase("lamb", LAMB_IN, lamb_ref, check_grad=False),
    OpCase("lamb", LAMB_IN, lamb_ref, attrs={"weight_decay": 0.0, "always_adapt": True, "beta1": 0.8,
                                             "epsilon": 1e-4}, name="always_adapt", check_grad=False),
    OpCase("lamb", LAMB_IN, lamb_ref, attrs={"weight_decay": 0.0}, name="no_decay", check_grad=False),
    OpCase("lamb", {**LAMB_IN, "SkipUpdate": np.array([True])}, lamb_ref, name="skip_update", check_grad=False),
    OpCase("nadam", NADAM_IN, nadam_ref, check_grad=False),
    OpCase("nadam", NADAM_IN, nadam_ref, attrs={"beta1": 0.8, "beta2": 0.99, "momentum_decay": 0.05,
                                                "epsilon": 1e-4}, name="attrs", check_grad=False),
    OpCase("radam", _radam_in(0), radam_ref, name="first_step", check_grad=False),
    OpCase("radam", _radam_in(7), radam_ref, name="rectified", check_grad=False),
    OpCase("radam", _radam_in(4, beta2=0.9), radam_ref, attrs={"beta2": 0.9, "beta1": 0.7, "epsilon": 1e-5},
           name="attrs", check_grad=False),
    OpCase("rprop", RPROP_IN, rprop_ref, check_grad=False),
    OpCase("rprop", {**RPROP_IN, "etas": np.array([[0.3, 1.5]]), "learning_rate_range": np.array([[5e-3, 1.0]])},
           rprop_ref, name="etas", check_grad=False),
]
