"""Peak memory of `humeval rank` with the default model (IRT-Gaussian) on 2,000 systems.

    python benchmarks/bench_memory.py [--systems 2000] [--rankings 3000] [--before-systems 300]

Issue 16's acceptance: ranking 2,000 systems × 3,000 five-way rankings with the default model
stays under 2 GB peak. The script simulates that campaign (``humeval simulate``, Hopkins & May's
generative model) into a temporary file, then runs ``humeval rank FILE`` in a fresh Python
process and prints that process's peak resident set size (``getrusage(RUSAGE_SELF).ru_maxrss``).

The sampler used to keep a (systems × systems × 3) table of float64 per kept sweep, averaged at
the end: 8 · 3 · K² · kept bytes (plus as much again for the average), 14.4 GB for K = 2,000 and
150 kept sweeps, so it is not run at that size: the script prints that computed size, and
measures the old code (the sampler as of commit 4ebac2a, read with ``git show``) against the
current one at ``--before-systems`` systems, each in a fresh process, in the same run.

The two samplers do not give the same numbers bit for bit: since commit 705bd4f the sweep draws its
truncated normals by exact rejection (Robert 1995) where the old one inverted the CDF, so the two
chains are different draws from the same posterior (and the chains mix slowly: a bulk ESS of
~10-15 per system from 150 kept sweeps). The script fits the current sampler a second time with
another seed and compares the two differences of posterior means, in posterior sds: old vs now
and now vs now (another seed), root mean square over the systems. Equal sizes mean the old
sampler's scores differ from the current ones by Monte-Carlo error only.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BEFORE = "4ebac2a"  # the last commit whose IRT sampler kept a table per kept sweep
ROOT = Path(__file__).resolve().parent.parent


def peak_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB -> MiB on Linux


def child_rank(path: str) -> None:
    """``humeval rank FILE`` (default model), in this process; prints seconds and peak MiB."""
    from humeval.cli import cli
    start = time.perf_counter()
    try:
        cli.main(["rank", path, "--quiet"], standalone_mode=False)
    finally:
        sys.stdout.flush()
    print(f"RESULT {time.perf_counter() - start:.2f} {peak_mib():.1f}", file=sys.stderr)


def child_fit(which: str, systems: int, rankings: int, out: str, seed: int = 0) -> None:
    """Simulate, then fit IRT-Gaussian (``random_state=seed``) with the current sampler or the
    one of ``BEFORE``; the posterior means and sds saved to ``out`` (.npz)."""
    import numpy as np
    from humeval.simulate import simulate_competition
    c = simulate_competition(n_systems=systems, n_items=500, n_judgments=rankings, design="rankings", k=5,
                             random_state=0).comparisons
    if which == "before":
        source = subprocess.run(["git", "-C", str(ROOT), "show", f"{BEFORE}:src/humeval/ranking/irt.py"],
                                capture_output=True, text=True, check=True).stdout
        folder = tempfile.mkdtemp()
        Path(folder, "irt_before.py").write_text(source)
        spec = importlib.util.spec_from_file_location("irt_before", Path(folder, "irt_before.py"))
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        model_class = module.IRTGaussian
    else:
        from humeval.ranking import IRTGaussian as model_class
    ready = peak_mib()
    start = time.perf_counter()
    model = model_class(random_state=seed).fit(c)
    model.ranking()
    seconds, peak = time.perf_counter() - start, peak_mib()
    np.savez(out, scores=model.scores_.to_numpy(dtype=float), std=model.scores_std_.to_numpy(dtype=float))
    print(f"RESULT {seconds:.2f} {peak:.1f} {ready:.1f}", file=sys.stderr)


def run_child(*args: str) -> list[str]:
    out = subprocess.run([sys.executable, __file__, "--child", *args], capture_output=True, text=True,
                         env={**os.environ, "PYTHONPATH": str(ROOT / "src")})
    lines = [line for line in out.stderr.splitlines() if line.startswith("RESULT ")]
    if out.returncode or not lines:
        raise SystemExit(f"child {args} failed:\n{out.stderr[-2000:]}")
    return lines[-1].split()[1:]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--systems", type=int, default=2000)
    parser.add_argument("--rankings", type=int, default=3000)
    parser.add_argument("--before-systems", type=int, default=300,
                        help="Systems for the same-run comparison with the old sampler (0 = skip).")
    parser.add_argument("--child", nargs="+", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        if args.child[0] == "rank":
            child_rank(args.child[1])
        else:
            child_fit(args.child[0], int(args.child[1]), int(args.child[2]), args.child[3], int(args.child[4]))
        return
    from humeval.threads import default_threads
    print(f"threads: {default_threads()} (what `humeval rank` in the child picks at this load: the idle cores)")
    kept = 200 - 50  # IRTGaussian's default iterations minus burn-in
    with tempfile.TemporaryDirectory() as folder:
        path = str(Path(folder, "campaign.csv"))
        subprocess.run([sys.executable, "-m", "humeval.cli", "simulate", path, "--systems", str(args.systems),
                        "--judgments", str(args.rankings), "--design", "rankings", "--quiet"], check=True,
                       env={**os.environ, "PYTHONPATH": str(ROOT / "src")}, stdout=subprocess.DEVNULL)
        seconds, peak = map(float, run_child("rank", path))
    table = 8 * 3 * args.systems ** 2 * kept
    print(f"humeval rank, default model (irt-gaussian), {args.systems:,} systems × {args.rankings:,} 5-way rankings")
    print(f"  peak RSS of the rank process: {peak:8.0f} MiB  ({seconds:.1f} s; acceptance: < 2048 MiB)")
    print(f"  old sampler's per-sweep tables alone: {table / 2 ** 20:8.0f} MiB (8·3·K²·{kept} bytes, computed, "
          f"+ as much for their mean) = {table / 2 ** 20 / peak:.0f}x this run's whole peak")
    if args.before_systems:
        import numpy as np
        k = args.before_systems
        rows, fits = {}, {}
        with tempfile.TemporaryDirectory() as folder:
            for which, seed in (("before", 0), ("after", 0), ("after", 1)):
                out = str(Path(folder, f"{which}{seed}.npz"))
                rows[which, seed] = tuple(map(float, run_child(which, str(k), str(args.rankings), out, str(seed))))
                fits[which, seed] = dict(np.load(out))
        (t0, p0, r0), (t1, p1, r1) = rows["before", 0], rows["after", 0]
        now, sd = fits["after", 0]["scores"], fits["after", 0]["std"]
        rms = lambda other: float(np.sqrt(np.nanmean(((other - now) / sd) ** 2)))  # noqa: E731
        old_vs_now, seed_vs_seed = rms(fits["before", 0]["scores"]), rms(fits["after", 1]["scores"])
        print(f"same run, library fit on {k} systems × {args.rankings:,} rankings (fresh process each):")
        print(f"  before ({BEFORE}): peak {p0:7.0f} MiB, fit adds {p0 - r0:7.0f} MiB, {t0:.1f} s")
        print(f"  now:              peak {p1:7.0f} MiB, fit adds {p1 - r1:7.0f} MiB, {t1:.1f} s")
        print(f"  growth during the fit, before / now: {(p0 - r0) / max(p1 - r1, 1):.0f}x")
        print(f"  posterior means (different draws: not identical bit for bit), RMS difference in posterior "
              f"sds: before vs now {old_vs_now:.3f}; now vs now with another seed {seed_vs_seed:.3f} "
              f"(ratio {old_vs_now / seed_vs_seed:.2f}: 1 = Monte-Carlo error only)")


if __name__ == "__main__":
    main()
