package driver

import (
	"context"
	"math"
	"time"

	"github.com/streamtwin/streamtwin/results/measure"
)

// samplePhase places the samples half a second after the producer's
// per-second bursts, when a healthy job has consumed them.
const samplePhase = 500 * time.Millisecond

// sample takes one sample a second: it reads Flink and Kafka (read.go),
// turns the reading into the sample (sampler.step, sampler.go) and records
// it, with the checkpoints completed since, in the result files and hands
// it to the controller (on the clock's loop).
func (r *run) sample(ctx context.Context) error {
	if err := sleepCtx(ctx, time.Until(r.start.Add(samplePhase))); err != nil {
		return err
	}
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	var rr reader
	var sm sampler
	written := math.Inf(-1) // the latest sample's time
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
		}
		// The tick falls half a second after the producer's burst of second
		// k, and the reads see the state up to about k+0.8 s. The twin labels
		// a sample by the end of the second it covers (its input rate over
		// (k, k+1] is the rate of second k), so this sample is k+1: labelled
		// k, every live catch-up would end a second early.
		t := math.Floor(r.now()) + 1
		if t <= written {
			continue
		}
		rd, err := r.read(ctx, &rr, t)
		if err != nil {
			return err
		}
		s := sm.step(rd)
		r.staleSamples = sm.stale // read by Run once this goroutine has ended
		written = t
		if !rd.measured() {
			// the controller observes measured seconds only (unmeasured)
			r.mu.Lock()
			r.samples = append(r.samples, s)
			r.mu.Unlock()
			continue
		}
		r.checkpoints(ctx, rd.job)
		var d measure.Detail
		if r.useDetail && rr.names != nil && rd.seen().State == "RUNNING" {
			d = r.det.measure(ctx, r, rr.names, rd.cpu)
		}
		r.mu.Lock()
		r.samples = append(r.samples, s)
		r.mu.Unlock()
		r.clock.post(func() { r.detail = d; r.ctl.Observe(s) })
	}
}

func sleepCtx(ctx context.Context, d time.Duration) error {
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
