"""Simulated HMEANT annotations with known human scores, for checking the supervised weight search.

Each item's reference has 1–3 frames of 1–4 roles (types drawn with ``type_probabilities``);
each system copies them into its output and, with its own quality q, keeps each frame aligned
(fully with probability q, else partially), keeps each role (probability 0.6 + 0.4q), and aligns
a kept role fully (q), partially (half the rest) or not at all. The human score of an output is
its HMEANT under the planted ``weights`` plus N(0, noise²), so the weights that best explain the
humans are known.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from humeval.data.hmeant import Annotation, AnnotationSet, Frame, Role, Side
from humeval.metrics.hmeant.score import Weights, hmeant

TYPES = ("AGENT", "PATIENT", "MODAL", "LOCATIVE", "TEMPORAL", "MANNER")


def simulate_hmeant(weights: Weights, n_items: int = 200, qualities=(0.4, 0.6, 0.8), types=TYPES,
                    type_probabilities=None, noise: float = 0.01, random_state=0) -> tuple[AnnotationSet, pd.Series]:
    rng = np.random.default_rng(random_state)
    probabilities = np.asarray(type_probabilities if type_probabilities is not None else np.ones(len(types)), dtype=float)
    probabilities /= probabilities.sum()
    annotations = []
    for item in range(n_items):
        frames, position = [], 0
        for f in range(rng.integers(1, 4)):
            roles = []
            pred = (position,)
            position += 1
            for r in range(rng.integers(1, 5)):
                width = int(rng.integers(1, 4))
                roles.append(Role(f"r{f}.{r}", str(rng.choice(types, p=probabilities)), tuple(range(position, position + width))))
                position += width
            frames.append(Frame(f"r{f}", pred, roles))
        length = position + int(rng.integers(0, 4))
        reference = Side(length, frames)
        for s, q in enumerate(qualities):
            out_frames, frame_links, role_links = [], [], []
            for frame in frames:
                kept = [r for r in frame.roles if rng.random() < 0.6 + 0.4 * q]
                out = Frame("h" + frame.id[1:], frame.predicate, [Role("h" + r.id[1:], r.type, r.tokens) for r in kept])
                out_frames.append(out)
                frame_links.append((frame.id, out.id, "full" if rng.random() < q else "partial"))
                for r in kept:
                    u = rng.random()
                    if u < q:
                        role_links.append((r.id, "h" + r.id[1:], "full"))
                    elif u < q + (1 - q) / 2:
                        role_links.append((r.id, "h" + r.id[1:], "partial"))
            annotations.append(Annotation(f"item{item}", f"system{s}", "sim", reference, Side(length, out_frames),
                                          frame_links, role_links))
    result = AnnotationSet(annotations, source="simulated")
    scores = hmeant(result, weights)
    human = scores.set_index(["item", "system"])["hmeant"] + rng.normal(0, noise, len(scores))
    return result, human
