#!/usr/bin/env python3
"""Environment steps per second of streamtwin/CheckpointTuning-v0 (make bench).

Each step is 10 s of the twin (the default policy interval) with a fixed
action, through gym.make's wrappers, episodes reset as they end:

- one core: one environment, this process and its twin pinned to one CPU
  (the twin inherits the affinity);
- 2 processes: two such learners at once, each pinned to its own CPU, their
  steps added up (the goal: 1.7x one core);
- and, for the record, unpinned: one environment, the VectorEnv of two
  (one learner process, two twins) and gymnasium's AsyncVectorEnv of two.

Each figure is the median of --repeats timings of --seconds each.
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import statistics
import time

import gymnasium as gym
import numpy as np

import streamtwin.gym  # noqa: F401 (registers the environments)

ENV = "streamtwin/CheckpointTuning-v0"
HOLD = 2  # CI 60 s, the scenario's own: a hold every step


def single(seconds: float, cpu: int | None = None) -> float:
    if cpu is not None:
        os.sched_setaffinity(0, {cpu})
    env = gym.make(ENV)
    try:
        env.reset(seed=1)
        steps, start = 0, time.perf_counter()
        while time.perf_counter() - start < seconds:
            for _ in range(100):
                _, _, end, _, _ = env.step(HOLD)
                steps += 1
                if end:
                    env.reset(seed=steps)
        return steps / (time.perf_counter() - start)
    finally:
        env.close()


def _learner(seconds: float, cpu: int, out) -> None:
    out.put(single(seconds, cpu))


def parallel(seconds: float, cpus: list) -> float:
    ctx = mp.get_context("fork")
    q = ctx.Queue()
    procs = [ctx.Process(target=_learner, args=(seconds, c, q)) for c in cpus]
    for p in procs:
        p.start()
    rates = [q.get() for _ in procs]
    for p in procs:
        p.join()
    return sum(rates)


def vector(seconds: float, kind: str) -> float:
    if kind == "vector":
        env = gym.make_vec(ENV, num_envs=2)
    else:
        env = gym.vector.AsyncVectorEnv([lambda: gym.make(ENV)] * 2)
    try:
        env.reset(seed=[1, 2])
        a = np.full(2, HOLD)
        steps, start = 0, time.perf_counter()
        while time.perf_counter() - start < seconds:
            env.step(a)
            steps += 2
        return steps / (time.perf_counter() - start)
    finally:
        env.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=3.0)
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    cpus = sorted(os.sched_getaffinity(0))

    def median(f, *a):
        return statistics.median(f(args.seconds, *a) for _ in range(args.repeats))

    # Each timing in a child process: the pinning does not outlive it.
    def in_child(f, *a):
        ctx = mp.get_context("fork")
        q = ctx.Queue()
        p = ctx.Process(target=lambda: q.put(median(f, *a)))
        p.start()
        r = q.get()
        p.join()
        return r

    one = in_child(single, cpus[0])
    print(f"gym steps/s, one core (CPU {cpus[0]}, 10 s per step): {one:,.0f} (goal 10,000)")
    if len(cpus) >= 2:
        two = median(parallel, cpus[:2])
        print(f"gym steps/s, 2 processes (CPUs {cpus[0]} and {cpus[1]}): {two:,.0f} = {two / one:.2f}x one core (goal 1.7x)")
    else:
        print("gym steps/s, 2 processes: skipped, this process may use one CPU only")
    print(f"gym steps/s, unpinned: one environment {median(single):,.0f}, VectorEnv of 2 {median(vector, 'vector'):,.0f}, "
          f"AsyncVectorEnv of 2 {median(vector, 'async'):,.0f}")


if __name__ == "__main__":
    main()
