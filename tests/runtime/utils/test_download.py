"""paddle.utils.download: weights are read from Paddle's cache layout, checked by md5, never downloaded."""
import hashlib
import io
import os
import tarfile
import zipfile

import numpy as np
import pytest

import dy2st as paddle
from dy2st.utils import download

URL = "https://paddle-hapi.bj.bcebos.com/models/tiny.pdparams"


def md5(path):
    return hashlib.md5(path.read_bytes()).hexdigest()


@pytest.fixture
def home(tmp_path, monkeypatch):
    monkeypatch.setattr(download, "WEIGHTS_HOME", str(tmp_path))
    return tmp_path


def test_default_cache_is_paddles():
    assert download.WEIGHTS_HOME == os.path.expanduser("~/.cache/paddle/hapi/weights")


def test_present_file_is_returned_after_md5_check(home):
    f = home / "tiny.pdparams"
    f.write_bytes(b"weights")
    assert download.get_weights_path_from_url(URL, md5(f)) == str(f)
    assert download.get_weights_path_from_url(URL) == str(f)   # no md5: no check


def test_md5_mismatch_is_an_error(home):
    (home / "tiny.pdparams").write_bytes(b"truncated")
    with pytest.raises(ValueError, match="expected 0123") as e:
        download.get_weights_path_from_url(URL, "0123" + "0" * 28)
    assert URL in str(e.value)


def test_missing_file_says_url_and_where_to_put_it(home):
    with pytest.raises(FileNotFoundError) as e:
        download.get_weights_path_from_url(URL, "abc")
    msg = str(e.value)
    assert URL in msg and str(home / "tiny.pdparams") in msg and "does not download" in msg


def test_not_a_url():
    with pytest.raises(ValueError, match="not an http"):
        download.get_path_from_url("/local/file.pdparams", "/tmp")


def test_archives_are_unpacked_beside_themselves(tmp_path):
    arc = tmp_path / "pack.tar.gz"
    with tarfile.open(arc, "w:gz") as t:
        data = b"abc"
        info = tarfile.TarInfo("pack/a.txt")
        info.size = len(data)
        t.addfile(info, io.BytesIO(data))
    out = download.get_path_from_url("https://x.org/pack.tar.gz", str(tmp_path))
    assert out == str(tmp_path / "pack") and (tmp_path / "pack" / "a.txt").read_bytes() == b"abc"
    z = tmp_path / "multi.zip"
    with zipfile.ZipFile(z, "w") as w:
        w.writestr("a.txt", "1")
        w.writestr("b.txt", "2")
    out = download.get_path_from_url("https://x.org/multi.zip", str(tmp_path))
    assert out == str(tmp_path / "multi") and sorted(os.listdir(out)) == ["a.txt", "b.txt"]


def test_hostile_archive_member_is_refused(tmp_path):
    z = tmp_path / "evil.zip"
    with zipfile.ZipFile(z, "w") as w:
        w.writestr("../escape.txt", "x")
        w.writestr("ok.txt", "y")
    with pytest.raises(ValueError, match="unsafe"):
        download.get_path_from_url("https://x.org/evil.zip", str(tmp_path))
    assert not (tmp_path.parent / "escape.txt").exists()


def test_pretrained_model_loads_from_the_cache(home, monkeypatch):
    from dy2st.vision.models import shufflenetv2
    src = paddle.vision.models.shufflenet_v2_x0_25(num_classes=3)
    target = home / "shufflenet_v2_x0_25.pdparams"
    paddle.save(src.state_dict(), str(target))
    url = shufflenetv2.model_urls["shufflenet_v2_x0_25"][0]
    assert url.endswith("/shufflenet_v2_x0_25.pdparams")
    # the registered md5 is that of Paddle's real file; point it at ours
    monkeypatch.setitem(shufflenetv2.model_urls, "shufflenet_v2_x0_25", (url, md5(target)))
    got = paddle.vision.models.shufflenet_v2_x0_25(pretrained=True, num_classes=3)
    assert list(got.state_dict()) == list(src.state_dict())
    for (k, a), (_, b) in zip(src.state_dict().items(), got.state_dict().items()):
        np.testing.assert_array_equal(a.numpy(), b.numpy(), err_msg=k)
    target.unlink()
    with pytest.raises(FileNotFoundError, match="shufflenet_v2_x0_25.pdparams"):
        paddle.vision.models.shufflenet_v2_x0_25(pretrained=True)


def test_pretrained_without_registered_weights_is_an_error():
    with pytest.raises(ValueError, match="mobilenetv1_0.5 model do not have a pretrained model"):
        paddle.vision.models.mobilenet_v1(pretrained=True, scale=0.5)
