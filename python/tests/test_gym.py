"""The Gymnasium environments (python/streamtwin/gym.py) against the real
streamtwin binary: Gymnasium's own checker, determinism, rewards that add up
to the run's cost, and a linear policy that takes the same decisions in the
environment and as an external process of `streamtwin run`."""

import json
import subprocess
import sys
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import streamtwin
import streamtwin.gym as sg
from streamtwin_policy import linear

REPO = Path(__file__).resolve().parents[2]
IDS = ["streamtwin/CheckpointTuning-v0", "streamtwin/Autoscaling-v0"]


@pytest.fixture(autouse=True)
def binary(streamtwin_bin):
    return streamtwin_bin


@pytest.mark.parametrize("env_id", IDS)
def test_check_env(env_id):
    env = gym.make(env_id)
    try:
        check_env(env.unwrapped, skip_render_check=True)
    finally:
        env.close()


def trajectory(env, seed, actions):
    obs, info = env.reset(seed=seed)
    out = [(obs.tolist(), 0.0, info["cost"])]
    for a in actions:
        obs, reward, end, _, info = env.step(int(a))
        out.append((obs.tolist(), reward, info["cost"], info["decision"]))
        if end:
            break
    return out


@pytest.mark.parametrize("env_id", IDS)
def test_reset_with_a_seed_repeats_the_trajectory(env_id):
    env = gym.make(env_id, interval_s=60)
    try:
        actions = np.random.default_rng(0).integers(0, env.action_space.n, 90)
        a = trajectory(env, 7, actions)
        other = trajectory(env, 8, actions[:30])  # abandoned half-way
        b = trajectory(env, 7, actions)
        assert a == b
        assert a != other[: len(a)]
        assert any(step[3] is not None for step in a[1:]), "the random actions moved the job at least once"
    finally:
        env.close()


def test_rewards_add_up_to_the_runs_cost(tmp_path):
    env = sg.CheckpointTuningEnv()
    try:
        hold = env.choices.index(60)
        obs, info = env.reset(seed=4)
        total, steps = 0.0, 0
        while True:
            obs, reward, end, _, info = env.step(hold)
            total, steps = total + reward, steps + 1
            if end:
                break
        assert steps == env.hello["steps"] - 1 == 720
        assert env.decisions == []
    finally:
        env.close()
    run = streamtwin.run(sg.SCENARIOS / "checkpoint-tuning.yaml", seed=4, out=tmp_path / "static")
    cost = sg.Cost().of_summary(run.summary)
    assert total == pytest.approx(-cost, rel=1e-12)
    assert info["summary"] == run.summary  # the environment's run is the one streamtwin run writes
    # Hand check of the default weights: 1 per violating second, R = 240 per recovery violation, 0.1 per worker-second.
    q = run.summary["qos"]
    assert cost == q["latency_violation_seconds"] + 240 * q["recovery_violations"] + 0.1 * run.summary["worker_seconds"]


def test_a_linear_policy_decides_alike_in_the_environment_and_in_streamtwin_run(tmp_path):
    env = sg.CheckpointTuningEnv()
    try:
        rng = np.random.default_rng(3)
        k = len(sg.FEATURES)
        # Scores that favour a short CI at high load and a long one at low load: the policy moves the CI with the day.
        mean = [60000, 60000, 1e5, 1000, 0.5, 0.1, 1, 60, 4, 3600]
        scale = [20000, 20000, 1e6, 1e4, 0.2, 0.2, 1, 30, 1, 3600]
        weights = np.zeros((5, k))
        weights[0, 0], weights[4, 0] = 2.0, -2.0
        config = env.policy_config(weights + 0.01 * rng.standard_normal((5, k)), [0, 0.5, 0, 0.5, 0], mean, scale)
        obs, _ = env.reset(seed=11)
        while True:
            obs, _, end, _, info = env.step(linear.choose(config, obs))
            if end:
                break
        decisions, cost = list(env.decisions), info["cost"]
    finally:
        env.close()
    assert len(decisions) >= 3
    run = streamtwin.run(sg.SCENARIOS / "checkpoint-tuning.yaml", seed=11, out=tmp_path / "linear",
                         set={"policy": sg.policy_section(config)})
    ev = run.events[run.events["kind"] == "policy_decision"]
    assert list(zip(ev["time_s"], ev["value"])) == decisions
    assert sg.Cost().of_summary(run.summary) == cost


def test_vector_env_steps_together_and_resets_at_the_end():
    venv = gym.make_vec("streamtwin/CheckpointTuning-v0", num_envs=2, interval_s=900)  # 8 ticks in 2 h
    single = sg.CheckpointTuningEnv(interval_s=900)
    try:
        assert isinstance(venv, sg.VectorEnv)
        obs, info = venv.reset(seed=[5, 6])
        assert obs.shape == (2, len(sg.FEATURES)) and list(info["seed"]) == [5, 6]
        want = trajectory(single, 6, [0] * 20)
        rewards = []
        for i in range(8):
            obs, reward, terminated, truncated, info = venv.step(np.array([2, 0]))
            rewards.append(reward[1])
            assert obs[1].tolist() == want[i + 1][0]
            assert list(terminated) == [i == 7, i == 7] and not truncated.any()
        assert rewards == [w[1] for w in want[1:]]
        assert sg.Cost().of_summary(info["summary"][1]) == want[-1][2]
        obs, reward, terminated, _, info = venv.step(np.array([0, 0]))  # next-step autoreset: the first observation
        assert list(reward) == [0, 0] and not terminated.any() and obs[0][-1] == 900.0
    finally:
        venv.close()
        single.close()


def test_async_vector_env_runs_a_twin_per_process():
    venv = gym.vector.AsyncVectorEnv([lambda: gym.make("streamtwin/Autoscaling-v0", interval_s=600)] * 2)
    try:
        obs, _ = venv.reset(seed=[1, 1])
        for _ in range(5):
            obs, reward, *_ = venv.step(np.array([3, 3]))
        assert obs[0].tolist() == obs[1].tolist() and reward[0] == reward[1]
        assert obs[0][8] == 4  # the parallelism the learner chose
    finally:
        venv.close()


def test_a_bad_scenario_raises_the_clis_message(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: bad\nduration: 2h\nworkload: {name: ysb-day}\njob: {template: ysb, parallelism: 0}\n")
    with pytest.raises(streamtwin.BadInput, match=r"bad\.yaml:4.*parallelism"):
        sg.CheckpointTuningEnv(bad)
    with pytest.raises(ValueError, match="parallelisms"):
        sg.AutoscalingEnv(choices=[0.5, 2])


def test_training_example_beats_static_and_decides_alike(tmp_path):
    out = tmp_path / "train"
    done = subprocess.run([sys.executable, str(REPO / "examples/python/train_checkpoint_policy.py"), "--out", str(out),
                           "--iterations", "2"],  # the search finds its policy in the second
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    result = json.loads((out / "result.json").read_text())
    assert result["same_decisions"] and result["beats_static"], result
    policy = json.loads((out / "learned-policy.json").read_text())  # the value of a scenario's policy key
    linear.check(policy["external"]["config"])
