package docgen

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/streamtwin/streamtwin/results/evaluation"
)

// The live autoscaling league and the WordCount finding live (issue 33,
// make live-autoscaling and make live-wordcount): blocks for
// docs/autoscaling.md (and a sentence of README.md) from the committed
// live runs and the twin run anew on the same scenario.

// The committed league outputs and their scenarios.
const (
	leagueRef         = "results/reference/live/autoscaling"
	leagueScenario    = "scenarios/live-autoscaling.yaml"
	leagueRepeat      = "daedalus" // make live-autoscaling's LEAGUE_REPEAT
	wordcountRef      = leagueRef + "/wordcount"
	wordcountScenario = "scenarios/live-wordcount.yaml"
	wordcountBaseline = "static-3"
	wordcountPolicy   = "daedalus"
	leagueWidth       = 103
)

// leagueArgs are `streamtwin live league`'s arguments on the committed live
// runs of ref against the twin in twin, as the make target runs it.
func leagueArgs(c *Context, ref, twin, repeat string, extra ...string) []string {
	args := []string{"live", "league", twin, c.Path(ref + "/live"), "--out", twin + "-league"}
	if r := c.Path(ref + "/live-repeat/" + repeat); exists(filepath.Join(r, "summary.json")) {
		args = append(args, "--repeat", r)
	}
	return append(args, extra...)
}

func exists(p string) bool { _, err := os.Stat(p); return err == nil }

// liveAutoscalingLeague: the league's report (league.md without its title
// and its pointer to the decision logs): the figures twin / live, the
// ranks with Kendall's τ-b and the live spread, and the verdict.
func liveAutoscalingLeague(c *Context) (string, error) {
	twin := c.Out("live-autoscaling-twin")
	if _, err := c.Streamtwin("run", leagueScenario, "--out", twin); err != nil {
		return "", err
	}
	if _, err := c.Streamtwin(leagueArgs(c, leagueRef, twin, leagueRepeat)...); err != nil {
		return "", err
	}
	return leagueReport(twin + "-league")
}

// wordcountPenalty runs the twin on the WordCount-shaped schedule and the
// league against its committed live runs: Daedalus's p95 latency against
// static-3's in each backend, the live spread of p95 as text, and the
// league folder.
func wordcountPenalty(c *Context) (pen evaluation.Penalty, spread, league string, err error) {
	twin := c.Out("live-wordcount-twin")
	league = twin + "-league"
	if exists(league) {
		// the README's sentence and the doc's block share one run
		return wordcountPenaltyOf(c, twin)
	}
	if _, err = c.Streamtwin("run", wordcountScenario, "--out", twin); err != nil {
		return
	}
	if _, err = c.Streamtwin(leagueArgs(c, wordcountRef, twin, wordcountPolicy, "--baseline", wordcountBaseline, "--min-policies", "2")...); err != nil {
		return
	}
	return wordcountPenaltyOf(c, twin)
}

func wordcountPenaltyOf(c *Context, twin string) (pen evaluation.Penalty, spread, league string, err error) {
	league = twin + "-league"
	opt := evaluation.LeagueOptions{Baseline: wordcountBaseline, Criteria: evaluation.DefaultLeagueCriteria()}
	if r := c.Path(wordcountRef + "/live-repeat/" + wordcountPolicy); exists(filepath.Join(r, "summary.json")) {
		opt.Repeat = r
	}
	l, err := evaluation.EvaluateLeague(twin, c.Path(wordcountRef+"/live"), opt)
	if err != nil {
		return
	}
	found := false
	for i := range l.Penalties {
		if l.Penalties[i].Policy == wordcountPolicy {
			pen, found = l.Penalties[i], true
		}
	}
	if !found {
		err = fmt.Errorf("%s: no live run of %s and %s", wordcountRef, wordcountPolicy, wordcountBaseline)
		return
	}
	spread = "unmeasured (no second live run)"
	for _, f := range l.Figures {
		if f.Name == "latency_p95_ms" && f.Spread == f.Spread {
			spread = seconds(f.Spread / 1000)
		}
	}
	return pen, spread, league, nil
}

var holdsWord = map[bool]string{true: "holds", false: "does not hold"}

// liveWordcount: Daedalus's p95 latency against static-3's on the
// WordCount-shaped schedule, live and in the twin, in a sentence, then the
// league's report of the two.
func liveWordcount(c *Context) (string, error) {
	pen, spread, league, err := wordcountPenalty(c)
	if err != nil {
		return "", err
	}
	agree := map[bool]string{true: "The twin agrees.", false: "The twin does not agree."}[pen.HoldsTwin == pen.HoldsLive]
	text := fmt.Sprintf("On the WordCount-shaped schedule (%s), %s's p95 latency is %s× %s's live and %s× in the twin "+
		"(the live spread between two %s runs: %s): the latency penalty %s live and %s in the twin. %s",
		wordcountScenario, wordcountPolicy, num(pen.LiveRatio), wordcountBaseline, num(pen.TwinRatio), wordcountPolicy, spread,
		holdsWord[pen.HoldsLive], holdsWord[pen.HoldsTwin], agree)
	report, err := leagueReport(league)
	if err != nil {
		return "", err
	}
	return wrap(text, leagueWidth) + "\n\n" + report, nil
}

// readmeLiveWordcount: the README's live check of its Daedalus latency
// row, in one sentence.
func readmeLiveWordcount(c *Context) (string, error) {
	pen, spread, _, err := wordcountPenalty(c)
	if err != nil {
		return "", err
	}
	return wrap(fmt.Sprintf("Live, on a 12 min WordCount-shaped schedule on three quarter-core TaskManagers (`make live-wordcount`), "+
		"%s's p95 latency is %s× %s's, and %s× in the twin on the same schedule (two live %s runs differ by %s of p95): "+
		"the latency penalty %s on the real cluster ([docs/autoscaling.md](docs/autoscaling.md#live)).",
		wordcountPolicy, num(pen.LiveRatio), wordcountBaseline, num(pen.TwinRatio), wordcountPolicy, spread, holdsWord[pen.HoldsLive]), leagueWidth), nil
}

func indexOf(xs []string, x string) int {
	for i, y := range xs {
		if y == x {
			return i
		}
	}
	return -1
}

// leagueReport is a league folder's league.md between its title and its
// last line (the pointer to the decision logs, a file of the folder).
func leagueReport(dir string) (string, error) {
	b, err := os.ReadFile(filepath.Join(dir, evaluation.LeagueMarkdown))
	if err != nil {
		return "", err
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) < 3 || !strings.HasPrefix(lines[0], "# ") {
		return "", fmt.Errorf("%s: not a league report", dir)
	}
	body := strings.Join(lines[1:len(lines)-1], "\n")
	// the report's headings sit below the document's section
	body = strings.ReplaceAll(body, "\n## ", "\n#### ")
	return wrap(strings.TrimSpace(body), leagueWidth), nil
}

// leagueSecond holds a second live run of every league policy (make
// live-autoscaling-second), each on a fresh cluster as the league's.
const leagueSecond = leagueRef + "/live-second"

// liveAgainstLive: the league's live runs judged against the second live
// run of every policy, in the twin's place, by the league's own criteria:
// what its per-policy bounds ask of two runs of the real cluster.
func liveAgainstLive(c *Context) (string, error) {
	out := c.Out("live-against-live")
	args := []string{"live", "league", c.Path(leagueSecond), c.Path(leagueRef + "/live"), "--out", out}
	if r := c.Path(leagueRef + "/live-repeat/" + leagueRepeat); exists(filepath.Join(r, "summary.json")) {
		args = append(args, "--repeat", r)
	}
	if _, err := c.Streamtwin(args...); err != nil {
		return "", err
	}
	// the checks on rankings and policies of a verdict, and those failed
	checks := func(path string) (n int, failed []string, err error) {
		verdict := []string{"criterion", "subject", "value", "bound", "result", "detail"}
		err = asReadCSV(path, verdict, verdict, func(r map[string]string) error {
			if r["subject"] == "league" || strings.HasPrefix(r["criterion"], "live spread") {
				return nil
			}
			n++
			if r["result"] == "fail" {
				v, _ := strconv.ParseFloat(r["value"], 64)
				failed = append(failed, fmt.Sprintf("%s (%s: %s)", r["subject"], strings.TrimPrefix(r["criterion"], "|twin − live| / live ≤ bound: "), num(v)))
			}
			return nil
		})
		return n, failed, err
	}
	n, failed, err := checks(filepath.Join(out, "league-verdict.csv"))
	if err != nil {
		return "", err
	}
	nTwin, failedTwin, err := checks(c.Path(leagueRef + "/league-verdict.csv"))
	if err != nil {
		return "", err
	}
	// the twin's place holds the second run, the live one the first
	type pair struct{ first, second map[string]string }
	by := map[string]*pair{}
	var order []string
	figures := []string{"policy", "backend", "worker_seconds", "latency_p95_ms", "latency_p99_ms", "lag_max", "rescales", "downtime_s", "run_dir"}
	err = asReadCSV(filepath.Join(out, "league.csv"), figures, figures, func(r map[string]string) error {
		p := by[r["policy"]]
		if p == nil {
			p = &pair{}
			by[r["policy"]] = p
			order = append(order, r["policy"])
		}
		if r["backend"] == "live" {
			p.first = maps.Clone(r)
		} else {
			p.second = maps.Clone(r)
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	f := func(s string, scale float64) string {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return "–"
		}
		return num(v / scale)
	}
	rows := [][]string{{"policy", "worker-seconds (TM-s), first / second", "p95 latency (s), first / second", "lag peak (k records), first / second"}}
	for _, p := range order {
		a, b := by[p].first, by[p].second
		if a == nil || b == nil {
			continue
		}
		rows = append(rows, []string{p, f(a["worker_seconds"], 1) + " / " + f(b["worker_seconds"], 1),
			f(a["latency_p95_ms"], 1000) + " / " + f(b["latency_p95_ms"], 1000), f(a["lag_max"], 1000) + " / " + f(b["lag_max"], 1000)})
	}
	list := "none"
	if len(failed) > 0 {
		list = strings.Join(failed, "; ")
	}
	text := fmt.Sprintf("Live against live: a second live run of every policy (`%s`, `make live-autoscaling-second`, each on a "+
		"fresh cluster as the league's), put in the twin's place and judged by the league's criteria against the league's live "+
		"runs: %d of the %d checks on rankings and policies fail: %s. The twin fails %d of %d against the same live runs "+
		"(the league above). The table gives both live runs.",
		leagueSecond, len(failed), n, list, len(failedTwin), nTwin)
	if len(failed) >= len(failedTwin) {
		text += " Two runs of the real cluster miss the league's per-policy bounds at least as often as the twin misses them " +
			"against one: for these policies the bounds are tighter than the cluster's own run-to-run spread, and the rankings " +
			"(Kendall τ) are what a comparison can hold the twin to."
	} else {
		text += " Two runs of the real cluster meet the league's per-policy bounds more often than the twin does: the twin's " +
			"misses are its own."
	}
	return wrap(text, leagueWidth) + "\n\n" + strings.TrimRight(khaosMarkdownTable(rows), "\n"), nil
}
