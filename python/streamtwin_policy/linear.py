"""A linear policy over ``features``: the form learned policies are saved in.

Each choice (a checkpoint interval, or a parallelism) has a score, a linear
function of the standardised observation; the policy moves the job to the
best-scoring choice when it differs from the job's. Its configuration, the
scenario's ``policy.external.config``::

    {"action": "set_checkpoint_interval",   # or "rescale"
     "choices": [10, 30, 60, 90, 120],      # seconds, or parallelisms
     "mean": [...], "scale": [...],         # per feature: x = (f - mean) / scale
     "weights": [[...], ...],               # one row of len(FEATURES) per choice
     "bias": [...]}                         # one per choice

Run it as ``python -m streamtwin_policy.linear`` (its ``command``).
``streamtwin.gym`` trains and saves it (``save_policy``); ``choose`` is the
decision both use.
"""

from __future__ import annotations

import math
from typing import Any, Dict, List, Optional, Sequence

from .actions import RESCALE, SET_CHECKPOINT_INTERVAL, Action
from .features import FEATURES, features, rows_of
from .policy import Policy, run

ACTIONS = (SET_CHECKPOINT_INTERVAL, RESCALE)


def check(config: Dict[str, Any]) -> None:
    """Raises ValueError naming the first key of config that is wrong."""
    if config.get("action") not in ACTIONS:
        raise ValueError("linear policy: action must be one of %s, got %r" % (", ".join(ACTIONS), config.get("action")))
    n, k = len(config.get("choices") or []), len(FEATURES)
    if n < 1:
        raise ValueError("linear policy: choices must list at least one value")
    for key, shape in (("mean", k), ("scale", k), ("bias", n)):
        if len(config.get(key) or []) != shape:
            raise ValueError("linear policy: %s must have %d numbers, got %r" % (key, shape, config.get(key)))
    w = config.get("weights") or []
    if len(w) != n or any(len(r) != k for r in w):
        raise ValueError("linear policy: weights must be %d rows (one per choice) of %d numbers (one per feature)" % (n, k))
    if any(not (s > 0) for s in config["scale"]):
        raise ValueError("linear policy: every scale must be above 0")


def choose(config: Dict[str, Any], observation: Sequence[float]) -> int:
    """The index of the best-scoring choice for an observation (the first
    of equal scores)."""
    x = [(f - m) / s for f, m, s in zip(observation, config["mean"], config["scale"])]
    best, best_score = 0, -math.inf
    for i, (row, b) in enumerate(zip(config["weights"], config["bias"])):
        score = b + sum(w * v for w, v in zip(row, x))
        if score > best_score:
            best, best_score = i, score
    return best


class LinearPolicy(Policy):
    """``choose`` as a streamtwin policy: it acts only when the best choice
    differs from the job's current value."""

    name = "linear"

    def start(self, hello: Dict[str, Any]) -> None:
        check(self.config)
        self.requires = [self.config["action"]]
        self.seen: Optional[float] = None  # time_s of the newest row already used

    def step(self, now_s: float, window: List[Dict[str, Any]], job: Dict[str, Any]) -> List[Action]:
        new = [s for s in window if self.seen is None or s["time_s"] > self.seen]
        if window:
            self.seen = window[-1]["time_s"]
        obs = features(rows_of(new), job["state"], job["checkpoint_interval_s"], job["parallelism"], now_s)
        i = choose(self.config, obs)
        target = self.config["choices"][i]
        reason = "linear policy: choice %d" % i
        if self.config["action"] == SET_CHECKPOINT_INTERVAL:
            if target != job["checkpoint_interval_s"]:
                return [Action.set_checkpoint_interval(target, reason=reason)]
        elif target != job["parallelism"]:
            return [Action.rescale(int(target), reason=reason)]
        return []


if __name__ == "__main__":
    run(LinearPolicy())
