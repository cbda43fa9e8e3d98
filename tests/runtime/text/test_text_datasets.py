"""paddle.text.datasets (UCIHousing, Imdb, Imikolov, Movielens) on small synthetic files in the
published formats, compared item by item with real Paddle 3.3.1's classes on the same files
(subprocess). Movielens numbers categories and title words by enumerating Python sets (the ids
depend on each process's string-hash seed), so that comparison maps ids back to words."""
import io
import os
import tarfile
import textwrap
import zipfile

import numpy as np
import pytest

from runtime.text import datasets as TD
from runtime.vision.datasets import _cache
from tests.interop import paddle_runner


def _add(tar, name, data):
    info = tarfile.TarInfo(name)
    info.size = len(data)
    tar.addfile(info, io.BytesIO(data))


WORDS = ["the", "a", "movie", "film", "good", "bad", "plot", "actor", "great", "boring"]


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    root = tmp_path_factory.mktemp("text_data")
    rng = np.random.RandomState(0)
    rows = np.round(rng.uniform(0, 100, (12, 14)), 3)
    (root / "housing.data").write_text("\n".join(" ".join(f"{v:g}" for v in r) for r in rows) + "\n")
    with tarfile.open(root / "imdb.tar.gz", "w:gz") as tar:
        for split in ("train", "test"):
            for kind in ("pos", "neg"):
                for i in range(3):
                    words = rng.choice(WORDS, 12)
                    text = " ".join(words).capitalize() + ", really! It's " + words[0] + ".\n"
                    _add(tar, f"aclImdb/{split}/{kind}/{i}_7.txt", text.encode())
        _add(tar, "aclImdb/train/unsup/0_0.txt", b"ignored words entirely ignored")
    with tarfile.open(root / "simple-examples.tgz", "w:gz") as tar:
        for part, n in (("train", 8), ("valid", 4), ("test", 3)):
            lines = [" ".join(rng.choice(WORDS + ["<unk>"], rng.randint(2, 7))) for _ in range(n)]
            _add(tar, f"./simple-examples/data/ptb.{part}.txt", ("\n".join(f" {l} " for l in lines) + "\n").encode())
    with zipfile.ZipFile(root / "ml-1m.zip", "w") as z:
        z.writestr("ml-1m/movies.dat", "1::Toy Story (1995)::Animation|Children's|Comedy\n"
                                       "2::Jumanji (1995)::Adventure|Children's|Fantasy\n"
                                       "3::Grumpier Old Men (1995)::Comedy|Romance\n")
        z.writestr("ml-1m/users.dat", "1::F::1::10::48067\n2::M::56::16::70072\n3::M::25::15::55117\n")
        z.writestr("ml-1m/ratings.dat", "".join(f"{1 + i % 3}::{1 + (i * 7) % 3}::{1 + i % 5}::97830{i}\n"
                                                for i in range(40)))
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
        for mode in ("train", "test"):
            put(f"uci.{mode}", TD.UCIHousing(root + "/housing.data", mode))
            imdb = TD.Imdb(root + "/imdb.tar.gz", mode, cutoff=2)
            put(f"imdb.{mode}", imdb)
            out[f"imdb.{mode}.dict"] = np.array(sorted((repr(k), v) for k, v in imdb.word_idx.items()))
            for dtype, win in (("NGRAM", 3), ("SEQ", -1), ("SEQ", 4)):
                ds = TD.Imikolov(root + "/simple-examples.tgz", dtype, win, mode, min_word_freq=1)
                put(f"imik.{mode}.{dtype}.{win}", ds)
            out[f"imik.{mode}.dict"] = np.array(sorted((repr(k), v) for k, v in ds.word_idx.items()))
            ml = TD.Movielens(root + "/ml-1m.zip", mode, test_ratio=0.3, rand_seed=3)
            inv_c = {v: k for k, v in ml.categories_dict.items()}
            inv_t = {v: k for k, v in ml.movie_title_dict.items()}
            out[f"ml.{mode}.len"] = np.array(len(ml))
            for i in range(len(ml)):
                item = ml[i]
                for j, v in enumerate(item):
                    v = np.asarray(v)
                    if j == 5:
                        v = np.array([inv_c[c] for c in v.tolist()])
                    elif j == 6:
                        v = np.array([inv_t[w] for w in v.tolist()])
                    out[f"ml.{mode}.{i}.{j}"] = v
            out[f"ml.{mode}.users"] = np.array([str(ml.user_info[k]) for k in sorted(ml.user_info)])
            out[f"ml.{mode}.movies"] = np.array([str(ml.movie_info[k]) for k in sorted(ml.movie_info)])
        return out
''')


def test_text_datasets_match_paddle(files, tmp_path):
    proc = paddle_runner.run_paddle(CODE + textwrap.dedent(f'''
        import paddle
        np.savez("out.npz", **compute(paddle, {str(files)!r}))
    '''), tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    ref = np.load(tmp_path / "out.npz")
    import dy2st as paddle
    ns = {}
    exec(CODE, ns)
    ours = ns["compute"](paddle, str(files))
    assert sorted(ours) == sorted(ref.files)
    assert len(ref.files) > 200
    for k in ref.files:
        a, b = ours[k], ref[k]
        assert a.dtype == b.dtype and a.shape == b.shape, (k, a.dtype, a.shape, b.dtype, b.shape)
        if a.dtype.kind == "f":
            np.testing.assert_allclose(a, b, rtol=1e-6, err_msg=k)
        else:
            np.testing.assert_array_equal(a, b, err_msg=k)


def test_uci_housing_normalisation_and_split(files):
    raw = np.loadtxt(files / "housing.data")
    ds = TD.UCIHousing(str(files / "housing.data"))
    assert len(ds) == 9 and len(TD.UCIHousing(str(files / "housing.data"), "test")) == 3
    x, y = ds[4]
    expected = (raw[4, :13] - raw[:, :13].mean(0)) / (raw[:, :13].max(0) - raw[:, :13].min(0))
    np.testing.assert_allclose(x, expected, rtol=1e-5)
    assert x.dtype == np.float32 and y.tolist() == [np.float32(raw[4, 13])]


def test_imdb_tokenisation(files):
    ds = TD.Imdb(str(files / "imdb.tar.gz"), cutoff=0)
    assert b"<unk>" not in ds.word_idx and ds.word_idx["<unk>"] == len(ds.word_idx) - 1
    assert b"its" in ds.word_idx and b"really" in ds.word_idx    # punctuation removed, lower-cased
    assert b"ignored" not in ds.word_idx                          # unsup/ is not read
    assert [int(ds[i][1][0]) for i in range(len(ds))] == [0, 0, 0, 1, 1, 1]


def test_imikolov_modes(files):
    ng = TD.Imikolov(str(files / "simple-examples.tgz"), "NGRAM", 2, min_word_freq=0)
    assert all(len(t) == 2 for t in ng.data)
    seq = TD.Imikolov(str(files / "simple-examples.tgz"), "SEQ", min_word_freq=0)
    src, trg = seq[0]
    assert src[0] == seq.word_idx["<s>"] and trg[-1] == seq.word_idx["<e>"] and (src[1:] == trg[:-1]).all()
    with pytest.raises(AssertionError, match="data type"):
        TD.Imikolov(str(files / "simple-examples.tgz"), "CHAR")


def test_missing_files_name_the_cache_path_and_url(tmp_path, monkeypatch):
    monkeypatch.setattr(_cache, "DATA_HOME", str(tmp_path))
    for cls, sub, name in ((TD.UCIHousing, "uci_housing", "housing.data"), (TD.Imdb, "imdb", "imdb%2FaclImdb_v1.tar.gz"),
                           (TD.Imikolov, "imikolov", "imikolov%2Fsimple-examples.tgz"),
                           (TD.Movielens, "sentiment", "movielens%2Fml-1m.zip")):
        with pytest.raises(FileNotFoundError) as e:
            cls()
        assert os.path.join(str(tmp_path), sub, name) in str(e.value) and "http" in str(e.value)
    with pytest.raises(ValueError, match="disabled"):
        TD.UCIHousing(download=False)
    with pytest.raises(AssertionError, match="mode"):
        TD.UCIHousing(mode="valid")
