package docgen

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/streamtwin/streamtwin/results"
	"github.com/streamtwin/streamtwin/results/evaluation"
	"github.com/streamtwin/streamtwin/results/measure"
)

func TestAutoscalingProseHelpers(t *testing.T) {
	for _, tc := range []struct{ got, want string }{
		{num(1.5), "1.5"},
		{num(240), "240"},
		{num(30702.3), "30,702"},
		{num(0.45687), "0.4569"},
		{asWhole(1386.7 / 60), "23"},
		{asPercent(0.3569), "36"},
		{asSpan([]float64{32, 23, 30}, asWhole), "23–32"},
		{asSpan([]float64{3.2, 3.4}, asWhole), "3"}, // both format alike
		{asSpan(nil, asWhole), "–"},
		{asAnd(nil), ""},
		{asAnd([]string{"a"}), "a"},
		{asAnd([]string{"a", "b"}), "a and b"},
		{asAnd([]string{"a", "b", "c"}), "a, b and c"},
		{asMeanCI(asStat{n: 5, mean: 18181.2e3, low: 17677e3, high: 18685.4e3}, 1000, 0), "18,181 [17,677, 18,685]"},
		{asMeanCI(asStat{n: 1, mean: 0.5, low: math.NaN(), high: math.NaN()}, 1, 0), "0.5000"},
		{asMeanCI(asStat{n: 5}, 1, 1), "0 [0, 0]"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
}

func TestWrapSkipsTables(t *testing.T) {
	long := strings.Repeat("word ", 50)
	got := asWrapped("a\nshort  paragraph\n\n" + long + "\n\n| a | b |\n|---|---|\n| 1 | 2 |")
	paras := strings.Split(got, "\n\n")
	if len(paras) != 3 {
		t.Fatalf("%d paragraphs:\n%s", len(paras), got)
	}
	if paras[0] != "a short paragraph" {
		t.Errorf("first paragraph %q", paras[0])
	}
	for _, l := range strings.Split(paras[1], "\n") {
		if n := len([]rune(l)); n > asWidth || n < asWidth-5 && !strings.HasSuffix(paras[1], l) {
			t.Errorf("line of %d characters: %q", n, l)
		}
	}
	if strings.Join(strings.Fields(paras[1]), " ") != strings.TrimSpace(long) {
		t.Errorf("words changed")
	}
	if paras[2] != "| a | b |\n|---|---|\n| 1 | 2 |" {
		t.Errorf("a table was reflowed: %q", paras[2])
	}
}

func TestAsClaims(t *testing.T) {
	var cs asClaims
	cs.check(true, "holds")
	if cs.err() != nil {
		t.Fatal(cs.err())
	}
	cs.check(false, "A uses less than %s", "B")
	cs.check(false, "C")
	if err := cs.err(); err == nil || err.Error() != "claim no longer holds: A uses less than B; claim no longer holds: C" {
		t.Fatalf("error %v", err)
	}
}

// TestAsReadScaling reads an evaluation's CSVs and writes its table by the
// one number format.
func TestAsReadScaling(t *testing.T) {
	dir := t.TempDir()
	var stats, runs strings.Builder
	stats.WriteString("variant,figure,n,mean,ci_low,ci_high\n")
	runs.WriteString("variant,seed,run_dir," + strings.Join(evaluation.ScalingFigures, ",") + "\n")
	for _, v := range []string{"daedalus", "static-12"} {
		for _, f := range evaluation.ScalingFigures {
			switch {
			case f == asLagMean && v == "daedalus":
				stats.WriteString(v + "," + f + ",5,18181234,17677000,18685000\n")
			case f == asRescales && v == "static-12":
				stats.WriteString(v + "," + f + ",5,0,0,0\n")
			default:
				stats.WriteString(v + "," + f + ",5,1.5,1.25,1.75\n")
			}
		}
		for seed := 2; seed >= 1; seed-- {
			runs.WriteString(v + "," + string(rune('0'+seed)) + ",/r" + string(rune('0'+seed)) + strings.Repeat(",1", len(evaluation.ScalingFigures)-1) + ",\n")
		}
	}
	for name, text := range map[string]string{evaluation.ScalingCSV: stats.String(), evaluation.ScalingRunsCSV: runs.String()} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	e, err := asReadScaling(dir)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(e.variants, " ") != "daedalus static-12" {
		t.Errorf("variants %v", e.variants)
	}
	if rs := e.variantRuns("daedalus"); len(rs) != 2 || rs[0].seed != 1 || rs[0].dir != "/r1" || !math.IsNaN(rs[0].fig[asLagMax]) {
		t.Errorf("runs %+v", rs)
	}
	if _, err := e.stat("hpa-80", asUsage); err == nil || !strings.Contains(err.Error(), "no usage for variant \"hpa-80\"") {
		t.Errorf("missing variant: %v", err)
	}
	table := e.markdown()
	for _, want := range []string{
		"| daedalus | 1.500 [1.250, 1.750] | 0.000417 [0.000347, 0.000486] |",
		"| 18,181 [17,677, 18,685] |",
		"| static-12 | 1.500 [1.250, 1.750] | 0.000417 [0.000347, 0.000486] | 0 [0, 0] |",
	} {
		if !strings.Contains(table, want) {
			t.Errorf("table lacks %q:\n%s", want, table)
		}
	}
	// a figure missing for a variant is an error naming it
	if err := os.WriteFile(filepath.Join(dir, evaluation.ScalingCSV), []byte("variant,figure,n,mean,ci_low,ci_high\nx,usage,5,1,1,1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := asReadScaling(dir); err == nil || !strings.Contains(err.Error(), "variant x has no figure") {
		t.Errorf("incomplete evaluation: %v", err)
	}
}

func TestAsDeployFit(t *testing.T) {
	up := func(load, down float64) measure.Rescale {
		return measure.Rescale{From: 1, To: 2, InputRate: load, DowntimeS: down}
	}
	dn := func(load, down float64) measure.Rescale {
		return measure.Rescale{From: 2, To: 1, InputRate: load, DowntimeS: down}
	}
	measured := []measure.Rescale{up(3000, 2), dn(3000, 1), up(6000, 3), dn(6000, 1.5)}
	restore := []measure.Rescale{up(3000, 1.5), dn(3000, 1.5), up(6000, 2), dn(6000, 2)}
	for _, tc := range []struct {
		up   bool
		skip float64
		want float64
	}{
		{true, -1, 0.75},  // (0.5 + 1) / 2
		{true, 3000, 1},   // 6,000/s alone
		{true, 6000, 0.5}, // 3,000/s alone
		{false, -1, 0},    // −0.5: no negative deploy time
	} {
		if got := asDeployFit(measured, restore, tc.up, tc.skip); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("up %v skip %g: %g, want %g", tc.up, tc.skip, got, tc.want)
		}
	}
	if got := asMeanDowntime(measured, restore, true, 6000); got != 2 {
		t.Errorf("twin's mean downtime up at 6,000/s: %g", got)
	}
	if err := asPaired(measured, restore[:3]); err == nil {
		t.Error("3 rescales paired with 4")
	}
	if err := asPaired(measured, []measure.Rescale{up(0, 0), up(0, 0), up(0, 0), dn(0, 0)}); err == nil || !strings.Contains(err.Error(), "rescale 2 is 1 → 2, measured 2 → 1") {
		t.Errorf("mismatch: %v", err)
	}
	if got := asNearest([]float64{0, 0.41, 0.517}, 0.41000000001); got != 0.41 {
		t.Errorf("nearest %g", got)
	}
}

// TestAsFirstOverestimate: the first scale-up that gave less capacity than
// Daedalus predicted and whose backlog grew until the next decision.
func TestAsFirstOverestimate(t *testing.T) {
	reason := func(from, to int, capacity string) string {
		return "rescale: daedalus: " + string(rune('0'+from)) + " → " + string(rune('0'+to)) + ": capacity " + capacity + "/s covers the forecast peak 1/s, predicted recovery 1 s"
	}
	events := []results.Event{
		{TimeS: 100, Kind: results.KindPolicyDecision, Reason: reason(1, 2, "2000")},
		{TimeS: 200, Kind: results.KindPolicyDecision, Reason: reason(2, 4, "4000")},
		{TimeS: 300, Kind: results.KindPolicyDecision, Reason: reason(4, 3, "3000")},
	}
	var samples []results.Sample
	for ts := 1.0; ts <= 400; ts++ {
		s := results.Sample{TimeS: ts, Parallelism: 1, Capacity: 1000}
		switch {
		case ts > 300:
			s.Parallelism, s.Capacity = 3, 2500
		case ts > 210: // 2 → 4 gave 3,500/s, and the lag grew
			s.Parallelism, s.Capacity, s.Lag = 4, 3500, ts
		case ts > 200:
			s.Parallelism, s.Capacity = 2, 0
		case ts > 110: // 1 → 2 gave its 2,000/s
			s.Parallelism, s.Capacity = 2, 2000
		}
		samples = append(samples, s)
	}
	r := &asRun{samples: samples, events: events, rescales: []measure.Rescale{
		{AtS: 100, From: 1, To: 2, DelayS: 5, DowntimeS: 5},
		{AtS: 200, From: 2, To: 4, InputRate: 3600, DelayS: 5, DowntimeS: 5},
		{AtS: 300, From: 4, To: 3, DelayS: 5, DowntimeS: 5},
	}}
	o, ok := asFirstOverestimate(r)
	if !ok {
		t.Fatal("none found")
	}
	if o.AtS != 200 || o.predicted != 4000 || o.before != 2000 || o.after != 3500 || o.growS != 100 {
		t.Errorf("%+v", o)
	}
	if c, ok := asDecisionCapacity(events, 100); !ok || c != 2000 {
		t.Errorf("decision capacity %g %v", c, ok)
	}
	if _, ok := asDecisionCapacity([]results.Event{{TimeS: 1, Kind: results.KindPolicyDecision, Reason: "rescale: daedalus: 1 → 3: no parallelism covers the forecast within 600 s of recovery"}}, 1); ok {
		t.Error("a capacity read from a reason without one")
	}
}
