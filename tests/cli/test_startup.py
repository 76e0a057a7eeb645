"""The command starts without the numeric stack, its help lists every command as the command
itself describes it, and the thread policy reaches BLAS and numba."""

import json
import subprocess
import sys

import pytest
from click.testing import CliRunner

from humeval.cli import cli
from humeval.cli._group import COMMANDS, summary_of
from humeval.threads import default_threads


def _python(code: str, env=None) -> str:
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_help_imports_neither_numpy_pandas_nor_numba():
    shown = _python("import sys\nfrom humeval.cli import cli\n"
                    "try:\n    cli(['--help'], prog_name='humeval')\nexcept SystemExit:\n    pass\n"
                    "import json\nprint(json.dumps(sorted(m for m in ('numpy', 'pandas', 'numba', 'scipy', 'matplotlib')"
                    " if m in sys.modules)))")
    lines = shown.strip().splitlines()
    assert "rank" in shown and "compare-models" in shown
    assert json.loads(lines[-1]) == []


def test_import_humeval_is_light_and_its_names_still_work():
    loaded = _python("import sys, humeval\nprint('pandas' in sys.modules)\n"
                     "print(humeval.read.__module__, humeval.Comparisons.__name__)")
    assert loaded.splitlines() == ["False", "humeval.data.readers Comparisons"]


@pytest.mark.parametrize("name", list(COMMANDS))
def test_each_summary_is_the_commands_own_first_sentence(name):
    command = cli.get_command(None, name)
    assert command is not None and command.name == name
    for limit in (45, 10 ** 6):
        assert summary_of(name).get_short_help_str(limit) == command.get_short_help_str(limit)


def test_group_help_is_clicks_layout():
    text = CliRunner().invoke(cli, ["--help"]).output
    assert text.index("info ") < text.index("rank ") < text.index("serve ")
    assert set(cli.commands) == set(COMMANDS) and all(cli.commands.values())


@pytest.mark.parametrize("cores, load, expected", [(2, 0.0, 2), (2, 0.4, 2), (2, 0.6, 1), (2, 1.3, 1), (2, 7.0, 1),
                                                   (8, 2.2, 6), (8, 0.0, 8), (1, 0.0, 1)])
def test_default_threads_are_the_idle_cores(cores, load, expected):
    assert default_threads(cores, load) == expected


def test_threads_reach_blas_and_numba_in_a_fresh_process():
    code = ("from humeval.threads import use_threads, threads_in_use\nimport os\n"
            "n = use_threads(1)\nimport numpy, numba, pyarrow\nfrom humeval.ranking import _pair_kernel\n"
            "import json\nused = threads_in_use()\nprint(json.dumps([n, used]))")
    env = {k: v for k, v in __import__("os").environ.items()
           if k not in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS")}
    n, used = json.loads(_python(code, env=env).strip().splitlines()[-1])
    assert n == 1
    assert used and all(value == 1 for value in used.values()), used
    assert used.get("numba") == 1
    assert used.get("arrow") == 1  # arrow read OMP_NUM_THREADS when imported after the policy


def test_threads_reach_arrow_imported_before_the_policy():
    # the readers parse and hash on arrow's pool: a busy machine must not get one thread per core there either
    code = ("import pyarrow\nbefore = pyarrow.cpu_count()\nfrom humeval.threads import use_threads\n"
            "use_threads(1)\nprint(before, pyarrow.cpu_count())")
    env = {k: v for k, v in __import__("os").environ.items() if k not in ("OMP_NUM_THREADS", "OMP_THREAD_LIMIT")}
    before, after = _python(code, env=env).split()
    if before == "1":
        pytest.skip("arrow starts with one thread on this machine: nothing for the policy to lower")
    assert after == "1"


def test_threads_option_reaches_the_policy_and_the_command(monkeypatch):
    import os
    from pathlib import Path
    for name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "BLIS_NUM_THREADS"):
        monkeypatch.setenv(name, "7")  # a user's own setting: --threads given overrides it
    fixture = Path(__file__).resolve().parents[1] / "fixtures" / "arena_battles.json"
    result = CliRunner().invoke(cli, ["--threads", "1", "info", str(fixture), "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["rows"] == 8  # the fixture's eight battles
    assert os.environ["OMP_NUM_THREADS"] == os.environ["OPENBLAS_NUM_THREADS"] == "1"


def test_threads_after_numba_started_do_not_break_later_compilation():
    # numba refuses a changed NUMBA_NUM_THREADS once its pool runs: the policy must then only lower
    # the pool's use (numba.set_num_threads), not the variable
    code = ("import numba, numpy as np\n@numba.njit(parallel=True)\ndef f(x):\n    s = 0.0\n"
            "    for i in numba.prange(x.size):\n        s += x[i]\n    return s\n"
            "f(np.ones(10))\nfrom humeval.threads import use_threads\nuse_threads(1)\n"
            "@numba.njit\ndef g(x):\n    return x + 1\nprint(g(1), numba.get_num_threads())")
    assert _python(code).split() == ["2", "1"]


@pytest.mark.parametrize("threads", [-1, 2.5, "2", True])
def test_set_threads_refuses_what_the_cli_refuses(monkeypatch, threads):
    # humeval.set_threads(-1) used to write OPENBLAS_NUM_THREADS=-1 and return -1
    import os

    import humeval
    monkeypatch.setenv("OPENBLAS_NUM_THREADS", "3")
    with pytest.raises(ValueError, match="whole number >= 0"):
        humeval.set_threads(threads)
    assert os.environ["OPENBLAS_NUM_THREADS"] == "3"  # nothing was changed


def test_set_threads_takes_a_numpy_integer(monkeypatch):
    import os

    import numpy as np

    import humeval
    monkeypatch.setenv("OPENBLAS_NUM_THREADS", "3")
    assert humeval.set_threads(np.int64(1)) == 1
    assert os.environ["OPENBLAS_NUM_THREADS"] == "1"


# benchmarks that do not print their threads, and why: the command's start-up only; a process pool
# per backend; one core by taskset; matplotlib's drawing; interval widths, not time
_NO_THREAD_LINE = {"bench_startup.py", "bench_execution.py", "bench_report.py", "bench_report_figures.py",
                   "bench_ppi.py"}


def test_every_timing_benchmark_prints_its_threads():
    """Issue 33: the benchmarks say which BLAS and numba threads their figures were measured with."""
    from pathlib import Path
    scripts = sorted((Path(__file__).resolve().parents[2] / "benchmarks").glob("bench_*.py"))
    assert len(scripts) > 10
    silent = [s.name for s in scripts if s.name not in _NO_THREAD_LINE
              and "threads_in_use()" not in s.read_text() and "default_threads()" not in s.read_text()]
    assert silent == []
