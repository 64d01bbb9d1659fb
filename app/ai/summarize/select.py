"""Choosing the statements of a summary within a token budget.

The objective is how well the chosen statements cover everything worth remembering (a weighted
facility location, Lin & Bilmes 2011): each statement j has a weight w_j (what it is made of:
names, numbers, dates, first-person facts, constraints) and is covered by the chosen statement
most similar to it. Greedy by gain per token (tokens ** COST_EXPONENT), which for this monotone
submodular objective is near-optimal; a near-duplicate of a chosen statement adds nothing, so
repetition is never bought.

Close calls go to what a statement is by itself, not to the embedding: the similarities carry the
model's noise (an int8 model's vectors are ~0.995 cosine from fp32's, and two int8 builds as far
from each other), which moves a statement's gain by a few per cent. Gains within TIE of the best
are equal, and among them the one with the most weight per token (what it is made of, a pure
function of its text) wins, then the earliest: a choice between the talk's main event and a
vaguer statement that resembles everything a little no longer follows the noise. (On LoCoMo's
128 dev sessions this leaves the coverage where it was and makes two int8 builds' summaries agree
a little more often; docs/benchmarks.md, "Footprint, session 14".)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import numpy.typing as npt

SIM_FLOOR = 0.25  # cosine below which two statements say nothing of each other
COST_EXPONENT = 0.4  # 1: pure gain per token (favours short statements); 0: pure gain
REPEATED = 0.7  # coverage (of the scaled similarity) at which a statement adds nothing new
FIRST_SHARE = 0.8  # of the budget, the most that statements taken first may use
TIE = 0.05  # gains within this fraction of the best are a tie (int8 noise moves them 1-6 %)


def coverage_similarity(vectors: npt.NDArray[np.float32]) -> npt.NDArray[np.float64]:
    sims = (vectors @ vectors.T).astype(np.float64)
    out: npt.NDArray[np.float64] = np.clip((sims - SIM_FLOOR) / (1 - SIM_FLOOR), 0.0, 1.0)
    np.fill_diagonal(out, 1.0)
    return out


def choose(
    *,
    sims: npt.NDArray[np.float64],
    weights: Sequence[float],
    costs: Sequence[int],
    budget: int,
    fits: Callable[[list[int]], bool],
    first: Sequence[int] = (),
    eligible: Sequence[bool] | None = None,
) -> list[int]:
    """Indices chosen (sorted). `costs` estimate each statement's tokens in the rendered summary;
    `fits` checks a choice exactly and is asked only when the estimate comes near the budget.
    The statements in `first` (constraints, changes of plan) are taken before the others, in the
    order given, while they fit in FIRST_SHARE of the budget. Statements not `eligible` (questions) are
    never chosen but count among what the chosen ones should cover."""
    n = len(costs)
    w = np.asarray(weights, dtype=np.float64)
    cost = np.asarray(costs, dtype=np.float64)
    covered = np.zeros(n)
    open_ = np.ones(n, dtype=bool) if eligible is None else np.asarray(eligible, dtype=bool).copy()
    chosen: list[int] = []
    used = 0
    for i in first:
        if not open_[i]:
            continue
        if covered[i] >= REPEATED:  # says again what a statement taken first says
            open_[i] = False
            continue
        if used + costs[i] <= budget * FIRST_SHARE and fits(sorted([*chosen, i])):
            chosen = sorted([*chosen, i])
            used += costs[i]
            open_[i] = False
            covered = np.maximum(covered, sims[i])
    per_token = np.power(np.maximum(cost, 1.0), COST_EXPONENT)
    # What a statement is worth by itself, per token as in `value`: its weight, not its embedding.
    prior = w / per_token
    while open_.any():
        gains = (np.maximum(sims - covered[None, :], 0.0) * w[None, :]).sum(axis=1)
        value = np.where(open_, gains / per_token, -np.inf)
        i = _pick(value, prior)
        open_[i] = False
        if gains[i] <= 1e-9:
            break
        if covered[i] >= REPEATED:
            continue
        if used + costs[i] > budget + 8:
            continue
        trial = sorted([*chosen, i])
        if used + costs[i] > budget - 8 and not fits(trial):
            continue
        chosen = trial
        used += costs[i]
        covered = np.maximum(covered, sims[i])
    return chosen


def _pick(value: npt.NDArray[np.float64], prior: npt.NDArray[np.float64]) -> int:
    """The index of the best value, a near-tie (within TIE) going to the best prior (weight per
    token), then the earliest. The prior is a pure function of the text, so only a gap wider than
    the noise lets the embeddings decide."""
    best = float(value.max())
    tied = value >= best - TIE * abs(best)
    return int(np.argmax(np.where(tied, prior, -np.inf)))
