package scenario

import (
	"fmt"
	"math"
	"sort"

	"github.com/streamtwin/streamtwin/sim"
	"github.com/streamtwin/streamtwin/workloads"
)

// Schedule is a scenario resolved into a timeline: the per-second input
// rates, every fault with its time and target, and the forced actions.
// Random draws happen here, from streams of the root seed, so every variant
// and both backends replay the same timeline.
type Schedule struct {
	Rates   *workloads.Schedule
	Faults  []ScheduledFault
	Actions []Action
}

// ScheduledFault is one fault of the timeline.
type ScheduledFault struct {
	Kind     string       // one of FaultKinds
	At       sim.Duration // for an aligned fault, when it is armed
	Duration sim.Duration // for the kinds that last (HasDuration)
	Share    float64      // cpu_throttle: the CPU share left
	Delay    sim.Duration // network_delay: how late each packet arrives
	// BeforeCheckpoint ≥ 0 aligns the fault that long before the next
	// checkpoint trigger after At; NaN fires at At.
	BeforeCheckpoint sim.Duration
	TaskManager      int     // ≥ 0: this TaskManager
	Operator         string  // else: the one hosting subtask 0 of this operator
	Pick             float64 // else, if ≥ 0: TaskManager ⌊Pick·n⌋ of n
	Busiest          bool    // else, if set: the TaskManager busiest when it fires
	Source           string  // which scenario entry produced it
}

// Resolve builds the schedule of sc.
func (sc Scenario) Resolve() (*Schedule, error) {
	seeds := sim.Seeds{Root: sc.Seed}
	var rates *workloads.Schedule
	if sc.built != nil && sc.built.seed == sc.Seed {
		rates = sc.built.rates // rendered while validating; read-only
	} else {
		var err error
		if rates, err = workloads.Build(*sc.Workload, sc.Duration, "", seeds); err != nil {
			return nil, err
		}
	}
	s := &Schedule{Rates: rates, Actions: append([]Action(nil), sc.Actions...)}
	for i, f := range sc.Faults {
		base := ScheduledFault{Kind: f.FaultKind(), BeforeCheckpoint: sim.Duration(math.NaN()), TaskManager: -1, Operator: f.Operator, Pick: -1,
			Source: fmt.Sprintf("faults[%d]", i)}
		if f.Duration != nil {
			base.Duration = *f.Duration
		}
		if f.Share != nil {
			base.Share = *f.Share
		}
		if f.Delay != nil {
			base.Delay = *f.Delay
		}
		if f.TaskManager != nil {
			base.TaskManager = *f.TaskManager
		}
		if f.At != nil {
			if f.BeforeCheckpoint != nil {
				base.BeforeCheckpoint = *f.BeforeCheckpoint
			}
			end, every := float64(sc.Duration), math.Inf(1)
			if f.Every != nil {
				every = float64(*f.Every)
				if f.Until != nil {
					end = math.Min(end, float64(*f.Until))
				}
			}
			// separate streams: a jitter or a target added to one entry
			// moves no other draw
			jitter := seeds.Stream(fmt.Sprintf("faults[%d].jitter", i))
			target := seeds.Stream(fmt.Sprintf("faults[%d].target", i))
			for k, t := 0, float64(*f.At); t < end; k, t = k+1, t+every {
				sf := base
				sf.At = sim.Duration(t)
				if f.Jitter != nil {
					sf.At += sim.Duration(jitter.Float64() * float64(*f.Jitter))
				}
				if f.Every != nil {
					sf.Source = fmt.Sprintf("faults[%d] (#%d, every %v)", i, k+1, *f.Every)
				}
				switch {
				case f.Target == TargetRandom:
					sf.Pick = target.Float64()
				case f.Target == TargetBusiest:
					sf.Busiest = true
				case sf.TaskManager < 0 && sf.Operator == "" && TargetsTaskManager(sf.Kind):
					sf.TaskManager = 0
				}
				if sf.At < sc.Duration {
					s.Faults = append(s.Faults, sf)
				}
			}
			continue
		}
		r := f.Random
		end := float64(r.End)
		if end == 0 || end > float64(sc.Duration) {
			end = float64(sc.Duration)
		}
		rng := seeds.Stream(fmt.Sprintf("faults[%d].random", i))
		for t := float64(r.Start) + rng.ExpFloat64()*float64(r.MTBF); t < end; t += rng.ExpFloat64() * float64(r.MTBF) {
			sf := base
			sf.At = sim.Duration(t)
			sf.Source = fmt.Sprintf("faults[%d] (random, MTBF %v)", i, r.MTBF)
			pick := rng.Float64() // drawn always, so a fixed target does not shift later times
			if sf.TaskManager < 0 && sf.Operator == "" && TargetsTaskManager(sf.Kind) {
				sf.Pick = pick
			}
			s.Faults = append(s.Faults, sf)
		}
	}
	sort.SliceStable(s.Faults, func(i, j int) bool { return s.Faults[i].At < s.Faults[j].At })
	sort.SliceStable(s.Actions, func(i, j int) bool { return s.Actions[i].At < s.Actions[j].At })
	return s, nil
}

// FaultKind is f's kind, the default filled in.
func (f Fault) FaultKind() string {
	if f.Kind == "" {
		return FaultTaskManager
	}
	return f.Kind
}
