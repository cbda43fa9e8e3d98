"""Table rows for the parameter-update ops and the gradient-clip helper ops (none is differentiable).

References are the update formulas from Paddle's documentation, written out in numpy.
"""
import numpy as np

from .op_harness import OpCase

rng = np.random.default_rng(7)


def r(*shape):
    return rng.uniform(-1.0, 1.0, shape)


def pos(*shape):
    return rng.uniform(0.1, 1.0, shape)


P, G = r(3, 4), r(3, 4)
LR = np.array([0.05])


# -- references --------------------------------------------------------------------------

def sgd_ref(Param, LearningRate, Grad, MasterParam=None, **_):
    if MasterParam is not None:
        new = MasterParam - LearningRate[0] * Grad.astype(np.float32)
        return new.astype(Param.dtype), new
    return Param - LearningRate[0] * Grad, None


def momentum_ref(Param, Grad, Velocity, LearningRate, mu=0.9, use_nesterov=False, regularization_method="",
                 regularization_coeff=0.0, rescale_grad=1.0, **_):
    g = Grad * rescale_grad
    if regularization_method == "l2_decay":
        g = g + regularization_coeff * Param
    v = mu * Velocity + g
    lr = LearningRate[0]
    p = Param - (g + mu * v) * lr if use_nesterov else Param - lr * v
    return p, v, None


def adam_ref(Param, Grad, LearningRate, Moment1, Moment2, Beta1Pow, Beta2Pow, Moment2Max=None, SkipUpdate=None,
             Beta1Tensor=None, Beta2Tensor=None, EpsilonTensor=None, beta1=0.9, beta2=0.999, epsilon=1e-8,
             amsgrad=False, use_global_beta_pow=False, coeff=None, with_decay=False, lr_ratio=1.0, **_):
    if SkipUpdate is not None and SkipUpdate[0]:
        return Param, Moment1, Moment2, (Moment2Max if amsgrad else None), Beta1Pow, Beta2Pow, None
    b1 = beta1 if Beta1Tensor is None else Beta1Tensor[0]
    b2 = beta2 if Beta2Tensor is None else Beta2Tensor[0]
    eps = epsilon if EpsilonTensor is None else EpsilonTensor[0]
    lr = LearningRate[0] * lr_ratio
    p = Param
    if coeff is not None and with_decay:
        p = p - lr * coeff * p
    m1 = b1 * Moment1 + (1 - b1) * Grad
    m2 = b2 * Moment2 + (1 - b2) * Grad ** 2
    m2max = np.maximum(Moment2Max, m2) if amsgrad else None
    v = m2max if amsgrad else m2
    b1p, b2p = Beta1Pow[0], Beta2Pow[0]
    lr_t = lr * np.sqrt(1 - b2p) / (1 - b1p)
    p = p - lr_t * m1 / (np.sqrt(v) + eps * np.sqrt(1 - b2p))
    if use_global_beta_pow:
        return p, m1, m2, m2max, Beta1Pow, Beta2Pow, None
    return p, m1, m2, m2max, Beta1Pow * b1, Beta2Pow * b2, None


def adamw_ref(coeff=0.01, **kw):
    return adam_ref(coeff=coeff, **kw)


def rmsprop_ref(Param, MeanSquare, Grad, Moment, LearningRate, MeanGrad=None, epsilon=1e-10, decay=0.9,
                momentum=0.0, centered=False, **_):
    ms = decay * MeanSquare + (1 - decay) * Grad ** 2
    lr = LearningRate[0]
    if centered:
        mg = decay * MeanGrad + (1 - decay) * Grad
        mom = momentum * Moment + lr * Grad / np.sqrt(ms - mg ** 2 + epsilon)
    else:
        mg = MeanGrad
        mom = momentum * Moment + lr * Grad / np.sqrt(ms + epsilon)
    return Param - mom, mom, ms, mg, None


def adagrad_ref(Param, Grad, Moment, LearningRate, epsilon=1e-6, **_):
    m = Moment + Grad ** 2
    return Param - LearningRate[0] * Grad / (np.sqrt(m) + epsilon), m, None


def clip_by_norm_ref(X, max_norm=1.0):
    n = np.sqrt((X ** 2).sum())
    return X * (max_norm / n) if n > max_norm else X


ADAM_IN = {"Param": P, "Grad": G, "LearningRate": LR, "Moment1": r(3, 4) * 0.1, "Moment2": pos(3, 4) * 0.1,
           "Beta1Pow": np.array([0.9 ** 3]), "Beta2Pow": np.array([0.999 ** 3])}


CASES = [
    OpCase("sgd", {"Param": P, "LearningRate": LR, "Grad": G}, sgd_ref, check_grad=False),
    OpCase("sgd", {"Param": P.astype(np.float16), "LearningRate": LR.astype(np.float32), "Grad": G.astype(np.float16),
                   "MasterParam": P.astype(np.float32)}, sgd_ref, attrs={"multi_precision": True},
           name="master_param", check_grad=False, rtol=1e-3, atol=1e-3),
    OpCase("sgd", {"Param": P.astype(np.float32), "LearningRate": LR.astype(np.float32), "Grad": G.astype(np.float32)},
           sgd_ref, name="float32", check_grad=False),
    OpCase("momentum", {"Param": P, "Grad": G, "Velocity": r(3, 4), "LearningRate": LR}, momentum_ref,
           attrs={"mu": 0.8}, check_grad=False),
    OpCase("momentum", {"Param": P, "Grad": G, "Velocity": r(3, 4), "LearningRate": LR}, momentum_ref,
           attrs={"mu": 0.9, "use_nesterov": True}, name="nesterov", check_grad=False),
    OpCase("momentum", {"Param": P, "Grad": G, "Velocity": r(3, 4), "LearningRate": LR}, momentum_ref,
           attrs={"mu": 0.7, "regularization_method": "l2_decay", "regularization_coeff": 0.1, "rescale_grad": 0.5},
           name="l2_decay_rescale", check_grad=False),
    OpCase("adam", ADAM_IN, adam_ref, check_grad=False),
    OpCase("adam", ADAM_IN, adam_ref, attrs={"beta1": 0.8, "beta2": 0.95, "epsilon": 1e-3}, name="attrs",
           check_grad=False),
    OpCase("adam", {**ADAM_IN, "Moment2Max": pos(3, 4) * 0.1}, adam_ref, attrs={"amsgrad": True}, name="amsgrad",
           check_grad=False),
    OpCase("adam", ADAM_IN, adam_ref, attrs={"use_global_beta_pow": True}, name="global_beta_pow", check_grad=False),
    OpCase("adam", {**ADAM_IN, "SkipUpdate": np.array([True])}, adam_ref, name="skip_update", check_grad=False),
    OpCase("adam", {**ADAM_IN, "Beta1Tensor": np.array([0.5]), "Beta2Tensor": np.array([0.9]),
                    "EpsilonTensor": np.array([1e-2])}, adam_ref, name="beta_tensors", check_grad=False),
    OpCase("adam", {k: v.astype(np.float32) for k, v in ADAM_IN.items()}, adam_ref, name="float32",
           check_grad=False, rtol=1e-5, atol=1e-6),
    OpCase("adamw", ADAM_IN, adamw_ref, attrs={"coeff": 0.1, "with_decay": True, "lr_ratio": 0.5}, check_grad=False),
    OpCase("adamw", ADAM_IN, adamw_ref, attrs={"coeff": 0.1, "with_decay": False}, name="no_decay", check_grad=False),
    OpCase("rmsprop", {"Param": P, "MeanSquare": pos(3, 4), "Grad": G, "Moment": r(3, 4) * 0.1, "LearningRate": LR,
                       "MeanGrad": r(3, 4) * 0.1}, rmsprop_ref, attrs={"decay": 0.95, "epsilon": 1e-6},
           check_grad=False),
    OpCase("rmsprop", {"Param": P, "MeanSquare": pos(3, 4) + 0.5, "Grad": G, "Moment": r(3, 4) * 0.1,
                       "LearningRate": LR, "MeanGrad": r(3, 4) * 0.1}, rmsprop_ref,
           attrs={"decay": 0.9, "epsilon": 1e-4, "momentum": 0.5, "centered": True}, name="centered_momentum",
           check_grad=False),
    OpCase("adagrad", {"Param": P, "Grad": G, "Moment": pos(3, 4), "LearningRate": LR}, adagrad_ref,
           attrs={"epsilon": 1e-3}, check_grad=False),
    OpCase("squared_l2_norm", {"X": r(3, 4)}, lambda X: np.array([(X ** 2).sum()]), check_grad=False),
    OpCase("clip_by_norm", {"X": r(3, 4) * 3}, clip_by_norm_ref, attrs={"max_norm": 0.5}, check_grad=False),
    OpCase("clip_by_norm", {"X": r(3, 4) * 0.01}, clip_by_norm_ref, attrs={"max_norm": 5.0}, name="below_max",
           check_grad=False),
]
