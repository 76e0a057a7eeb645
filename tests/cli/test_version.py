"""`humeval --version`: humeval's version and the numeric libraries' (read from the installed
metadata, so no numpy import), matching pyproject.toml and CHANGELOG.md."""

import subprocess
import sys
import tomllib
from importlib import metadata
from pathlib import Path

import humeval

ROOT = Path(__file__).resolve().parents[2]


def test_version_names_the_libraries_that_change_numbers_without_importing_them():
    code = ("import sys\nfrom humeval.cli import cli\n"
            "try:\n    cli(['--version'], prog_name='humeval')\nexcept SystemExit:\n    pass\n"
            "print(sorted(m for m in ('numpy', 'scipy', 'numba', 'pandas') if m in sys.modules))\n")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    first, imported = run.stdout.strip().splitlines()
    expected = ", ".join(f"{name} {metadata.version(name)}" for name in ("numpy", "scipy", "numba", "pandas"))
    assert first == f"humeval {humeval.__version__} ({expected})"
    assert imported == "[]"


def test_the_version_is_one_number_everywhere():
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    assert humeval.__version__ == declared
    assert f"## {declared} " in (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
