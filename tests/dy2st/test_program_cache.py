"""The program cache of a to_static function (issue 12): bounded (LRU), and one retracing warning per
function that names what varied and the InputSpec that fixes it."""
import warnings

import numpy as np
import pytest

import dy2st as paddle
from dy2st import static_function
from dy2st.static import InputSpec


def _double(x):
    return x * 2.0


def _scale(x, k):
    return x * k


def _ones(*shape):
    return paddle.to_tensor(np.ones(shape, "float32"))


def test_cache_is_bounded_lru():
    fn = paddle.jit.to_static(_double)
    fn.program_cache.max_size = 3
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for b in range(1, 6):                   # 5 shapes: the first two are evicted
            np.testing.assert_allclose(fn(_ones(b, 2)).numpy(), np.full((b, 2), 2.0))
        cache = fn.program_cache
        assert (len(cache), cache.traced, cache.evicted) == (3, 5, 2)
        fn(_ones(3, 2))                         # a hit: batch 3 becomes the most recently used
        assert cache.traced == 5
        fn(_ones(1, 2))                         # evicted before: traced again, evicting batch 4 (LRU)
        assert (len(cache), cache.traced) == (3, 6)
        fn(_ones(3, 2))
        fn(_ones(5, 2))
        assert cache.traced == 6
        fn(_ones(4, 2))
        assert cache.traced == 7


def test_default_bound_is_module_setting(monkeypatch):
    monkeypatch.setattr(static_function, "MAX_CACHE_SIZE", 4)
    fn = paddle.jit.to_static(_double)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for b in range(1, 20):
            fn(_ones(b, 1))
    assert len(fn.program_cache) == 4 and fn.program_cache.traced == 19


def test_bound_from_environment(monkeypatch):
    monkeypatch.setenv("DY2ST_MAX_CACHE_SIZE", "7")
    assert static_function._env_cache_size() == 7
    monkeypatch.setenv("DY2ST_MAX_CACHE_SIZE", "")
    assert static_function._env_cache_size() == 64
    for bad in ("0", "-3", "many"):
        monkeypatch.setenv("DY2ST_MAX_CACHE_SIZE", bad)
        with pytest.raises(ValueError, match="DY2ST_MAX_CACHE_SIZE must be a positive integer"):
            static_function._env_cache_size()


def test_one_warning_per_function_naming_the_varying_dim_and_the_fix():
    def varying_batch(x, y):
        return x + y
    fn = paddle.jit.to_static(varying_batch)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for b in range(1, 31):
            fn(_ones(b, 4), _ones(1, 4))
    msgs = [str(w.message) for w in caught if "has been traced" in str(w.message)]
    assert len(msgs) == 1
    msg = msgs[0]
    assert "varying_batch has been traced 11 times" in msg and "MAX_TRACED_PROGRAM_COUNT = 10" in msg
    assert "argument 'x' came with shapes [1, 4], [2, 4]" in msg
    assert "InputSpec(shape=[None, 4], dtype='float32', name='x')" in msg
    assert "argument 'y'" not in msg        # y never varied
    assert caught[0].filename == __file__   # points at the user's call


def test_warning_for_a_varying_python_value_says_pass_a_tensor():
    fn = paddle.jit.to_static(_scale)
    with pytest.warns(UserWarning, match=r"argument 'k' \(not a tensor\) came with values 0, 1, 2, 3, 4 and 6 more: "
                                         r"pass it as a tensor"):
        for k in range(11):
            fn(_ones(2, 2), k)


def test_other_instances_of_the_same_method_do_not_warn_again():
    class Net(paddle.nn.Layer):
        @paddle.jit.to_static
        def forward(self, x):
            return x + 1.0
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for _ in range(2):
            net = Net()
            for b in range(1, 13):
                net(_ones(b, 3))
    assert sum("has been traced" in str(w.message) for w in caught) == 1


def test_input_spec_with_none_dims_keeps_one_program():
    fn = paddle.jit.to_static(_double, input_spec=[InputSpec([None, 4], "float32")])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for b in range(1, 40):
            fn(_ones(b, 4))
    assert fn.program_cache.traced == 1


def test_evicted_programs_free_their_generated_source():
    # each compiled program registers its source in linecache (for tracebacks); an evicted program must
    # take it along, or a bounded cache would still grow by one source per trace
    import gc
    import linecache

    def compiled_sources():
        gc.collect()
        return sum(1 for name in list(linecache.cache) if name.startswith("<dy2st-compiled"))
    fn = paddle.jit.to_static(_double)
    fn.program_cache.max_size = 3
    before = compiled_sources()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for b in range(1, 25):
            fn(_ones(b, 2))
    assert fn.program_cache.traced == 24
    assert compiled_sources() - before <= 3
