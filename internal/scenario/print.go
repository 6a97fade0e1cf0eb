package scenario

import (
	"fmt"

	"github.com/goccy/go-yaml"

	"github.com/streamtwin/streamtwin/models/flink"
	"github.com/streamtwin/streamtwin/models/policy/khaos"
	"github.com/streamtwin/streamtwin/models/policy/optimal"
	"github.com/streamtwin/streamtwin/models/policy/static"
)

// MarshalResolved is the scenario as `streamtwin scenario print` shows it:
// YAML with every value the run uses, those a 0 stands for filled in as the
// model derives them: job.cluster.cores (0: one per slot) and
// job.cluster.taskmanagers (0: as many as the parallelism needs). The
// latter only when the parallelism cannot change during the run (no
// parallelism action, a policy that only sets the checkpoint interval):
// a fixed count would keep TaskManagers a scale-down frees, so with a
// rescaling policy it stays 0, with a comment saying what 0 gives at the
// start. Loaded again, the YAML is an equivalent scenario.
func (sc Scenario) MarshalResolved() ([]byte, error) {
	c := &sc.Job.Cluster
	if c.Cores == 0 {
		c.Cores = float64(c.Slots)
	}
	var opts []yaml.EncodeOption
	if c.TaskManagers == 0 {
		if n, ok := derivedTaskManagers(sc.Job); ok {
			if fixedParallelism(sc) {
				c.TaskManagers = n
			} else {
				opts = append(opts, yaml.WithComment(yaml.CommentMap{"$.job.cluster.taskmanagers": {yaml.LineComment(
					fmt.Sprintf(" as many as the parallelism needs: %d at parallelism %d; they follow the rescales", n, sc.Job.Parallelism))}}))
			}
		}
	}
	return yaml.MarshalWithOptions(sc, opts...)
}

// derivedTaskManagers is the number of TaskManagers the model gives job at
// its parallelism (flink.BuildGraph: enough slots for the operator of the
// highest parallelism, or cluster.taskmanagers if more).
func derivedTaskManagers(job flink.JobConfig) (int, bool) {
	g, err := flink.BuildGraph(job, job.Parallelism, func(n int) []float64 { return make([]float64, n) })
	if err != nil {
		return 0, false
	}
	return g.TaskManagers, true
}

// fixedParallelism tells a scenario whose job keeps its parallelism for the
// whole run: no action rescales it, and the policy only ever sets the
// checkpoint interval (an unknown or external policy may rescale).
func fixedParallelism(sc Scenario) bool {
	for _, a := range sc.Actions {
		if a.Parallelism != nil || a.Vertices != nil {
			return false
		}
	}
	switch sc.Policy.Name {
	case static.Name, khaos.Name, optimal.NameYoung, optimal.NameDaly:
		return true
	}
	return false
}
