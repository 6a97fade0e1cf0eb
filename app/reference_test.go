package app

import (
	"flag"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/streamtwin/streamtwin/results/compare"
)

var updateReferences = flag.Bool("update-references", false,
	"rewrite results/reference/<scenario>.json from fresh runs (make reference)")

const (
	scenarioDir  = "../scenarios"
	referenceDir = "../results/reference"
	// referenceRel is the tolerance of the regression check: the simulator
	// is deterministic, so anything beyond rounding is a change.
	referenceRel = 1e-9
	refreshHint  = "go test ./app -run TestReferences -update-references (make reference)"
)

// referenceSkip are scenarios without a reference: too long for go test.
var referenceSkip = map[string]bool{"bench-week.yaml": true}

// TestReferences runs every scenario in scenarios/ fresh and compares each
// variant's summary with results/reference/<scenario>.json at a relative
// tolerance of 1e-9, strictly (a figure or variant added or removed fails
// too). A model change that shifts results fails here with the table of
// what moved; if the shift is intended, refresh the references with
// -update-references and commit them with the change.
func TestReferences(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(scenarioDir, "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{}
	for _, f := range files {
		base := filepath.Base(f)
		if referenceSkip[base] {
			continue
		}
		name := strings.TrimSuffix(base, ".yaml")
		want[name+".json"] = true
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			checkReference(t, f, filepath.Join(referenceDir, name+".json"))
		})
	}
	if len(want) == 0 {
		t.Fatalf("no scenarios in %s", scenarioDir)
	}
	// A reference whose scenario is gone is stale: removed by a refresh,
	// reported otherwise.
	refs, _ := filepath.Glob(filepath.Join(referenceDir, "*.json"))
	var stale []string
	for _, r := range refs {
		if !want[filepath.Base(r)] {
			stale = append(stale, r)
		}
	}
	sort.Strings(stale)
	for _, r := range stale {
		if *updateReferences {
			if err := os.Remove(r); err != nil {
				t.Error(err)
			}
			t.Logf("removed %s: its scenario is gone", r)
		} else {
			t.Errorf("%s has no scenario in %s; remove it with %s", r, scenarioDir, refreshHint)
		}
	}
}

func checkReference(t *testing.T, scenarioFile, refFile string) {
	out := filepath.Join(t.TempDir(), "out")
	if _, stderr, code, _ := runCLI(t, "run", scenarioFile, "--out", out); code != 0 {
		t.Fatalf("streamtwin run %s: exit %d: %s", scenarioFile, code, stderr)
	}
	if *updateReferences {
		sums, err := compare.ReadRunSummaries(out)
		if err != nil {
			t.Fatal(err)
		}
		ref := compare.Reference{Source: "scenarios/" + filepath.Base(scenarioFile), Runs: sums}
		for _, s := range sums {
			ref.Scenario = s.Scenario
		}
		if err := compare.WriteReference(refFile, ref); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote %s (%d runs)", refFile, len(sums))
	}
	if _, err := os.Stat(refFile); err != nil {
		t.Fatalf("%s has no reference %s; create it with %s", scenarioFile, refFile, refreshHint)
	}
	ref, err := compare.LoadResultSet(refFile)
	if err != nil {
		t.Fatal(err)
	}
	fresh, err := compare.LoadResultSet(out)
	if err != nil {
		t.Fatal(err)
	}
	// Two single runs would be paired whatever their names; a renamed
	// scenario or variant should show up, so keys must match too.
	if len(ref.Runs) == 1 && len(fresh.Runs) == 1 && ref.Runs[0].Key != fresh.Runs[0].Key {
		t.Errorf("%s: run %q, reference has %q; if intended, refresh with %s", scenarioFile, fresh.Runs[0].Key, ref.Runs[0].Key, refreshHint)
	}
	tol := compare.Tolerances{Default: compare.Tolerance{Rel: referenceRel}}
	cmp, err := compare.Compare(ref, fresh, tol)
	if err != nil {
		t.Fatalf("%s against %s: %v", scenarioFile, refFile, err)
	}
	if cmp.Failed(true) {
		var b strings.Builder
		cmp.WriteTable(&b, false, true)
		t.Errorf("%s no longer reproduces %s (rel %g):\n%s\nIf the change is intended, refresh the references with\n  %s\nand commit them with the change.",
			scenarioFile, refFile, referenceRel, b.String(), refreshHint)
	}
}
