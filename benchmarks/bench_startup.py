"""Start-up: CPU time and peak memory of ``humeval --help`` against importing every command's
module (what ``humeval --help`` did before the commands were imported lazily) and against
``python -c "import click"`` (the floor: the interpreter and click), each in a fresh process;
and of ``humeval serve``'s process up to its first page (its modules imported, the demo campaign's
app built, ``GET /login`` answered) against the same with the statistics stack imported first
(pandas, scipy, numba, ``humeval.data``, ``humeval.ranking``: what the server loaded at start
before its imports were made lazy, 2026-11-26).

    python benchmarks/bench_startup.py [--repeat 7]

Prints the median user+system CPU seconds of each, the peak RSS, and the ratios.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys

HELP = "from humeval.cli import cli\ntry:\n    cli(['--help'], prog_name='humeval')\nexcept SystemExit:\n    pass\n"
EAGER = ("import importlib\nfrom humeval.cli._group import COMMANDS\n"
         "for module, _, _ in COMMANDS.values():\n    importlib.import_module('humeval.cli.' + module)\n")
FLOOR = "import click\n"
SERVE = ("import sys, tempfile\nimport uvicorn\nimport humeval.cli, humeval.cli.serve, humeval.serve.app\n"
         "from starlette.testclient import TestClient\nfrom humeval.serve.app import create_app\n"
         "from humeval.serve.campaign import load_campaign\nfrom humeval.serve.demo import write_demo\n"
         "with tempfile.TemporaryDirectory() as tmp:\n"
         "    app = create_app(load_campaign(write_demo(tmp + '/demo')), leaderboard=False)\n"
         "    with TestClient(app) as client:\n        assert client.get('/login').status_code == 200\n")
STACK = "import pandas, scipy.stats, numba, humeval.data, humeval.ranking\n"


def measure(code: str) -> tuple[float, float]:
    """CPU seconds (user + system) and peak RSS in MiB of a fresh ``python -c code``."""
    process = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(process.pid, 0)  # this child's own rusage
    if status != 0:
        raise SystemExit(f"{code!r} failed")
    return usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    rows = {}
    for name, code in (("humeval --help", HELP), ("every command imported", EAGER), ("python + click", FLOOR),
                       ("serve: first page", SERVE), ("serve: stack first", STACK + SERVE)):
        runs = [measure(code) for _ in range(args.repeat)]
        rows[name] = (statistics.median(r[0] for r in runs), max(r[1] for r in runs))
    for name, (cpu, rss) in rows.items():
        print(f"{name:24s} {cpu:6.3f} s CPU  {rss:6.0f} MiB peak")
    serve_cpu, serve_rss = rows["serve: first page"]
    help_cpu = rows["humeval --help"][0]
    print(f"every command imported / humeval --help: {rows['every command imported'][0] / help_cpu:.1f}× CPU")
    print(f"humeval --help / python + click:        {help_cpu / rows['python + click'][0]:.2f}× CPU")
    print(f"serve, stack first / serve:             {rows['serve: stack first'][0] / serve_cpu:.1f}× CPU, "
          f"{rows['serve: stack first'][1] / serve_rss:.1f}× peak memory")


if __name__ == "__main__":
    main()
