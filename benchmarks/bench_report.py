"""`humeval report` on WMT10 (8 tracks, 1,000 resamples, 7 models' learning curves, 17 figures), one
core: user CPU of the command as it is against the same command with the speed work switched off in
the same run — the Davidson / Rao–Kupper bootstrap on the Python path (a Newton solve per resample)
and the IRT-Gaussian Gibbs sweep in numpy (the compiled sweep draws the same numbers). Prints both
and the ratio. Needs ../shared/data (or HUMEVAL_SHARED_DATA); runs under `taskset -c 0` when it can.

    python benchmarks/bench_report.py
"""

from __future__ import annotations

import os
import resource
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

DATA = Path(os.environ.get("HUMEVAL_SHARED_DATA") or Path(__file__).resolve().parents[2] / "shared" / "data")
FILE = DATA / "wmt10-rankings" / "wmt10" / "data_RNK.csv"

SLOW = """
import sys
from humeval.ranking import bradley_terry, irt
bradley_terry._TieBootstrap.bootstrap_scores = bradley_terry._PairModel.bootstrap_scores
irt.IRTGaussian._sweep = irt.IRTGaussian._sweep_numpy
from humeval.cli import main
sys.argv = ["humeval", *sys.argv[1:]]
main()
"""


def user_cpu(args: list[str]) -> float:
    """User CPU seconds of one child run (pinned to core 0 where taskset exists)."""
    pin = ["taskset", "-c", "0"] if shutil.which("taskset") else []
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime
    subprocess.run(pin + args, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime - before


def main() -> None:
    if not FILE.exists():
        sys.exit(f"needs {FILE} (set HUMEVAL_SHARED_DATA)")
    with tempfile.TemporaryDirectory() as tmp:
        report = ["report", str(FILE), "-o", str(Path(tmp) / "report.html")]
        fast = user_cpu([sys.executable, "-c", "from humeval.cli import main; main()", *report])
        slow = user_cpu([sys.executable, "-c", SLOW, *report])
    print(f"humeval report on WMT10, one core: {fast:.1f} s user CPU; with the tie bootstrap on the Python path "
          f"and the numpy Gibbs sweep: {slow:.1f} s; ratio {slow / fast:.2f}x")


if __name__ == "__main__":
    main()
