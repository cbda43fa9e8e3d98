"""Loading pretrained weights for the model constructors (``pretrained=True``)."""
from __future__ import annotations


def load_pretrained(model, arch, urls):
    """Load ``urls[arch]`` = (url, md5) from Paddle's weights cache into ``model``.

    paddle.load is our safe unpickler (the .pdparams files are pickles); a missing file is a
    FileNotFoundError from utils.download naming the URL and the path to put it at."""
    from ...formats.serialization import load
    from ...utils.download import get_weights_path_from_url
    if arch not in urls:
        raise ValueError(f"{arch} model do not have a pretrained model now, you should set pretrained=False "
                         f"(pretrained weights exist for: {', '.join(sorted(urls))})")
    url, md5 = urls[arch]
    model.set_state_dict(load(get_weights_path_from_url(url, md5)))
    return model
