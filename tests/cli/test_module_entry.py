"""`python -m humeval` and `python -m humeval.cli` run the command; the console entry point tunes
the garbage collector for batch work and `serve` restores Python's defaults before serving."""

import subprocess
import sys

import pytest


@pytest.mark.parametrize("module", ["humeval", "humeval.cli"])
def test_python_dash_m_runs_the_command(module):
    run = subprocess.run([sys.executable, "-m", module, "--version"], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0 and run.stdout.startswith("humeval 0.2.0 (numpy "), run.stderr


def _main(tmp_path, args: str) -> str:
    """Run humeval.cli.main() with ``args`` in a child process whose uvicorn.run only prints the
    garbage collector's thresholds; returns what the child printed last."""
    pytest.importorskip("uvicorn")
    code = ("import gc, sys\n"
            "import uvicorn\n"
            "uvicorn.run = lambda *a, **k: print('serving with', gc.get_threshold())\n"
            "import humeval.cli\n"
            f"sys.argv = ['humeval', {args}, '--quiet']\n"
            "try:\n    humeval.cli.main()\nexcept SystemExit:\n    pass\n"
            "print(gc.get_threshold(), gc.get_freeze_count() > 10000)\n")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    return run.stdout.strip()


def test_main_tunes_the_collector_and_serve_restores_its_defaults(tmp_path):
    # a batch command: the imports frozen out of the collector, young objects collected less often
    assert _main(tmp_path, "'serve', '--demo', 'demo'") == "(20000, 20, 20) True"
    # the server: Python's own thresholds while it serves
    assert _main(tmp_path, "'serve', 'demo/campaign.toml'").splitlines()[0] == "serving with (700, 10, 10)"
