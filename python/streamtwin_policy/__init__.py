"""streamtwin_policy: write a streamtwin external policy in Python.

A policy is a child process of streamtwin that speaks protocol 1
(docs/policy-protocol.md, schema docs/policy-protocol.schema.json) in JSON
lines over stdin/stdout. The same process runs unchanged in the twin and
against a live cluster. Subclass ``Policy``, override ``step`` and hand an
instance to ``run``::

    from streamtwin_policy import Action, Policy, run

    class Halve(Policy):
        name = "halve"
        requires = ["set_checkpoint_interval"]

        def step(self, now_s, window, job):
            if job["state"] == "RUNNING" and job["checkpoint_interval_s"] > 10:
                return [Action.set_checkpoint_interval(job["checkpoint_interval_s"] / 2, reason="halve")]
            return []

    if __name__ == "__main__":
        run(Halve())

``step`` is called once per tick with the window of recent per-second samples
(kept by ``run``, bounded to hello's ``run.window``); the instance persists
for the whole run. Standard output is the protocol's: log to standard error
(``print`` is sent there while ``run`` runs). Seed any random stream from
``self.run["seed"]`` to keep runs reproducible. No dependencies beyond the
standard library; Python 3.9 or later.
"""

from .actions import ACTION_KINDS, NOTE, RESCALE, SET_CHECKPOINT_INTERVAL, TRIGGER_SAVEPOINT, Action
from .forecaster import ForecastError, Forecaster, check_quantiles, run_forecaster
from .policy import PROTOCOL, Policy, ProtocolError, run

__version__ = "1.0.0"

__all__ = [
    "ACTION_KINDS",
    "Action",
    "ForecastError",
    "Forecaster",
    "NOTE",
    "PROTOCOL",
    "Policy",
    "ProtocolError",
    "RESCALE",
    "SET_CHECKPOINT_INTERVAL",
    "TRIGGER_SAVEPOINT",
    "check_quantiles",
    "run",
    "run_forecaster",
]
