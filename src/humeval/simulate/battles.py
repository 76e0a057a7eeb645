"""Arena battles with style covariates and judge effects, simulated with known truth.

Each system s has an ability θ_s (log-odds, mean zero) and a typical response length: its
log length on a prompt is ℓ_s + N(0, σ_len). A battle pits two distinct random systems (a shown
first) on a random prompt; its covariate is the normalised length difference

    z = (L_a − L_b) / (L_a + L_b)        (FastChat's style feature, before its z-scoring)

and a judge j answers by Rao–Kupper with a length bias β and judge-level random effects:

    x = θ_a − θ_b + u_ja − u_jb + h + β z,   P(a) = σ(x − η),   P(b) = σ(−x − η),   P(tie) = rest,

u_js ~ N(0, σ_judge) (a judge's own taste for a system: judgments of one judge are correlated),
η ≥ 0 the tie threshold (η = 0: no ties; then this is Bradley–Terry). With β > 0 and verbose
systems that are not the best, a ranking that ignores length promotes the verbose ones.

``arena_battles`` makes a battles *file* instead, in FastChat's ``clean_battle`` layout (what an
arena operator has; the README's "For arena operators" examples run on it): seven named models,
``winner`` one of model_a, model_b, tie, "tie (bothbad)", and the ``conv_metadata`` style counts
that ``humeval.read(path, style=True)`` turns into covariates.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from humeval.data.tables import Comparisons


@dataclass
class BattleTruth:
    abilities: pd.Series  # system -> θ_s (mean zero)
    log_length: pd.Series  # system -> ℓ_s
    beta: float  # the length bias
    position: float  # h
    eta: float  # the tie threshold
    sigma_judge: float


@dataclass
class BattleSimulation:
    comparisons: Comparisons
    truth: BattleTruth


def simulate_battles(n_systems: int = 10, n_battles: int = 50_000, beta: float = 1.0, abilities=None,
                     log_length=None, sigma_length: float = 0.5, position: float = 0.0, eta: float = 0.0,
                     n_judges: int = 100, sigma_judge: float = 0.0, n_items: int = 1000,
                     random_state=None) -> BattleSimulation:
    """Simulate ``n_battles`` battles (see the module doc); ``abilities`` and ``log_length``
    default to θ evenly spread over [−1, 1] and ℓ ~ N(6, 0.5). The comparisons carry one
    covariate, ``length`` (z above)."""
    rng = np.random.default_rng(random_state)
    theta = np.linspace(1.0, -1.0, n_systems) if abilities is None else np.asarray(abilities, dtype=float)
    theta = theta - theta.mean()
    n_systems = len(theta)
    ell = rng.normal(6.0, 0.5, n_systems) if log_length is None else np.asarray(log_length, dtype=float)
    if n_systems < 2 or len(ell) != n_systems:
        raise ValueError("need at least 2 systems, and one log length per system")
    a = rng.integers(0, n_systems, n_battles)
    b = (a + rng.integers(1, n_systems, n_battles)) % n_systems
    length_a = np.exp(ell[a] + rng.normal(0, sigma_length, n_battles))
    length_b = np.exp(ell[b] + rng.normal(0, sigma_length, n_battles))
    z = (length_a - length_b) / (length_a + length_b)
    judge = rng.integers(0, n_judges, n_battles)
    taste = rng.normal(0, sigma_judge, (n_judges, n_systems)) if sigma_judge > 0 else np.zeros((n_judges, n_systems))
    x = theta[a] - theta[b] + taste[judge, a] - taste[judge, b] + position + beta * z
    pa, pb = 1 / (1 + np.exp(-(x - eta))), 1 / (1 + np.exp(x + eta))
    r = rng.random(n_battles)
    outcome = np.where(r < pa, 1, np.where(r < pa + pb, 2, 0))
    systems = tuple(f"sys{i + 1:02d}" for i in range(n_systems))
    comparisons = Comparisons(a=a, b=b, outcome=outcome, judge=judge, item=rng.integers(0, n_items, n_battles),
                              systems=systems, judges=tuple(f"judge{j + 1:03d}" for j in range(n_judges)),
                              items=tuple(f"prompt{i + 1:04d}" for i in range(n_items)), tracks=("battles",),
                              track=np.zeros(n_battles, np.int32), covariates=z[:, None], covariate_names=("length",))
    index = pd.Index(systems, name="system")
    truth = BattleTruth(pd.Series(theta, index=index, name="ability"), pd.Series(ell, index=index, name="log_length"),
                        beta, position, eta, sigma_judge)
    return BattleSimulation(comparisons, truth)


# The models of arena_battles, their strengths (log-odds) and typical answer lengths (tokens).
ARENA_MODELS = ("atlas-7b", "boreal-13b", "cirrus-70b", "delta-mini", "ember-pro", "fjord-large", "gale-1")
ARENA_STRENGTH = (-0.6, -0.2, 0.9, -0.9, 0.5, 0.3, 0.0)
ARENA_TOKENS = (250, 300, 350, 200, 700, 800, 400)  # ember-pro and fjord-large are verbose
ARENA_SEED = 18  # the seed of the README's battles.json
BATTLE_SUFFIXES = (".json", ".jsonl", ".parquet", ".csv", ".tsv")


def arena_battles(n_battles: int = 4000, random_state=ARENA_SEED) -> list[dict]:
    """``n_battles`` simulated arena battles as FastChat ``clean_battle`` records: question_id,
    model_a, model_b, winner, judge (300 users), turn, anony, language (English 60 %, Chinese
    25 %, German 15 %), category (coding, math, creative), category_tag (``math_v0.1.math``) and
    conv_metadata (answer token counts; header, list and bold counts that grow with the length).

    Two distinct models meet at random (a shown first); with s the model's strength plus its
    board shift (cirrus-70b +1 at math, gale-1 +1 in Chinese, ember-pro −1 at coding) and the
    length feature d = (t_a − t_b) / (t_a + t_b + 1) of Poisson token counts t,

        P(a wins | no tie) = σ(s_a − s_b + 0.8 · d / 0.3)

    (judges favour the longer answer: 0.8 log-odds per 0.3 of d, about its RMS); a quarter of
    the battles are ties, a tie being both-bad with probability σ(−2 (strength_a + strength_b) − 1.5)
    (weak pairs are often both bad). The same ``random_state`` gives the same records."""
    rng = np.random.default_rng(random_state)
    models = list(ARENA_MODELS)
    strength, tokens = np.array(ARENA_STRENGTH), np.array(ARENA_TOKENS)
    n = n_battles
    a = rng.integers(0, len(models), n)
    b = (a + rng.integers(1, len(models), n)) % len(models)
    ta, tb = (rng.poisson(tokens[x]) + 1 for x in (a, b))
    length = (ta - tb) / (ta + tb + 1)
    language = rng.choice(["English", "Chinese", "German"], n, p=[0.6, 0.25, 0.15])
    category = rng.choice(["coding", "math", "creative"], n)
    shift = {"cirrus-70b": 1.0 * (category == "math"), "gale-1": 1.0 * (language == "Chinese"),
             "ember-pro": -1.0 * (category == "coding")}

    def skill(x):
        return strength[x] + sum(np.where(x == models.index(m), on, 0.0) for m, on in shift.items())

    p_a = 1 / (1 + np.exp(-(skill(a) - skill(b) + 0.8 * length / 0.3)))
    u, tie = rng.random(n), rng.random(n) < 0.25
    bothbad = tie & (rng.random(n) < 1 / (1 + np.exp(2 * (strength[a] + strength[b]) + 1.5)))
    winner = np.where(bothbad, "tie (bothbad)", np.where(tie, "tie", np.where(u < p_a, "model_a", "model_b")))

    def headers(k):  # markdown headers h1-h6 of an answer of k × 300 tokens
        return {f"h{i}": int(v) for i, v in enumerate(rng.poisson(k * np.array([.2, .5, .3, 0, 0, 0])), 1)}

    # one record at a time, its random counts drawn in this order (the seed's file depends on it)
    return [{"question_id": f"q{i:05d}", "model_a": models[a[i]], "model_b": models[b[i]], "winner": str(winner[i]),
             "judge": f"user{rng.integers(0, 300):03d}", "turn": 1, "anony": True, "language": str(language[i]),
             "category": str(category[i]),
             "category_tag": {"math_v0.1": {"math": bool(category[i] == "math")}},
             "conv_metadata": {"sum_assistant_a_tokens": int(ta[i]), "sum_assistant_b_tokens": int(tb[i]),
                               "header_count_a": headers(ta[i] / 300), "header_count_b": headers(tb[i] / 300),
                               "list_count_a": {"ordered": int(rng.poisson(ta[i] / 200)), "unordered": 0},
                               "list_count_b": {"ordered": int(rng.poisson(tb[i] / 200)), "unordered": 0},
                               "bold_count_a": {"**": int(rng.poisson(ta[i] / 250)), "__": 0},
                               "bold_count_b": {"**": int(rng.poisson(tb[i] / 250)), "__": 0}}}
            for i in range(n)]


def write_arena_battles(path, n_battles: int = 4000, random_state=ARENA_SEED) -> Path:
    """Write ``arena_battles(n_battles, random_state)`` by the file ending: .json (a JSON array,
    as FastChat's clean_battle file), .jsonl (one record a line), .parquet (nested records as
    structs), .csv or .tsv (nested records flattened to dotted columns, ``conv_metadata.header_count_a``;
    a record of counts is written as its sum, which is what the style features use)."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in BATTLE_SUFFIXES:
        from humeval.errors import InputError
        raise InputError(path, None, f"cannot write battles to {suffix or 'a file without an ending'}",
                         f"name the output with one of {', '.join(BATTLE_SUFFIXES)}")
    records = arena_battles(n_battles, random_state)
    if suffix == ".json":
        path.write_text(json.dumps(records), encoding="utf-8")
    elif suffix == ".jsonl":
        path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    elif suffix == ".parquet":
        import pyarrow as pa
        import pyarrow.parquet as pq
        pq.write_table(pa.Table.from_pylist(records), path)
    else:
        from humeval.data.export import write
        write(pd.DataFrame([_flat(r) for r in records]), path)
    return path


def _flat(record: dict, prefix: str = "") -> dict:
    """A nested record as one level of dotted names; a record of counts (all leaves numbers,
    such as ``{"h1": 2, "h2": 0}``) becomes its sum."""
    out = {}
    for key, value in record.items():
        name = prefix + key
        if isinstance(value, dict) and value and all(isinstance(v, int) and not isinstance(v, bool)
                                                     for v in value.values()):
            out[name] = sum(value.values())
        elif isinstance(value, dict):
            out.update(_flat(value, name + "."))
        else:
            out[name] = value
    return out
