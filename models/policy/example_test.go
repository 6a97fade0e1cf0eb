package policy_test

import (
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/goccy/go-yaml/ast"

	"github.com/streamtwin/streamtwin/models/policy"
	"github.com/streamtwin/streamtwin/results"
)

// lagGuard shortens the checkpoint interval to 10 s while the Kafka lag is
// above a limit and lengthens it back to 60 s once the lag is gone: less to
// replay after a crash while the job is behind, less overhead otherwise.
type lagGuard struct{ limit float64 }

func (p *lagGuard) Name() string            { return "lag-guard" }
func (p *lagGuard) Interval() time.Duration { return 10 * time.Second }

func (p *lagGuard) Step(now time.Duration, obs policy.Observation) []policy.Action {
	if obs.Job.State != "RUNNING" || len(obs.Window) == 0 {
		return nil // never act while the job is down
	}
	lag := obs.Window[len(obs.Window)-1].Lag
	want := 60 * time.Second
	if lag > p.limit {
		want = 10 * time.Second
	}
	if want == obs.Job.CheckpointInterval {
		return nil
	}
	return []policy.Action{{Kind: policy.SetCheckpointInterval, Interval: want,
		Reason: fmt.Sprintf("lag %.0f records at %v (limit %.0f)", lag, now, p.limit)}}
}

// A policy is a type with Name, Interval and Step. The controller calls
// Step every Interval with the recent samples and the job's status; here a
// hand-made observation stands in for it. Register makes the policy
// available to scenarios as `policy: {name: lag-guard}`.
func ExamplePolicy() {
	policy.Register("lag-guard", func(_ ast.Node, _ *rand.Rand) (policy.Policy, error) {
		return &lagGuard{limit: 50000}, nil
	})
	p, err := policy.New("lag-guard", nil, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	job := policy.JobStatus{State: "RUNNING", Parallelism: 4, CheckpointInterval: 60 * time.Second}
	window := []results.Sample{{TimeS: 299, Lag: 20000}, {TimeS: 300, Lag: 120000}}
	for _, a := range p.Step(300*time.Second, policy.Observation{Window: window, Job: job}) {
		fmt.Printf("%s %v: %s\n", a.Kind, a.Interval, a.Reason)
	}
	// The job now runs with 10 s and the lag is gone: back to 60 s.
	job.CheckpointInterval = 10 * time.Second
	window = []results.Sample{{TimeS: 599, Lag: 900}, {TimeS: 600, Lag: 0}}
	for _, a := range p.Step(600*time.Second, policy.Observation{Window: window, Job: job}) {
		fmt.Printf("%s %v: %s\n", a.Kind, a.Interval, a.Reason)
	}
	// While the job restarts the policy waits.
	job.State = "RESTARTING"
	fmt.Println(len(p.Step(610*time.Second, policy.Observation{Window: window, Job: job})), "actions while restarting")
	// Output:
	// set_checkpoint_interval 10s: lag 120000 records at 5m0s (limit 50000)
	// set_checkpoint_interval 1m0s: lag 0 records at 10m0s (limit 50000)
	// 0 actions while restarting
}
