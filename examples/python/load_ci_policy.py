#!/usr/bin/env python3
"""load-ci: a short checkpoint interval under high load, a long one under low load.

An external policy for streamtwin (docs/policy-protocol.md), the same rule as
the Go one: each tick, while the job is RUNNING, it averages ``input_rate``
over the last ``average_s`` samples; at or above ``high_rate`` it asks for a
checkpoint interval of ``short_ci_s``, at or below ``low_rate`` for
``long_ci_s``, and in between, or when the job already has that interval, it
does nothing. Both versions take the same decisions with the same reasons.

Use it from a scenario (paths are relative to the scenario's folder, here
scenarios/)::

    policy:
      external:
        command: [python3, ../examples/python/load_ci_policy.py]
        config: {high_rate: 20000, low_rate: 8000}

It needs no installation: it finds the streamtwin_policy package in the
repository's python/ folder, relative to this file.
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "python"))

from streamtwin_policy import Action, Policy, run  # noqa: E402

DEFAULTS = {"high_rate": 100000, "low_rate": 40000, "short_ci_s": 10, "long_ci_s": 60, "average_s": 60}


def mean_input_rate(samples):
    """The arithmetic mean of the samples' input_rate: summed in order, then divided by the count.

    A plain loop, not sum(), which compensates rounding errors since Python
    3.12: the Go rule adds the same way, so both print the same mean.
    """
    total = 0.0
    for s in samples:
        total += float(s["input_rate"])
    return total / len(samples)


class LoadCI(Policy):
    name = "load-ci"
    requires = ["set_checkpoint_interval"]

    def start(self, hello):
        config = dict(DEFAULTS)
        config.update(self.config or {})
        self.high_rate = config["high_rate"]
        self.low_rate = config["low_rate"]
        self.short_ci_s = config["short_ci_s"]
        self.long_ci_s = config["long_ci_s"]
        self.average_s = int(config["average_s"])
        # refused before the run starts, as the Go rule refuses its configuration
        if not 0 <= self.low_rate < self.high_rate:
            raise ValueError("load-ci: need 0 <= low_rate < high_rate, got %g and %g records/s" % (self.low_rate, self.high_rate))
        if not (self.short_ci_s > 0 and self.long_ci_s > 0):
            raise ValueError("load-ci: short_ci_s and long_ci_s must be > 0, got %g and %g" % (self.short_ci_s, self.long_ci_s))
        if self.average_s < 1:
            raise ValueError("load-ci: average_s must be at least 1, got %r" % (config["average_s"],))

    def step(self, now_s, window, job):
        if job["state"] != "RUNNING":
            return []
        recent = window[max(0, len(window) - self.average_s):]
        if not recent:
            return []
        mean = mean_input_rate(recent)
        if mean >= self.high_rate:
            target = self.short_ci_s
        elif mean <= self.low_rate:
            target = self.long_ci_s
        else:
            return []
        if target == job["checkpoint_interval_s"]:
            return []
        reason = "load-ci: mean input %.0f/s over the last %d s, checkpoint interval %gs" % (mean, len(recent), target)
        return [Action.set_checkpoint_interval(target, reason=reason)]


if __name__ == "__main__":
    run(LoadCI())
