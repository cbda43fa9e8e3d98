"""``paddle.onnx.export`` of a converted Layer whose forward reads and assigns through several tensor
indices and a 0-D tensor index (gather_nd, index_put, set_value with tensor bounds and a tensor value):
onnxruntime gives what the Layer computes eagerly, for two batch sizes of the None dim."""
import numpy as np

import dy2st as paddle
from dy2st.static import InputSpec

from .helpers import needs_ort


class Indexing(paddle.nn.Layer):
    def forward(self, x, i, j, v):
        y = x * 1.0
        y[i, j] = v                      # index_put
        y[i[0]] = y[-1] * 2.0            # set_value at a 0-D tensor index, with a tensor value
        return y[j, :, j] + y[1:, j].sum()


@needs_ort
def test_exported_layer_matches_eager(tmp_path):
    import onnxruntime as ort
    layer = Indexing()
    specs = [InputSpec([None, 4, 3], "float32", "x"), InputSpec([2], "int64", "i"), InputSpec([2], "int64", "j"),
             InputSpec([2, 3], "float32", "v")]
    paddle.onnx.export(layer, str(tmp_path / "indexing"), input_spec=specs, opset_version=17)
    sess = ort.InferenceSession(str(tmp_path / "indexing.onnx"), providers=["CPUExecutionProvider"])
    rng = np.random.RandomState(0)
    for n, i, j in ((5, [0, 3], [2, 1]), (7, [6, -2], [0, 0])):
        feed = {"x": rng.rand(n, 4, 3).astype("float32"), "i": np.array(i), "j": np.array(j),
                "v": rng.rand(2, 3).astype("float32")}
        want = layer(*[paddle.to_tensor(feed[k]) for k in ("x", "i", "j", "v")]).numpy()
        got, = sess.run(None, feed)
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)
