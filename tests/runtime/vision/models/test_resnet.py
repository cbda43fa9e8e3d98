"""paddle.vision.models.resnet (ResNet, ResNeXt and Wide ResNet) against real Paddle 3.3.1: Paddle's weights give
Paddle's outputs in ours, ours give ours in Paddle, to_static equals eager, our jit.save loads in Paddle,
every constructor has Paddle's state_dict layout and parameter count (machinery in _zoo.py)."""
import pytest

from ._zoo import STRUCTURE, check_forward, check_jit, check_reverse, check_static, check_structure


@pytest.mark.parametrize("name", ['resnet18', 'resnet18_nohead', 'resnext50_32x4d'])
def test_paddle_weights_give_paddle_outputs(zoo, name):
    check_forward(zoo, name)


@pytest.mark.parametrize("name", ['resnet18'])
def test_our_weights_give_our_outputs_in_paddle(zoo, name):
    check_reverse(zoo, name)


@pytest.mark.parametrize("name", ['resnet18'])
def test_our_jit_save_loads_in_paddle(zoo, name):
    check_jit(zoo, name)


@pytest.mark.parametrize("name", ['resnet18'])
def test_to_static_equals_eager(zoo, name):
    check_static(zoo, name)


@pytest.mark.parametrize("ctor", STRUCTURE['resnet'])
def test_constructor_layout_and_parameter_count(zoo, ctor):
    check_structure(zoo, ctor)


def test_pretrained_reads_a_paddle_saved_file_from_the_cache(zoo, tmp_path, monkeypatch):
    # the layout real Paddle leaves after downloading: WEIGHTS_HOME/<last part of the URL>
    import hashlib
    import shutil

    import dy2st as paddle
    from dy2st.utils import download
    from dy2st.vision.models import resnet

    from ._zoo import case_input, outputs, scale_rel
    url = resnet.model_urls["resnet18"][0]
    target = tmp_path / url.rsplit("/", 1)[-1]
    shutil.copy(zoo.root / "resnet18.pdparams", target)
    monkeypatch.setattr(download, "WEIGHTS_HOME", str(tmp_path))
    monkeypatch.setitem(resnet.model_urls, "resnet18", (url, hashlib.md5(target.read_bytes()).hexdigest()))
    model = paddle.vision.models.resnet18(pretrained=True, num_classes=10)
    model.eval()
    got, want = outputs(model, case_input("resnet18")), zoo.npz("resnet18", "paddle_out")
    assert scale_rel(got[0], want[0]) <= 1e-5
