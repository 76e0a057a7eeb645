"""A demo campaign from the bundled simulator (``humeval serve --demo DIR``).

``simulate_competition`` draws each system's ability μ_s and the quality q_sx of its output of
every segment (Hopkins & May's story); the demo turns that into text: the reference is a sentence
of random words, and a system's output replaces each word with probability 0.6 · σ(−q_sx) (σ the
logistic function), so better systems' outputs are closer to the reference. Accounts: annotators
``ann1`` … and the organiser ``organiser``, with the passwords written in the campaign file
(a demo: a real campaign gives ``password_hash``).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from scipy.special import expit

from humeval.simulate import simulate_competition

WORDS = ("the cat sat on a mat while dogs ran past old houses near green rivers and blue hills under bright "
         "skies where people talk about work music food travel books weather news").split()
PASSWORD = "demo-password"


def write_demo(folder, n_systems: int = 5, n_items: int = 40, n_annotators: int = 3, tasks=("pairwise", "da"),
               strategy: str = "trueskill", random_state=0, leaderboard_interval: float = 5.0,
               bootstrap: int = 200) -> Path:
    """Write the demo's texts and campaign file under ``folder``; returns the campaign file."""
    folder = Path(folder)
    (folder / "systems").mkdir(parents=True, exist_ok=True)
    sim = simulate_competition(n_systems=n_systems, n_items=n_items, n_judgments=10, random_state=random_state)
    rng = np.random.default_rng(random_state)
    reference = [list(rng.choice(WORDS, int(rng.integers(5, 15)))) for _ in range(n_items)]
    source = [" ".join(w.upper() for w in reversed(words)) for words in reference]
    (folder / "source.txt").write_text("\n".join(source) + "\n", encoding="utf-8")
    (folder / "reference.txt").write_text("\n".join(" ".join(r) for r in reference) + "\n", encoding="utf-8")
    systems = list(sim.truth.abilities.index)
    for s, name in enumerate(systems):
        lines = []
        for x, words in enumerate(reference):
            wrong = rng.random(len(words)) < 0.6 * expit(-sim.truth.quality[s, x])
            lines.append(" ".join(str(rng.choice(WORDS)) if bad else w for w, bad in zip(words, wrong)))
        (folder / "systems" / f"{name}.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    accounts = [(f"ann{i + 1}", "annotator") for i in range(n_annotators)] + [("organiser", "organiser")]
    toml = ['name = "demo"', 'track = "src-tgt"', f"tasks = {list(tasks)!r}".replace("'", '"'),
            f'strategy = "{strategy}"', f"seed = {int(random_state or 0)}", 'database = "demo.sqlite"',
            f"leaderboard_interval = {leaderboard_interval}", f"bootstrap = {bootstrap}", "",
            "[data]", 'source = "source.txt"', 'reference = "reference.txt"', "", "[data.systems]",
            *[f'{name} = "systems/{name}.txt"' for name in systems], "",
            "[quality]", "bad_reference = 0.1", "repeat = 0.1", "",
            "[stop]", "width = 1.0", "p_top = 0.9", ""]
    for name, role in accounts:
        toml += ["[[accounts]]", f'name = "{name}"', f'role = "{role}"', f'password = "{PASSWORD}"', ""]
    path = folder / "campaign.toml"
    path.write_text("\n".join(toml), encoding="utf-8")
    (folder / "truth.csv").write_text(sim.truth.abilities.to_csv(), encoding="utf-8")
    return path
