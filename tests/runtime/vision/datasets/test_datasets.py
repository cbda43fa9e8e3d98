"""paddle.vision.datasets on small synthetic files in the upstream formats, compared item by item
with what real Paddle 3.3.1's dataset classes return on the same files (subprocess), plus the
cache lookup and its error messages. Images are written as PNG with Pillow (both sides decode
them with Pillow)."""
import io
import json
import os
import pickle
import tarfile
import textwrap

import numpy as np
import pytest

from runtime.vision import datasets as D
from runtime.vision.datasets import _cache
from tests.interop.paddle_runner import run_paddle

Image = pytest.importorskip("PIL.Image")


def _add(tar, name, data):
    info = tarfile.TarInfo(name)
    info.size = len(data)
    tar.addfile(info, io.BytesIO(data))


def _png(arr):
    buf = io.BytesIO()
    Image.fromarray(arr).save(buf, format="PNG")
    return buf.getvalue()


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    root = tmp_path_factory.mktemp("vision_data")
    rng = np.random.RandomState(0)
    # CIFAR-10 / CIFAR-100 python pickles (protocol 2, the format of the published archives)
    for name, prefix, members, key in (("c10.tar.gz", "cifar-10-batches-py", ["data_batch_2", "data_batch_1",
                                                                           "test_batch"], b"labels"),
                                       ("c100.tar.gz", "cifar-100-python", ["train", "test"], b"fine_labels")):
        with tarfile.open(root / name, "w:gz") as tar:
            for m in members:
                n = 3 if m != "test" else 2
                batch = {b"batch_label": m.encode(), b"data": rng.randint(0, 256, (n, 3072)).astype(np.uint8),
                         key: [int(v) for v in rng.randint(0, 10, n)]}
                _add(tar, f"{prefix}/{m}", pickle.dumps(batch, protocol=2))
    # an image folder: two classes, a nested file, a non-image file that must be skipped
    for cls, n in (("cat", 2), ("dog", 3)):
        d = root / "folder" / cls
        (d / "sub").mkdir(parents=True, exist_ok=True)
        for i in range(n):
            Image.fromarray(rng.randint(0, 256, (4, 5, 3)).astype(np.uint8)).save(d / f"{i}.png")
        Image.fromarray(rng.randint(0, 256, (4, 5, 3)).astype(np.uint8)).save(d / "sub" / "x.PNG")
        (d / "notes.txt").write_text("not an image")
    # VOC2012 layout inside a tar
    with tarfile.open(root / "voc.tar", "w") as tar:
        names = ["2007_000001", "2007_000002", "2007_000003"]
        _add(tar, "VOCdevkit/VOC2012/ImageSets/Segmentation/trainval.txt", "\n".join(names).encode() + b"\n")
        _add(tar, "VOCdevkit/VOC2012/ImageSets/Segmentation/val.txt", (names[1] + "\n").encode())
        for n in names:
            _add(tar, f"VOCdevkit/VOC2012/JPEGImages/{n}.jpg", _png(rng.randint(0, 256, (6, 7, 3)).astype(np.uint8)))
            _add(tar, f"VOCdevkit/VOC2012/SegmentationClass/{n}.png", _png(rng.randint(0, 21, (6, 7)).astype(np.uint8)))
    return root


CODE = textwrap.dedent('''
    import numpy as np

    def compute(paddle, root):
        D = paddle.vision.datasets
        out = {}
        def put(prefix, ds, n=None):
            out[prefix + ".len"] = np.array(len(ds))
            for i in range(len(ds) if n is None else n):
                item = ds[i]
                for j, v in enumerate(item):
                    v = np.asarray(v)
                    out[f"{prefix}.{i}.{j}"] = v
        for mode in ("train", "test"):
            for backend in ("cv2", "pil"):
                put(f"c10.{mode}.{backend}", D.Cifar10(root + "/c10.tar.gz", mode, backend=backend))
            put(f"c100.{mode}", D.Cifar100(root + "/c100.tar.gz", mode, backend="cv2"))
        t = paddle.vision.transforms.Compose([paddle.vision.transforms.Normalize(127.5, 127.5, data_format="HWC")])
        put("c10.transform", D.Cifar10(root + "/c10.tar.gz", "train", transform=t, backend="cv2"))
        pil_loader = lambda p: np.asarray(__import__("PIL.Image").Image.open(p).convert("RGB"))
        df = D.DatasetFolder(root + "/folder", loader=pil_loader)
        put("folder", df)
        out["folder.classes"] = np.array(df.classes)
        out["folder.samples"] = np.array([s[0][len(root):] for s in df.samples])
        imf = D.ImageFolder(root + "/folder", loader=pil_loader, extensions=(".png",))
        put("imagefolder", imf)
        out["imagefolder.samples"] = np.array([s[len(root):] for s in imf.samples])
        for mode in ("train", "valid"):
            for backend in ("cv2", "pil"):
                put(f"voc.{mode}.{backend}", D.VOC2012(root + "/voc.tar", mode, backend=backend))
        return out
''')


def test_datasets_match_paddle(files, tmp_path):
    proc = run_paddle(CODE + textwrap.dedent(f'''
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
    assert len(ref.files) > 100
    for k in ref.files:
        a, b = ours[k], ref[k]
        assert a.dtype == b.dtype and a.shape == b.shape, (k, a.dtype, a.shape, b.dtype, b.shape)
        np.testing.assert_array_equal(a, b, err_msg=k)


def test_cifar_items_and_pickle_safety(files, tmp_path):
    ds = D.Cifar10(str(files / "c10.tar.gz"), backend="cv2")
    assert len(ds) == 6          # data_batch_1 then data_batch_2 (sorted member names)
    img, label = ds[0]
    assert img.shape == (32, 32, 3) and img.dtype == np.float32 and label.dtype == np.int64 and label.shape == ()
    pil_img, _ = D.Cifar10(str(files / "c10.tar.gz"), backend="pil")[0]
    np.testing.assert_array_equal(np.asarray(pil_img), img.astype(np.uint8))
    # a batch that asks the unpickler to call something is refused, never executed
    evil = tmp_path / "evil.tar.gz"
    with tarfile.open(evil, "w:gz") as tar:
        _add(tar, "cifar-10-batches-py/data_batch_1", pickle.dumps({b"data": os.system}))
    from runtime.formats.errors import ModelFormatError
    with pytest.raises(ModelFormatError):
        D.Cifar10(str(evil), backend="cv2")


def test_folder_behaviour(files):
    df = D.DatasetFolder(str(files / "folder"), loader=np.asarray)
    assert df.classes == ["cat", "dog"] and df.class_to_idx == {"cat": 0, "dog": 1}
    assert df.targets == [0, 0, 0, 1, 1, 1, 1]           # the .txt file is skipped, sub/ is walked
    assert all(p.lower().endswith(".png") for p, _ in df.samples)
    sample, target = D.DatasetFolder(str(files / "folder"), loader=lambda p: p, transform=str.upper)[0]
    assert sample.endswith(".PNG") and target == 0
    only_txt = D.ImageFolder(str(files / "folder"), loader=lambda p: p, extensions=(".txt",))
    assert len(only_txt) == 2 and only_txt[0] == [only_txt.samples[0]]
    with pytest.raises(RuntimeError, match="Found 0 files"):
        D.ImageFolder(str(files / "folder"), extensions=(".bmp",))
    with pytest.raises(FileNotFoundError, match="not a directory"):
        D.DatasetFolder(str(files / "missing"))


def test_missing_files_name_the_cache_path_and_url(tmp_path, monkeypatch):
    monkeypatch.setattr(_cache, "DATA_HOME", str(tmp_path / "home"))
    expected = tmp_path / "home" / "cifar" / "cifar-10-python.tar.gz"
    with pytest.raises(FileNotFoundError) as e:
        D.Cifar10(backend="cv2")
    msg = str(e.value)
    assert str(expected) in msg and "https://dataset.bj.bcebos.com/cifar/cifar-10-python.tar.gz" in msg
    with pytest.raises(ValueError, match="downloading automatically is disabled"):
        D.VOC2012(download=False, backend="cv2")
    with pytest.raises(FileNotFoundError, match="does not exist"):
        D.Cifar100(str(tmp_path / "nope.tar.gz"), backend="cv2")
    with pytest.raises(AssertionError, match="mode"):
        D.Cifar10(mode="valid", backend="cv2")
    with pytest.raises(ValueError, match="backend"):
        D.Cifar10(backend="tf")


def test_cache_file_is_used_and_md5_checked(files, tmp_path, monkeypatch):
    from runtime.vision.datasets import cifar
    monkeypatch.setattr(_cache, "DATA_HOME", str(tmp_path))
    (tmp_path / "cifar").mkdir()
    target = tmp_path / "cifar" / "cifar-10-python.tar.gz"
    target.write_bytes((files / "c10.tar.gz").read_bytes())
    with pytest.raises(ValueError, match="has md5"):
        D.Cifar10(backend="cv2")
    monkeypatch.setattr(cifar, "CIFAR10_MD5", _cache.md5file(str(target)))
    assert len(D.Cifar10(backend="cv2")) == 6


def test_flowers_reads_the_mat_files_without_scipy(tmp_path):
    """Flowers' labels and split ids come from MATLAB files (Paddle reads them with scipy, which
    dy2st does not need): the i-th item of a split is image ``setid[split][i]`` with label
    ``labels[id - 1]``, Paddle's 'train' being the published test ids."""
    from tests.runtime.formats import matwriter
    rs = np.random.RandomState(3)
    images = {i: rs.randint(0, 255, (5, 6, 3)).astype(np.uint8) for i in range(1, 9)}
    data = tmp_path / "102flowers.tgz"
    with tarfile.open(data, "w:gz") as tar:
        for i, img in images.items():
            _add(tar, f"jpg/image_{i:05}.jpg", _png(img))      # PNG bytes: lossless, Pillow sniffs the format
    labels = np.array([[3, 1, 4, 1, 5, 9, 2, 6]], dtype="u1")
    split = {"trnid": np.array([[2, 7]], dtype="u2"), "valid": np.array([[1]], dtype="u2"),
             "tstid": np.array([[8, 3, 5, 4, 6]], dtype="u2")}
    matwriter.write(tmp_path / "imagelabels.mat", {"labels": labels}, compress=True)
    matwriter.write(tmp_path / "setid.mat", split, compress=True)
    for mode, flag in (("train", "tstid"), ("test", "trnid"), ("valid", "valid")):
        ds = D.Flowers(str(data), str(tmp_path / "imagelabels.mat"), str(tmp_path / "setid.mat"), mode=mode,
                       backend="cv2")
        ids = split[flag][0]
        assert len(ds) == len(ids)
        for k, i in enumerate(ids):
            img, label = ds[k]
            assert img.dtype == np.float32 and label.dtype == np.int64 and label.shape == (1,)
            np.testing.assert_array_equal(img, images[int(i)].astype(np.float32))
            assert int(label[0]) == labels[0, i - 1]
    assert (tmp_path / "102flowers" / "jpg" / "image_00001.jpg").exists()   # unpacked beside the archive
    (tmp_path / "bad.mat").write_bytes(b"not a mat file" * 20)
    with pytest.raises(ValueError, match="bad.mat"):
        D.Flowers(str(data), str(tmp_path / "bad.mat"), str(tmp_path / "setid.mat"), backend="cv2")
