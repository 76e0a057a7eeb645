"""`humeval report` on WMT10 (8 tracks, 1,000 resamples, 7 models' learning curves, 17 figures), one
core: user CPU of the command as it is, against the same command in the same run (1) with Python's
default garbage-collector settings (no ``gc.freeze``, thresholds 700/10/10) and (2) with the speed
work switched off as well: the Davidson / Rao–Kupper bootstrap on the Python path (a Newton solve
per resample) and the IRT-Gaussian Gibbs sweep in numpy, one sweep per call (inverse-CDF
truncated normals: other draws of the same posterior). Each is the median of ``--repeats`` runs.
Prints the three and the ratios. Needs ../shared/data (or HUMEVAL_SHARED_DATA); runs under
`taskset -c 0` when it can.

    python benchmarks/bench_report.py [--repeats 3]
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

DATA = Path(os.environ.get("HUMEVAL_SHARED_DATA") or Path(__file__).resolve().parents[2] / "shared" / "data")
FILE = DATA / "wmt10-rankings" / "wmt10" / "data_RNK.csv"

DEFAULT_GC = """
import sys
import humeval.cli
humeval.cli.GC_THRESHOLDS = (700, 10, 10)
humeval.cli.gc.freeze = lambda: None
sys.argv = ["humeval", *sys.argv[1:]]
humeval.cli.main()
"""

SLOW = """
import sys
import humeval.cli
humeval.cli.GC_THRESHOLDS = (700, 10, 10)
humeval.cli.gc.freeze = lambda: None
from humeval.ranking import bradley_terry, irt
bradley_terry._PairModel._compiled_bootstrap = bradley_terry._PairModel._refit_bootstrap
irt.IRTGaussian._sweep = irt.IRTGaussian._sweep_numpy
irt.IRTGaussian._sweeps = irt._Gibbs._sweeps
sys.argv = ["humeval", *sys.argv[1:]]
humeval.cli.main()
"""


def user_cpu(args: list[str]) -> float:
    """User CPU seconds of one child run (pinned to core 0 where taskset exists)."""
    pin = ["taskset", "-c", "0"] if shutil.which("taskset") else []
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime
    subprocess.run(pin + args, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime - before


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    if not FILE.exists():
        sys.exit(f"needs {FILE} (set HUMEVAL_SHARED_DATA)")
    with tempfile.TemporaryDirectory() as tmp:
        report = ["report", str(FILE), "-o", str(Path(tmp) / "report.html"), "--force"]  # rewritten each run
        runs = {"as it is": [sys.executable, "-c", "from humeval.cli import main; main()", *report],
                "default gc": [sys.executable, "-c", DEFAULT_GC, *report],
                "slow paths": [sys.executable, "-c", SLOW, *report]}
        times = {name: statistics.median(user_cpu(command) for _ in range(args.repeats))
                 for name, command in runs.items()}
    fast = times["as it is"]
    print(f"humeval report on WMT10, one core, user CPU (median of {args.repeats}): {fast:.1f} s; with Python's "
          f"default gc settings {times['default gc']:.1f} s ({times['default gc'] / fast:.2f}x); with that and the tie "
          f"bootstrap on the Python path and the numpy Gibbs sweep {times['slow paths']:.1f} s "
          f"({times['slow paths'] / fast:.2f}x)")


if __name__ == "__main__":
    main()
