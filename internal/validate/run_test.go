package validate

import (
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/streamtwin/streamtwin/results"
	"github.com/streamtwin/streamtwin/results/ingest"
)

// khaosDataset is a small dataset of real measurements: Khaos's YSB kills
// at CI 30 s and 90 s (24 points), CI 90 s held out.
func khaosDataset(t *testing.T, extra string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "khaos-small")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	pts, err := ingest.ReadMeasured("../../scenarios/measured/khaos-ysb-failures.csv")
	if err != nil {
		t.Fatal(err)
	}
	var keep []ingest.MeasuredFailure
	for _, p := range pts {
		if p.CheckpointIntervalS == 30 || p.CheckpointIntervalS == 90 {
			keep = append(keep, p)
		}
	}
	if err := ingest.WriteMeasured(filepath.Join(dir, "measured.csv"), keep); err != nil {
		t.Fatal(err)
	}
	scen, _ := filepath.Abs("../../scenarios/khaos-ysb-base.yaml")
	protocol := "title: Khaos YSB, two CIs\nsource: Khaos\nscenario: " + scen + "\nmeasured: measured.csv\nbefore_checkpoint: 3s\nsettle: 150s\n" +
		"fit: [cost_scale, restart_delay]\nholdout: {column: checkpoint_interval_s, values: [\"90\"]}\ncv: ci\n" +
		"max_evaluations: 12\nreplications: 1\nintervals: 2\n" + extra
	if err := os.WriteFile(filepath.Join(dir, ProtocolFile), []byte(protocol), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestRun: a whole validation on 24 real points. Without a second CI among
// the fitted points, the mechanism selection falls back to three random
// folds; it scores the protocol's fit and the fit with warmup, and marks
// one of them chosen. The result folder round-trips, and a folder of the
// user's is refused.
func TestRun(t *testing.T) {
	if testing.Short() {
		t.Skip("fits the twin a dozen times (about 5 s)")
	}
	p, err := Load(khaosDataset(t, "mechanisms: [warmup]\n"))
	if err != nil {
		t.Fatal(err)
	}
	r, err := Run(p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Selection) != 2 || len(r.Selection[0].Mechanisms) != 0 || !slices.Equal(r.Selection[1].Mechanisms, []string{"warmup"}) {
		t.Fatalf("selection %+v", r.Selection)
	}
	chosen := 0
	for _, st := range r.Selection {
		if st.Chosen {
			chosen++
			if !slices.Equal(st.Mechanisms, r.Chosen) {
				t.Errorf("the chosen step %v is not the chosen set %v", st.Mechanisms, r.Chosen)
			}
		}
	}
	// the protocol's fit alone wins unless warmup lowers the error
	if chosen != 1 || (len(r.Chosen) == 1) != (r.Selection[1].CVMAPE < r.Selection[0].CVMAPE) {
		t.Errorf("chosen %v from %+v", r.Chosen, r.Selection)
	}
	s := r.Summarize()
	if s.Points != 24 || s.Fitted != 12 || s.HeldOut != 12 || s.CVFolds != 2 || s.Holdout != "checkpoint_interval_s 90" {
		t.Errorf("summary %+v", s)
	}
	if math.IsNaN(s.Held.Twin) || math.IsNaN(s.Held.ClosedForm) || math.IsNaN(s.Held.Median) {
		t.Errorf("held-out errors %+v", s.Held)
	}
	out := filepath.Join(t.TempDir(), "result")
	if _, err := r.Write(out); err != nil {
		t.Fatal(err)
	}
	back, err := ReadSummary(out)
	if err != nil {
		t.Fatal(err)
	}
	if !sameSummary(back, s) {
		t.Errorf("read back %+v\nwrote %+v", back, s)
	}
	if _, err := r.Write(out); err != nil { // its own folder: rewritten
		t.Errorf("rewriting its own result folder: %v", err)
	}
	mine := t.TempDir()
	os.WriteFile(filepath.Join(mine, "notes.txt"), []byte("mine"), 0o644)
	var re *results.RefusedError
	if _, err := r.Write(mine); !errors.As(err, &re) {
		t.Errorf("writing into a folder of the user's: %v, want a refusal", err)
	}
}

// sameSummary compares through JSON, where NaN is null.
func sameSummary(a, b Summary) bool {
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return string(ja) == string(jb)
}

func TestRunInputErrors(t *testing.T) {
	p, err := Load(khaosDataset(t, ""))
	if err != nil {
		t.Fatal(err)
	}
	p.Holdout.Values = []string{"45"}
	var ie *InputError
	if _, err := Run(p, Options{}); !errors.As(err, &ie) || !strings.Contains(err.Error(), "protocol.yaml:") ||
		!strings.Contains(err.Error(), "no measured point has checkpoint_interval_s 45") {
		t.Errorf("a holdout value no row has: %v", err)
	}
}

// TestTable: the fidelity table's row by hand, NaN as –, and a row the
// twin loses to the OLS marked.
func TestTable(t *testing.T) {
	nan := math.NaN()
	sums := []Summary{
		{Title: "A", Points: 10, Fitted: 6, HeldOut: 4, Censored: 1, Held: Errors{10, 12, 11, 30, nan, 90},
			CVScheme: "ci", CVFolds: 3, CV: map[string]Spread{"twin": {9, 1.5}, "closed_form": {12, 2}, "ols": {8, 1}, "median": {30, 3}, "daedalus": {nan, nan}}},
		{Title: "B", Points: 5, Fitted: 5, Held: Errors{nan, nan, nan, nan, nan, nan}},
	}
	got := strings.Split(strings.TrimSpace(Table(sums)), "\n")
	want := []string{
		"| A | 10 (6 / 4, 1) | 10.0 % | 12.0 % | 11.0 % | 30.0 % | – | 90.0 % | 9.0 ± 1.5 % (ci, 3 folds) | OLS 8.0 % | yes |",
		"| B | 5 (5 / 0, 0) | – | – | – | – | – | – | – | – | **no** |",
	}
	if !reflect.DeepEqual(got[2:], want) {
		t.Errorf("rows\n%s\nwant\n%s", strings.Join(got[2:], "\n"), strings.Join(want, "\n"))
	}
	if (Errors{Twin: 10, ClosedForm: 10, OLS: nan, Median: nan, Daedalus: nan}).Wins() {
		t.Error("a tie wins; the twin must be below every baseline")
	}
}

// TestCommittedResults: the committed result of a dataset is what the
// code gives now (make validation rewrites them all; docs/validation.md is
// rendered from them). The quickest dataset of each kind (about 25 s in
// all); the others follow the same code.
func TestCommittedResults(t *testing.T) {
	if testing.Short() {
		t.Skip("re-runs five datasets' validation (about 25 s)")
	}
	for _, name := range []string{"live-traffic", "live-khaos", "demeter-cars-operator", "demeter-cars-reactive", "live-rescales"} {
		t.Run(name, func(t *testing.T) {
			dir := "../../validation/" + name
			p, err := Load(dir)
			if err != nil {
				t.Fatal(err)
			}
			r, err := Run(p, Options{})
			if err != nil {
				t.Fatal(err)
			}
			committed, err := ReadSummary(filepath.Join(dir, "result"))
			if err != nil {
				t.Fatal(err)
			}
			if got := r.Summarize(); !sameSummary(got, committed) {
				ja, _ := json.MarshalIndent(got, "", " ")
				t.Errorf("validation/%s/result is stale; run make validation. Now:\n%s", name, ja)
			}
		})
	}
}

// TestRescaleTable: the rescale table's rows by hand, the better of twin
// and baseline marked, a missing error as –.
func TestRescaleTable(t *testing.T) {
	nan := math.NaN()
	sums := []Summary{{Title: "R", Rescale: &RescaleValidation{Directions: []DirectionErrors{
		{Direction: "up", Rescales: 2, Twin: RescaleAE{5, 1, 8}, Baseline: RescaleAE{4, 2, nan}},
	}}}, {Title: "not a rescale dataset"}}
	got := strings.Split(strings.TrimSpace(RescaleTable(sums)), "\n")
	want := []string{"| R | up | 2 | 5.0 s / 4.0 s | 1.0 s / 2.0 s (twin better) | – |"}
	if !reflect.DeepEqual(got[2:], want) {
		t.Errorf("rows\n%s\nwant\n%s", strings.Join(got[2:], "\n"), strings.Join(want, "\n"))
	}
}
