"""Gymnasium environments over the twin: train a policy in Python, then run
it unchanged by ``streamtwin run`` and ``streamtwin live run``.

    import gymnasium as gym
    import streamtwin.gym  # registers the environments

    env = gym.make("streamtwin/CheckpointTuning-v0")            # its own scenario
    env = gym.make("streamtwin/Autoscaling-v0", scenario="my.yaml", interval_s=30)
    obs, info = env.reset(seed=1)
    obs, reward, terminated, truncated, info = env.step(env.action_space.sample())

Each environment runs one ``streamtwin gym`` process: the twin steps
in-process on the Go side, one ``step`` per policy interval, and the learner
takes the policy's seat (docs/gym.md). ``reset(seed=s)`` runs the scenario
with root seed s, so two resets with one seed give one trajectory under the
same actions. The observation is ``streamtwin_policy.features`` (``FEATURES``
names its entries); the reward is minus the step's ``Cost`` of QoS
violations and TaskManager-seconds, counted as summary.json counts them, so
an episode's rewards add up to minus the cost of the run's summary.
"""

from __future__ import annotations

import json
import os
import struct
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

import gymnasium
import numpy as np
from gymnasium import spaces

from streamtwin_policy import linear
from streamtwin_policy.features import COLUMNS, FEATURES, features

from ._cli import StreamtwinError, binary, scenario_file

__all__ = ["Cost", "StreamtwinEnv", "CheckpointTuningEnv", "AutoscalingEnv", "VectorEnv", "FEATURES", "save_policy", "policy_section"]

#: The scenarios the environments use when given none (package data).
SCENARIOS = Path(__file__).parent / "scenarios"

_REQUEST = struct.Struct("<IIQd")  # op, zeros, integer, number (internal/stepper)
_CLOSE, _RESET, _HOLD, _INTERVAL, _RESCALE = range(5)
_PROTOCOL = 1
_RUNNING = struct.pack("<d", 0.0)  # a frame's first float64 while the run goes on


@dataclass(frozen=True)
class Cost:
    """What a run costs: ``latency`` per second whose p99 latency exceeded
    the scenario's ``qos.latency``, ``recovery`` per recovery longer than
    ``qos.recovery`` or never finished (None: that bound in seconds, so a
    violated recovery costs as much as that many violating seconds), and
    ``worker`` per TaskManager-second. The counts are summary.json's
    (``qos.latency_violation_seconds``, ``qos.recovery_violations``,
    ``worker_seconds``)."""

    latency: float = 1.0
    recovery: Optional[float] = None
    worker: float = 0.1

    def of(self, latency_violation_seconds: float, recovery_violations: float, worker_seconds: float,
           recovery_bound_s: float) -> float:
        recovery = recovery_bound_s if self.recovery is None else self.recovery
        return self.latency * latency_violation_seconds + recovery * recovery_violations + self.worker * worker_seconds

    def of_summary(self, summary: Dict[str, Any]) -> float:
        """The cost of a run from its summary.json (``Run.summary``)."""
        qos = summary["qos"]
        return self.of(qos["latency_violation_seconds"], qos["recovery_violations"], summary["worker_seconds"],
                       qos["recovery_bound_s"])


class _Twin:
    """One ``streamtwin gym`` process and the stepping protocol to it."""

    def __init__(self, scenario: Union[str, os.PathLike, dict], variant: Optional[str], interval_s: float):
        # A dict is written into the current folder, as streamtwin.run writes it: relative paths in it mean
        # what they mean there. The process reads it before its hello, and it is removed then.
        path, temporary = scenario_file(scenario, Path.cwd())
        self.stderr = tempfile.TemporaryFile()
        args = [str(binary()), "gym", "--interval", "%rs" % float(interval_s)]
        if variant is not None:
            args += ["--variant", variant]
        self.args = args + [str(path)]
        try:
            self.proc = subprocess.Popen(self.args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.stderr, bufsize=0)
            self.out, self.inp = self.proc.stdout.fileno(), self.proc.stdin.fileno()
            line = b""
            while not line.endswith(b"\n"):
                more = os.read(self.out, 1 << 16)
                if not more:
                    self._died("before its hello")
                line += more
        finally:
            if temporary:
                path.unlink()  # the process has read it (or failed to)
        self.hello = json.loads(line)
        if self.hello.get("protocol") != _PROTOCOL or list(self.hello["columns"]) != list(COLUMNS):
            raise StreamtwinError("streamtwin gym speaks protocol %r with columns %r; this package needs protocol %d with %r: "
                                  "use the streamtwin binary of this checkout" % (self.hello.get("protocol"), self.hello.get("columns"),
                                                                                   _PROTOCOL, COLUMNS), 1, self.args)
        self.states = self.hello["states"]
        self.header = len(self.hello["header"])
        self.width = len(COLUMNS)

    def _died(self, when: str) -> None:
        code = self.proc.wait()
        self.stderr.seek(0)
        message = self.stderr.read().decode(errors="replace").strip() or "(nothing on stderr)"
        cls = StreamtwinError
        if code == 2:
            from ._cli import BadInput
            cls = BadInput
        raise cls("streamtwin gym exited with status %d %s: %s" % (code, when, message), code, self.args)

    def send(self, op: int, integer: int = 0, number: float = 0.0) -> None:
        """Sends one request; its frame is read by ``receive`` (a vector of
        environments sends to every process before it reads any)."""
        try:
            os.write(self.inp, _REQUEST.pack(op, 0, integer, number))
        except BrokenPipeError:
            self._died("before a request")

    def receive(self) -> Tuple[tuple, list, Optional[dict]]:
        """The frame of the request sent: the header's values, the rows
        (tuples in COLUMNS order) and, when the run has ended, its summary
        (summary.json as a dict; else None)."""
        w, size = self.width, 8 * self.header
        buf = os.read(self.out, 1 << 16)
        rows = length = None
        while True:
            if rows is None and len(buf) >= size:
                rows = int(struct.unpack_from("<d", buf, size - 8)[0])
                end = size + 8 * w * rows
                if buf[:8] == _RUNNING:
                    length = 0
            if rows is not None and length is None and len(buf) >= end + 8:
                length = 8 + struct.unpack_from("<Q", buf, end)[0]  # an end frame: the summary follows
            if length is not None and len(buf) >= end + length:
                break
            more = os.read(self.out, 1 << 16)
            if not more:
                self._died("during a step")
            buf += more
        head = struct.unpack_from("<%dd" % self.header, buf)
        flat = struct.unpack_from("<%dd" % (w * rows), buf, size)
        summary = json.loads(buf[end + 8:end + length]) if length else None
        return head, [flat[i:i + w] for i in range(0, len(flat), w)], summary

    def close(self) -> None:
        if self.proc.poll() is None:
            try:
                os.write(self.inp, _REQUEST.pack(_CLOSE, 0, 0, 0.0))
                self.proc.stdin.close()
            except OSError:
                pass
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        for f in (self.proc.stdin, self.proc.stdout):
            if f is not None and not f.closed:
                f.close()
        self.stderr.close()


class StreamtwinEnv(gymnasium.Env):
    """A scenario of the twin as an environment; the subclasses fix the
    action (``CheckpointTuningEnv``, ``AutoscalingEnv``).

    ``scenario``: a YAML file or a dict of its keys (the scenario's own
    policy is not run: the learner takes its place); ``variant``: one of
    its variants; ``interval_s``: seconds of simulated time per step;
    ``cost``: the ``Cost`` the reward is minus of. ``choices`` are the
    values the discrete actions stand for.

    ``info`` holds the ``job_state``, the run's counts so far
    (``latency_violation_seconds``, ``recovery_violations``,
    ``worker_seconds``), its ``cost`` so far and this step's ``decision``
    (the value set, or None: held); reset's also the run's ``seed``, and
    the last step's ``summary``, the run's summary.json as a dict.
    ``decisions`` lists the episode's (time_s, value) pairs, and ``rows``
    the rows the last observation was made of (tuples in ``COLUMNS``
    order).
    """

    metadata = {"render_modes": []}
    action_kind = ""

    def __init__(self, scenario: Union[str, os.PathLike, dict], choices: Sequence[float], *, variant: Optional[str] = None,
                 interval_s: float = 10.0, cost: Optional[Cost] = None):
        if not choices:
            raise ValueError("choices must name at least one value")
        self.choices = [float(c) for c in choices]
        self.cost = cost or Cost()
        self.interval_s = float(interval_s)
        self._twin = _Twin(scenario, variant, interval_s)
        self.hello = self._twin.hello
        self._recovery_bound = float(self.hello["recovery_bound_s"])
        self.action_space = spaces.Discrete(len(self.choices))
        self.observation_space = spaces.Box(0.0, np.inf, (len(FEATURES),), np.float64)
        self.decisions: List[Tuple[float, float]] = []
        self.rows: List[tuple] = []
        self._head: Optional[tuple] = None
        self._spent = 0.0

    def _current(self, head: tuple) -> float:
        raise NotImplementedError

    def _observe(self, frame) -> Tuple[np.ndarray, float, bool, Dict[str, Any]]:
        head, rows, summary = frame
        end, now, state, ci, par, _restarts, _faults, lat, rec, workers, _n = head
        name = self._twin.states[int(state)] if state >= 0 else "UNKNOWN"
        obs = np.array(features(rows, name, ci, par, now), dtype=np.float64)
        spent = self.cost.of(lat, rec, workers, self._recovery_bound)
        reward = self._spent - spent
        self._head = head
        info = {"job_state": name, "latency_violation_seconds": lat, "recovery_violations": rec, "worker_seconds": workers,
                "cost": spent}
        self.rows = rows  # not in info: a latency of a second without output is NaN, and NaN != NaN fails check_env
        if summary is not None:
            info["summary"] = summary
        return obs, reward, bool(end), info

    def reset(self, *, seed: Optional[int] = None, options: Optional[dict] = None):
        self._send_reset(seed)
        return self._receive_reset()

    def step(self, action):
        return self._receive_step(self._send_step(action))

    # reset and step in two halves: a request, then its frame (VectorEnv
    # sends every sub-environment's request before it reads a frame).
    def _send_reset(self, seed: Optional[int]) -> None:
        super().reset(seed=seed)
        self._seed = int(seed) if seed is not None else int(self.np_random.integers(0, 2**63))
        self._spent = 0.0  # the first step's reward also charges the time before the first tick
        self.decisions = []
        self._twin.send(_RESET, self._seed)

    def _receive_reset(self):
        obs, _, _, info = self._observe(self._twin.receive())
        info["seed"] = self._seed
        return obs, info

    def _send_step(self, action) -> Optional[float]:
        if self._head is None or self._head[0]:
            raise gymnasium.error.ResetNeeded("call reset before step (and after the run has ended)")
        value = self.choices[int(action)]
        if value == self._current(self._head):
            self._twin.send(_HOLD)
            return None
        self._act(value)
        self.decisions.append((self._head[1], value))
        return value

    def _receive_step(self, decision: Optional[float]):
        obs, reward, end, info = self._observe(self._twin.receive())
        self._spent = info["cost"]
        info["decision"] = decision
        return obs, reward, end, False, info

    def _act(self, value: float) -> None:
        raise NotImplementedError

    def policy_config(self, weights, bias, mean, scale) -> Dict[str, Any]:
        """The ``streamtwin_policy.linear`` configuration of a linear policy
        over this environment's choices."""
        config = {"action": self.action_kind, "choices": [_plain(c) for c in self.choices],
                  "mean": [float(v) for v in mean], "scale": [float(v) for v in scale],
                  "weights": [[float(v) for v in row] for row in weights], "bias": [float(v) for v in bias]}
        linear.check(config)
        return config

    def close(self):
        twin = getattr(self, "_twin", None)
        if twin is not None:
            twin.close()
            self._twin = None


def _plain(v: float):
    """A choice as the policy reports it: 30, not 30.0, when whole."""
    return int(v) if float(v).is_integer() else float(v)


class CheckpointTuningEnv(StreamtwinEnv):
    """Chooses the checkpoint interval: action i sets ``choices[i]``
    seconds (Khaos's range by default), by stop-with-savepoint and
    resubmission, as ``set_checkpoint_interval`` does; the job's current
    interval is a hold."""

    action_kind = linear.SET_CHECKPOINT_INTERVAL

    def __init__(self, scenario: Union[str, os.PathLike, dict, None] = None,
                 choices: Sequence[float] = (10, 30, 60, 90, 120), **kwargs):
        super().__init__(scenario or SCENARIOS / "checkpoint-tuning.yaml", choices, **kwargs)

    def _current(self, head):
        return head[3]

    def _act(self, value):
        self._twin.send(_INTERVAL, 0, value)


class AutoscalingEnv(StreamtwinEnv):
    """Chooses the parallelism: action i rescales to ``choices[i]``
    (1 to 8 by default) in the scenario's ``job.rescale.mode``; the job's
    current parallelism is a hold."""

    action_kind = linear.RESCALE

    def __init__(self, scenario: Union[str, os.PathLike, dict, None] = None,
                 choices: Sequence[int] = tuple(range(1, 9)), **kwargs):
        if any(int(c) != c or c < 1 for c in choices):
            raise ValueError("choices must be parallelisms, whole numbers of at least 1: %r" % (list(choices),))
        super().__init__(scenario or SCENARIOS / "autoscaling.yaml", choices, **kwargs)

    def _current(self, head):
        return head[4]

    def _act(self, value):
        self._twin.send(_RESCALE, int(value))


class VectorEnv(gymnasium.vector.VectorEnv):
    """``num_envs`` environments of one class (``env``, built with
    ``kwargs``), each with its own ``streamtwin gym`` process, stepped
    together: every request is sent before any frame is read, so the twins
    run in parallel while this process waits once. A sub-environment whose
    run ended is reset by the next ``step`` (Gymnasium's next-step
    autoreset: that step ignores its action, returns its first observation,
    reward 0 and terminated False). ``gymnasium.make_vec`` on a registered
    id builds one.
    """

    metadata = {"autoreset_mode": gymnasium.vector.AutoresetMode.NEXT_STEP}

    def __init__(self, num_envs: int = 2, env: type = None, **kwargs):
        if num_envs < 1:
            raise ValueError("num_envs must be at least 1, got %r" % (num_envs,))
        self.envs: List[StreamtwinEnv] = []
        try:
            for _ in range(num_envs):
                self.envs.append((env or CheckpointTuningEnv)(**kwargs))
        except BaseException:
            self.close()
            raise
        self.num_envs = num_envs
        self.single_observation_space = self.envs[0].observation_space
        self.single_action_space = self.envs[0].action_space
        self.observation_space = gymnasium.vector.utils.batch_space(self.single_observation_space, num_envs)
        self.action_space = gymnasium.vector.utils.batch_space(self.single_action_space, num_envs)
        self._ended = np.zeros(num_envs, dtype=bool)

    def reset(self, *, seed: Union[int, Sequence[Optional[int]], None] = None, options: Optional[dict] = None):
        if seed is None or isinstance(seed, int):
            seeds = [None if seed is None else seed + i for i in range(self.num_envs)]
        else:
            seeds = list(seed)
            if len(seeds) != self.num_envs:
                raise ValueError("reset: %d seeds for %d environments" % (len(seeds), self.num_envs))
        for e, s in zip(self.envs, seeds):
            e._send_reset(s)
        obs, infos = [], []
        for e in self.envs:
            o, info = e._receive_reset()
            obs.append(o)
            infos.append(info)
        self._ended[:] = False
        return np.stack(obs), _batched(infos)

    def step(self, actions):
        resetting = self._ended.copy()
        decisions = []
        for i, e in enumerate(self.envs):
            if resetting[i]:
                e._send_reset(None)
                decisions.append(None)
            else:
                decisions.append(e._send_step(actions[i]))
        n = self.num_envs
        obs, rewards = [], np.zeros(n)
        terminated, truncated, infos = np.zeros(n, dtype=bool), np.zeros(n, dtype=bool), []
        for i, e in enumerate(self.envs):
            if resetting[i]:
                o, info = e._receive_reset()
            else:
                o, rewards[i], terminated[i], truncated[i], info = e._receive_step(decisions[i])
            obs.append(o)
            infos.append(info)
        self._ended = terminated | truncated
        return np.stack(obs), rewards, terminated, truncated, _batched(infos)

    def close_extras(self, **kwargs):
        for e in self.envs:
            e.close()


def _batched(infos: List[Dict[str, Any]]) -> Dict[str, Any]:
    """Gymnasium's vector info: each key's values as an array, and
    "_key" the mask of the sub-environments that have it. (VectorEnv's own
    _add_info, key by key and environment by environment, took 60 µs a
    step of two.)"""
    n = len(infos)
    out: Dict[str, Any] = {}
    for key in dict.fromkeys(k for info in infos for k in info):
        values = [info.get(key) for info in infos]
        array = np.empty(n, dtype=object)
        array[:] = values
        if key in _NUMERIC and None not in values:
            array = array.astype(float)
        out[key] = array
        out["_" + key] = np.array([key in info for info in infos])
    return out


_NUMERIC = frozenset(("latency_violation_seconds", "recovery_violations", "worker_seconds", "cost", "seed"))


def _vector(env: type):
    def make(num_envs: int = 2, **kwargs) -> VectorEnv:
        return VectorEnv(num_envs, env, **kwargs)
    return make


checkpoint_tuning_vector = _vector(CheckpointTuningEnv)
autoscaling_vector = _vector(AutoscalingEnv)


def policy_section(config: Dict[str, Any], interval_s: float = 10.0, python: Optional[str] = None) -> Dict[str, Any]:
    """The scenario ``policy`` section that runs a linear policy's config
    as an external process (``python -m streamtwin_policy.linear``) every
    interval_s, with the interpreter running this (or python) and this
    package on its path: ``streamtwin.run(..., set={"policy": section})``."""
    import sys

    import streamtwin_policy

    linear.check(config)
    return {"external": {"command": [python or sys.executable, "-m", "streamtwin_policy.linear"],
                         "env": {"PYTHONPATH": str(Path(streamtwin_policy.__file__).parent.parent)},
                         "interval": "%rs" % float(interval_s), "timeout": "5s", "config": config}}


def save_policy(path: Union[str, os.PathLike], config: Dict[str, Any], interval_s: float = 10.0) -> Path:
    """Writes the policy section of a trained linear policy to path: the
    value of a scenario's ``policy`` key, as JSON (which is YAML), for
    ``streamtwin run --set "policy=$(cat path)"``, ``streamtwin check
    --policy @path``, or to paste into a scenario. Refuses to overwrite a
    file."""
    path = Path(path)
    with open(path, "x") as f:
        json.dump(policy_section(config, interval_s), f, indent=1)
        f.write("\n")
    return path


_registered = False


def _register() -> None:
    global _registered
    if _registered:
        return
    _registered = True
    gymnasium.register("streamtwin/CheckpointTuning-v0", entry_point="streamtwin.gym:CheckpointTuningEnv",
                       vector_entry_point="streamtwin.gym:checkpoint_tuning_vector")
    gymnasium.register("streamtwin/Autoscaling-v0", entry_point="streamtwin.gym:AutoscalingEnv",
                       vector_entry_point="streamtwin.gym:autoscaling_vector")


_register()
