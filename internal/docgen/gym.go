package docgen

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/streamtwin/streamtwin/results/textfmt"
)

// gymBlocks are the generated blocks of docs/gym.md: the training
// example (examples/python/train_checkpoint_policy.py) run with its
// defaults, about 30 s.
func gymBlocks() []Block {
	return []Block{{"gym training", gymTraining}}
}

const gymExample = "examples/python/train_checkpoint_policy.py"

// cost is a cost to one decimal (worker-seconds weigh 0.1).
func cost(x float64) string { return textfmt.GroupThousands(strconv.FormatFloat(x, 'f', 1, 64)) }

type gymCosts struct {
	LatencyViolationSeconds int     `json:"latency_violation_seconds"`
	RecoveryViolations      int     `json:"recovery_violations"`
	WorkerSeconds           float64 `json:"worker_seconds"`
	Cost                    float64 `json:"cost"`
}

func gymTraining(c *Context) (string, error) {
	out := c.Out("gym-train")
	if _, err := c.Python(gymExample, "--out", out); err != nil {
		return "", err
	}
	data, err := os.ReadFile(filepath.Join(out, "result.json"))
	if err != nil {
		return "", err
	}
	var r struct {
		HeldOut       uint64             `json:"held_out_seed"`
		Seeds         []int              `json:"training_seeds"`
		RunCost       map[string]float64 `json:"streamtwin_run_cost"`
		Decisions     [][2]float64       `json:"decisions"` // (time_s, checkpoint interval s)
		Same          bool               `json:"same_decisions"`
		TrainingSteps int                `json:"training_steps"`
		Summary       map[string]gymCosts
	}
	if err := json.Unmarshal(data, &r); err != nil {
		return "", err
	}
	static, learned := r.Summary["static_ci_60s"], r.Summary["learned"]
	if !r.Same {
		return "", errors.New(gymExample + ": the policy run by streamtwin took other decisions than in the environment")
	}
	var b strings.Builder
	fmt.Fprintf(&b, "`python %s --out runs/gym-train` (training seeds %s, %s environment steps), judged on held-out seed %d:\n\n",
		gymExample, strings.Trim(strings.Join(strings.Fields(fmt.Sprint(r.Seeds)), ", "), "[]"), textfmt.Count(float64(r.TrainingSteps)), r.HeldOut)
	b.WriteString("| policy | cost | latency-violation s | recovery violations | worker-s | decisions | cost under `streamtwin run` |\n")
	b.WriteString("|---|---:|---:|---:|---:|---:|---:|\n")
	row := func(name string, g gymCosts, decisions int, run float64) {
		fmt.Fprintf(&b, "| %s | %s | %d | %d | %s | %d | %s |\n", name, cost(g.Cost), g.LatencyViolationSeconds,
			g.RecoveryViolations, textfmt.Count(g.WorkerSeconds), decisions, cost(run))
	}
	row("static CI 60 s (the scenario's)", static, 0, r.RunCost["static"])
	row("learned (linear, cross-entropy)", learned, len(r.Decisions), r.RunCost["learned"])
	var moves []string
	for _, d := range r.Decisions {
		moves = append(moves, fmt.Sprintf("%s s at %s", textfmt.Count(d[1]), textfmt.Clock(d[0])))
	}
	fmt.Fprintf(&b, "\nThe learned policy costs %s less than the static interval on a seed it was not trained on; run by "+
		"`streamtwin run` as an external process it makes the same %s (%s) and costs the same.",
		cost(static.Cost-learned.Cost), textfmt.Plural(len(r.Decisions), "decision"), strings.Join(moves, ", "))
	return b.String(), nil
}
