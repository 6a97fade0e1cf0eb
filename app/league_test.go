package app

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/streamtwin/streamtwin/results/evaluation"
)

// The league of scenarios/live-autoscaling.yaml with the twin on both
// sides (a twin run stands in for the live one, a second twin run of
// daedalus for the live repeat): every figure agrees, so every criterion
// passes but a τ that no pair can measure, and two leagues of the same
// runs write identical files.
func TestLiveLeagueTwinAgainstTwin(t *testing.T) {
	d := t.TempDir()
	for _, args := range [][]string{
		{"run", "../scenarios/live-autoscaling.yaml", "--out", filepath.Join(d, "twin")},
		{"run", "../scenarios/live-autoscaling.yaml", "--out", filepath.Join(d, "live")},
		{"run", "../scenarios/live-autoscaling.yaml", "--variant", "daedalus", "--out", filepath.Join(d, "repeat")},
	} {
		if _, stderr, code, _ := runCLI(t, args...); code != 0 {
			t.Fatalf("%v: exit %d\n%s", args, code, stderr)
		}
	}
	var reports [2]string
	for i := range reports {
		reports[i] = filepath.Join(d, "league"+string(rune('a'+i)))
		stdout, stderr, code, _ := runCLI(t, "live", "league", filepath.Join(d, "twin"), filepath.Join(d, "live"),
			"--repeat", filepath.Join(d, "repeat", "daedalus"), "--out", reports[i])
		if code != 0 {
			t.Fatalf("live league: exit %d\n%s", code, stderr)
		}
		if !strings.Contains(stdout, "| daedalus |") || !strings.Contains(stdout, "Kendall τ-b") {
			t.Errorf("stdout:\n%s", stdout)
		}
	}
	for _, f := range []string{evaluation.LeagueMarkdown, evaluation.LeagueCSV, evaluation.LeagueRanksCSV, evaluation.LeagueTauCSV, evaluation.LeagueVerdict, evaluation.LeagueDecisions} {
		a, errA := os.ReadFile(filepath.Join(reports[0], f))
		b, errB := os.ReadFile(filepath.Join(reports[1], f))
		if errA != nil || errB != nil {
			t.Fatalf("%s: %v %v", f, errA, errB)
		}
		// the run folders differ only by the report folder's name
		if !bytes.Equal(a, b) {
			t.Errorf("%s differs between two leagues of the same runs", f)
		}
	}
	l, err := evaluation.EvaluateLeague(filepath.Join(d, "twin"), filepath.Join(d, "live"),
		evaluation.LeagueOptions{Repeat: filepath.Join(d, "repeat", "daedalus"), Interval: policyInterval, Criteria: evaluation.DefaultLeagueCriteria()})
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Policies) != 6 {
		t.Fatalf("policies %v, want the scenario's 6", l.Policies)
	}
	for _, f := range l.Figures {
		if f.Spread != 0 {
			t.Errorf("%s: spread %g between two twin runs of one seed, want 0", f.Name, f.Spread)
		}
		if tau := f.Tau; !(tau.TauB == 1 || tau.TiedA == tau.Pairs) || tau.Discordant != 0 {
			t.Errorf("%s: τ-b %g with %d discordant pairs between identical runs", f.Name, tau.TauB, tau.Discordant)
		}
	}
	for _, ch := range l.Checks {
		unmeasurable := strings.HasPrefix(ch.Criterion, "Kendall") && ch.Value != ch.Value
		if !ch.Pass && !unmeasurable {
			t.Errorf("%s %s: fails between identical runs (%g, bound %g; %s)", ch.Subject, ch.Criterion, ch.Value, ch.Bound, ch.Detail)
		}
	}
	want := map[string]float64{"hpa": 15, "daedalus": 60, "ds2": 30, "flink-autoscaler": 30}
	for i, p := range l.Policies {
		if w, ok := want[p]; ok && l.Intervals[i] != w {
			t.Errorf("%s: interval %g s, want %g s", p, l.Intervals[i], w)
		}
	}
}
