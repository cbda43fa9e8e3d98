"""Model saves killed at any moment: every loader then finds exactly the old model or exactly the new one.

A forked child saves model B over model A (and A over B, alternately) while the parent SIGKILLs it;
the parent then loads the prefix (first as from a read-only directory, which must not write, then
normally, or it saves again) and checks that the result is exactly A or exactly B, and that no
temporary of ours is left after that load or save. A (with .pdiparams.info) and B (written as
``save_inference_model`` does, without one, so B's save also removes A's .info) differ in program,
parameter shapes and values.

* ``test_random_kills``: kills at random moments (fixed seed), 50 in the suite; the long run:
  ``python -m tests.runtime.formats.test_save_crash --kills 1000`` (or DY2ST_SAVE_CRASH_KILLS=1000
  for the pytest test), which prints the figures.
* ``test_a_kill_at_every_step``: the child kills itself at its k-th file-system call, for every k.
* ``test_the_check_catches_a_mixed_set``: the same check on a saver without the protocol (three
  plain renames) killed between two renames reports a mixed set, so the check can fail.
"""
from __future__ import annotations

import argparse
import contextlib
import os
import random
import signal
import sys
import time

import numpy as np
import pytest

import runtime
from runtime import static
from runtime.formats.model_io import ModelFormatError, load_model, model_paths, save_model

KILLS_ENV = "DY2ST_SAVE_CRASH_KILLS"
SEED = 20261126
FS_CALLS = ("open", "write", "fsync", "replace", "unlink")


# -- the two models ----------------------------------------------------------------------------------

def _build(width, act, seed):
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        x = static.data("x", [None, 3], "float32")
        y = static.nn.fc(x, width, activation=act)
    rng = np.random.RandomState(seed)
    params = {p.name: rng.standard_normal(p.shape).astype("float32") for p in main.all_parameters()}
    return main, y, params


class Models:
    """Model A (fc 3->2, relu, saved with .info) and model B (fc 3->4, tanh, saved without)."""

    def __init__(self):
        runtime.enable_static()
        try:
            self.built = {"A": _build(2, "relu", 1), "B": _build(4, "tanh", 2)}
        finally:
            runtime.disable_static()
        self.x = np.random.RandomState(0).standard_normal((2, 3)).astype("float32")

    def save(self, prefix, name):
        program, y, params = self.built[name]
        save_model(prefix, program, ["x"], [y], params, write_info=(name == "A"))

    def signatures(self, workdir):
        """What a complete A and B load as, from clean saves in ``workdir``."""
        out = {}
        for name in self.built:
            prefix = os.path.join(workdir, "ref_" + name)
            self.save(prefix, name)
            out[name] = signature(load_model(prefix))
        assert out["A"] != out["B"]
        return out


def signature(loaded):
    """Everything a load yields, as comparable data."""
    ops = tuple((op.type, tuple(sorted((k, tuple(v)) for k, v in op.inputs.items())))
                for blk in loaded.program.blocks for op in blk.ops)
    params = tuple(sorted((k, str(v.dtype), v.shape, v.tobytes()) for k, v in loaded.params.items()))
    info = repr(sorted((k, sorted(v.items())) for k, v in loaded.info.items()))
    return tuple(loaded.feed_names), tuple(loaded.fetch_names), ops, params, info


def identify(prefix, sigs):
    """'A', 'B', 'mixed' (loads as neither, or fails to load) or 'missing' (no model file)."""
    try:
        sig = signature(load_model(prefix))
    except ModelFormatError as e:
        return "missing" if "file not found" in str(e) and e.path == model_paths(prefix)[0] else "mixed"
    return next((name for name, s in sigs.items() if s == sig), "mixed")


def ours(d, prefix):
    """Our hidden files beside the model: temporaries and the commit journal."""
    base = os.path.basename(prefix)
    finals = {os.path.basename(p) for p in model_paths(prefix)}
    # ".m.pdmodel.<hex>.dy2st-tmp", ".m.dy2st-commit" and the journal's temporary "..m.dy2st-commit.<hex>.dy2st-tmp"
    return sorted(n for n in os.listdir(d) if n.startswith(("." + base + ".", ".." + base + ".")) and n not in finals)


@contextlib.contextmanager
def read_only_directory():
    """Loads see a read-only directory (as on a read-only mount); any write attempt fails the check."""
    saved = {n: getattr(os, n) for n in ("access", "replace", "rename", "unlink", "remove", "write", "makedirs")}

    def refuse(name):
        def call(*a, **k):
            raise AssertionError(f"os.{name} called while loading from a read-only directory")
        return call
    os.access = lambda p, mode, **k: not (mode & os.W_OK)
    for n in ("replace", "rename", "unlink", "remove", "write", "makedirs"):
        setattr(os, n, refuse(n))
    try:
        yield
    finally:
        for n, f in saved.items():
            setattr(os, n, f)


# -- the child ---------------------------------------------------------------------------------------

def _fork(body):
    """Run ``body()`` in a forked child that never returns into the caller (pytest)."""
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:   # pragma: no cover - child
        code = 0
        try:
            body()
        except BaseException:
            code = 3
        finally:
            os._exit(code)
    return pid


def _kill_at_call(k):
    """Make the k-th file-system call of this (child) process SIGKILL it."""
    count = [0]
    for name in FS_CALLS:
        real = getattr(os, name)

        def call(*a, _real=real, **kw):
            count[0] += 1
            if count[0] == k:
                os.kill(os.getpid(), signal.SIGKILL)
            return _real(*a, **kw)
        setattr(os, name, call)


# -- the checks --------------------------------------------------------------------------------------

class Tally:
    def __init__(self):
        self.kills = self.mixed = self.missing = self.leftover = self.wrong_after_save = 0
        self.loaded = {"A": 0, "B": 0}
        self.pending_journal = self.with_temporaries = 0
        self.problems = []

    def figures(self):
        return {"kills": self.kills, "mixed sets": self.mixed, "missing models": self.missing,
                "leftover temporaries after the next load/save": self.leftover,
                "wrong model after the next save": self.wrong_after_save,
                "loaded A": self.loaded["A"], "loaded B": self.loaded["B"],
                "kills that left a committed, unfinished save": self.pending_journal,
                "kills that left temporaries": self.with_temporaries}


def check_after_kill(d, prefix, models, sigs, tally, then="load"):
    """Inspect and recover ``prefix`` after its saver was killed; count what is wrong in ``tally``."""
    tally.kills += 1
    left = ours(d, prefix)
    tally.pending_journal += any(n.endswith(".dy2st-commit") for n in left)
    tally.with_temporaries += any(n.endswith(".dy2st-tmp") for n in left)
    before = sorted(os.listdir(d))
    with read_only_directory():
        ro = identify(prefix, sigs)
    if sorted(os.listdir(d)) != before:
        tally.problems.append(f"kill {tally.kills}: a read-only load changed the directory")
    if then == "load":
        got = identify(prefix, sigs)
        if got != ro:
            tally.problems.append(f"kill {tally.kills}: read-only load found {ro}, normal load {got}")
    else:
        got = ro
        models.save(prefix, "A")
        if identify(prefix, sigs) != "A":
            tally.wrong_after_save += 1
    if got in ("A", "B"):
        tally.loaded[got] += 1
    elif got == "mixed":
        tally.mixed += 1
    else:
        tally.missing += 1
    if ours(d, prefix):
        tally.leftover += 1
        tally.problems.append(f"kill {tally.kills}: left {ours(d, prefix)} after the next {then}")
    return got


def random_kills(workdir, kills, seed=SEED, models=None, log=None):
    """Kill an alternating B/A save loop ``kills`` times at random moments; return the `Tally`."""
    models = models or Models()
    sigs = models.signatures(workdir)
    d = os.path.join(workdir, "crash")
    os.makedirs(d, exist_ok=True)
    prefix = os.path.join(d, "m")
    models.save(prefix, "A")
    # the delays span about three saves, so kills land in every part of a save of B and of A
    t0 = time.perf_counter()
    for name in "BABA":
        models.save(prefix, name)
    span = 3 * (time.perf_counter() - t0) / 4
    rng = random.Random(seed)
    tally = Tally()

    def loop():
        os.write(ready_w, b"1")        # the timing starts when the child starts saving, not at fork
        k = 0
        while True:
            models.save(prefix, "BA"[k % 2])
            k += 1
    for i in range(kills):
        ready_r, ready_w = os.pipe()
        pid = _fork(loop)
        os.close(ready_w)
        os.read(ready_r, 1)
        os.close(ready_r)
        time.sleep(rng.uniform(0, span))
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        check_after_kill(d, prefix, models, sigs, tally, then="load" if i % 2 == 0 else "save")
        if log and (i + 1) % 100 == 0:
            log(f"{i + 1} kills: {tally.figures()}")
    return tally


# -- the tests ---------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def models():
    return Models()


def test_random_kills(tmp_path, models):
    kills = int(os.environ.get(KILLS_ENV, "50"))
    tally = random_kills(str(tmp_path), kills, models=models)
    assert tally.problems == []
    assert (tally.mixed, tally.missing, tally.leftover, tally.wrong_after_save) == (0, 0, 0, 0), tally.figures()
    assert sum(tally.loaded.values()) == kills


def test_a_kill_at_every_step(tmp_path, models):
    sigs = models.signatures(str(tmp_path))
    tally = Tally()
    seen = []
    k = 1
    while True:
        d = tmp_path / f"k{k}"
        d.mkdir()
        prefix = str(d / "m")
        models.save(prefix, "A")

        def save_b(k=k):
            _kill_at_call(k)
            models.save(prefix, "B")
        pid = _fork(save_b)
        _, status = os.waitpid(pid, 0)
        if os.WIFEXITED(status):
            assert os.WEXITSTATUS(status) == 0, f"the child failed at step {k}"
            assert identify(prefix, sigs) == "B" and ours(str(d), prefix) == []
            break
        assert os.WTERMSIG(status) == signal.SIGKILL
        seen.append(check_after_kill(str(d), prefix, models, sigs, tally, then="load" if k % 2 else "save"))
        k += 1
    assert tally.problems == []
    assert (tally.mixed, tally.missing, tally.leftover, tally.wrong_after_save) == (0, 0, 0, 0), tally.figures()
    # both sides of the commit point were reached, and kills left both kinds of debris to clean
    assert set(seen) == {"A", "B"} and tally.pending_journal > 0 and tally.with_temporaries > 0


def test_every_loader_after_a_kill_between_renames(tmp_path, models, capsys):
    """jit.load, static.load_inference_model and ``dy2st inspect`` on a save killed mid-rename."""
    import dy2st as paddle
    from dy2st.cli.main import main
    sigs = models.signatures(str(tmp_path))
    outputs = {}
    for name in "AB":
        tl = paddle.jit.load(str(tmp_path / ("ref_" + name)))
        outputs[name] = tl(paddle.to_tensor(models.x)).numpy()
    for loader in ("jit", "inference", "cli"):
        d = tmp_path / loader
        d.mkdir()
        prefix = str(d / "m")
        models.save(prefix, "A")
        calls = [0]
        real_replace = os.replace

        def replace_then_die(src, dst):
            real_replace(src, dst)
            if dst.endswith(".pdiparams"):      # the commit is done, .pdmodel is still A's
                os.kill(os.getpid(), signal.SIGKILL)
        pid = _fork(lambda: (setattr(os, "replace", replace_then_die), models.save(prefix, "B")))
        os.waitpid(pid, 0)
        assert any(n.endswith(".dy2st-commit") for n in ours(str(d), prefix))
        if loader == "jit":
            out = paddle.jit.load(prefix)(paddle.to_tensor(models.x)).numpy()
            np.testing.assert_array_equal(out, outputs["B"])
        elif loader == "inference":
            paddle.enable_static()
            try:
                exe = paddle.static.Executor()
                program, feeds, fetches = paddle.static.load_inference_model(prefix, exe)
                out, = exe.run(program, feed={feeds[0]: models.x}, fetch_list=fetches)
            finally:
                paddle.disable_static()
            np.testing.assert_array_equal(out, outputs["B"])
        else:
            capsys.readouterr()
            assert main(["inspect", prefix]) == 0
            text = capsys.readouterr().out
            assert "float32[3, 4]" in text and "tanh" in text and "relu" not in text
        assert ours(str(d), prefix) == [] and identify(prefix, sigs) == "B"


def test_cli_finds_a_first_save_killed_before_its_pdmodel_appeared(tmp_path, models, capsys):
    from dy2st.cli.main import main
    prefix = str(tmp_path / "m")
    real_replace = os.replace

    def die_before_pdmodel(src, dst):
        if dst.endswith(".pdmodel"):            # committed; .pdiparams is in place, .pdmodel not yet
            os.kill(os.getpid(), signal.SIGKILL)
        return real_replace(src, dst)
    pid = _fork(lambda: (setattr(os, "replace", die_before_pdmodel), models.save(prefix, "B")))
    os.waitpid(pid, 0)
    assert not os.path.exists(prefix + ".pdmodel") and os.path.exists(prefix + ".pdiparams")
    capsys.readouterr()
    assert main(["inspect", prefix]) == 0
    assert "float32[3, 4]" in capsys.readouterr().out
    assert ours(str(tmp_path), prefix) == [] and os.path.exists(prefix + ".pdmodel")


def test_an_unreadable_journal_is_a_model_format_error_naming_it(tmp_path, models):
    import dy2st as paddle
    prefix = str(tmp_path / "m")
    models.save(prefix, "A")
    journal = str(tmp_path / ".m.dy2st-commit")
    with open(journal, "wb") as f:
        f.write(b'{"format": "dy2st-file-set", "vers')
    with pytest.raises(ModelFormatError, match="commit journal") as e:
        load_model(prefix)
    assert e.value.path == journal
    with pytest.raises(ModelFormatError, match=r"\.m\.dy2st-commit"):
        paddle.jit.load(prefix)
    models.save(prefix, "B")                    # a save of the whole set replaces the journal
    assert identify(prefix, models.signatures(str(tmp_path))) == "B" and ours(str(tmp_path), prefix) == []


def test_the_check_catches_a_mixed_set(tmp_path, models):
    """A saver with three plain renames (the old behaviour), killed after the first: the check reports it."""
    sigs = models.signatures(str(tmp_path))
    d = tmp_path / "naive"
    d.mkdir()
    prefix = str(d / "m")
    models.save(prefix, "A")
    staging = tmp_path / "staging"
    staging.mkdir()
    models.save(str(staging / "m"), "B")

    def naive_save():
        for ext in (".pdmodel", ".pdiparams"):
            os.replace(str(staging / "m") + ext, prefix + ext)
            os.kill(os.getpid(), signal.SIGKILL)
    pid = _fork(naive_save)
    os.waitpid(pid, 0)
    tally = Tally()
    assert check_after_kill(str(d), prefix, models, sigs, tally) == "mixed" and tally.mixed == 1


def test_a_killed_save_does_not_confuse_real_paddle(tmp_path, models):
    """Our journal and temporaries beside the files are invisible to real PaddlePaddle's loaders."""
    from tests.interop.paddle_runner import run_paddle
    prefix = str(tmp_path / "m")
    models.save(prefix, "A")
    real_replace = os.replace

    def die_at_commit(src, dst):
        if dst.endswith(".dy2st-commit"):       # the temporaries and the journal's are written
            os.kill(os.getpid(), signal.SIGKILL)
        return real_replace(src, dst)
    pid = _fork(lambda: (setattr(os, "replace", die_at_commit), models.save(prefix, "B")))
    os.waitpid(pid, 0)
    assert len(ours(str(tmp_path), prefix)) == 3       # .pdmodel's, .pdiparams' and the journal's temporaries
    np.save(tmp_path / "x.npy", models.x)
    proc = run_paddle(
        "import numpy as np\n"
        "paddle.disable_static()\n"
        "layer = paddle.jit.load('m')\n"
        "layer.eval()\n"
        "np.save('out.npy', layer(paddle.to_tensor(np.load('x.npy'))).numpy())\n", tmp_path)
    assert proc.returncode == 0, proc.stderr[-2000:]
    _, _, params = models.built["A"]
    w = next(v for n, v in params.items() if n.endswith(".w_0"))
    b = next(v for n, v in params.items() if n.endswith(".b_0"))
    np.testing.assert_allclose(np.load(tmp_path / "out.npy"), np.maximum(models.x @ w + b, 0), rtol=1e-5)


# -- the long run ------------------------------------------------------------------------------------

def main(argv=None):
    ap = argparse.ArgumentParser(description="Kill model saves at random moments and check every load.")
    ap.add_argument("--kills", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=SEED)
    ap.add_argument("--dir", default=None, help="working directory (default: a fresh temporary one)")
    args = ap.parse_args(argv)
    import tempfile
    workdir = args.dir or tempfile.mkdtemp(prefix="dy2st-save-crash-")
    t0 = time.perf_counter()
    tally = random_kills(workdir, args.kills, seed=args.seed, log=print)
    seconds = time.perf_counter() - t0
    for k, v in {**tally.figures(), "seconds": round(seconds, 1)}.items():
        print(f"{k}: {v}")
    for p in tally.problems[:20]:
        print("problem:", p)
    bad = tally.mixed or tally.missing or tally.leftover or tally.wrong_after_save or tally.problems
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
