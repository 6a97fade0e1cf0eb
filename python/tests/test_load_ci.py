"""examples/python/load_ci_policy.py: its decisions and reasons on hand-made windows.

The Go version of the rule must take the same decisions with byte-identical
reasons; the expected reasons here are written out by hand.
"""

import importlib.util
import io
import os
import subprocess
import sys

import pytest

from streamtwin_policy import run

from messages import EXAMPLE_PATH, REPO, converse, goodbye, hello, job, lines, observation, replies, samples

_spec = importlib.util.spec_from_file_location("load_ci_policy", EXAMPLE_PATH)
load_ci_policy = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(load_ci_policy)
LoadCI = load_ci_policy.LoadCI


def decide(rates, job_status=None, config=None, window=600):
    """The actions LoadCI replies to one observation holding one sample per rate."""
    out = converse(LoadCI(), [hello(window=window, config=config), observation(1, samples(0, rates), job_status)])
    assert out[0] == {"type": "ready", "protocol": 1, "name": "load-ci", "requires": ["set_checkpoint_interval"]}
    assert out[1]["tick"] == 1
    return out[1]["actions"]


def ci(interval_s, reason):
    return [{"kind": "set_checkpoint_interval", "interval_s": interval_s, "reason": reason}]


def test_high_load_asks_for_the_short_interval():
    assert decide([120000.0] * 60, job(checkpoint_interval_s=60)) == ci(
        10, "load-ci: mean input 120000/s over the last 60 s, checkpoint interval 10s")


def test_low_load_asks_for_the_long_interval():
    assert decide([20000.0] * 60, job(checkpoint_interval_s=10)) == ci(
        60, "load-ci: mean input 20000/s over the last 60 s, checkpoint interval 60s")


def test_between_the_thresholds_nothing():
    assert decide([70000.0] * 60, job(checkpoint_interval_s=10)) == []
    assert decide([40000.5] * 60, job(checkpoint_interval_s=10)) == []
    assert decide([99999.5] * 60, job(checkpoint_interval_s=60)) == []


def test_thresholds_are_inclusive():
    assert decide([100000.0] * 60, job(checkpoint_interval_s=60)) == ci(
        10, "load-ci: mean input 100000/s over the last 60 s, checkpoint interval 10s")
    assert decide([40000.0] * 60, job(checkpoint_interval_s=10)) == ci(
        60, "load-ci: mean input 40000/s over the last 60 s, checkpoint interval 60s")


def test_already_at_the_target_nothing():
    assert decide([120000.0] * 60, job(checkpoint_interval_s=10)) == []
    assert decide([20000.0] * 60, job(checkpoint_interval_s=60)) == []
    assert decide([20000.0] * 60, job(checkpoint_interval_s=60.0)) == []


@pytest.mark.parametrize("state", ["RESTARTING", "FAILING", "RESTORING", "STOPPING", "STOPPED", "FAILED"])
def test_not_running_nothing(state):
    assert decide([120000.0] * 60, job(state=state, checkpoint_interval_s=60)) == []


def test_fewer_samples_than_average_s():
    # 15 samples, 100000 … 240000 in steps of 10000: mean (100000 + 240000) / 2 = 170000
    rates = [100000.0 + 10000 * i for i in range(15)]
    assert decide(rates, job(checkpoint_interval_s=60)) == ci(
        10, "load-ci: mean input 170000/s over the last 15 s, checkpoint interval 10s")


def test_empty_window_nothing():
    assert decide([], job(checkpoint_interval_s=60)) == []


def test_only_the_last_average_s_samples_count():
    # 40 s of very high load, then 60 s of low load: only the last 60 count
    assert decide([500000.0] * 40 + [30000.0] * 60, job(checkpoint_interval_s=10)) == ci(
        60, "load-ci: mean input 30000/s over the last 60 s, checkpoint interval 60s")
    # and the other way round
    assert decide([10.0] * 40 + [30000.0] * 30 + [210000.0] * 30, job(checkpoint_interval_s=60)) == ci(
        10, "load-ci: mean input 120000/s over the last 60 s, checkpoint interval 10s")


def test_mean_is_printed_rounded_half_to_even():
    # (30 × 100000 + 30 × 150001) / 60 = 125000.5 exactly: %.0f rounds half to even → 125000
    assert decide([100000.0] * 30 + [150001.0] * 30, job(checkpoint_interval_s=60)) == ci(
        10, "load-ci: mean input 125000/s over the last 60 s, checkpoint interval 10s")
    # (30 × 100001 + 30 × 150002) / 60 = 125001.5: → 125002
    assert decide([100001.0] * 30 + [150002.0] * 30, job(checkpoint_interval_s=60)) == ci(
        10, "load-ci: mean input 125002/s over the last 60 s, checkpoint interval 10s")
    # 123456.7 → 123457
    assert decide([123456.7] * 60, job(checkpoint_interval_s=60)) == ci(
        10, "load-ci: mean input 123457/s over the last 60 s, checkpoint interval 10s")


def test_mean_sums_in_order():
    # a plain left-to-right sum (as Go adds), not sum()'s compensated one (Python ≥ 3.12)
    rows = [{"input_rate": 0.1}] * 10
    total = 0.0
    for _ in range(10):
        total += 0.1
    assert total == 0.9999999999999999
    assert load_ci_policy.mean_input_rate(rows) == 0.9999999999999999 / 10
    assert load_ci_policy.mean_input_rate([{"input_rate": 3}, {"input_rate": 4}]) == 3.5


def test_config_overrides_the_defaults():
    config = {"high_rate": 20000, "low_rate": 8000, "short_ci_s": 5, "long_ci_s": 120, "average_s": 10}
    assert decide([1.0] * 50 + [25000.0] * 10, job(checkpoint_interval_s=60), config) == ci(
        5, "load-ci: mean input 25000/s over the last 10 s, checkpoint interval 5s")
    assert decide([99999.0] * 50 + [7999.0] * 10, job(checkpoint_interval_s=60), config) == ci(
        120, "load-ci: mean input 7999/s over the last 10 s, checkpoint interval 120s")
    assert decide([10000.0] * 10, job(checkpoint_interval_s=60), config) == []


@pytest.mark.parametrize("config, match", [
    ({"low_rate": 100000}, "low_rate < high_rate"),
    ({"low_rate": -1}, "low_rate < high_rate"),
    ({"short_ci_s": 0}, "must be > 0"),
    ({"long_ci_s": -60}, "must be > 0"),
    ({"average_s": 0}, "at least 1"),
])
def test_bad_config_is_refused_before_ready(config, match):
    out = io.StringIO()
    with pytest.raises(ValueError, match=match):
        run(LoadCI(), stdin=io.StringIO(lines([hello(config=config)])), stdout=out)
    assert out.getvalue() == ""


def test_fractional_intervals_print_with_g():
    config = {"short_ci_s": 2.5, "long_ci_s": 90.0}
    assert decide([120000.0] * 60, job(checkpoint_interval_s=60), config) == ci(
        2.5, "load-ci: mean input 120000/s over the last 60 s, checkpoint interval 2.5s")
    assert decide([1000.0] * 60, job(checkpoint_interval_s=60), config) == ci(
        90.0, "load-ci: mean input 1000/s over the last 60 s, checkpoint interval 90s")


def test_window_smaller_than_average_s():
    # hello's run.window bounds what the policy keeps: 20 samples, so n = 20
    assert decide([1000.0] * 30 + [150000.0] * 20, job(checkpoint_interval_s=60), window=20) == ci(
        10, "load-ci: mean input 150000/s over the last 20 s, checkpoint interval 10s")


def test_across_ticks():
    p = LoadCI()
    msgs = [hello(),
            observation(1, samples(0, [150000.0] * 10), job(checkpoint_interval_s=60)),
            # the job now runs with 10 s: no new request
            observation(2, samples(10, [150000.0] * 10), job(checkpoint_interval_s=10)),
            # not RUNNING while it restarts with the new interval
            observation(3, samples(20, [0.0] * 10), job(state="RESTARTING", checkpoint_interval_s=10)),
            # 50 samples kept: 20 × 150000 + 30 × 0 → 60000: between the thresholds
            observation(4, samples(30, [0.0] * 20), job(checkpoint_interval_s=10)),
            # 70 kept, the last 60: 10 × 150000 + 50 × 0 → 25000: low
            observation(5, samples(50, [0.0] * 20), job(checkpoint_interval_s=10)),
            goodbye()]
    out = converse(p, msgs)
    assert [m["actions"] for m in out[1:]] == [
        ci(10, "load-ci: mean input 150000/s over the last 10 s, checkpoint interval 10s"),
        [], [], [],
        ci(60, "load-ci: mean input 25000/s over the last 60 s, checkpoint interval 60s"),
    ]


@pytest.mark.parametrize("where", ["repo root", "elsewhere"])
def test_runs_as_a_script_from_anywhere(where, tmp_path):
    cwd, script = (REPO, os.path.join("examples", "python", "load_ci_policy.py")) if where == "repo root" \
        else (str(tmp_path), EXAMPLE_PATH)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    stdin = lines([hello(config={"high_rate": 20000, "low_rate": 8000}), observation(1, samples(0, [25000.0] * 60)), goodbye()])
    p = subprocess.run([sys.executable, script], input=stdin, capture_output=True, text=True, timeout=60,
                       cwd=cwd, env=env)
    assert p.returncode == 0, p.stderr
    assert p.stderr == ""
    assert replies(p.stdout) == [
        {"type": "ready", "protocol": 1, "name": "load-ci", "requires": ["set_checkpoint_interval"]},
        {"type": "actions", "tick": 1, "actions": ci(
            10, "load-ci: mean input 25000/s over the last 60 s, checkpoint interval 10s")},
    ]
