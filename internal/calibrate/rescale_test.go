package calibrate

import (
	"bytes"
	"encoding/csv"
	"math"
	"strings"
	"testing"

	"github.com/streamtwin/streamtwin/internal/scenario"
	"github.com/streamtwin/streamtwin/results/measure"
)

// rescaleBase is a small checkpoint-mode job on a pool of three one-slot
// TaskManagers; its rescale parameters are the fit's starting point.
const rescaleBase = `
name: rescale-fit-test
seed: 5
duration: 10m
workload: {shape: constant, rate: 3000/s}
kafka: {partitions: 6}
job:
  template: traffic-monitoring
  parallelism: 1
  checkpoint: {interval: 10s, incremental: false}
  restart: {strategy: fixed-delay, delay: 2s, attempts: 0}
  cluster: {taskmanagers: 3, slots: 1, restart_delay: 5s, deploy: 0.3s, restore_bandwidth: 4.5MiB/s, warmup: 1s}
  rescale: {mode: checkpoint, up_delay: 1s, down_delay: 0s, up_deploy: 0.2s, down_deploy: 0.1s, on_checkpoint: %s}
`

func parseBase(t *testing.T, onCheckpoint string) scenario.Scenario {
	t.Helper()
	src := strings.Replace(rescaleBase, "%s", onCheckpoint, 1)
	sc, err := scenario.ParseRun("base.yaml", []byte(src), "", nil)
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// schedule is a profile like make live-rescale-profile's: 1 → 2 → 3 → 2 →
// 1 at 3k and at 9k records/s, 45 s apart (delay and downtime are filled
// in by the twin).
func schedule() []measure.Rescale {
	var ms []measure.Rescale
	at := 20.0
	for _, rate := range []float64{3000, 9000} {
		for _, ft := range [][2]int{{1, 2}, {2, 3}, {3, 2}, {2, 1}} {
			ms = append(ms, measure.Rescale{AtS: at, From: ft[0], To: ft[1], InputRate: rate})
			at += 45
		}
	}
	return ms
}

// TestRescaleFitRecoversKnownParameters: a table the twin made with known
// parameters is fitted from other starting values. Without the wait for a
// checkpoint the delay is the parameter itself, so the scan finds it on its
// 0.1 s grid (the truth lies on it) and the deploy times to 0.02 s; the
// held-out predictions are then the table itself. With the wait, every
// delay between two checkpoint completions fits equally: the fit must
// reproduce the table's delays and downtimes to 0.05 s.
func TestRescaleFitRecoversKnownParameters(t *testing.T) {
	truth := map[string]float64{"up_delay": 3, "up_deploy": 1.2, "down_delay": 0.5, "down_deploy": 0.6}
	for _, tc := range []struct {
		onCheckpoint string
		exact        bool
	}{{"false", true}, {"true", false}} {
		t.Run("on_checkpoint "+tc.onCheckpoint, func(t *testing.T) {
			base := parseBase(t, tc.onCheckpoint)
			known := base
			for _, p := range RescaleParams {
				p.Set(&known, truth[p.Name])
			}
			measured, err := SimulateRescales(known, schedule())
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range measured {
				if math.IsNaN(m.DelayS) || math.IsNaN(m.DowntimeS) {
					t.Fatalf("the twin did not carry out the rescale at %g s", m.AtS)
				}
			}
			r, err := CalibrateRescales(base, measured, RescaleOptions{Workers: 2})
			if err != nil {
				t.Fatal(err)
			}
			for _, v := range r.Values {
				t.Logf("%s fitted %g s (made with %g s)", v.Name, v.Fitted, truth[v.Name])
				tol := 0.02
				if strings.HasSuffix(v.Name, "_delay") {
					tol = delayStep / 2
				}
				if tc.exact && math.Abs(v.Fitted-truth[v.Name]) > tol {
					t.Errorf("%s = %g s, want %g ± %g s", v.Name, v.Fitted, truth[v.Name], tol)
				}
			}
			for _, row := range r.Rows {
				m, f, h := row.Measured, row.Fitted, row.Held
				if math.Abs(f.DelayS-m.DelayS) > 0.05 || math.Abs(f.DowntimeS-m.DowntimeS) > 0.05 {
					t.Errorf("fitted rescale at %g s: delay %g, downtime %g s; made with %g, %g s", m.AtS, f.DelayS, f.DowntimeS, m.DelayS, m.DowntimeS)
				}
				if tc.exact && (math.Abs(h.DelayS-m.DelayS) > 0.05 || math.Abs(h.DowntimeS-m.DowntimeS) > 0.05) {
					t.Errorf("held-out rescale at %g s: delay %g, downtime %g s; made with %g, %g s", m.AtS, h.DelayS, h.DowntimeS, m.DelayS, m.DowntimeS)
				}
			}
		})
	}
}

// TestRescaleHeldOutReport: the baseline and the errors on a hand-made
// result. Up rescales measured with delays 1, 2, 6 s: the mean of the
// others predicts 4, 3.5, 1.5 s, errors 3, 1.5, 4.5 s, mean 3 s. The twin's
// held-out delays 2, 2, 5 s err by 1, 0, 1 s: mean 2/3 s. The down
// rescale has no other of its direction: its baseline is empty (NaN).
func TestRescaleHeldOutReport(t *testing.T) {
	nan := math.NaN()
	ms := []measure.Rescale{
		{AtS: 10, From: 1, To: 2, InputRate: 100, DelayS: 1, DowntimeS: 2, RecoveryS: 3},
		{AtS: 20, From: 2, To: 3, InputRate: 100, DelayS: 2, DowntimeS: 2, RecoveryS: nan},
		{AtS: 30, From: 3, To: 4, InputRate: 100, DelayS: 6, DowntimeS: 5, RecoveryS: 6},
		{AtS: 40, From: 4, To: 1, InputRate: 100, DelayS: 1, DowntimeS: 1, RecoveryS: 1},
	}
	held := []float64{2, 2, 5, 1}
	r := &RescaleResult{}
	for i, m := range ms {
		h := m
		h.DelayS = held[i]
		r.Rows = append(r.Rows, RescaleRow{Measured: m, Fitted: h, Held: h, Mean: meanOfOthers(ms, i)})
	}
	for i, want := range []float64{4, 3.5, 1.5} {
		if got := r.Rows[i].Mean.DelayS; math.Abs(got-want) > 1e-12 {
			t.Errorf("baseline delay of rescale %d = %g s, want %g s", i, got, want)
		}
	}
	// recoveries: the second was never measured, so the first's baseline is 6 s
	if got := r.Rows[0].Mean.RecoveryS; got != 6 {
		t.Errorf("baseline recovery of rescale 0 = %g s, want 6 s (the unmeasured one left out)", got)
	}
	if !math.IsNaN(r.Rows[3].Mean.DelayS) {
		t.Errorf("the only scale-down's baseline = %g s, want none (NaN)", r.Rows[3].Mean.DelayS)
	}
	tw, base := r.HeldOutErrors(DirectionUp)
	if tw.N != 3 || math.Abs(tw.DelayS-2.0/3) > 1e-12 || math.Abs(base.DelayS-3) > 1e-12 {
		t.Errorf("up held-out errors: twin %+v, baseline %+v; want n 3, delay 0.667 s and 3 s", tw, base)
	}
	// downtime baseline: (2+5)/2 = 3.5 for the first (err 1.5), (2+5)/2 for
	// the second (err 1.5), (2+2)/2 = 2 for the third (err 3): mean 2 s
	if math.Abs(base.DowntimeS-2) > 1e-12 {
		t.Errorf("up baseline downtime error = %g s, want 2 s", base.DowntimeS)
	}

	rows, err := csv.NewReader(bytes.NewReader(RescaleRowsCSV(r))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 5 {
		t.Fatalf("rescales.csv has %d rows, want a header and 4", len(rows))
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	for _, c := range []struct {
		row        int
		name, want string
	}{
		{1, "direction", "up"}, {4, "direction", "down"},
		{1, "heldout_err_delay_s", "1"}, {1, "mean_delay_s", "4"}, {1, "mean_err_delay_s", "3"},
		{2, "measured_recovery_s", ""}, {2, "mean_err_recovery_s", ""}, {4, "mean_delay_s", ""},
	} {
		i, ok := col[c.name]
		if !ok {
			t.Fatalf("rescales.csv has no column %s: %v", c.name, rows[0])
		}
		if got := rows[c.row][i]; got != c.want {
			t.Errorf("rescales.csv row %d %s = %q, want %q", c.row, c.name, got, c.want)
		}
	}
}

// TestScanDelay: the middle of the widest stretch at the least loss.
func TestScanDelay(t *testing.T) {
	for _, tc := range []struct {
		name string
		hi   float64
		loss func(float64) float64
		want float64
	}{
		{"a parabola's minimum on the grid", 2, func(v float64) float64 { return (v - 0.7) * (v - 0.7) }, 0.7},
		// flat at 1 on [0.3, 0.9]: the middle, 0.6
		{"a step", 2, func(v float64) float64 {
			if v > 0.25 && v < 0.95 {
				return 1
			}
			return 2
		}, 0.6},
		// two stretches at the least loss, [0, 0.2] and [1, 1.6]: the wider
		{"the wider of two", 2, func(v float64) float64 {
			if v < 0.25 || v > 0.95 && v < 1.65 {
				return 0
			}
			return 1
		}, 1.3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := scanDelay(tc.hi, tc.loss); math.Abs(got-tc.want) > 1e-9 {
				t.Errorf("scanDelay = %g, want %g", got, tc.want)
			}
		})
	}
}
