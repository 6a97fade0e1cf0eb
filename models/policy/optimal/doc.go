// Package optimal holds the analytic checkpoint-interval baselines, Young
// (1974) and Daly (2006), as policies "young" and "daly":
//
//	Young: T = sqrt(2·C·M)
//	Daly:  τ = sqrt(2δM)·[1 + (1/3)·sqrt(δ/(2M)) + (1/9)·(δ/(2M))] − δ  for δ < 2M
//	       τ = M                                                         for δ ≥ 2M
//
// with C = δ the checkpoint cost and M the mean time between failures
// (docs/reference/khaos.md §14). The result is used as Flink's checkpoint interval (the
// time between checkpoint triggers). Both formulas minimise lost work only;
// they ignore the recovery-time bound that drives Khaos.
//
// Scenario section (all keys but name optional):
//
//	policy:
//	  name: daly            # or young
//	  checkpoint_cost: 2s   # C; absent: mean of the observed checkpoint durations
//	  mtbf: 2h              # M; absent: estimated from the faults seen
//	  mtbf_prior: 24h       # M used by the estimator before the first fault
//	  min_interval: 10s     # clamp (Flink accepts down to 10ms)
//	  max_interval: 10m
//	  period: 60s           # how often Step runs
//	  min_change: 5s        # smaller changes are not applied
//
// Estimators. Without checkpoint_cost, C is the mean of
// obs.Job.LastCheckpoint.Duration over the distinct checkpoint IDs seen at
// the Steps (one sample per Step, so with a CI shorter than the period it is
// a sample of the checkpoints, not all of them); the policy does nothing
// until a checkpoint has completed. This is the end-to-end duration: for
// asynchronous checkpoints the true cost is smaller (synchronous part plus
// throughput overhead), so configure checkpoint_cost when it is known.
// Without mtbf, M = now / max(1, obs.Job.Faults), the elapsed run time per
// fault seen (the maximum-likelihood estimate for a Poisson failure process,
// downtime included). It only means something after at least one fault and
// is noisy for a few; before the first fault the policy uses mtbf_prior.
//
// Zero or absent min_interval, max_interval, period, min_change and
// mtbf_prior take the defaults above. Every change of interval costs a
// stop-with-savepoint and a resubmit, hence min_change. The policy acts
// only while the job is RUNNING and is deterministic (it ignores its
// random stream).
package optimal
