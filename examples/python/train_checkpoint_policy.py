#!/usr/bin/env python3
"""Train a checkpoint-interval policy against the twin, then run it with `streamtwin run`.

Cross-entropy search, numpy alone, over a linear policy
(streamtwin_policy.linear) on streamtwin/CheckpointTuning-v0: the YSB day in
2 h with random TaskManager crashes, Khaos's QoS. Each candidate is scored by
its cost on the training seeds; the best is saved as a policy section. On a
held-out seed it is compared with the scenario's static CI of 60 s, and then
run by `streamtwin run` as an external process, which must take the same
decisions and give the same cost.

    python examples/python/train_checkpoint_policy.py --out runs/gym-train

Writes into --out (a new or empty folder): learned-policy.json (the policy
section: streamtwin run SCENARIO --set "policy=$(cat learned-policy.json)"),
training.csv (one row per iteration), result.json (the held-out costs) and
the run folders held-out-static/ and held-out-learned/. Exits 1 if the
policy run by streamtwin takes other decisions than in the environment.
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import sys
import time
from pathlib import Path

import numpy as np

import streamtwin
from streamtwin.gym import SCENARIOS, CheckpointTuningEnv, Cost, policy_section, save_policy
from streamtwin_policy import linear
from streamtwin_policy.features import FEATURES


def counts(summary, cost: float):
    """The figures of a run's cost, from its summary.json."""
    return {"latency_violation_seconds": summary["qos"]["latency_violation_seconds"],
            "recovery_violations": summary["qos"]["recovery_violations"], "worker_seconds": summary["worker_seconds"], "cost": cost}


def episode(env: CheckpointTuningEnv, seed: int, config=None):
    """One run: the cost, and the decisions. config None holds (the static CI)."""
    obs, _ = env.reset(seed=seed)
    hold = env.choices.index(env.hello["checkpoint_interval_s"])
    observed = [obs]
    while True:
        action = hold if config is None else linear.choose(config, obs)
        obs, _, end, _, info = env.step(action)
        observed.append(obs)
        if end:
            return info["cost"], list(env.decisions), counts(info["summary"], info["cost"]), observed


def mean_std(rows):
    """Column means and standard deviations, exactly rounded (math.fsum):
    numpy's sums depend on the CPU's vector width, and the result must not."""
    cols = list(zip(*rows))
    mean = np.array([math.fsum(c) / len(c) for c in cols])
    std = np.array([math.sqrt(math.fsum((v - m) ** 2 for v in c) / len(c)) for c, m in zip(cols, mean)])
    return mean, std


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", required=True, help="a new or empty folder for the results")
    ap.add_argument("--seeds", default="1,2,3", help="training seeds, comma-separated (default 1,2,3)")
    ap.add_argument("--held-out", type=int, default=1001, help="the seed the result is judged on (default 1001)")
    ap.add_argument("--iterations", type=int, default=8, help="cross-entropy iterations (default 8)")
    ap.add_argument("--population", type=int, default=16, help="candidates per iteration (default 16)")
    ap.add_argument("--elite", type=float, default=0.25, help="share of candidates kept (default 0.25)")
    ap.add_argument("--sigma", type=float, default=0.1, help="the search's first spread of each weight (default 0.1; of each bias 1)")
    ap.add_argument("--search-seed", type=int, default=0, help="seed of the search's own random numbers (default 0)")
    args = ap.parse_args()
    out = Path(args.out)
    if out.exists() and any(out.iterdir()):
        print(f"--out {out}: not empty; give a new folder (nothing here is overwritten)", file=sys.stderr)
        return 2
    out.mkdir(parents=True, exist_ok=True)
    seeds = [int(s) for s in args.seeds.split(",")]
    if args.held_out in seeds:
        print(f"--held-out {args.held_out} is a training seed: judge on a seed the search never saw", file=sys.stderr)
        return 2
    env = CheckpointTuningEnv()
    cost = Cost()
    n, k = len(env.choices), len(FEATURES)
    started = time.perf_counter()
    steps = 0

    # Standardise the features by the static policy's observations on the training seeds.
    seen = [o.tolist() for s in seeds for o in episode(env, s)[3]]
    steps += len(seen)
    mean, scale = mean_std(seen)
    # A feature the static policy never moves (the CI, the parallelism) is scaled by its own size,
    # so that the first change of the CI does not make it outweigh every other feature.
    scale[scale == 0] = np.maximum(np.abs(mean[scale == 0]), 1.0)

    def config_of(theta: np.ndarray):
        return env.policy_config(theta[: n * k].reshape(n, k), theta[n * k:], mean, scale)

    def score(theta: np.ndarray) -> float:
        nonlocal steps
        steps += len(seeds) * env.hello["steps"]
        return math.fsum(episode(env, s, config_of(theta))[0] for s in seeds) / len(seeds)

    rng = np.random.default_rng(args.search_seed)
    # Start at the static policy: every weight 0 and the scenario's CI scored 1 above the others, so
    # that small steps away from it still hold (at all-equal scores every step of the search would
    # break a tie, and each tie broken is a restart of the job).
    mu, sigma = np.zeros(n * (k + 1)), np.full(n * (k + 1), args.sigma)
    mu[n * k + env.choices.index(env.hello["checkpoint_interval_s"])] = 1.0
    sigma[n * k:] = 1.0  # the biases, which choose a static CI, spread wider than the weights
    best, best_cost = mu.copy(), score(mu)
    static_train = math.fsum(episode(env, s)[0] for s in seeds) / len(seeds)
    elite = max(2, int(round(args.elite * args.population)))
    rows = []
    for it in range(args.iterations):
        thetas = mu + sigma * rng.standard_normal((args.population, mu.size))
        costs = np.array([score(t) for t in thetas])
        order = np.argsort(costs, kind="stable")
        kept = thetas[order[:elite]]
        mu, sigma = mean_std(kept.tolist())
        sigma += 0.05  # the floor keeps the search from collapsing
        if costs[order[0]] < best_cost:
            best, best_cost = thetas[order[0]].copy(), float(costs[order[0]])
        rows.append({"iteration": it + 1, "best_cost": costs[order[0]], "elite_mean_cost": math.fsum(costs[order[:elite]]) / elite,
                     "best_so_far": best_cost, "static_cost": static_train})
        print(f"iteration {it + 1}: best {costs[order[0]]:.1f}, elite mean {rows[-1]['elite_mean_cost']:.1f}, "
              f"best so far {best_cost:.1f} (static CI 60 s: {static_train:.1f}) on seeds {args.seeds}", flush=True)
    elapsed = time.perf_counter() - started
    with open(out / "training.csv", "x", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)

    config = config_of(best)
    save_policy(out / "learned-policy.json", config, env.interval_s)
    static_cost, _, static_sum, _ = episode(env, args.held_out)
    learned_cost, decisions, learned_sum, _ = episode(env, args.held_out, config)
    env.close()

    # The same policy as an external process of streamtwin run, on the held-out seed.
    scenario = SCENARIOS / "checkpoint-tuning.yaml"
    static_run = streamtwin.run(scenario, seed=args.held_out, out=out / "held-out-static")
    learned_run = streamtwin.run(scenario, seed=args.held_out, out=out / "held-out-learned",
                                 set={"policy": policy_section(config, env.interval_s)})
    ev = learned_run.events
    ran = [(float(t), float(v)) for t, v in ev.loc[ev["kind"] == "policy_decision", ["time_s", "value"]].itertuples(index=False)]
    same = ran == [(float(t), float(v)) for t, v in decisions]
    run_costs = {"static": cost.of_summary(static_run.summary), "learned": cost.of_summary(learned_run.summary)}
    result = {"held_out_seed": args.held_out, "training_seeds": seeds, "cost": {"static_ci_60s": static_cost, "learned": learned_cost},
              "streamtwin_run_cost": run_costs, "decisions": [[t, v] for t, v in decisions], "same_decisions": same,
              "beats_static": learned_cost < static_cost, "training_steps": steps, "training_s": round(elapsed, 1),
              "summary": {"static_ci_60s": static_sum, "learned": learned_sum}}
    with open(out / "result.json", "x") as f:
        json.dump(result, f, indent=1)
        f.write("\n")
    print(f"trained in {elapsed:.1f} s ({steps:,} environment steps, {steps / elapsed:,.0f}/s with the search's own work)")
    print(f"held-out seed {args.held_out}: cost {learned_cost:.1f} learned vs {static_cost:.1f} static CI 60 s "
          f"({'better' if learned_cost < static_cost else 'NOT better'}; {learned_sum['latency_violation_seconds']} vs "
          f"{static_sum['latency_violation_seconds']} latency-violation s, {learned_sum['recovery_violations']} vs "
          f"{static_sum['recovery_violations']} recovery violations)")
    print(f"streamtwin run: {len(ran)} decision(s), {'the same as' if same else 'NOT the same as'} the environment's "
          f"{len(decisions)}; cost {run_costs['learned']:.1f} learned, {run_costs['static']:.1f} static → {out}")
    return 0 if same and run_costs["learned"] == learned_cost and run_costs["static"] == static_cost else 1


if __name__ == "__main__":
    sys.exit(main())
