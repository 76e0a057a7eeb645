"""TER statistics: sacrebleu's Python search against humeval's compiled one (same numbers).

    python benchmarks/bench_ter.py [--repeats 3] [--cold]

Data: MLQE-PE et-en dev (machine translation against its post-edit, 1,000 segments) and the
hmeant-wmt13 outputs against their references, from ../shared/data when present, else generated
sentence pairs. For each set, sacrebleu's ``TER()._extract_corpus_statistics`` and humeval's
``_ter_kernel.ter_statistics`` (what ``ter``, ``hter`` and ``corpus_statistics("ter")``
use) run in turn ``--repeats`` times (interleaved, medians), each with a fresh ``TER()``;
tokenization is included on both sides. Prints both times, the ratio and whether the statistics
are identical. The kernel's first call (numba's compile, or its load from numba's on-disk cache;
``--cold`` points numba at an empty cache directory so that it compiles) is timed separately.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data"


def mlqe_pe():
    folder = SHARED / "mlqe-pe" / "et-en" / "post-editing"
    if not folder.is_dir():
        return None
    hyps = (folder / "dev.mt").read_text(encoding="utf-8").splitlines()
    refs = (folder / "dev.pe").read_text(encoding="utf-8").splitlines()
    return "MLQE-PE et-en dev (mt vs pe)", hyps, refs


def hmeant_wmt13():
    folder = SHARED / "hmeant-wmt13"
    if not folder.is_dir():
        return None
    from humeval.data.readers.hmeant import read_wmt13
    pairs = {(a.item, a.system): (a.output.text, a.reference.text) for a in read_wmt13(folder).outputs()
             if a.output.text and a.reference.text}
    return "hmeant-wmt13 outputs vs references", [h for h, _ in pairs.values()], [r for _, r in pairs.values()]


def generated(n=1000):
    rng = np.random.default_rng(0)
    vocab = [f"w{k}" for k in range(300)] + ["the", "a", "of", ",", "."] * 20
    refs = [list(rng.choice(vocab, rng.integers(5, 40))) for _ in range(n)]
    hyps = []
    for r in refs:
        h = [w for w in r if rng.random() > 0.15]
        cut = sorted(rng.integers(0, len(h) + 1, 2))
        hyps.append(" ".join(h[cut[1]:] + h[cut[0]:cut[1]] + h[:cut[0]]))
    return "generated pairs (dropped words, a moved block)", hyps, [" ".join(r) for r in refs]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--cold", action="store_true", help="compile the kernel afresh (an empty numba cache)")
    args = parser.parse_args()
    if args.cold:
        os.environ["NUMBA_CACHE_DIR"] = tempfile.mkdtemp(prefix="bench_ter_numba_")
    from sacrebleu.metrics import TER

    start = time.perf_counter()
    from humeval.metrics._ter_kernel import ter_statistics
    ter_statistics(TER(), ["a b c"], [["c a b"]])
    print(f"kernel import + first call ({'compile' if args.cold else 'compile or load from numba cache'}): "
          f"{time.perf_counter() - start:.2f} s")
    from humeval.threads import threads_in_use
    print(f"threads: {threads_in_use()} (the search runs on one)")

    sets = [s for s in (mlqe_pe(), hmeant_wmt13()) if s is not None] or [generated()]
    for name, hyps, refs in sets:
        times = {"sacrebleu": [], "humeval": []}
        results = {}
        for _ in range(args.repeats):
            for who, run in (("sacrebleu", lambda: TER()._extract_corpus_statistics(hyps, [refs])),
                             ("humeval", lambda: ter_statistics(TER(), hyps, [refs]))):
                start = time.perf_counter()
                results[who] = run()
                times[who].append(time.perf_counter() - start)
        theirs, ours = statistics.median(times["sacrebleu"]), statistics.median(times["humeval"])
        edits = sum(row[0] for row in results["sacrebleu"])
        print(f"{name}: {len(hyps):,} segments, {edits:,} edits; sacrebleu {theirs:.3f} s, humeval {ours:.3f} s "
              f"(medians of {args.repeats}, interleaved) = {theirs / ours:.1f}×; "
              f"statistics identical: {results['sacrebleu'] == results['humeval']}")


if __name__ == "__main__":
    main()
