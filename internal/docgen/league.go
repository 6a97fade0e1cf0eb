package docgen

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/streamtwin/streamtwin/results/evaluation"
)

// The live autoscaling league and the WordCount finding live (issue 33,
// make live-autoscaling and make live-wordcount): blocks for
// docs/autoscaling.md from the committed live runs and the twin run anew
// on the same scenario. The WordCount run's live data is not committed
// yet, so its block waits in leaguePendingBlocks (pendingLiveBlocks); once
// make live-wordcount commits it, TestPendingLiveData says to put the
// markers in docs/autoscaling.md and move the block to liveBlocks.

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

// leaguePendingBlocks are the league's blocks waiting for their data.
func leaguePendingBlocks() []pendingBlock {
	return []pendingBlock{
		{Block{"live wordcount", liveWordcount}, wordcountRef + "/" + evaluation.LeagueCSV, "docs/autoscaling.md", "make live-wordcount"},
	}
}

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

// liveWordcount: Daedalus's p95 latency against static-3's on the
// WordCount-shaped schedule, live and in the twin, in a sentence, then the
// league's report of the two.
func liveWordcount(c *Context) (string, error) {
	twin := c.Out("live-wordcount-twin")
	if _, err := c.Streamtwin("run", wordcountScenario, "--out", twin); err != nil {
		return "", err
	}
	args := leagueArgs(c, wordcountRef, twin, wordcountPolicy, "--baseline", wordcountBaseline, "--min-policies", "2")
	if _, err := c.Streamtwin(args...); err != nil {
		return "", err
	}
	opt := evaluation.LeagueOptions{Baseline: wordcountBaseline, Criteria: evaluation.DefaultLeagueCriteria()}
	if i := indexOf(args, "--repeat"); i >= 0 {
		opt.Repeat = args[i+1]
	}
	l, err := evaluation.EvaluateLeague(twin, c.Path(wordcountRef+"/live"), opt)
	if err != nil {
		return "", err
	}
	var pen *evaluation.Penalty
	for i := range l.Penalties {
		if l.Penalties[i].Policy == wordcountPolicy {
			pen = &l.Penalties[i]
		}
	}
	if pen == nil {
		return "", fmt.Errorf("%s: no live run of %s and %s", wordcountRef, wordcountPolicy, wordcountBaseline)
	}
	spread := "unmeasured (no second live run)"
	for _, f := range l.Figures {
		if f.Name == "latency_p95_ms" && f.Spread == f.Spread {
			spread = seconds(f.Spread / 1000)
		}
	}
	holds := map[bool]string{true: "holds", false: "does not hold"}
	agree := map[bool]string{true: "The twin agrees.", false: "The twin does not agree."}[pen.HoldsTwin == pen.HoldsLive]
	text := fmt.Sprintf("On the WordCount-shaped schedule (%s), %s's p95 latency is %s× %s's live and %s× in the twin "+
		"(the live spread between two %s runs: %s): the latency penalty %s live and %s in the twin. %s",
		wordcountScenario, wordcountPolicy, num(pen.LiveRatio), wordcountBaseline, num(pen.TwinRatio), wordcountPolicy, spread,
		holds[pen.HoldsLive], holds[pen.HoldsTwin], agree)
	report, err := leagueReport(twin + "-league")
	if err != nil {
		return "", err
	}
	return wrap(text, leagueWidth) + "\n\n" + report, nil
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
