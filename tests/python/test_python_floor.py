"""The Python the tests run on is one the README supports, and in CI it is the
distribution's own (/usr/bin/python3, Debian 12's 3.11.2 on the project's machines): the
oldest a new user has, so that a feature newer than it (`extractall(filter=)`, 3.11.4)
fails here first, not on a user's machine."""
import os
import pathlib
import re
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


def python_min():
    m = re.search(r"^PYTHON_MIN := (\d+)\.(\d+)$", (ROOT / "Makefile").read_text(), re.M)
    assert m, "Makefile: PYTHON_MIN not found"
    return int(m[1]), int(m[2])


def test_the_venv_python_is_at_least_the_floor_the_readme_names():
    floor = python_min()
    assert sys.version_info[:2] >= floor
    assert f"Python {floor[0]}.{floor[1]} or newer" in (ROOT / "README.md").read_text()


def test_ci_runs_the_tests_on_the_distributions_python():
    if os.environ.get("CI") != "true" or not os.path.exists("/usr/bin/python3"):
        pytest.skip("outside CI a developer may choose another Python (PYTHON=)")
    made_from = pathlib.Path(sys._base_executable).resolve()
    assert made_from == pathlib.Path("/usr/bin/python3").resolve(), (
        f"the venv was made from {made_from}, not the distribution's /usr/bin/python3")
