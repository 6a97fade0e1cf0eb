package resultstest

import (
	"math"
	"reflect"
	"testing"

	"github.com/streamtwin/streamtwin/results"
)

// Ptr returns a pointer to v, for the optional columns of an Event.
func Ptr[T any](v T) *T { return &v }

// SyntheticRun is a small but complete run: 1-s samples over n seconds, a
// fault at 40% with the job down (NaN latencies, no throughput) for 20 s,
// and a CI reconfiguration at 70%.
func SyntheticRun(n int) ([]results.Sample, []results.Event, results.Summary) {
	fault, down := float64(n)*0.4, 20.0
	recon := float64(n) * 0.7
	samples := make([]results.Sample, n)
	lag := 0.0
	for i := range samples {
		t := float64(i + 1)
		in := 10000 + 2000*math.Sin(t/30)
		s := results.Sample{
			TimeS: t, InputRate: in, Capacity: 15000, CheckpointIntervalS: 10,
			Parallelism: 4, Workers: 4, CPUBusyMean: 0.5, CPUBusyMax: 0.6, JobState: "RUNNING",
		}
		if t > recon {
			s.CheckpointIntervalS = 30
		}
		switch {
		case t > fault && t <= fault+down:
			s.Throughput, s.Workers, s.JobState = 0, 3, "RESTARTING"
			s.LatencyMeanMs, s.LatencyP50Ms, s.LatencyP99Ms = math.NaN(), math.NaN(), math.NaN()
		case lag > 0:
			s.Throughput = min(15000, in+lag)
		default:
			s.Throughput = in
		}
		lag = max(0, lag+in-s.Throughput)
		s.Lag, s.OutputRate = lag, s.Throughput
		s.EndOffset = in * t
		s.CommittedOffset = s.EndOffset - lag
		if s.JobState == "RUNNING" {
			s.LatencyMeanMs = 40 + lag/100
			s.LatencyP50Ms = 30 + lag/120
			s.LatencyP99Ms = 120 + lag/50
		}
		samples[i] = s
	}
	events := []results.Event{
		{TimeS: 10, Kind: results.KindCheckpointCompleted, CheckpointID: Ptr[int64](1), DurationS: Ptr(0.8), SizeBytes: Ptr(1.5e8)},
		{TimeS: fault, Kind: results.KindFault, TaskManager: Ptr[int32](2), Reason: "chaos: kill -9"},
		{TimeS: fault + 3, Kind: results.KindDetected, Reason: "heartbeat timeout"},
		{TimeS: fault + down, Kind: results.KindRunning, Value: Ptr(2.1e5)},
		{TimeS: recon, Kind: results.KindReconfigured, DurationS: Ptr(4.5), Value: Ptr(30.0), Reason: "policy: lag rising"},
	}
	sum := results.Summary{
		Scenario: "synthetic", Variant: "fault+reconfig", Seed: 7, Backend: "sim",
		DurationS: float64(n), RecordsIn: 1e7, Faults: 1, Recoveries: 1,
		RecoveryTimesS: []float64{55}, RecoveryMeanS: 55,
		QoS: results.QoSSummary{LatencyBoundMs: 500, RecoveryBoundS: 120},
	}
	return samples, events, sum
}

// WriteRun commits a run folder and fails the test on any error.
func WriteRun(t testing.TB, dir string, samples []results.Sample, events []results.Event, sum results.Summary) {
	t.Helper()
	w, err := results.CreateRun(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort()
	for _, s := range samples {
		if err := w.WriteSample(s); err != nil {
			t.Fatal(err)
		}
	}
	for _, e := range events {
		if err := w.WriteEvent(e); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Commit(sum, []byte("name: synthetic\n")); err != nil {
		t.Fatal(err)
	}
}

// sameValue is reflect.DeepEqual except that NaN equals NaN, which is what
// a round trip must preserve.
func sameValue(a, b reflect.Value) bool {
	if a.Kind() != b.Kind() {
		return false
	}
	switch a.Kind() {
	case reflect.Float32, reflect.Float64:
		x, y := a.Float(), b.Float()
		return x == y || (math.IsNaN(x) && math.IsNaN(y))
	case reflect.Pointer:
		if a.IsNil() || b.IsNil() {
			return a.IsNil() == b.IsNil()
		}
		return sameValue(a.Elem(), b.Elem())
	case reflect.Struct:
		for i := range a.NumField() {
			if !sameValue(a.Field(i), b.Field(i)) {
				return false
			}
		}
		return true
	case reflect.Slice:
		if a.Len() != b.Len() {
			return false
		}
		for i := range a.Len() {
			if !sameValue(a.Index(i), b.Index(i)) {
				return false
			}
		}
		return true
	default:
		return reflect.DeepEqual(a.Interface(), b.Interface())
	}
}

// Same is reflect.DeepEqual except that NaN equals NaN.
func Same(a, b any) bool { return sameValue(reflect.ValueOf(a), reflect.ValueOf(b)) }

// WriteRunsTable writes runs.parquet of the given rows through
// results.StreamRunsTable: run_id, run_index, replication, seed, one column
// per parameter (double, or string when any run's value is not a number),
// then every summary figure, rows in the order given.
func WriteRunsTable(path string, rows []results.RunRecord) error {
	var params []string
	numeric := map[string]bool{}
	if len(rows) > 0 {
		for _, p := range rows[0].Params {
			params = append(params, p.Name)
			numeric[p.Name] = true
		}
	}
	for _, r := range rows {
		for _, p := range r.Params {
			numeric[p.Name] = numeric[p.Name] && p.IsNumber
		}
	}
	i := 0
	return results.StreamRunsTable(path, params, numeric, func() (results.RunRecord, bool, error) {
		if i == len(rows) {
			return results.RunRecord{}, false, nil
		}
		i++
		return rows[i-1], true, nil
	})
}
