"""paddle.text.viterbi_decode / ViterbiDecoder (runtime/text/viterbi.py) against brute force over every
tag sequence, argument checks, and the op inside a static Program."""
import itertools

import numpy as np
import pytest

import dy2st as paddle

rng = np.random.default_rng(21)


def brute_force(pot, trans, lengths, with_tags):
    n = pot.shape[2]
    scores, paths = [], np.zeros((len(lengths), max(lengths)), np.int64)
    for b, L in enumerate(lengths):
        def score(seq):
            s = sum(pot[b, t, seq[t]] for t in range(L)) + sum(trans[seq[t - 1], seq[t]] for t in range(1, L))
            # the last row of the transitions is the start tag, the second-to-last row the stop tag
            return s + (trans[n - 1, seq[0]] + trans[n - 2, seq[-1]] if with_tags else 0.0)
        best = max(itertools.product(range(n), repeat=L), key=score)
        scores.append(score(best))
        paths[b, :L] = best
    return np.array(scores), paths


@pytest.mark.parametrize("with_tags", [True, False])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_viterbi_decode_is_the_best_path(with_tags, dtype):
    pot, trans = rng.standard_normal((4, 5, 4)), rng.standard_normal((4, 4))
    lengths = [5, 1, 3, 4]
    scores, path = paddle.text.viterbi_decode(paddle.to_tensor(pot.astype(dtype)),
                                              paddle.to_tensor(trans.astype(dtype)),
                                              paddle.to_tensor(np.array(lengths, np.int64)), with_tags)
    ref_s, ref_p = brute_force(pot, trans, lengths, with_tags)
    assert scores.dtype == getattr(paddle, dtype) and path.dtype == paddle.int64
    np.testing.assert_allclose(scores.numpy(), ref_s, rtol=1e-5 if dtype == "float32" else 1e-12)
    np.testing.assert_array_equal(path.numpy(), ref_p)


def test_viterbi_decoder_layer_and_short_batch():
    trans = paddle.to_tensor(rng.standard_normal((3, 3)))
    dec = paddle.text.ViterbiDecoder(trans, include_bos_eos_tag=False)
    pot = rng.standard_normal((2, 6, 3))
    scores, path = dec(paddle.to_tensor(pot), paddle.to_tensor(np.array([2, 3], np.int64)))
    assert path.shape == [2, 3]         # max(lengths) columns, not seq_len
    ref_s, ref_p = brute_force(pot, trans.numpy(), [2, 3], False)
    np.testing.assert_allclose(scores.numpy(), ref_s, rtol=1e-12)
    np.testing.assert_array_equal(path.numpy(), ref_p)


def test_viterbi_errors():
    pot, trans = paddle.to_tensor(np.ones((2, 3, 4))), paddle.to_tensor(np.ones((4, 4)))
    with pytest.raises(ValueError, match="int64"):
        paddle.text.viterbi_decode(pot, trans, paddle.to_tensor(np.array([1, 2], np.int32)))
    with pytest.raises(ValueError, match="Transition must have shape"):
        paddle.text.viterbi_decode(pot, paddle.to_tensor(np.ones((3, 3))), paddle.to_tensor(np.array([1, 2])))
    with pytest.raises(ValueError, match="Length values"):
        paddle.text.viterbi_decode(pot, trans, paddle.to_tensor(np.array([1, 7])))
    with pytest.raises(TypeError, match="float32 or float64"):
        paddle.text.viterbi_decode(paddle.to_tensor(np.ones((2, 3, 4), np.int64)), trans,
                                   paddle.to_tensor(np.array([1, 2])))


def test_viterbi_in_static_program():
    pot, trans = rng.standard_normal((2, 4, 3)), rng.standard_normal((3, 3))
    lengths = np.array([4, 2], np.int64)
    paddle.enable_static()
    try:
        main, startup = paddle.static.Program(), paddle.static.Program()
        with paddle.static.program_guard(main, startup):
            p = paddle.static.data("p", [None, 4, 3], "float64")
            t = paddle.static.data("t", [3, 3], "float64")
            ln = paddle.static.data("ln", [None], "int64")
            scores, path = paddle.text.viterbi_decode(p, t, ln)
        got = paddle.static.Executor().run(main, feed={"p": pot, "t": trans, "ln": lengths},
                                           fetch_list=[scores, path])
    finally:
        paddle.disable_static()
    ref_s, ref_p = brute_force(pot, trans, lengths, True)
    np.testing.assert_allclose(got[0], ref_s, rtol=1e-12)
    np.testing.assert_array_equal(got[1], ref_p)
