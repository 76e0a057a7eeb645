"""When to stop a campaign: the campaign file's ``[stop]`` targets checked on the judgments
collected so far, with ``humeval plan``'s machinery (``humeval.experiments.planning.plan``).

```toml
[stop]
width = 0.8            # every system's 95% Bradley–Terry score interval at most this wide
p_top = 0.95           # P(top system identified) at least this (the plan's "top system separated")
min_comparisons = 50   # never say stop before this many comparisons (default 50)
simulations = 50       # simulated campaigns per budget for p_top (default 50)
```

Width: the widest 95% bootstrap interval of the leaderboard's Bradley–Terry table at the current
count n. A standard error shrinks as 1/√n, so the count at which the widest interval reaches the
target is n·(w/target)² (rounded up).

P(top identified): ``plan`` on the comparisons so far as its pilot, at budgets n, 1.5n, 2n, 3n,
4n, 6n and 8n: the parametric bootstrap of the planning module draws the truth from what the
judgments say, simulates campaigns of each budget (uniform random pairs; the campaign's active
strategy usually needs fewer, so the count is conservative) and refits them. The target is met
when P at n reaches it; the count needed is the smallest budget of the grid that reaches it ("more
than 8n" when none does).

The verdict is ``stop`` ("budget suffices — you can stop") when every target is met and at least
``min_comparisons`` comparisons were collected, ``continue`` otherwise, with the count the campaign
needs (the largest over the targets) and how many more judgments that is.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

STOP_KEYS = {"width", "p_top", "min_comparisons", "simulations"}
GRID = (1.0, 1.5, 2.0, 3.0, 4.0, 6.0, 8.0)
STOP_MESSAGE = "budget suffices — you can stop"


@dataclass
class StopRule:
    width: float | None = None
    p_top: float | None = None
    min_comparisons: int = 50
    simulations: int = 50


def check_width(table, n: int, target: float) -> dict:
    """The width target on a bootstrap table (columns ``lower``, ``upper``) of ``n`` comparisons."""
    width = float(np.nanmax(table["upper"].to_numpy() - table["lower"].to_numpy()))
    needed = n if width <= target else math.ceil(n * (width / target) ** 2)
    return {"target": f"widest 95% interval ≤ {target:g}", "current": round(width, 4), "met": width <= target,
            "needed": needed}


def check_p_top(comparisons, target: float, simulations: int, seed) -> dict:
    """The P(top identified) target by ``plan`` at budgets GRID × the current count."""
    from humeval.experiments.planning import plan
    n = len(comparisons)
    budgets = sorted({max(1, math.ceil(n * g)) for g in GRID})
    table = plan(comparisons, budgets=budgets, simulations=simulations, cluster_resamples=0, test_size=50,
                 random_state=seed).table
    p = table["P(top identified)"]
    reached = [b for b in budgets if p.loc[b] >= target]
    current = float(p.loc[budgets[0]])
    return {"target": f"P(top identified) ≥ {target:g}", "current": round(current, 3), "met": current >= target,
            "needed": reached[0] if reached else None, "beyond": budgets[-1]}


def verdict(rule: StopRule, comparisons, table, seed=None) -> dict:
    """The campaign's verdict on ``comparisons`` (``table``: the leaderboard's bootstrap table or None)."""
    n = len(comparisons)
    checks, notes = [], []
    if rule.width is not None:
        if table is not None and "upper" in table and n:
            checks.append(check_width(table, n, rule.width))
        else:
            notes.append("no interval widths yet")
    if rule.p_top is not None:
        try:
            checks.append(check_p_top(comparisons, rule.p_top, rule.simulations, seed))
        except ValueError as error:  # e.g. a system without a decisive comparison yet
            notes.append(f"P(top identified) not available yet: {error}")
    complete = not notes and len(checks) == (rule.width is not None) + (rule.p_top is not None)
    stop = complete and n >= rule.min_comparisons and all(c["met"] for c in checks)
    needed = [c["needed"] for c in checks]
    if checks and all(x is not None for x in needed):
        need = max(max(needed), rule.min_comparisons)
        more = max(0, need - n)
    else:
        need = more = None
    if stop:
        message = f"{STOP_MESSAGE} ({n} comparisons)"
    elif more is not None:
        message = f"continue: about {need} comparisons needed, {more} more"
    elif checks and any(x is None for x in needed):
        message = f"continue: more than {max(c.get('beyond', 0) for c in checks)} comparisons needed"
    else:
        message = "continue: " + "; ".join(notes or ["no judgments yet"])
    return {"verdict": "stop" if stop else "continue", "stop": stop, "message": message, "comparisons": n,
            "needed": need, "more": more, "checks": checks, "notes": notes}
