"""The README's set-up commands are the ones CI runs."""
import pathlib
import re

ROOT = pathlib.Path(__file__).parents[1]


def test_ci_runs_the_readme_test_command():
    readme = (ROOT / "README.md").read_text()
    ci = (ROOT / ".ci" / "run").read_text()
    cmd = 'pip install -e ".[test]" && python -m pytest -q'
    assert cmd in readme, "README must show the test command"
    assert re.search(r"^" + re.escape(cmd) + r"$", ci, re.M), ".ci/run must run the README's test command"


def test_readme_main_job_command_names_an_existing_example():
    readme = (ROOT / "README.md").read_text()
    m = re.search(r"pip install -e \. && python (examples/\S+\.py)", readme)
    assert m, "README must show the main-job command"
    assert (ROOT / m.group(1)).exists()


def test_readme_python_examples_run(tmp_path):
    """Every ```python block of the README runs as written (in a scratch directory)."""
    import subprocess
    import sys
    readme = (ROOT / "README.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", readme, re.S)
    assert blocks
    for i, code in enumerate(blocks):
        script = tmp_path / f"readme_{i}.py"
        script.write_text(code)
        res = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True,
                             timeout=120)
        assert res.returncode == 0, f"README block {i} failed:\n{code}\n{res.stderr}"
