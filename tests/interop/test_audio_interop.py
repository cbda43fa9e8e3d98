"""Differential test of paddle.audio against real Paddle 3.3.1 (one Paddle subprocess for the module).

``CODE``'s ``compute(paddle, root)`` calls every function of paddle.audio.functional, every window type
(periodic and symmetric, float32 and float64, edge lengths), the four feature layers (values, dtypes,
shapes, state_dict buffers, the waveform gradient), the wave backend on the same WAV files (bytes written,
samples read back, info fields, error types), the backend queries, and ESC50 / TESS item by item on
small synthetic folders in the upstream layouts and on zip archives of them left in the dataset cache
(Paddle's downloader finds them by md5 and unpacks them; we do the same, without a network). It runs once
in Paddle and once with dy2st, each under its own ``root`` folder.
"""
import json
import textwrap

import numpy as np
import pytest

from .diff_prelude import assert_same_as_paddle, with_helpers

CODE = with_helpers(textwrap.dedent('''
    import os, wave, warnings
    import numpy as np

    def compute(paddle, root):
        AF = paddle.audio.functional
        feats = paddle.audio.features
        out = {}
        h = diff_helpers(paddle, out, err_prefix="err.", lists="flat")
        put, err = h.put, h.err
        rng = np.random.default_rng(5)

        # -- mel scale, frequencies, filter banks, dB, DCT
        for htk in (False, True):
            for dt in ("float32", "float64"):
                f = paddle.to_tensor(np.array([0.0, 3.0, 440.0, 999.0, 1000.0, 1500.0, 8000.0], dt))
                put(f"hz_to_mel.{htk}.{dt}", AF.hz_to_mel(f, htk))
                put(f"mel_to_hz.{htk}.{dt}", AF.mel_to_hz(AF.hz_to_mel(f, htk), htk))
                mels = paddle.to_tensor(np.array([0.0, 7.5, 15.0, 30.0, 45.0], dt))
                put(f"mel_to_hz.raw.{htk}.{dt}", AF.mel_to_hz(mels, htk))
                put(f"mel_frequencies.{htk}.{dt}", AF.mel_frequencies(20, 30.0, 8000.0, htk, dt))
            for v in (0.0, 3.0, 999.0, 1000.0, 4000.0):
                put(f"hz_to_mel.float.{htk}.{v}", AF.hz_to_mel(v, htk))
                put(f"mel_to_hz.float.{htk}.{v}", AF.mel_to_hz(v / 100.0 if htk else v / 80.0, htk))
        put("mel_frequencies.default", AF.mel_frequencies())
        for dt in ("float32", "float64"):
            put(f"fft_frequencies.{dt}", AF.fft_frequencies(16000, 100, dt))
            put(f"fbank.default.{dt}", AF.compute_fbank_matrix(16000, 128, dtype=dt))
            put(f"fbank.htk.{dt}", AF.compute_fbank_matrix(22050, 64, 12, 20.0, 9000.0, True, "slaney", dt))
            put(f"fbank.p1.{dt}", AF.compute_fbank_matrix(8000, 50, 10, norm=1.0, dtype=dt))
            put(f"fbank.p2.{dt}", AF.compute_fbank_matrix(8000, 50, 10, norm=2, dtype=dt))
            put(f"fbank.none.{dt}", AF.compute_fbank_matrix(8000, 50, 10, norm=None, dtype=dt))
            put(f"dct.ortho.{dt}", AF.create_dct(13, 40, dtype=dt))
            put(f"dct.none.{dt}", AF.create_dct(5, 8, None, dt))
            spect = paddle.to_tensor(np.abs(rng.standard_normal((2, 6, 5))).astype(dt) ** 4)
            put(f"power_to_db.{dt}", AF.power_to_db(spect))
            put(f"power_to_db.ref.{dt}", AF.power_to_db(spect, ref_value=0.5, amin=1e-5, top_db=20.0))
            put(f"power_to_db.notop.{dt}", AF.power_to_db(spect, 2.0, 1e-3, None))
        put("power_to_db.scalar", AF.power_to_db(paddle.to_tensor(3.0)))
        err("power_to_db.amin", lambda: AF.power_to_db(paddle.to_tensor([1.0]), amin=0))
        err("power_to_db.ref", lambda: AF.power_to_db(paddle.to_tensor([1.0]), ref_value=-1.0))
        err("power_to_db.top_db", lambda: AF.power_to_db(paddle.to_tensor([1.0]), top_db=-1.0))
        err("dct.norm", lambda: AF.create_dct(4, 8, "slaney"))
        x = paddle.to_tensor(np.array([100.0, 900.0, 1200.0, 3000.0]), stop_gradient=False)
        AF.hz_to_mel(x).sum().backward()
        put("hz_to_mel.grad", x.grad)

        # -- every window, periodic and symmetric, both dtypes, edge lengths
        windows = ["hann", "hamming", "blackman", "nuttall", "bartlett", "triang", "bohman", "cosine",
                   "tukey", "taylor", ("kaiser", 8.6), ("gaussian", 3.0), ("general_gaussian", 1.5, 4.0),
                   ("exponential", None, 2.0), ("tukey", 0.3), ("tukey", 0.0), ("tukey", 1.0),
                   ("taylor", 5, 40, False), ("taylor", 1), ("general_hamming", 0.6),
                   ("general_cosine", [0.5, 0.3, 0.2]), ("exponential",)]
        for w in windows:
            tag = w if isinstance(w, str) else "-".join(str(p) for p in w)
            for fftbins in (True, False):
                for dt in ("float32", "float64"):
                    for n in (0, 1, 2, 7, 16):
                        put(f"window.{tag}.{fftbins}.{dt}.{n}", AF.get_window(w, n, fftbins, dt))
        put("window.default", AF.get_window("hann", 10))
        # paddle.hann_window & co. live in the same window module (Paddle reaches them as top-level names)
        W = paddle.audio.functional.window
        for dt in ("float32", "float64"):
            for periodic in (True, False):
                put(f"top.hann.{dt}.{periodic}", W.hann_window(12, periodic, dtype=dt))
                put(f"top.hamming.{dt}.{periodic}", W.hamming_window(12, periodic, 0.6, 0.35, dtype=dt))
                put(f"top.kaiser.{dt}.{periodic}", W.kaiser_window(12, periodic, 5.0, dtype=dt))
                put(f"top.blackman.{dt}.{periodic}", W.blackman_window(12, periodic, dtype=dt))
                put(f"top.bartlett.{dt}.{periodic}", W.bartlett_window(12, periodic, dtype=dt))
        put("top.hamming.default", W.hamming_window(9))
        out["top.requires_grad"] = np.array(W.hann_window(4, requires_grad=True).stop_gradient)
        err("top.pin_memory", lambda: W.hann_window(4, pin_memory=True))
        put("window.exponential.center", AF.get_window(("exponential", 3.0, 1.5), 9, True))
        err("window.gaussian_str", lambda: AF.get_window("gaussian", 8))
        err("window.unknown", lambda: AF.get_window("boxcar_x", 8))
        err("window.type", lambda: AF.get_window(3, 8))
        err("window.negative", lambda: AF.get_window("hann", -2))
        err("window.fraction", lambda: AF.get_window("triang", 2.5))
        err("window.exp_center_sym", lambda: AF.get_window(("exponential", 3.0), 9, False))
        err("window.helper", lambda: AF.get_window("extend", 8))

        # -- feature layers
        wav = (0.3 * np.sin(np.arange(2 * 1200) * 0.07).reshape(2, 1200)
               + 0.05 * rng.standard_normal((2, 1200))).astype("float32")
        layers = {
            "spec.default": feats.Spectrogram(n_fft=256),
            "spec.p2.hamming": feats.Spectrogram(n_fft=128, hop_length=50, win_length=100, window="hamming",
                                                 power=2.0),
            "spec.nocenter.kaiser": feats.Spectrogram(n_fft=64, hop_length=16, window=("kaiser", 5.0),
                                                      center=False),
            "spec.constant": feats.Spectrogram(n_fft=64, hop_length=None, pad_mode="constant", power=1.5),
            "mel.default": feats.MelSpectrogram(sr=16000, n_fft=512),
            "mel.htk": feats.MelSpectrogram(sr=8000, n_fft=256, hop_length=64, n_mels=20, f_min=0.0,
                                            f_max=3000.0, htk=True, norm=2.0, window="blackman"),
            "logmel.default": feats.LogMelSpectrogram(sr=16000, n_fft=256),
            "logmel.topdb": feats.LogMelSpectrogram(sr=16000, n_fft=256, hop_length=100, n_mels=32,
                                                    ref_value=0.5, amin=1e-6, top_db=60.0),
            "mfcc.default": feats.MFCC(sr=16000, n_fft=256),
            "mfcc.small": feats.MFCC(sr=16000, n_mfcc=13, n_fft=128, hop_length=64, n_mels=26, top_db=80.0,
                                     window="triang"),
        }
        for name, layer in layers.items():
            put(f"feat.{name}", layer(paddle.to_tensor(wav)))
            for key, val in layer.state_dict().items():
                put(f"state.{name}.{key}", val)
        put("feat.spec.1d", feats.Spectrogram(n_fft=64)(paddle.to_tensor(wav[0])))
        wav64 = wav.astype("float64")
        put("feat.mel.float64", feats.MelSpectrogram(sr=16000, n_fft=128, hop_length=32, n_mels=16,
                                                     dtype="float64")(paddle.to_tensor(wav64)))
        put("feat.mfcc.float64", feats.MFCC(sr=16000, n_mfcc=8, n_fft=128, n_mels=16,
                                            dtype="float64")(paddle.to_tensor(wav64)))
        xg = paddle.to_tensor(wav64[:, :300], stop_gradient=False)
        mel = feats.MelSpectrogram(sr=16000, n_fft=64, hop_length=16, n_mels=8, dtype="float64")
        y = mel(xg)
        (y * paddle.to_tensor(rng.standard_normal(y.shape))).sum().backward()
        put("grad.mel", xg.grad)
        xg2 = paddle.to_tensor(wav64[:, :300], stop_gradient=False)
        m = feats.MFCC(sr=16000, n_mfcc=6, n_fft=64, hop_length=16, n_mels=8, dtype="float64")
        y = m(xg2)
        (y * paddle.to_tensor(rng.standard_normal(y.shape))).sum().backward()
        put("grad.mfcc", xg2.grad)
        err("mfcc.n_mfcc", lambda: feats.MFCC(n_mfcc=70, n_mels=64))
        err("spec.power", lambda: feats.Spectrogram(power=0.0))

        # -- wave backend
        os.makedirs(root, exist_ok=True)
        p = lambda n: os.path.join(root, n)
        stereo = np.clip(wav * 2.5, -1.0, 0.999).astype("float32")
        paddle.audio.save(p("a.wav"), paddle.to_tensor(stereo), 16000)
        paddle.audio.save(p("b.wav"), paddle.to_tensor(stereo.T.copy()), 8000, channels_first=False)
        ints = (stereo[:1] * 20000).astype("int16")
        paddle.audio.save(p("c.wav"), paddle.to_tensor(ints), 22050, bits_per_sample=16)
        for n in ("a", "b", "c"):
            put(f"wav.bytes.{n}", np.frombuffer(open(p(n + ".wav"), "rb").read(), np.uint8))
            i = paddle.audio.info(p(n + ".wav"))
            put(f"wav.info.{n}", np.array([i.sample_rate, i.num_samples, i.num_channels, i.bits_per_sample]))
            out[f"wav.info.enc.{n}"] = np.array(i.encoding)
            put(f"wav.load.{n}", paddle.audio.load(p(n + ".wav"))[0])
            out[f"wav.sr.{n}"] = np.array(paddle.audio.load(p(n + ".wav"))[1])
            put(f"wav.load.raw.{n}", paddle.audio.load(p(n + ".wav"), normalize=False)[0])
            put(f"wav.load.last.{n}", paddle.audio.load(p(n + ".wav"), channels_first=False)[0])
            put(f"wav.load.part.{n}", paddle.audio.load(p(n + ".wav"), frame_offset=100, num_frames=250)[0])
            put(f"wav.load.offset_only.{n}", paddle.audio.load(p(n + ".wav"), frame_offset=100)[0])
        with open(p("a.wav"), "rb") as f:
            put("wav.load.fileobj", paddle.audio.load(f)[0])
        with open(p("a.wav"), "rb") as f:
            put("wav.info.fileobj", np.array([paddle.audio.info(f).num_samples]))
        with wave.open(p("u8.wav"), "wb") as w:
            w.setnchannels(1); w.setsampwidth(1); w.setframerate(4000); w.writeframes(bytes(range(0, 200)))
        i = paddle.audio.info(p("u8.wav"))
        put("wav.info.u8", np.array([i.sample_rate, i.num_samples, i.num_channels, i.bits_per_sample]))
        open(p("junk.wav"), "wb").write(b"RIFF\\x10\\x00\\x00\\x00JUNKjunkjunkjunk")
        good = open(p("a.wav"), "rb").read()
        for name, blob in (("empty", b""), ("header_cut", good[:30]), ("riff_only", good[:12]),
                           ("float_tag", good[:20] + b"\\x03\\x00" + good[22:]), ("data_cut", good[:-37]),
                           ("odd", good[:-1])):
            open(p(name + ".wav"), "wb").write(blob)
            err(f"wav.load.{name}", lambda: paddle.audio.load(p(name + ".wav")))
            err(f"wav.info.{name}", lambda: paddle.audio.info(p(name + ".wav")))
        err("wav.load.junk", lambda: paddle.audio.load(p("junk.wav")))
        err("wav.info.junk", lambda: paddle.audio.info(p("junk.wav")))
        err("wav.load.missing", lambda: paddle.audio.load(p("missing.wav")))
        err("wav.save.1d", lambda: paddle.audio.save(p("x.wav"), paddle.to_tensor(stereo[0]), 8000))
        err("wav.save.bits", lambda: paddle.audio.save(p("x.wav"), paddle.to_tensor(stereo), 8000,
                                                       bits_per_sample=8))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out["backends.list"] = np.array(paddle.audio.backends.list_available_backends())
            out["backends.current"] = np.array(paddle.audio.backends.get_current_backend())
            paddle.audio.backends.set_backend("wave_backend")
            err("backends.soundfile", lambda: paddle.audio.backends.set_backend("soundfile"))
        out["backends.same_load"] = np.array(paddle.audio.load is paddle.audio.backends.wave_backend.load)

        # -- datasets: ESC-50 and TESS folders in the upstream layouts under a private DATA_HOME
        home = p("data_home")
        esc = os.path.join(home, "ESC-50-master")
        os.makedirs(os.path.join(esc, "audio"), exist_ok=True)
        os.makedirs(os.path.join(esc, "meta"), exist_ok=True)
        lines = ["filename,fold,target,category,esc10,src_file,take"]
        for k in range(7):
            name = f"{k % 5 + 1}-1000{k}-A-{k * 3}.wav"
            lines.append(f"{name},{k % 5 + 1},{k * 3},cat{k},False,1000{k},A")
            # noise keeps every mel band well above the dB floor, where float32 rounding is all that differs
            sig = (0.2 * np.sin(np.arange(900 + 37 * k) * (0.05 + 0.01 * k))
                   + 0.05 * rng.standard_normal(900 + 37 * k)).astype("float32")
            paddle.audio.save(os.path.join(esc, "audio", name), paddle.to_tensor(sig[None]), 8000)
        open(os.path.join(esc, "meta", "esc50.csv"), "w").write("\\n".join(lines) + "\\n")
        for spk in ("OAF", "YAF"):
            for emo in ("angry", "happy", "ps"):
                d = os.path.join(home, "TESS_Toronto_emotional_speech_set", f"{spk}_{emo}")
                os.makedirs(d, exist_ok=True)
                for word in ("back", "bar"):
                    n = 700 + len(word + emo) * 11
                    sig = (0.1 * np.cos(np.arange(n) * 0.03) + 0.05 * rng.standard_normal(n)).astype("float32")
                    paddle.audio.save(os.path.join(d, f"{spk}_{word}_{emo}.wav"), paddle.to_tensor(sig[None]),
                                      16000)
        paddle.audio.datasets.esc50.DATA_HOME = home
        paddle.audio.datasets.tess.DATA_HOME = home
        configs = [("raw", {}), ("melspectrogram", dict(n_fft=256, n_mels=16)),
                   ("mfcc", dict(n_mfcc=10, n_fft=256, n_mels=20)),
                   ("logmelspectrogram", dict(n_fft=128, n_mels=12)), ("spectrogram", dict(n_fft=128))]
        for feat_type, kw in configs:
            for mode, split in (("train", 1), ("dev", 2)):
                ds = paddle.audio.datasets.ESC50(mode=mode, split=split, feat_type=feat_type, **kw)
                out[f"esc50.len.{feat_type}.{mode}"] = np.array(len(ds))
                for i in range(len(ds)):
                    feat, label = ds[i]
                    put(f"esc50.{feat_type}.{mode}.{i}", feat)
                    out[f"esc50.label.{feat_type}.{mode}.{i}"] = np.array(label)
            ds = paddle.audio.datasets.TESS(mode="dev", n_folds=3, split=2, feat_type=feat_type, **kw)
            out[f"tess.len.{feat_type}"] = np.array(len(ds))
            for i in range(len(ds)):
                feat, label = ds[i]
                put(f"tess.{feat_type}.{i}", feat)
                out[f"tess.label.{feat_type}.{i}"] = np.array(label)
                out[f"tess.file.{feat_type}.{i}"] = np.array(os.path.relpath(ds.files[i], home))
        # archives in the cache: a one-folder zip (unpacked beside itself) and a zip of the folder's contents
        # (unpacked into a folder named after the archive), as Paddle's downloader places them
        import hashlib, zipfile
        zip_home = p("zip_home")
        os.makedirs(zip_home, exist_ok=True)
        def zip_dir(folder, zip_path, with_top):
            with zipfile.ZipFile(zip_path, "w") as zf:
                for d, _, names in sorted(os.walk(folder)):
                    for n in sorted(names):
                        full = os.path.join(d, n)
                        zf.write(full, os.path.relpath(full, os.path.dirname(folder) if with_top else folder))
            return {"url": "https://example.invalid/" + os.path.basename(zip_path),
                    "md5": hashlib.md5(open(zip_path, "rb").read()).hexdigest()}
        tess_archive = zip_dir(os.path.join(home, "TESS_Toronto_emotional_speech_set"),
                               os.path.join(zip_home, "TESS_Toronto_emotional_speech_set.zip"), True)
        esc_archive = zip_dir(esc, os.path.join(zip_home, "ESC-50-master.zip"), False)
        paddle.audio.datasets.esc50.DATA_HOME = zip_home
        paddle.audio.datasets.tess.DATA_HOME = zip_home
        ds = paddle.audio.datasets.TESS(mode="dev", n_folds=2, split=1, archive=tess_archive)
        out["zip.tess.files"] = np.array([os.path.relpath(f, zip_home) for f in ds.files])
        out["zip.tess.labels"] = np.array(ds.labels)
        put("zip.tess.0", ds[0][0])
        ds = paddle.audio.datasets.ESC50(mode="train", split=3, archive=esc_archive)
        out["zip.esc50.files"] = np.array([os.path.relpath(f, zip_home) for f in ds.files])
        out["zip.esc50.labels"] = np.array(ds.labels)
        put("zip.esc50.1", ds[1][0])
        paddle.audio.datasets.esc50.DATA_HOME = home
        paddle.audio.datasets.tess.DATA_HOME = home
        tr = paddle.audio.datasets.TESS(mode="train", n_folds=3, split=2)
        out["tess.train.files"] = np.array([os.path.relpath(f, home) for f in tr.files])
        out["tess.train.labels"] = np.array(tr.labels)
        out["esc50.label_list"] = np.array(paddle.audio.datasets.ESC50.label_list)
        err("esc50.split", lambda: paddle.audio.datasets.ESC50(split=6))
        err("esc50.feat_type", lambda: paddle.audio.datasets.ESC50(feat_type="cqt"))
        err("tess.split", lambda: paddle.audio.datasets.TESS(n_folds=3, split=4))
        return out
'''))

PADDLE_MAIN = textwrap.dedent('''
    import json
    paddle.set_device("cpu")
    res = compute(paddle, os.path.abspath("paddle_root"))
    # the feature program dy2st saved (save_inference_model) before this script ran, run by Paddle's executor
    paddle.enable_static()
    exe = paddle.static.Executor(paddle.CPUPlace())
    prog, feed_names, fetches = paddle.static.load_inference_model("saved/features", exe)
    saved_outs = exe.run(prog, feed={feed_names[0]: np.load("saved/wave.npy")}, fetch_list=fetches)
    for i, o in enumerate(saved_outs):
        res[f"saved.{i}"] = np.asarray(o)
    paddle.disable_static()
    np.savez("paddle_out.npz", **res)
    json.dump({k: str(v.dtype) for k, v in res.items()}, open("dtypes.json", "w"))
''')

# float32 results: Paddle computes windows, filter banks and DCT matrices in float32 arithmetic, we in
# float64 rounded once to float32, so the functions agree to about a float32 ulp (relative ~1e-7, at most
# ~1e-6 measured); feature layers add Paddle's float32 FFT (ours runs in double), ~1e-5 relative on MFCCs
FUNCTIONAL_F32_TOL = 2e-6
FEATURE_F32_TOL = 2e-5
_FUNCTIONAL = ("hz_to_mel", "mel_to_hz", "mel_frequencies", "fft_frequencies", "fbank", "dct", "power_to_db",
               "window", "top", "state")


def _save_feature_program(workdir):
    """Build the four feature layers into one static program, run it with our executor and save it for
    Paddle to load: its op types, slots and attributes must be Paddle's. Returns our outputs by key."""
    import runtime
    from runtime import static
    from runtime.audio import features
    wave = (0.2 * np.sin(np.arange(2 * 700) * 0.05).reshape(2, 700)
            + 0.02 * np.random.default_rng(8).standard_normal((2, 700))).astype("float32")
    (workdir / "saved").mkdir()
    np.save(workdir / "saved" / "wave.npy", wave)
    runtime.enable_static()
    try:
        main, startup = static.Program(), static.Program()
        with static.program_guard(main, startup):
            x = static.data("wave", [None, 700], "float32")
            outs = [features.Spectrogram(n_fft=128, hop_length=64, power=2.0)(x),
                    features.MelSpectrogram(sr=8000, n_fft=128, hop_length=32, n_mels=16)(x),
                    features.LogMelSpectrogram(sr=8000, n_fft=128, n_mels=16, top_db=70.0)(x),
                    features.MFCC(sr=8000, n_mfcc=8, n_fft=128, n_mels=16, window="hamming")(x)]
        exe = static.Executor()
        exe.run(startup)
        ours = exe.run(main, feed={"wave": wave}, fetch_list=outs)
        static.save_inference_model(str(workdir / "saved" / "features"), [x], outs, exe, program=main)
    finally:
        runtime.disable_static()
    return {f"saved.{i}": o for i, o in enumerate(ours)}


@pytest.fixture(scope="module")
def both(tmp_path_factory):
    from .paddle_runner import run_paddle
    workdir = tmp_path_factory.mktemp("audio")
    saved = _save_feature_program(workdir)
    proc = run_paddle(CODE + PADDLE_MAIN, workdir)
    assert proc.returncode == 0, proc.stderr[-3000:]
    theirs = dict(np.load(workdir / "paddle_out.npz", allow_pickle=False))
    dtypes = json.loads((workdir / "dtypes.json").read_text())
    import dy2st
    ns = {}
    exec(compile(CODE, "<audio interop code>", "exec"), ns)
    homes = {name: getattr(dy2st.audio.datasets, name).DATA_HOME for name in ("esc50", "tess")}
    try:
        ours = ns["compute"](dy2st, str(workdir / "dy2st_root"))
    finally:
        for name, home in homes.items():
            getattr(dy2st.audio.datasets, name).DATA_HOME = home
    ours.update(saved)
    return ours, theirs, dtypes


def test_same_results(both):
    ours, theirs, dtypes = both
    tolerant = {k: FUNCTIONAL_F32_TOL if k.split(".")[0] in _FUNCTIONAL else FEATURE_F32_TOL
                for k, v in theirs.items() if v.dtype == np.float32}
    assert_same_as_paddle(ours, theirs, dtypes, tolerant, double_tol=1e-10)


def test_every_window_type_is_compared(both):
    """The window table above names every window Paddle's get_window accepts."""
    ours, _, _ = both
    from runtime.audio.functional.window import _WINDOWS
    compared = {k.split(".")[1].split("-")[0] for k in ours if k.startswith("window.") and k.count(".") >= 4}
    assert set(_WINDOWS) <= compared
