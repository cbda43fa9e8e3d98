"""pytest plugin (-p paddle_shim): makes `import paddle` / `import paddle.x.y` resolve to dy2st's
modules (`dy2st`, `dy2st.x.y`), so Paddle's test files run against our package."""
import importlib
import importlib.abc
import importlib.util
import sys


class _AliasLoader(importlib.abc.Loader):
    def __init__(self, module):
        self.module = module
        self.saved = {k: getattr(module, k, None) for k in ("__spec__", "__loader__", "__package__", "__name__")}

    def create_module(self, spec):
        return self.module

    def exec_module(self, module):
        for key, value in self.saved.items():
            try:
                setattr(module, key, value)
            except AttributeError:
                pass


class _PaddleToDy2st(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname, path=None, target=None):
        if fullname != "paddle" and not fullname.startswith("paddle."):
            return None
        target_name = "dy2st" + fullname[len("paddle"):]
        try:
            module = importlib.import_module(target_name)
        except ModuleNotFoundError as exc:
            if exc.name and (exc.name == target_name or target_name.startswith(exc.name + ".")):
                return None
            raise
        spec = importlib.util.spec_from_loader(fullname, _AliasLoader(module),
                                               is_package=hasattr(module, "__path__"))
        return spec


sys.meta_path.insert(0, _PaddleToDy2st())
for _name in [n for n in sys.modules if n == "paddle" or n.startswith("paddle.")]:
    del sys.modules[_name]
