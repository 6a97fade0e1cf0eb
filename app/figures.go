package app

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"
	"gonum.org/v1/plot/vg"

	"github.com/streamtwin/streamtwin/results"
	"github.com/streamtwin/streamtwin/results/evaluation"
	"github.com/streamtwin/streamtwin/results/figures"
	"github.com/streamtwin/streamtwin/results/textfmt"
	"github.com/streamtwin/streamtwin/sim"
)

func plotCommand() *cli.Command {
	return &cli.Command{
		Name:      "plot",
		Usage:     "draw a run's figure (figure.png, .svg and .pdf in the run folder)",
		ArgsUsage: "RUN_DIR",
		Description: "RUN_DIR is a folder written by `streamtwin run`; for a scenario with variants,\n" +
			"give the parent folder to plot every variant. --from/--to or --fault zoom in, e.g.\n" +
			"streamtwin plot runs/demo --fault 1   (2 min before the first fault to 2 min after its recovery)",
		Flags:       append(windowFlags(), widthFlag),
		Subcommands: figureCommands(),
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return badInput(fmt.Errorf("plot needs one run folder, e.g. streamtwin plot runs/demo"))
			}
			opts, err := layoutOptions(c)
			if err != nil {
				return err
			}
			dir := c.Args().First()
			dirs := []string{dir}
			if !exists(filepath.Join(dir, results.TimeseriesFile)) {
				subs, _ := results.RunSubfolders(dir)
				if len(subs) == 0 {
					return badInput(fmt.Errorf("%s holds no run (no timeseries.parquet); run a scenario first", dir))
				}
				dirs = dirs[:0]
				for _, s := range subs {
					dirs = append(dirs, filepath.Join(dir, s))
				}
			}
			for _, d := range dirs {
				if err := printPaths(figures.PlotRun(d, opts...)); err != nil {
					return err
				}
			}
			return nil
		},
	}
}

// widthFlag sizes a figure for print.
var widthFlag = &cli.StringFlag{Name: "width", Usage: "figure width: single (3.5 in), double (7 in) or inches, e.g. 5 (default: the figure's screen size)"}

// windowFlags zoom the time axis of `plot` and `plot panels`.
func windowFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "from", Usage: "start of the time axis, since the run's start, e.g. 2h or 90s (default: the start)"},
		&cli.StringFlag{Name: "to", Usage: "end of the time axis, e.g. 2h30m (default: the end)"},
		&cli.IntFlag{Name: "fault", Usage: "zoom on the N'th fault (1 = the first): from --margin before it to --margin after its recovery"},
		&cli.StringFlag{Name: "margin", Value: "2m", Usage: "time shown around a --fault zoom"},
	}
}

// layoutOptions turns --width, --from/--to and --fault/--margin (those the
// command has) into figure options.
func layoutOptions(c *cli.Context) ([]figures.Option, error) {
	opts := figureOptions(c)
	w, err := widthOptions(c)
	if err != nil {
		return nil, err
	}
	opts = append(opts, w...)
	seconds := func(flag string) (float64, error) {
		if !c.IsSet(flag) {
			return math.NaN(), nil
		}
		d, err := sim.ParseDuration(c.String(flag))
		if err == nil && d < 0 {
			err = errors.New("want a duration ≥ 0")
		}
		if err != nil {
			return 0, badInput(fmt.Errorf("--%s %q: %w, e.g. 90s, 15m or 2h", flag, c.String(flag), err))
		}
		return d.Seconds(), nil
	}
	from, err := seconds("from")
	if err != nil {
		return nil, err
	}
	to, err := seconds("to")
	if err != nil {
		return nil, err
	}
	if c.IsSet("fault") {
		if c.IsSet("from") || c.IsSet("to") {
			return nil, badInput(errors.New("--fault sets the time axis itself; give it without --from and --to"))
		}
		if c.Int("fault") < 1 {
			return nil, badInput(fmt.Errorf("--fault %d: faults are numbered from 1", c.Int("fault")))
		}
		margin, err := seconds("margin")
		if err != nil {
			return nil, err
		}
		if math.IsNaN(margin) {
			margin = figures.DefaultFaultMarginS
		}
		return append(opts, figures.WithFault(c.Int("fault"), margin)), nil
	}
	if c.IsSet("margin") {
		// plot faults zooms on every fault: the margin applies to each zoom;
		// plot and plot panels zoom only with --fault.
		if c.Command.Name != "faults" {
			return nil, badInput(errors.New("--margin is the time shown around a --fault zoom; give --fault N with it (or --from/--to for any window)"))
		}
		margin, err := seconds("margin")
		if err != nil {
			return nil, err
		}
		opts = append(opts, figures.WithFaultMargin(margin))
	}
	if !math.IsNaN(from) && !math.IsNaN(to) && to <= from {
		return nil, badInput(fmt.Errorf("--to %s is not after --from %s", c.String("to"), c.String("from")))
	}
	if !math.IsNaN(from) || !math.IsNaN(to) {
		opts = append(opts, figures.WithWindow(from, to))
	}
	return opts, nil
}

// widthOptions turns --width, when given, into figures.WithWidth (for
// `plot` and `evaluate`); a bad value is an input error.
func widthOptions(c *cli.Context) ([]figures.Option, error) {
	if !c.IsSet("width") {
		return nil, nil
	}
	w, err := parseWidth(c.String("width"))
	if err != nil {
		return nil, badInput(fmt.Errorf("--width %q: %w", c.String("width"), err))
	}
	return []figures.Option{figures.WithWidth(w)}, nil
}

// parseWidth reads single, double or a width in inches ("5", "5in").
func parseWidth(s string) (vg.Length, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "single":
		return figures.SingleColumn, nil
	case "double":
		return figures.DoubleColumn, nil
	}
	in, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(s), "in"), 64)
	if err != nil || !(in >= 2 && in <= 20) {
		return 0, errors.New("want single, double or inches from 2 to 20, e.g. 5")
	}
	return vg.Length(in) * vg.Inch, nil
}

// figureCommands are the comparison figures, listed under `plot`: sweep
// lines and heat maps from runs.parquet, latency distributions and time
// panels from several run folders. Each writes BASE.png, BASE.svg and
// BASE.pdf and prints their paths.
func figureCommands() []*cli.Command {
	f := newFigureFlags()
	return []*cli.Command{plotLinesCommand(f), plotHeatmapCommand(f), plotLatencyCommand(f), plotPanelsCommand(f), plotFaultsCommand(f)}
}

// figureFlags are the flags the comparison figures share.
type figureFlags struct {
	out, title, xLabel, yLabel, labels cli.Flag
}

func newFigureFlags() figureFlags {
	return figureFlags{
		out:    &cli.StringFlag{Name: "out", Usage: "output path without extension (writes .png, .svg and .pdf)"},
		title:  &cli.StringFlag{Name: "title", Usage: `figure title ("" for none)`},
		xLabel: &cli.StringFlag{Name: "x-label", Usage: "x axis label (default: from the column name, with its unit)"},
		yLabel: &cli.StringFlag{Name: "y-label", Usage: "y axis label (default: from the column name, with its unit)"},
		labels: &cli.StringSliceFlag{Name: "labels", Usage: "legend names of the runs, in order (repeat, or comma-separate; default: folder names)"},
	}
}

// plotLinesCommand is `plot lines`: a summary figure of a sweep against one
// parameter, a line per value of another.
func plotLinesCommand(f figureFlags) *cli.Command {
	return &cli.Command{
		Name:      "lines",
		Usage:     "a sweep figure against a parameter, one line per value of another: mean and 95% CI over replications",
		ArgsUsage: "RUNS_DIR|runs.parquet",
		Description: "e.g. streamtwin plot lines runs/sweep-ci --x job.checkpoint.interval --y recovery_mean_s --lines workload.rate\n" +
			"--x and --lines are parameter columns of runs.parquet (scenario paths), --y a summary figure.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "x", Usage: "parameter on the x axis, e.g. job.checkpoint.interval"},
			&cli.StringFlag{Name: "y", Usage: "figure on the y axis, e.g. recovery_mean_s"},
			&cli.StringFlag{Name: "lines", Usage: "parameter with one line per value, e.g. workload.rate"},
			f.out, f.title, f.xLabel, f.yLabel,
		},
		Action: func(c *cli.Context) error {
			runs, err := runsTableArg(c, "plot lines")
			if err != nil {
				return err
			}
			if err := needFlags(c, "plot lines", "x", "y"); err != nil {
				return err
			}
			out := outOr(c, filepath.Join(filepath.Dir(runs), "figure-lines-"+fileSafe(c.String("y"))))
			return printPaths(figures.PlotSweepLines(runs, out, c.String("x"), c.String("y"), c.String("lines"), figureOptions(c)...))
		},
	}
}

// plotHeatmapCommand is `plot heatmap`: a summary figure of a sweep on the
// grid of two parameters.
func plotHeatmapCommand(f figureFlags) *cli.Command {
	return &cli.Command{
		Name:        "heatmap",
		Usage:       "a sweep figure on the grid of two parameters: mean over replications per cell",
		ArgsUsage:   "RUNS_DIR|runs.parquet",
		Description: "e.g. streamtwin plot heatmap runs/sweep-ci --x job.checkpoint.interval --y workload.rate --z latency_p99_ms",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "x", Usage: "parameter along the x axis"},
			&cli.StringFlag{Name: "y", Usage: "parameter along the y axis"},
			&cli.StringFlag{Name: "z", Usage: "figure shown by the cell colour, e.g. recovery_mean_s"},
			&cli.StringFlag{Name: "z-label", Usage: "colour bar label (default: from the column name, with its unit)"},
			f.out, f.title, f.xLabel, f.yLabel,
		},
		Action: func(c *cli.Context) error {
			runs, err := runsTableArg(c, "plot heatmap")
			if err != nil {
				return err
			}
			if err := needFlags(c, "plot heatmap", "x", "y", "z"); err != nil {
				return err
			}
			if c.String("x") == c.String("y") {
				return badInput(fmt.Errorf("plot heatmap: --x and --y are both %q; give two parameters", c.String("x")))
			}
			out := outOr(c, filepath.Join(filepath.Dir(runs), "figure-heatmap-"+fileSafe(c.String("z"))))
			return printPaths(figures.PlotHeatmap(runs, out, c.String("x"), c.String("y"), c.String("z"), figureOptions(c)...))
		},
	}
}

// plotLatencyCommand is `plot latency`: the distributions of the
// per-interval latency of several runs.
func plotLatencyCommand(f figureFlags) *cli.Command {
	return &cli.Command{
		Name:      "latency",
		Usage:     "the distribution of per-interval latency of several runs: CDFs or box plots",
		ArgsUsage: "RUN_DIR...",
		Description: "Each RUN_DIR is a run folder; a single folder holding variant sub-folders\n" +
			"(streamtwin run of a scenario with variants) compares those variants.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "kind", Value: figures.LatencyOverview, Usage: "overview (each run's difference from the first at p50…max, beside the tails), cdf, ccdf (the tail), letter or box"},
			&cli.StringFlag{Name: "metric", Value: "p99", Usage: "per-interval latency: p99, p50 or mean"},
			f.labels, f.out, f.title, f.xLabel, f.yLabel, widthFlag,
		},
		Action: func(c *cli.Context) error {
			kind := c.String("kind")
			if !slices.Contains(figures.LatencyKinds, kind) {
				return badInput(fmt.Errorf("plot latency: --kind %q: want one of %s", kind, strings.Join(figures.LatencyKinds, ", ")))
			}
			metric := c.String("metric")
			if !slices.Contains([]string{"p99", "p50", "mean"}, metric) {
				return badInput(fmt.Errorf("plot latency: --metric %q: want p99, p50 or mean", metric))
			}
			dirs, labels, outDir, err := runDirsArg(c, "plot latency")
			if err != nil {
				return err
			}
			name := "figure-latency-" + kind
			if metric != "p99" {
				name += "-" + metric
			}
			opts, err := layoutOptions(c)
			if err != nil {
				return err
			}
			opts = append(opts, figures.WithLatencyColumn("latency_"+metric+"_ms"))
			return printPaths(figures.PlotLatencyDistributions(dirs, labels, outOr(c, filepath.Join(outDir, name)), kind, opts...))
		},
	}
}

// plotPanelsCommand is `plot panels`: the time panels of several runs on one
// time axis.
func plotPanelsCommand(f figureFlags) *cli.Command {
	return &cli.Command{
		Name:      "panels",
		Usage:     "time panels of several runs on one time axis: rates, lag, latency p99, checkpoint interval",
		ArgsUsage: "RUN_DIR...",
		Description: "Each RUN_DIR is a run folder; a single folder holding variant sub-folders\n" +
			"(streamtwin run of a scenario with variants) compares those variants.",
		Flags: append([]cli.Flag{f.labels, f.out, f.title, widthFlag,
			&cli.BoolFlag{Name: "overlay", Usage: "draw every run in one set of axes (the figure before small multiples)"}},
			windowFlags()...),
		Action: func(c *cli.Context) error {
			dirs, labels, outDir, err := runDirsArg(c, "plot panels")
			if err != nil {
				return err
			}
			opts, err := layoutOptions(c)
			if err != nil {
				return err
			}
			if c.Bool("overlay") {
				opts = append(opts, figures.WithOverlay())
			}
			return printPaths(figures.PlotPanels(dirs, labels, outOr(c, filepath.Join(outDir, "figure-panels")), opts...))
		},
	}
}

// plotFaultsCommand is `plot faults`: a zoomed panel per fault of several
// runs.
func plotFaultsCommand(f figureFlags) *cli.Command {
	return &cli.Command{
		Name:      "faults",
		Usage:     "one zoomed panel per fault: each run's lag around it, its recovery time, the recovery bound",
		ArgsUsage: "RUN_DIR...",
		Description: "Each RUN_DIR is a run folder; a single folder holding variant sub-folders\n" +
			"(streamtwin run of a scenario with variants) compares those variants. Panel N holds\n" +
			"the N'th fault of every run, aligned at the fault.",
		Flags: []cli.Flag{f.labels, f.out, f.title, widthFlag,
			&cli.IntFlag{Name: "fault", Usage: "draw only the N'th fault (1 = the first)"},
			&cli.StringFlag{Name: "margin", Value: "2m", Usage: "time shown before each fault and after its latest recovery"}},
		Action: func(c *cli.Context) error {
			dirs, labels, outDir, err := runDirsArg(c, "plot faults")
			if err != nil {
				return err
			}
			opts, err := layoutOptions(c)
			if err != nil {
				return err
			}
			paths, err := figures.PlotFaults(dirs, labels, outOr(c, filepath.Join(outDir, "figure-faults")), opts...)
			if err == nil && len(paths) == 0 {
				fmt.Fprintln(os.Stderr, "plot faults: the runs have no faults; nothing drawn")
			}
			return printPaths(paths, err)
		},
	}
}

// runsTableArg is the one argument of a sweep figure: a sweep folder or its
// runs.parquet.
func runsTableArg(c *cli.Context, cmd string) (string, error) {
	if c.NArg() != 1 {
		return "", badInput(fmt.Errorf("%s needs one sweep folder or its runs.parquet, e.g. streamtwin %s runs/sweep-ci --x … --y …", cmd, cmd))
	}
	path := c.Args().First()
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		path = filepath.Join(path, results.RunsFile)
	}
	if !exists(path) {
		return "", badInput(fmt.Errorf("%s: no such file; run a sweep first", path))
	}
	return path, nil
}

// runDirsArg resolves the run folders of a multi-run figure: the folders
// given, or the variant sub-folders of a single folder that is no run
// itself. It returns the labels (from --labels, or the folder names when
// expanding sub-folders) and the default output folder.
func runDirsArg(c *cli.Context, cmd string) (dirs, labels []string, outDir string, err error) {
	if c.NArg() == 0 {
		return nil, nil, "", badInput(fmt.Errorf("%s needs run folders, or one folder with variant sub-folders, e.g. streamtwin %s runs/demo", cmd, cmd))
	}
	args := c.Args().Slice()
	for _, a := range args {
		if st, err := os.Stat(a); err != nil || !st.IsDir() {
			return nil, nil, "", badInput(fmt.Errorf("%s: no such folder", a))
		}
	}
	if len(args) == 1 && !exists(filepath.Join(args[0], results.TimeseriesFile)) {
		// The order (and so the colours) of evaluate: the scenario's variants.
		dirs, labels, err = evaluation.Runs(args[0])
		if err != nil {
			return nil, nil, "", badInput(fmt.Errorf("%s holds no run (no timeseries.parquet, nor sub-folders with one); run a scenario first", args[0]))
		}
		outDir = args[0]
	} else {
		for _, a := range args {
			if !exists(filepath.Join(a, results.TimeseriesFile)) {
				return nil, nil, "", badInput(fmt.Errorf("%s: not a run folder (no timeseries.parquet)", a))
			}
		}
		dirs = args
		outDir = args[0]
		if len(args) > 1 {
			outDir = commonParent(args)
		}
	}
	if given := splitList(c.StringSlice("labels")); len(given) > 0 {
		if len(given) != len(dirs) {
			return nil, nil, "", badInput(fmt.Errorf("%s: %s --labels for %s (%s)", cmd, textfmt.Count(float64(len(given))), textfmt.Plural(len(dirs), "run"), strings.Join(dirs, ", ")))
		}
		labels = given
	}
	return dirs, labels, outDir, nil
}

// commonParent is the deepest folder containing all of dirs ("." if none).
func commonParent(dirs []string) string {
	split := func(p string) []string {
		p = filepath.Clean(p)
		parent := filepath.Dir(p)
		if parent == "." {
			return nil
		}
		return strings.Split(parent, string(filepath.Separator))
	}
	common := split(dirs[0])
	for _, d := range dirs[1:] {
		parts := split(d)
		n := 0
		for n < len(common) && n < len(parts) && common[n] == parts[n] {
			n++
		}
		common = common[:n]
	}
	if len(common) == 0 {
		if filepath.IsAbs(dirs[0]) {
			return string(filepath.Separator)
		}
		return "."
	}
	out := strings.Join(common, string(filepath.Separator))
	if out == "" {
		return string(filepath.Separator)
	}
	return out
}

func splitList(vs []string) []string {
	var out []string
	for _, v := range vs {
		for _, s := range strings.Split(v, ",") {
			if s = strings.TrimSpace(s); s != "" {
				out = append(out, s)
			}
		}
	}
	return out
}

func needFlags(c *cli.Context, cmd string, names ...string) error {
	var missing []string
	for _, n := range names {
		if c.String(n) == "" {
			missing = append(missing, "--"+n)
		}
	}
	if len(missing) > 0 {
		return badInput(fmt.Errorf("%s needs %s", cmd, strings.Join(missing, " and ")))
	}
	return nil
}

func outOr(c *cli.Context, def string) string {
	if o := c.String("out"); o != "" {
		switch filepath.Ext(o) {
		case ".png", ".svg", ".pdf":
			o = strings.TrimSuffix(o, filepath.Ext(o))
		}
		return o
	}
	return def
}

// fileSafe turns a column name into a file name part.
func fileSafe(s string) string {
	return strings.NewReplacer("/", "_", "[", "", "]", "", " ", "_").Replace(s)
}

func figureOptions(c *cli.Context) []figures.Option {
	var opts []figures.Option
	if c.IsSet("title") {
		opts = append(opts, figures.WithTitle(c.String("title")))
	}
	for _, f := range []struct {
		flag string
		opt  func(string) figures.Option
	}{{"x-label", figures.WithXLabel}, {"y-label", figures.WithYLabel}, {"z-label", figures.WithZLabel}} {
		if v := c.String(f.flag); v != "" {
			opts = append(opts, f.opt(v))
		}
	}
	return opts
}

// printPaths prints the written files; a column the figure needs and the
// file lacks is the user's mistake (exit 2).
func printPaths(paths []string, err error) error {
	if err != nil {
		var ce *results.ColumnError
		if errors.As(err, &ce) || errors.Is(err, figures.ErrWindow) {
			return badInput(err)
		}
		return err
	}
	for _, p := range paths {
		fmt.Println(p)
	}
	return nil
}
