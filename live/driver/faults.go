package driver

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/streamtwin/streamtwin/models/scenario"
	"github.com/streamtwin/streamtwin/results"
)

// injectFaults kills TaskManagers at the schedule's times: SIGKILL of the
// process, which comes back after job.cluster.restart_delay as a pod would.
// An aligned fault fires BeforeCheckpoint before the next checkpoint is
// due, from the REST checkpoint statistics (Khaos's worst moment).
func (r *run) injectFaults(ctx context.Context) error {
	for _, f := range r.sched.Faults {
		if err := r.sleepUntil(ctx, f.At); err != nil {
			return err
		}
		if !math.IsNaN(f.BeforeCheckpoint) {
			due, err := r.nextCheckpointDue(ctx)
			if err != nil {
				return err
			}
			for due-f.BeforeCheckpoint < r.now() {
				due += r.ci
			}
			if err := r.sleepUntil(ctx, due-f.BeforeCheckpoint); err != nil {
				return err
			}
		}
		tm, err := r.target(ctx, f)
		if err != nil {
			return fmt.Errorf("%s: %w", f.Source, err)
		}
		if err := r.env.Cluster.KillTaskManager(tm); err != nil {
			return fmt.Errorf("%s: killing TaskManager %d: %w", f.Source, tm, err)
		}
		t32 := int32(tm - 1) // events count TaskManagers from 0, as the simulator does
		r.mu.Lock()
		r.faults++
		r.mu.Unlock()
		r.event(results.Event{Kind: results.KindFault, TaskManager: &t32, Reason: f.Source + " (SIGKILL)"})
		r.logf("killed TaskManager tm-%d at %.1f s (%s)", tm, r.now(), f.Source)
		delay := float64(r.sc.Job.Cluster.RestartDelay)
		go func() {
			select {
			case <-ctx.Done():
			case <-time.After(time.Duration(delay * float64(time.Second))):
				if err := r.env.Cluster.RestartTaskManager(tm); err != nil {
					r.logf("restarting TaskManager %d: %v", tm, err)
					return
				}
				r.event(results.Event{Kind: results.KindTaskManagerUp, TaskManager: &t32})
			}
		}()
	}
	return nil
}

func (r *run) sleepUntil(ctx context.Context, at float64) error {
	d := time.Duration((at - r.now()) * float64(time.Second))
	if d <= 0 {
		return nil
	}
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(d):
		return nil
	}
}

// nextCheckpointDue is the run time the next checkpoint is due: the last
// completed one's trigger time plus the CI (or the job start plus the CI).
func (r *run) nextCheckpointDue(ctx context.Context) (float64, error) {
	job := r.currentJob()
	cp, err := r.env.REST.Checkpoints(ctx, job)
	if err != nil {
		return 0, err
	}
	last := r.runningAt.UnixMilli()
	if c := cp.Latest.Completed; c != nil && c.TriggerTimestamp > last {
		last = c.TriggerTimestamp
	}
	return float64(last-r.start.UnixMilli())/1000 + r.ci, nil
}

// target is the TaskManager to kill, numbered from 1 as the cluster's
// resource ids tm-N: the fault's own (0-based in scenarios), or the one
// running a subtask of the named operator (Khaos: the sink's).
func (r *run) target(ctx context.Context, f scenario.ScheduledFault) (int, error) {
	if f.Operator == "" {
		return max(0, f.TaskManager) + 1, nil
	}
	j, err := r.env.REST.Job(ctx, r.currentJob())
	if err != nil {
		return 0, err
	}
	var vertex string
	if strings.EqualFold(f.Operator, "sink") {
		vertex = sinkVertex(j)
	}
	for _, v := range j.Vertices {
		if vertex == "" && strings.Contains(strings.ToLower(v.Name), strings.ToLower(f.Operator)) {
			vertex = v.ID
		}
	}
	if vertex == "" {
		return 0, fmt.Errorf("the job has no vertex named like %q", f.Operator)
	}
	ids, err := r.env.REST.VertexTaskManagers(ctx, r.currentJob(), vertex)
	if err != nil {
		return 0, err
	}
	sort.Strings(ids)
	for _, id := range ids {
		if n, err := strconv.Atoi(strings.TrimPrefix(id, "tm-")); err == nil {
			return n, nil
		}
	}
	return 0, fmt.Errorf("no TaskManager of vertex %q has a resource id tm-N (%v)", f.Operator, ids)
}

// finish adds the recoveries (the simulator's rule, on the measured
// series), summarises and writes everything in time order.
func (r *run) finish(sink Sink, wallS float64) (results.Summary, error) {
	r.mu.Lock()
	samples, events := r.samples, append([]results.Event(nil), r.events...)
	r.mu.Unlock()
	for _, e := range events {
		if e.Kind != results.KindFault && e.Kind != results.KindReconfigured {
			continue
		}
		at, opt := e.TimeS, results.RecoveryOptions{}
		reason := e.Reason
		if e.Kind == results.KindReconfigured {
			// from the stop request; it ends once the new job runs at the earliest
			at, opt.ResumedS = e.TimeS-*e.DurationS, e.TimeS
		}
		rec, err := results.DetectRecovery(samples, at, opt)
		if err != nil || math.IsNaN(rec.RecoveryS) {
			continue
		}
		d := rec.RecoveryS
		events = append(events, results.Event{TimeS: at + d, Kind: results.KindRecovered, DurationS: &d, Reason: reason})
		for i := range samples {
			if samples[i].TimeS > at && samples[i].TimeS <= at+d {
				samples[i].Recovering = true
			}
		}
	}
	sort.SliceStable(events, func(i, j int) bool { return events[i].TimeS < events[j].TimeS })
	sum := results.NewSummarizer(r.sc.Name, r.sc.Variant, "live", r.sc.Seed, 1000*float64(r.sc.QoS.Latency), float64(r.sc.QoS.Recovery), len(samples))
	ei := 0
	for _, s := range samples {
		for ei < len(events) && events[ei].TimeS <= s.TimeS {
			sum.Event(events[ei])
			if err := sink.WriteEvent(events[ei]); err != nil {
				return results.Summary{}, err
			}
			ei++
		}
		sum.Sample(s)
		if err := sink.WriteSample(s); err != nil {
			return results.Summary{}, err
		}
	}
	for ; ei < len(events); ei++ {
		sum.Event(events[ei])
		if err := sink.WriteEvent(events[ei]); err != nil {
			return results.Summary{}, err
		}
	}
	return sum.Summary(float64(r.sc.Duration), wallS), nil
}
