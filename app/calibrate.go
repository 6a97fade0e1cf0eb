package app

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/urfave/cli/v2"

	"github.com/streamtwin/streamtwin/internal/calibrate"
	"github.com/streamtwin/streamtwin/internal/scenario"
	"github.com/streamtwin/streamtwin/models/hostmetrics"
	"github.com/streamtwin/streamtwin/results"
	"github.com/streamtwin/streamtwin/results/ingest"
	"github.com/streamtwin/streamtwin/results/textfmt"
	"github.com/streamtwin/streamtwin/sim"
)

func calibrateCommand() *cli.Command {
	return &cli.Command{
		Name:  "calibrate",
		Usage: "fit scenario parameters to measured failures and report how well the twin predicts them",
		Description: "Simulates every row of --measured (its throughput, checkpoint interval and configuration, one\n" +
			"fault, by default a crash, on the sink's TaskManager 3 s before a checkpoint, as Khaos injects them)\n" +
			"and fits --fit by Nelder–Mead (gonum/optimize) to the measured recovery times and, if present,\n" +
			"pre-failure latencies. Recovery parameters are fitted first, on recovery error; latency parameters\n" +
			"and checkpoint costs then, on latency error, with the recovery ones fixed. The closed-form recovery\n" +
			"model, an OLS on throughput, CI and the configuration, the median and Daedalus's recovery model are\n" +
			"fitted on the same points as baselines; --cv cross-validates them all, --replications N gives\n" +
			"90 % prediction intervals. A parameter at a bound or outside its typical range is flagged.\n" +
			"Writes the calibrated scenario (--out) and a fit report folder (--report): fit.json, points.csv,\n" +
			"report.md and recovery/latency residual figures. The measured table is CSV or Parquet with the\n" +
			"columns throughput (records/s), checkpoint_interval_s, recovery_s and optionally latency_ms,\n" +
			"label, fault_at_s, the configuration (parallelism, task_slots, cpu_cores, memory_mib), fault\n" +
			"(kill, network_delay:60s/30s, …), censored (recovery_s is a lower bound) and experiment;\n" +
			"`calibrate convert` makes one from Khaos's failures.txt or a measured series.\n" +
			"Parameters: " + strings.Join(calibrate.ParamNames(), ", "),
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "scenario", Usage: "base scenario file (its job, Kafka and QoS settings)"},
			&cli.StringFlag{Name: "variant", Usage: "calibrate this variant of the scenario"},
			&cli.StringFlag{Name: "measured", Usage: "measured table (.csv or .parquet)"},
			&cli.StringFlag{Name: "fit", Usage: "comma-separated parameters to fit (default " + strings.Join(calibrate.DefaultFit, ",") + ", plus " + strings.Join(calibrate.DefaultLatencyFit, ",") + " when the table has latency_ms)"},
			&cli.StringFlag{Name: "holdout", Usage: "checkpoint intervals to keep out of the fit and report separately, e.g. 10s,60s,120s"},
			&cli.StringFlag{Name: "out", Usage: "calibrated scenario to write (default: next to the base, NAME-calibrated.yaml)"},
			&cli.StringFlag{Name: "report", Usage: "fit report folder (default: OUT without .yaml, plus -fit)"},
			&cli.IntFlag{Name: "workers", Usage: "points simulated in parallel (default: every core)"},
			&cli.IntFlag{Name: "max-evaluations", Usage: "bound on loss evaluations (default 150 per fitted parameter)"},
			&cli.IntFlag{Name: "replications", Value: 1, Usage: "simulate each point with this many seeds and fit their mean (the twin's random checkpoint and heartbeat phases); with 2 or more, the seeds' spread is a 90 % prediction interval"},
			&cli.IntFlag{Name: "interval-replications", Usage: "draw the final 90 % prediction intervals from this many seeds per point (the fit keeps --replications; default: as --replications), e.g. 50 for steady interval bounds"},
			&cli.StringFlag{Name: "cv", Usage: "cross-validate the twin and the baselines after the fit: ci (leave one checkpoint interval out), k=N (N random folds from the scenario's seed) or a column of the table (leave one of its values out, e.g. experiment); refits once per fold"},
			&cli.StringFlag{Name: "latency", Value: "marker", Usage: "simulated latency compared with latency_ms: marker (Flink latency-marker p99, what Khaos recorded), or the event-time p99, p50 or mean"},
			&cli.StringFlag{Name: "before-checkpoint", Value: "3s", Usage: "how long before the next checkpoint each crash fires"},
		},
		Subcommands: []*cli.Command{convertCommand(), hostMetricsCommand(), calibrateRescalesCommand()},
		Action:      runCalibrate,
	}
}

func runCalibrate(c *cli.Context) error {
	if c.NArg() > 0 {
		return badInput(fmt.Errorf("calibrate takes flags only (got %q); e.g. streamtwin calibrate --scenario base.yaml --measured failures.csv", c.Args().First()))
	}
	if !c.IsSet("scenario") || !c.IsSet("measured") {
		return badInput(errors.New("calibrate needs --scenario BASE.yaml and --measured TABLE (.csv or .parquet; make one with `streamtwin calibrate convert`)"))
	}
	path := c.String("scenario")
	data, base, pts, err := calibrateInputs(c)
	if err != nil {
		return err
	}
	opt, names, err := calibrateOptions(c, pts)
	if err != nil {
		return err
	}
	out, report, err := calibrateOutputs(c, path)
	if err != nil {
		return err
	}
	// thousands of short runs that keep nothing: as in sweeps, a loose GC
	// target keeps the collector off the second core (40 s → 21 s here)
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}
	bar := calibrateProgress(&opt)
	fmt.Fprintf(os.Stderr, "calibrate: %s, fitting %s on %s of them\n", textfmt.Plural(len(pts), "point"), strings.Join(names, ", "), textfmt.Count(float64(len(opt.Fitted(pts)))))
	res, err := calibrate.Calibrate(base, pts, opt)
	if bar != nil {
		_ = bar.Finish()
	}
	if err != nil {
		return err
	}
	info := calibrate.ReportInfo{Scenario: path, Measured: c.String("measured"), Holdout: c.String("holdout"), Base: base}
	if err := calibrate.WriteScenario(out, data, res, info, report); err != nil {
		return err
	}
	files, err := calibrate.WriteReport(report, res, info)
	if err != nil {
		return err
	}
	printCalibration(res, out, files)
	return nil
}

// calibrateInputs reads what calibrate fits to: the base scenario (its
// bytes and its resolved variant) and the measured points, whose doubtful
// rows it warns of.
func calibrateInputs(c *cli.Context) (data []byte, base scenario.Scenario, pts []calibrate.Point, err error) {
	path := c.String("scenario")
	for _, flag := range []string{"scenario", "measured"} {
		if err := requireFile("calibrate: --"+flag, c.String(flag)); err != nil {
			return nil, base, nil, err
		}
	}
	data, err = os.ReadFile(path)
	if err != nil {
		return nil, base, nil, badInput(err)
	}
	base, err = scenario.ParseRun(path, data, c.String("variant"), nil)
	if err != nil {
		return nil, base, nil, badInput(err)
	}
	pts, err = ingest.ReadMeasured(c.String("measured"))
	if err != nil {
		return nil, base, nil, badInput(err)
	}
	for _, w := range calibrate.Warnings(c.String("measured"), pts) {
		fmt.Fprintln(os.Stderr, "warning:", w)
	}
	return data, base, pts, nil
}

// calibrateOptions turns the flags into the fit's options for the points
// pts, defaults filled in and checked, and returns the fitted parameters'
// names.
func calibrateOptions(c *cli.Context, pts []calibrate.Point) (opt calibrate.Options, names []string, err error) {
	opt = calibrate.Options{Workers: c.Int("workers"), MaxEvaluations: c.Int("max-evaluations"), Latency: c.String("latency"),
		Replications: c.Int("replications"), IntervalReplications: c.Int("interval-replications")}
	if opt.Replications < 1 {
		return opt, nil, badInput(fmt.Errorf("--replications must be ≥ 1, got %d", opt.Replications))
	}
	if c.IsSet("interval-replications") && opt.IntervalReplications < max(2, opt.Replications) {
		return opt, nil, badInput(fmt.Errorf("--interval-replications must be ≥ 2 and ≥ --replications (%d), got %d", opt.Replications, opt.IntervalReplications))
	}
	if !slices.Contains(results.LatencyKinds, opt.Latency) {
		return opt, nil, badInput(fmt.Errorf("--latency must be one of %s, got %q", strings.Join(results.LatencyKinds, ", "), opt.Latency))
	}
	bc, err := sim.ParseDuration(c.String("before-checkpoint"))
	if err != nil || bc < 0 {
		return opt, nil, badInput(fmt.Errorf("--before-checkpoint: want a duration ≥ 0 such as 3s, got %q", c.String("before-checkpoint")))
	}
	opt.BeforeCheckpoint = math.Max(float64(bc), 1e-9) // 0 would mean "default"
	names = calibrate.DefaultFitFor(pts)
	if c.IsSet("fit") {
		names = strings.Split(c.String("fit"), ",")
	}
	if opt.Fit, err = calibrate.LookupParams(names); err != nil {
		return opt, nil, badInput(err)
	}
	if c.IsSet("cv") {
		if opt.CV, err = calibrate.ParseCV(c.String("cv")); err != nil {
			return opt, nil, badInput(err)
		}
		done := 0
		opt.FoldDone = func(f calibrate.Fold, folds int) {
			done++
			fmt.Fprintf(os.Stderr, "cross-validation %d/%d, %s held out: recovery MAPE twin %s %%, closed form %s %%, OLS %s %%\n",
				done, folds, f.Label, textfmt.Number(f.Twin, 0), textfmt.Number(f.ClosedForm, 0), textfmt.Number(f.OLS, 0))
		}
	}
	if holdout := c.String("holdout"); holdout != "" {
		if opt.Holdout, err = calibrate.HoldoutIntervals(holdout, pts); err != nil {
			return opt, nil, badInput(err)
		}
	}
	opt = opt.WithDefaults(pts)
	if err := opt.Check(pts); err != nil {
		return opt, nil, badInput(err)
	}
	return opt, names, nil
}

// calibrateOutputs returns the calibrated scenario's path and the report
// folder (by default beside the base scenario at path) and makes their
// folders now: failing to write after minutes of fitting would lose them.
func calibrateOutputs(c *cli.Context, path string) (out, report string, err error) {
	out = c.String("out")
	if out == "" {
		stem := strings.TrimSuffix(strings.TrimSuffix(path, filepath.Ext(path)), "-base")
		out = stem + "-calibrated.yaml"
	}
	report = c.String("report")
	if report == "" {
		report = strings.TrimSuffix(out, filepath.Ext(out)) + "-fit"
	}
	for _, d := range []string{filepath.Dir(out), filepath.Dir(report)} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return "", "", badInput(fmt.Errorf("--out/--report: %w", err))
		}
	}
	return out, report, nil
}

// calibrateProgress shows the fit's progress on a terminal: it returns the
// bar it sets opt to drive, nil elsewhere.
func calibrateProgress(opt *calibrate.Options) *progressbar.ProgressBar {
	st, err := os.Stderr.Stat()
	if err != nil || st.Mode()&os.ModeCharDevice == 0 {
		return nil
	}
	bar := progressbar.NewOptions(opt.MaxEvaluations, progressbar.OptionSetWriter(os.Stderr),
		progressbar.OptionSetDescription("calibrating"), progressbar.OptionShowCount(),
		progressbar.OptionThrottle(200*time.Millisecond), progressbar.OptionSetWidth(30), progressbar.OptionClearOnFinish())
	opt.Progress = func(n int, best float64) {
		bar.Describe("calibrating (loss " + textfmt.Number(best, 0) + ")")
		_ = bar.Set(n)
	}
	return bar
}

func printCalibration(r *calibrate.Result, out string, files []string) {
	n := func(x float64) string { return textfmt.Number(x, 0) }
	fmt.Printf("calibrated in %s s (%s, %s)\n", n(r.WallS), textfmt.Plural(r.Evaluations, "evaluation"), r.Status)
	for _, v := range r.Values {
		fmt.Printf("  %-18s %10s → %-10s %s\n", v.Name, n(v.Initial), n(v.Fitted), v.Unit)
	}
	line := func(name string, m calibrate.Metrics) {
		fmt.Printf("  %-9s %s: recovery MAPE %5s %% (closed form %s %%, OLS %s %%, median %s %%, Daedalus %s %%), R² %s", name, textfmt.Plural(m.N, "point"),
			n(m.RecoveryMAPE), n(m.ClosedFormMAPE), n(m.OLSMAPE), n(m.MedianMAPE), n(m.DaedalusMAPE), n(m.RecoveryR2))
		if m.Censored > 0 {
			fmt.Printf(", %s censored", textfmt.Count(float64(m.Censored)))
		}
		if !math.IsNaN(m.Coverage) {
			fmt.Printf(", 90 %% interval coverage %s %%", n(100*m.Coverage))
		}
		if m.LatencyN > 0 {
			fmt.Printf("; latency MAPE %5s %%", n(m.LatencyMAPE))
		}
		fmt.Println()
	}
	line("fitted", r.Fit)
	if r.Held.N > 0 {
		line("held out", r.Held)
	}
	for _, iv := range r.Intervals {
		set := "fitted"
		if iv.HeldOut {
			set = "held out"
		}
		fmt.Printf("  CI %5s %-8s median recovery %6s s measured, %6s s twin (MAPE %5s %%)\n", sim.Duration(iv.CheckpointIntervalS),
			set, n(iv.MeasuredMedianS), n(iv.PredictedMedianS), n(iv.RecoveryMAPE))
	}
	if cv := r.CV; cv != nil {
		fmt.Printf("  cross-validation (%s, %s): recovery MAPE twin %s ± %s %%, closed form %s ± %s %%, OLS %s ± %s %% (mean ± s.d. over folds)\n",
			cv.Scheme, textfmt.Plural(len(cv.Folds), "fold"), n(cv.Twin.Mean), n(cv.Twin.SD), n(cv.ClosedForm.Mean), n(cv.ClosedForm.SD), n(cv.OLS.Mean), n(cv.OLS.SD))
	}
	for _, w := range r.Warnings() {
		fmt.Fprintln(os.Stderr, "warning:", w)
	}
	fmt.Println("→", out)
	fmt.Println("→", strings.Join(files, " "))
}

func convertCommand() *cli.Command {
	return &cli.Command{
		Name:  "convert",
		Usage: "make a measured table from Khaos's failures.txt or from a measured series",
		Description: "--khaos FILE: the FailureMetrics log of dos-group/khaos; rows of the profiling copies\n" +
			"(jobId profile_<CI ms>) become points, the Khaos-managed job (its CI changed during the day) is skipped.\n" +
			"--series FILE --fault-at T1,T2,… [--ci CI]: recovery times detected in a measured run (our\n" +
			"timeseries.parquet, or a CSV time_s,throughput,lag[,latency_ms][,input_rate]) by the simulator's\n" +
			"rule: the first of 15 consecutive samples with lag back at its pre-fault level and throughput\n" +
			"following the input. Without --ci each fault's CI is the series' checkpoint_interval_s in force\n" +
			"before it (our timeseries.parquet; a CSV series needs --ci).",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "khaos", Usage: "Khaos failures.txt"},
			&cli.StringFlag{Name: "series", Usage: "measured series (timeseries.parquet or CSV)"},
			&cli.StringFlag{Name: "fault-at", Usage: "fault times in the series, e.g. 600s,1800s"},
			&cli.StringFlag{Name: "ci", Usage: "checkpoint interval of the measured run, e.g. 60s (default: the series' own at each fault)"},
			&cli.StringFlag{Name: "label", Usage: "label for the series' rows"},
			&cli.StringFlag{Name: "latency", Usage: "the series' latency column averaged into latency_ms: marker (latency-marker p99, what Khaos recorded), p99, p50 or mean (event time); default: marker if the series has it, else p99"},
			&cli.StringFlag{Name: "out", Usage: "table to write (.csv or .parquet)", Required: true},
		},
		Action: runConvert,
	}
}

func runConvert(c *cli.Context) error {
	var pts []calibrate.Point
	switch {
	case c.IsSet("khaos") == c.IsSet("series"):
		return badInput(errors.New("convert needs exactly one of --khaos FILE or --series FILE"))
	case c.IsSet("khaos"):
		if err := requireFile("calibrate convert: --khaos", c.String("khaos")); err != nil {
			return err
		}
		f, err := os.Open(c.String("khaos"))
		if err != nil {
			return badInput(err)
		}
		defer f.Close()
		var skipped int
		if pts, skipped, err = calibrate.ParseKhaosFailures(c.String("khaos"), f); err != nil {
			return badInput(err)
		}
		if skipped > 0 {
			fmt.Fprintf(os.Stderr, "convert: skipped %s of the Khaos-managed job (its CI changed during the run)\n", textfmt.Plural(skipped, "row"))
		}
	default:
		var err error
		if pts, err = seriesPoints(c); err != nil {
			return err
		}
	}
	if err := ingest.WriteMeasured(c.String("out"), pts); err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			return badInput(err)
		}
		return err
	}
	fmt.Printf("%s → %s\n", textfmt.Plural(len(pts), "point"), c.String("out"))
	return nil
}

func seriesPoints(c *cli.Context) ([]calibrate.Point, error) {
	if !c.IsSet("fault-at") {
		return nil, badInput(errors.New("--series needs --fault-at (the fault times in the series)"))
	}
	if k := c.String("latency"); k != "" && !slices.Contains(results.LatencyKinds, k) {
		return nil, badInput(fmt.Errorf("--latency must be one of %s, got %q", strings.Join(results.LatencyKinds, ", "), k))
	}
	var ci sim.Duration // 0: the series' own, at each fault
	if c.String("ci") != "" {
		var err error
		if ci, err = sim.ParseDuration(c.String("ci")); err != nil || ci <= 0 {
			return nil, badInput(fmt.Errorf("--ci: want a positive duration such as 60s, got %q", c.String("ci")))
		}
	}
	if err := requireFile("calibrate convert: --series", c.String("series")); err != nil {
		return nil, err
	}
	samples, err := ingest.ReadMeasuredSeries(c.String("series"))
	if err != nil {
		return nil, badInput(err)
	}
	var faults []sim.Duration
	for _, s := range strings.Split(c.String("fault-at"), ",") {
		at, err := sim.ParseDuration(strings.TrimSpace(s))
		if err != nil {
			return nil, badInput(fmt.Errorf("--fault-at: %q is not a time such as 600s", s))
		}
		faults = append(faults, at)
	}
	series := calibrate.Series{Name: c.String("series"), Samples: samples, CI: float64(ci), Label: c.String("label"), Latency: c.String("latency")}
	pts, err := series.Points(faults)
	if err != nil {
		return nil, badInput(err)
	}
	return pts, nil
}

func hostMetricsCommand() *cli.Command {
	return &cli.Command{
		Name:  "hostmetrics",
		Usage: "fit the twin's host-metric relations (metric = intercept + slope·load(t − lag)) to a measured table",
		Description: "--measured: a CSV " + strings.Join(ingest.HostMeasuredColumns, ",") + " at 1 s (make live-host-profile).\n" +
			"Each metric column present is fitted on the first 1 − holdout of the seconds (least squares at the lag of\n" +
			"best R², up to --max-lag) and judged on the rest, beside the fitted part's mean; prints the table and the\n" +
			"monitoring.metrics block for a scenario (docs/monitoring.md).",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "measured", Usage: "measured table (CSV)", Required: true},
			&cli.StringFlag{Name: "load", Value: "throughput", Usage: "the load column: throughput or input_rate"},
			&cli.IntFlag{Name: "max-lag", Value: 120, Usage: "longest lag tried (s)"},
			&cli.Float64Flag{Name: "holdout", Value: 0.3, Usage: "share of the seconds, at the end, held out of the fit"},
		},
		Action: func(c *cli.Context) error {
			if err := requireFile("calibrate hostmetrics: --measured", c.String("measured")); err != nil {
				return err
			}
			cols, err := ingest.ReadHostMeasured(c.String("measured"))
			if err != nil {
				return badInput(err)
			}
			load, ok := cols[c.String("load")]
			if !ok {
				return badInput(fmt.Errorf("calibrate hostmetrics: --load %s: %s has no such column", c.String("load"), c.String("measured")))
			}
			fits, err := hostmetrics.FitTable(cols, load, c.Int("max-lag"), c.Float64("holdout"))
			if err != nil {
				return badInput(err)
			}
			return hostmetrics.WriteFits(os.Stdout, fits)
		},
	}
}
