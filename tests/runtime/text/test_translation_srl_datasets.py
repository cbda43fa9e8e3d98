"""paddle.text WMT14, WMT16 and Conll05st on small synthetic archives in the published layouts, compared
item by item with real Paddle 3.3.1's classes on the same files (subprocess). Paddle numbers Conll05st's
labels by iterating a set (the ids depend on the string-hash seed), so that comparison maps ids back to
label names; WMT16 writes its dictionaries into the dataset cache, pointed at a temporary directory."""
import gzip
import io
import tarfile
import textwrap

import numpy as np
import pytest

from runtime.text import datasets as TD
from runtime.vision.datasets import _cache
from tests.interop import paddle_runner

EN = "the a cat dog sat on mat big small red runs".split()
FR = "le la chat chien assis sur tapis grand petit rouge court".split()


def _add(tar, name, data):
    info = tarfile.TarInfo(name)
    info.size = len(data)
    tar.addfile(info, io.BytesIO(data))


def _pairs(rng, n, long_every=0):
    rows = []
    for i in range(n):
        k = 90 if long_every and i % long_every == 0 else rng.randint(1, 8)
        rows.append(" ".join(rng.choice(EN, k)) + "\t" + " ".join(rng.choice(FR, rng.randint(1, 8))))
    rows.insert(2, "a line without a tab")
    return ("\n".join(rows) + "\n").encode()


SRL = [  # (word, predicate column, argument columns...) rows; blank line ends a sentence
    [("The", "-", "(A0*", "*"), ("cat", "-", "*)", "*"), ("sat", "sat", "(V*)", "(A1*"), ("on", "-", "(AM-LOC*", "*"),
     ("the", "-", "*", "*"), ("mat", "-", "*)", "*)"), ("and", "-", "*", "*"), ("ran", "ran", "*", "(V*)")],
    [("Dogs", "-", "(A0*)"), ("bark", "bark", "(V*)")],
    [("Red", "-", "*"), ("runs", "runs", "(V*)"), ("small", "-", "(A1*"), ("mat", "-", "*)")],
]


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    root = tmp_path_factory.mktemp("mt_srl")
    rng = np.random.RandomState(1)
    with tarfile.open(root / "wmt14.tgz", "w:gz") as tar:
        _add(tar, "wmt14/src.dict", ("\n".join(["<s>", "<e>", "<unk>"] + EN) + "\n").encode())
        _add(tar, "wmt14/trg.dict", ("\n".join(["<s>", "<e>", "<unk>"] + FR) + "\n").encode())
        for mode, n in (("train", 12), ("test", 5), ("gen", 4)):
            _add(tar, f"wmt14/{mode}/{mode}", _pairs(rng, n, long_every=5))
    with tarfile.open(root / "wmt16.tar.gz", "w:gz") as tar:
        for mode, n in (("train", 15), ("val", 4), ("test", 5)):
            _add(tar, f"wmt16/{mode}", _pairs(rng, n))
    words = "\n".join(w for sent in SRL for w, *_ in sent)
    props = "\n\n".join("\n".join("\t".join(r[1:]) for r in sent) for sent in SRL) + "\n\n"
    words = "\n\n".join("\n".join(r[0] for r in sent) for sent in SRL) + "\n\n"
    with tarfile.open(root / "conll05st-tests.tar.gz", "w:gz") as tar:
        _add(tar, "conll05st-release/test.wsj/words/test.wsj.words.gz", gzip.compress(words.encode()))
        _add(tar, "conll05st-release/test.wsj/props/test.wsj.props.gz", gzip.compress(props.encode()))
    (root / "wordDict.txt").write_text("\n".join(["<unk>", "the", "cat", "sat", "on", "mat", "bos", "eos", "and",
                                                  "Dogs", "bark", "runs"]) + "\n")
    (root / "verbDict.txt").write_text("bark\nsat\nran\nruns\n")
    (root / "targetDict.txt").write_text("B-A0\nI-A0\nB-A1\nI-A1\nB-AM-LOC\nI-AM-LOC\nB-V\nI-V\nO\n")
    (root / "emb").write_bytes(b"\0" * 16)
    return root


CODE = textwrap.dedent('''
    import numpy as np

    def compute(paddle, root):
        TD = paddle.text.datasets
        out = {}
        def put(prefix, ds):
            out[prefix + ".len"] = np.array(len(ds))
            for i in range(len(ds)):
                for j, v in enumerate(ds[i]):
                    out[f"{prefix}.{i}.{j}"] = np.asarray(v)
        for mode in ("train", "test", "gen"):
            for size in (6, 30):
                ds = TD.WMT14(root + "/wmt14.tgz", mode, dict_size=size)
                put(f"wmt14.{mode}.{size}", ds)
            s, t = ds.get_dict(reverse=True)
            out[f"wmt14.{mode}.rdict"] = np.array(sorted((k, v) for k, v in s.items()))
        for lang in ("en", "de"):
            for mode in ("train", "val", "test"):
                ds = TD.WMT16(root + "/wmt16.tar.gz", mode, src_dict_size=8, trg_dict_size=50, lang=lang)
                put(f"wmt16.{lang}.{mode}", ds)
            for which in ("en", "de"):
                out[f"wmt16.{lang}.dict.{which}"] = np.array(sorted(ds.get_dict(which).items()))
        ds = TD.Conll05st(root + "/conll05st-tests.tar.gz", root + "/wordDict.txt", root + "/verbDict.txt",
                          root + "/targetDict.txt", root + "/emb")
        names = {v: k for k, v in ds.label_dict.items()}
        out["conll.len"] = np.array(len(ds))
        for i in range(len(ds)):
            item = ds[i]
            for j, v in enumerate(item[:-1]):
                out[f"conll.{i}.{j}"] = np.asarray(v)
            out[f"conll.{i}.labels"] = np.array([names[t] for t in item[-1].tolist()])
        out["conll.labels"] = np.array(sorted(ds.label_dict))
        out["conll.emb"] = np.array(ds.get_embedding().endswith("emb"))
        return out
''')


def test_datasets_match_paddle(files, tmp_path, monkeypatch):
    (tmp_path / "theirs" / "wmt16").mkdir(parents=True)   # Paddle writes there without creating it
    proc = paddle_runner.run_paddle(CODE + textwrap.dedent(f'''
        import paddle
        paddle.dataset.common.DATA_HOME = {str(tmp_path / "theirs")!r}
        np.savez("out.npz", **compute(paddle, {str(files)!r}))
    '''), tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    ref = np.load(tmp_path / "out.npz")
    monkeypatch.setattr(_cache, "DATA_HOME", str(tmp_path / "ours"))
    import dy2st as paddle
    ns = {}
    exec(CODE, ns)
    ours = ns["compute"](paddle, str(files))
    assert sorted(ours) == sorted(ref.files)
    assert len(ref.files) > 250
    for k in ref.files:
        a, b = ours[k], ref[k]
        assert a.dtype == b.dtype and a.shape == b.shape, (k, a.dtype, a.shape, b.dtype, b.shape)
        np.testing.assert_array_equal(a, b, err_msg=k)
    # the cached dictionaries are the same files
    for name in ("en_8.dict", "de_50.dict", "de_8.dict", "en_50.dict"):
        assert (tmp_path / "ours" / "wmt16" / name).read_bytes() == (tmp_path / "theirs" / "wmt16" / name).read_bytes()


def test_errors(files, tmp_path, monkeypatch):
    monkeypatch.setattr(_cache, "DATA_HOME", str(tmp_path))
    with pytest.raises(AssertionError, match="positive"):
        TD.WMT14(str(files / "wmt14.tgz"))
    with pytest.raises(AssertionError, match="mode"):
        TD.WMT16(str(files / "wmt16.tar.gz"), "dev", 5, 5)
    with pytest.raises(FileNotFoundError, match="wmt14.tgz"):
        TD.WMT14(dict_size=5)
    with pytest.raises(FileNotFoundError, match="conll05st"):
        TD.Conll05st()
    ds = TD.WMT16(str(files / "wmt16.tar.gz"), "test", 6, 6)
    assert (tmp_path / "wmt16" / "en_6.dict").read_text().splitlines()[:3] == ["<s>", "<e>", "<unk>"]
    assert not [p for p in (tmp_path / "wmt16").iterdir() if p.name.startswith(".")]   # no temporary left
    assert len(ds) == 5
