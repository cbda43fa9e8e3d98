"""paddle.inference.Config: the ways to name a model, the CPU switches and what they do to our graph
passes, accelerator switches (accepted, reported once), summary() in Paddle's table layout."""
import os
import warnings

import pytest

import dy2st as paddle
from dy2st import inference
from dy2st.inference import config as config_module
from runtime.static.passes import DEFAULT, PASSES

from .models import LEGACY, PIR


def test_module_is_importable_every_way():
    import dy2st.inference as by_import
    from dy2st.inference import Config
    assert by_import is paddle.inference is inference
    assert Config is inference.Config is inference.config.AnalysisConfig
    assert inference.Tensor.__name__ == "PaddleInferTensor"          # Paddle's class names
    assert inference.Predictor.__name__ == "PaddleInferPredictor"
    assert inference.Config.__name__ == "AnalysisConfig"
    assert set(inference.__all__) <= set(dir(inference))


def test_constructor_forms():
    d = str(LEGACY / "linear_relu")
    c = inference.Config()
    assert (c.model_dir(), c.prog_file(), c.params_file()) == ("", "", "")
    c = inference.Config(d + "/model.pdmodel", d + "/model.pdiparams")
    assert (c.model_dir(), c.prog_file(), c.params_file()) == ("", d + "/model.pdmodel", d + "/model.pdiparams")
    c = inference.Config(d)
    assert (c.model_dir(), c.prog_file(), c.params_file()) == (d, "", "")
    c = inference.Config(d, "model")           # Paddle 3: (model_dir, prefix)
    assert c.prog_file() == os.path.join(d, "model.pdmodel") and c.params_file() == os.path.join(d, "model.pdiparams")
    p = str(PIR / "mlp")
    c = inference.Config(p, "model")           # only a .json there: the PIR program
    assert c.prog_file() == os.path.join(p, "model.json")
    copy = inference.Config(c)
    assert copy.prog_file() == c.prog_file() and copy is not c
    c = inference.Config()
    c.set_model(d + "/model.pdmodel", d + "/model.pdiparams")
    assert c.prog_file().endswith("model.pdmodel")
    c.set_prog_file("a.pdmodel")
    c.set_params_file("a.pdiparams")
    assert (c.prog_file(), c.params_file()) == ("a.pdmodel", "a.pdiparams")
    with pytest.raises(TypeError, match="must be a str"):
        inference.Config(3)
    with pytest.raises(TypeError, match="arguments"):
        inference.Config("a", "b", "c")


def test_cpu_switches_and_getters():
    c = inference.Config()
    assert c.cpu_math_library_num_threads() == 1 and c.ir_optim() and not c.glog_info_disabled()
    assert c.mkldnn_enabled() and not c.use_feed_fetch_ops_enabled() and not c.specify_input_name()
    c.set_cpu_math_library_num_threads(4)
    c.switch_ir_optim(False)
    c.disable_glog_info()
    c.enable_memory_optim()
    c.switch_use_feed_fetch_ops(True)
    c.switch_specify_input_names(True)
    c.disable_mkldnn()
    assert c.cpu_math_library_num_threads() == 4 and not c.ir_optim() and c.glog_info_disabled()
    assert c.use_feed_fetch_ops_enabled() and c.specify_input_name() and not c.mkldnn_enabled()
    c.enable_mkldnn()
    assert c.mkldnn_enabled() and c.onednn_enabled()
    with pytest.raises(ValueError, match="positive int"):
        c.set_cpu_math_library_num_threads(0)


def test_ir_optim_maps_to_our_passes(monkeypatch):
    monkeypatch.delenv("DY2ST_PASSES", raising=False)
    c = inference.Config()
    assert c._passes() == DEFAULT and c.pass_builder().all_passes() == list(DEFAULT)
    c.delete_pass("fuse_gemm")
    c.delete_pass("fc_fuse_pass")          # a Paddle pass name: nothing to delete here
    assert "fuse_gemm" not in c._passes()
    c.pass_builder().append_pass("cse")
    assert "cse" in c._passes()
    with pytest.raises(ValueError, match="unknown graph pass"):
        c.pass_builder().append_pass("no_such_pass")
    c.enable_memory_optim()
    assert "inplace" in c._passes()
    assert list(c._passes()) == [n for n in PASSES if n in c._passes()]      # our passes' fixed order
    c.switch_ir_optim(False)
    assert c._passes() == ()
    monkeypatch.setenv("DY2ST_PASSES", "all")
    assert inference.Config()._passes() == tuple(PASSES)


def test_accelerator_switches_warn_once_and_stay_off(monkeypatch):
    monkeypatch.setattr(config_module, "_warned", set())
    c = inference.Config()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        c.enable_use_gpu(100, 0)
        c.enable_use_gpu(200, 1)
        inference.Config().enable_use_gpu(100)
        c.enable_tensorrt_engine(workspace_size=1 << 20, max_batch_size=1, min_subgraph_size=3,
                                 precision_mode=inference.PrecisionType.Half, use_static=False, use_calib_mode=False)
        c.set_trt_dynamic_shape_info({"x": [1, 4]}, {"x": [8, 4]}, {"x": [2, 4]})
        c.enable_xpu()
    texts = [str(w.message) for w in caught]
    assert len(texts) == 3, texts                  # GPU, TensorRT, XPU: one each
    assert "GPU" in texts[0] and "TensorRT" in texts[1] and "XPU" in texts[2]
    assert all("runs on the CPU" in t for t in texts)
    assert not c.use_gpu() and not c.tensorrt_engine_enabled() and not c.use_xpu()
    assert c.gpu_device_id() == 1 and c.memory_pool_init_size_mb() == 200
    assert c.tensorrt_precision_mode() is inference.PrecisionType.Half
    c.disable_gpu()
    assert "| use_gpu                      | false" in c.summary()


def test_summary_table_layout():
    d = str(LEGACY / "zoo")
    c = inference.Config(d + "/model.pdmodel", d + "/model.pdiparams")
    c.switch_ir_optim(False)
    c.set_cpu_math_library_num_threads(3)
    c.enable_memory_optim()
    c.disable_glog_info()
    s = c.summary()
    lines = s.split("\n")
    assert lines[0] == "" and s.endswith("+\n")
    width = len(lines[1])
    assert all(len(line) == width for line in lines[1:-1])        # one rectangle
    rows = {line.split("|")[1].strip(): line.split("|")[2].strip() for line in lines if line.startswith("| ")}
    assert rows["model_file"] == d + "/model.pdmodel" and rows["params_file"] == d + "/model.pdiparams"
    assert rows["cpu_math_thread"] == "3" and rows["ir_optim"] == "false" and rows["memory_optim"] == "true"
    assert rows["enable_log"] == "false" and rows["use_gpu"] == "false"
    # Paddle's groups, each closed by a separator: header, model, CPU, GPU, XPU, the rest
    assert sum(line.startswith("+") for line in lines) == 7
    assert "| model_dir " in inference.Config("/some/dir").summary()


def test_enums_as_paddle():
    assert str(inference.DataType.FLOAT32) == "PaddleDType.FLOAT32"
    assert repr(inference.DataType.FLOAT32) == "<PaddleDType.FLOAT32: 0>"
    assert int(inference.PrecisionType.Half) == 2 and inference.PrecisionType.Half.name == "Half"
    assert inference.Config.Precision is inference.PrecisionType and inference.Config.Int8.value == 1
    assert [m.value for m in inference.PlaceType] == [-1, 0, 1, 2, 4]
    assert inference.get_num_bytes_of_data_type(inference.DataType.FLOAT32) == 4
    assert inference.get_num_bytes_of_data_type(inference.DataType.INT64) == 8
    assert inference.get_num_bytes_of_data_type(inference.DataType.FLOAT64) == 8
    with pytest.raises(TypeError):
        inference.get_num_bytes_of_data_type("float32")


def test_module_functions():
    assert inference.get_version().startswith(f"version: {paddle.__version__}\ncommit: ")
    assert inference.get_trt_compile_version() == (0, 0, 0) == inference.get_trt_runtime_version()
    assert inference._get_phi_kernel_name("elementwise_add") == "add"
    assert inference._get_phi_kernel_name("matmul_v2") == "matmul"
    assert inference._get_phi_kernel_name("relu") == "relu"
    with pytest.raises(NotImplementedError, match="not supported"):
        inference.convert_to_mixed_precision("a.pdmodel", "a.pdiparams", "b.pdmodel", "b.pdiparams",
                                             inference.PrecisionType.Half, inference.PlaceType.GPU)
    x = inference.XpuConfig()
    x.device_id = 2
    assert x.device_id == 2
