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
