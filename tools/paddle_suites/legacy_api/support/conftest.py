"""Run each test module as Paddle's CI does (`python test_x.py`): when the module's
`if __name__ == "__main__":` block calls paddle.enable_static(), do that before its tests run."""
import re


def pytest_collection_finish(session):
    seen = set()
    for item in session.items:
        mod = getattr(item, "module", None)
        if mod is None or mod.__name__ in seen:
            continue
        seen.add(mod.__name__)
        src = open(mod.__file__).read()
        tail = src.split('if __name__ ==', 1)
        if len(tail) == 2 and re.search(r"paddle\.enable_static\(\)", tail[1]):
            import paddle
            paddle.enable_static()
