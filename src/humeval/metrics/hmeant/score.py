"""HMEANT (Lo & Wu 2011; the form of Lo & Wu 2012, §2).

For each aligned pair of an output frame i and a reference frame k (role type j):

    C_ij, P_ij   output roles of type j in frame i aligned fully / partially to roles of frame k
    M_ij, R_kj   all roles of type j in output frame i / reference frame k
    m_i, r_k     share of the output's / reference's tokens that frame i / k covers
    A_ik = w_pred·(1 or w_partial, as the predicates were aligned) + Σ_j w_j (C_ij + w_partial·P_ij)

    precision = Σ_aligned m_i · A_ik / (w_pred + Σ_j w_j M_ij)  /  Σ_(all output frames) m_i
    recall    = Σ_aligned r_k · A_ik / (w_pred + Σ_j w_j R_kj)  /  Σ_(all reference frames) r_k
    HMEANT    = 2·precision·recall / (precision + recall)

Each frame counts in at most one aligned pair (full alignments first, then in file order; the
other alignments of a frame are counted in ``skipped``), and a frame's recall term is capped at
1 (several output roles aligned to one reference role). Outputs and references without any frame
get NaN (nothing to score) and are counted. Scores are computed for many weight vectors at once
from per-frame-pair count arrays (``FrameStats``), which is what the weight search uses.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from scipy import sparse

from humeval.data.hmeant import Annotation, AnnotationSet


@dataclass
class Weights:
    """w_pred, one weight per role type (``default`` for types not listed) and w_partial."""
    pred: float = 1.0
    roles: dict[str, float] = field(default_factory=dict)
    partial: float = 0.5
    default: float = 1.0

    def vector(self, types: list[str]) -> np.ndarray:
        return np.array([self.roles.get(t, self.default) for t in types], dtype=float)

    def normalized(self) -> "Weights":
        """Scaled so that w_pred + Σ w_j = 1 (HMEANT does not change under a common scale)."""
        total = self.pred + sum(self.roles.values())
        return Weights(self.pred / total, {t: w / total for t, w in self.roles.items()}, self.partial,
                       self.default / total)


@dataclass
class FrameStats:
    annotations: list[Annotation]
    types: list[str]
    row_annotation: np.ndarray  # (rows,) annotation index of each aligned frame pair
    pred_full: np.ndarray  # (rows,) 1 if the predicates were aligned fully
    pred_partial: np.ndarray
    full: np.ndarray  # (rows, T) C_ij
    part: np.ndarray  # (rows, T) P_ij
    out_roles: np.ndarray  # (rows, T) M_ij
    ref_roles: np.ndarray  # (rows, T) R_kj
    m: np.ndarray  # (rows,) m_i
    r: np.ndarray  # (rows,) r_k
    m_total: np.ndarray  # (annotations,) Σ m over all output frames
    r_total: np.ndarray  # (annotations,) Σ r over all reference frames
    skipped: dict = field(default_factory=dict)


def _coverage(frame, length: int) -> float:
    return len({k for k in frame.tokens() if 0 <= k < length}) / length if length else 0.0


def role_types(annotations) -> list[str]:
    types = set()
    for a in annotations:
        for side in (a.reference, a.output):
            if side is not None:
                types.update(r.type for f in side.frames for r in f.roles)
    return sorted(types)


def frame_statistics(annotations: AnnotationSet | list[Annotation], types: list[str] | None = None) -> FrameStats:
    """Count arrays of every aligned frame pair of every output annotation."""
    outputs = [a for a in (annotations.outputs() if isinstance(annotations, AnnotationSet) else annotations)
               if a.output is not None]
    types = types or role_types(outputs)
    index = {t: k for k, t in enumerate(types)}
    rows, full, part, out_roles, ref_roles = [], [], [], [], []
    m_total, r_total = np.zeros(len(outputs)), np.zeros(len(outputs))
    skipped = {"role types outside the weight vector": 0, "frame alignments reusing an aligned frame": 0}

    def counts(roles):
        v = np.zeros(len(types))
        for role in roles:
            if role.type in index:
                v[index[role.type]] += 1
            else:
                skipped["role types outside the weight vector"] += 1
        return v

    for n, a in enumerate(outputs):
        out_frames = {f.id: f for f in a.output.frames}
        ref_frames = {f.id: f for f in a.reference.frames}
        m_total[n] = sum(_coverage(f, a.output.length) for f in a.output.frames)
        r_total[n] = sum(_coverage(f, a.reference.length) for f in a.reference.frames)
        role_link = {}
        for ref_role, out_role, kind in a.role_links:
            role_link.setdefault(out_role, {})[ref_role] = kind
        used_out, used_ref = set(), set()
        for ref_id, out_id, kind in sorted(a.frame_links, key=lambda link: link[2] != "full"):
            if out_id in used_out or ref_id in used_ref:
                skipped["frame alignments reusing an aligned frame"] += 1
                continue
            used_out.add(out_id)
            used_ref.add(ref_id)
            fo, fr = out_frames[out_id], ref_frames[ref_id]
            ref_role_ids = {r.id for r in fr.roles}
            c, p = np.zeros(len(types)), np.zeros(len(types))
            for role in fo.roles:
                kinds = [k for rid, k in role_link.get(role.id, {}).items() if rid in ref_role_ids]
                if role.type in index and kinds:
                    (c if "full" in kinds else p)[index[role.type]] += 1
            rows.append((n, kind == "full", kind == "partial", _coverage(fo, a.output.length),
                         _coverage(fr, a.reference.length)))
            full.append(c)
            part.append(p)
            out_roles.append(counts(fo.roles))
            ref_roles.append(counts(fr.roles))
    arr = np.array(rows, dtype=float).reshape(-1, 5)
    shape = (len(arr), len(types))
    as2d = lambda v: np.array(v, dtype=float).reshape(shape)  # noqa: E731
    return FrameStats(outputs, types, arr[:, 0].astype(np.int64), arr[:, 1], arr[:, 2], as2d(full), as2d(part),
                      as2d(out_roles), as2d(ref_roles), arr[:, 3], arr[:, 4], m_total, r_total,
                      {k: v for k, v in skipped.items() if v})


def scores_for(stats: FrameStats, pred: np.ndarray, roles: np.ndarray, partial: np.ndarray):
    """Precision, recall and HMEANT of every annotation (rows) under K weight vectors (columns):
    ``pred`` (K,), ``roles`` (K, T), ``partial`` (K,)."""
    pred, partial = np.atleast_1d(pred).astype(float), np.atleast_1d(partial).astype(float)
    roles = np.atleast_2d(roles).astype(float)
    credit = (stats.full @ roles.T + (stats.part @ roles.T) * partial + (stats.pred_full[:, None]
              + stats.pred_partial[:, None] * partial) * pred)
    with np.errstate(divide="ignore", invalid="ignore"):
        frame_p = np.where(credit > 0, credit / (pred + stats.out_roles @ roles.T), 0.0)
        frame_r = np.minimum(np.where(credit > 0, credit / (pred + stats.ref_roles @ roles.T), 0.0), 1.0)
        n = len(stats.annotations)
        owner = sparse.csr_matrix((np.ones(len(stats.row_annotation)), (stats.row_annotation, np.arange(len(stats.row_annotation)))),
                                  shape=(n, len(stats.row_annotation)))
        precision = (owner @ (stats.m[:, None] * frame_p)) / stats.m_total[:, None]
        recall = (owner @ (stats.r[:, None] * frame_r)) / stats.r_total[:, None]
        f = np.where(precision + recall > 0, 2 * precision * recall / (precision + recall), 0.0)
    empty = (stats.m_total == 0) & (stats.r_total == 0)
    precision = np.where(stats.m_total[:, None] > 0, precision, 0.0)
    recall = np.where(stats.r_total[:, None] > 0, recall, 0.0)
    f[empty] = np.nan
    return precision, recall, f


def hmeant(annotations: AnnotationSet | list[Annotation] | FrameStats, weights: Weights | None = None) -> pd.DataFrame:
    """HMEANT, precision and recall of every output annotation (item, system, annotator)."""
    stats = annotations if isinstance(annotations, FrameStats) else frame_statistics(annotations)
    w = weights or Weights()
    p, r, f = scores_for(stats, np.array([w.pred]), w.vector(stats.types)[None, :], np.array([w.partial]))
    df = pd.DataFrame({"item": [a.item for a in stats.annotations], "system": [a.system for a in stats.annotations],
                       "annotator": [a.annotator for a in stats.annotations],
                       "language": [a.language for a in stats.annotations],
                       "precision": p[:, 0], "recall": r[:, 0], "hmeant": f[:, 0]})
    df.attrs["skipped"] = dict(stats.skipped, **{"outputs with no frame on either side": int(np.isnan(f[:, 0]).sum())})
    return df
