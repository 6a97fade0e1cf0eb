"""streamtwin_policy.features and .linear against hand-computed values: the
observation and the decision a learned policy shares with its environment."""

import math

import pytest

from streamtwin_policy import Action, linear
from streamtwin_policy.features import COLUMNS, FEATURES, features, rows_of


def sample(t, rate, lag, p99, cpu=0.5, backpressure=0.0):
    s = {c: 0.0 for c in COLUMNS}
    s.update(time_s=t, input_rate=rate, throughput=rate / 2, lag=lag, latency_p99_ms=p99, cpu_busy_mean=cpu, backpressure=backpressure)
    return s


def test_features_by_hand():
    rows = rows_of([sample(1, 100, 10, 250.0, 0.2), sample(2, 300, 30, None, 0.4, 1.0), sample(3, 200, None, 900.0, 0.6)])
    got = features(rows, "RUNNING", 30, 4, 10)
    # means 200 and 100; lag the last measured (30); the largest p99 of the seconds with output (900);
    # CPU mean 0.4; backpressure 1/3; running; CI, parallelism, time.
    want = [200.0, 100.0, 30.0, 900.0, 0.4, 1 / 3, 1.0, 30.0, 4.0, 10.0]
    assert got == pytest.approx(want, rel=1e-15)
    assert len(got) == len(FEATURES)


def test_features_without_rows_or_output_are_zero_never_nan():
    assert features([], "RESTARTING", 60, 2, 20) == [0.0] * 6 + [0.0, 60.0, 2.0, 20.0]
    down = rows_of([sample(1, 100, 5, None)])
    assert not any(math.isnan(v) for v in features(down, "RESTORING", 60, 2, 20))


CONFIG = {"action": "set_checkpoint_interval", "choices": [10, 60], "mean": [0.0] * 10, "scale": [1.0] * 10,
          "weights": [[1.0] + [0.0] * 9, [-1.0] + [0.0] * 9], "bias": [0.0, 50.0]}


def test_choose_by_hand():
    # scores: 10 s: input_rate; 60 s: 50 - input_rate; so 10 s above 25 records/s, ties to the first.
    obs = [0.0] * 10
    for rate, want in ((10, 1), (25, 0), (40, 0)):
        obs[0] = rate
        assert linear.choose(CONFIG, obs) == want


def test_linear_policy_acts_only_on_a_change():
    p = linear.LinearPolicy()
    p.config = CONFIG
    p.start({})
    assert p.requires == ["set_checkpoint_interval"]
    job = {"state": "RUNNING", "checkpoint_interval_s": 60, "parallelism": 4}
    window = [sample(1, 100, 0, 10.0), sample(2, 100, 0, 10.0)]
    assert p.step(10, window, job) == [Action.set_checkpoint_interval(10, reason="linear policy: choice 0")]
    job["checkpoint_interval_s"] = 10
    assert p.step(20, window + [sample(3, 100, 0, 10.0)], job) == []


@pytest.mark.parametrize("key,value,message", [
    ("action", "explode", "action must be one of"),
    ("bias", [0.0], "bias must have 2 numbers"),
    ("scale", [0.0] * 10, "every scale must be above 0"),
    ("weights", [[1.0]], "weights must be 2 rows"),
])
def test_check_names_the_key(key, value, message):
    with pytest.raises(ValueError, match=message):
        linear.check(dict(CONFIG, **{key: value}))
