package app

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/streamtwin/streamtwin/models/flink"
	"github.com/streamtwin/streamtwin/results"
	"github.com/streamtwin/streamtwin/results/figures"
	"github.com/streamtwin/streamtwin/results/statistics"
	"github.com/streamtwin/streamtwin/results/textfmt"
	"github.com/streamtwin/streamtwin/sim"
	"github.com/streamtwin/streamtwin/workloads"
	"github.com/streamtwin/streamtwin/workloads/iot"
	"github.com/streamtwin/streamtwin/workloads/ysb"
)

// scheduleFlags shape a built-in workload on the command line.
var scheduleFlags = []cli.Flag{
	&cli.StringFlag{Name: "duration", Usage: "length, e.g. 6h (default: the workload's own length)"},
	&cli.StringFlag{Name: "peak", Usage: "scale so the highest rate is this, in " + rateUsage + "100000 or 100k/s"},
	&cli.StringFlag{Name: "period", Usage: "compress one cycle (a day, a trace) into this long, e.g. 6h"},
	&cli.Float64Flag{Name: "noise", Value: -1, Usage: "relative seeded noise, e.g. 0.02 (default: the workload's)"},
	&cli.Uint64Flag{Name: "seed", Value: 1, Usage: "root seed"},
}

// resolveRates turns NAME|SCENARIO into per-second rates and a label.
func resolveRates(c *cli.Context) ([]float64, string, error) {
	if c.NArg() != 1 {
		return nil, "", badInput(fmt.Errorf("give one workload name (streamtwin workload list) or scenario file"))
	}
	arg := c.Args().First()
	if strings.HasSuffix(arg, ".yaml") || strings.HasSuffix(arg, ".yml") {
		f, err := loadScenario(c)
		if err != nil {
			return nil, "", err
		}
		sc := f.Runs()[0]
		sched, err := sc.Resolve()
		if err != nil {
			return nil, "", badInput(err)
		}
		return sched.Rates.Rates, sc.Name, nil
	}
	cfg := workloads.Config{Name: arg}
	if strings.Contains(arg, string(filepath.Separator)) || strings.Contains(arg, ".") {
		cfg = workloads.Config{Shape: "trace", File: arg}
		if err := requireFile(commandName(c)+": trace file", arg); err != nil {
			return nil, "", err
		}
	}
	var err error
	if s := c.String("peak"); s != "" {
		if cfg.Peak, err = parseRateFlag("peak", s); err != nil {
			return nil, "", badInput(err)
		}
	}
	if s := c.String("period"); s != "" {
		if cfg.Period, err = sim.ParseDuration(s); err != nil {
			return nil, "", badInput(fmt.Errorf("--period: %w", err))
		}
	}
	if n := c.Float64("noise"); n >= 0 {
		cfg.Noise = &n
	}
	if errs := cfg.Validate(); len(errs) > 0 {
		var msgs []string
		for k, v := range errs {
			msgs = append(msgs, k+": "+v)
		}
		sort.Strings(msgs)
		return nil, "", badInput(fmt.Errorf("%s: %s", arg, strings.Join(msgs, "; ")))
	}
	length, err := workloads.NaturalLength(cfg, "")
	if err != nil {
		return nil, "", badInput(err)
	}
	if s := c.String("duration"); s != "" {
		d, err := sim.ParseDuration(s)
		if err != nil || d <= 0 {
			return nil, "", badInput(fmt.Errorf("--duration: give a positive duration such as 6h"))
		}
		length = float64(d)
	}
	sched, err := workloads.Build(cfg, sim.Duration(length), "", sim.Seeds{Root: c.Uint64("seed")})
	if err != nil {
		return nil, "", badInput(err)
	}
	return sched.Rates, arg, nil
}

func workloadCommand() *cli.Command {
	return &cli.Command{
		Name:  "workload",
		Usage: "inspect, export and generate workloads",
		Subcommands: []*cli.Command{
			{
				Name:  "list",
				Usage: "the built-in workloads, shapes and job templates",
				Action: func(c *cli.Context) error {
					w := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', 0)
					fmt.Fprintln(w, "WORKLOAD\tDESCRIPTION")
					for _, b := range workloads.Builtins() {
						fmt.Fprintf(w, "%s\t%s\n", b.Name, b.Description)
					}
					w.Flush()
					fmt.Printf("\nshapes: %s\njob templates: %s\nevent generators: ysb (full 7-field JSON), ysb-compact ({ts,id,et}), iot ({lp,pt,ts})\n",
						strings.Join(workloads.Shapes, ", "), strings.Join(flink.Templates(), ", "))
					return nil
				},
			},
			{
				Name:      "show",
				Usage:     "statistics of a workload: min, mean, max, percentiles, hourly profile, total events",
				ArgsUsage: "NAME|SCENARIO.yaml|TRACE",
				Flags:     scheduleFlags,
				Action: func(c *cli.Context) error {
					rates, label, err := resolveRates(c)
					if err != nil {
						return err
					}
					showRates(label, rates)
					return nil
				},
			},
			{
				Name:      "export",
				Usage:     "write a workload's per-second rates as CSV (time_s,rate) or Parquet",
				ArgsUsage: "NAME|SCENARIO.yaml|TRACE",
				Flags: append([]cli.Flag{
					&cli.StringFlag{Name: "format", Value: "csv", Usage: "csv or parquet"},
					&cli.StringFlag{Name: "out", Usage: "output file (default: stdout for csv)"},
				}, scheduleFlags...),
				Action: func(c *cli.Context) error {
					rates, _, err := resolveRates(c)
					if err != nil {
						return err
					}
					out := c.String("out")
					switch c.String("format") {
					case "csv":
						if out == "" {
							return workloads.WriteCSV(os.Stdout, rates)
						}
						var b strings.Builder
						if err := workloads.WriteCSV(&b, rates); err != nil {
							return err
						}
						return results.WriteFileAtomic(out, []byte(b.String()))
					case "parquet":
						if out == "" {
							return badInput(fmt.Errorf("--format parquet needs --out FILE.parquet"))
						}
						b, err := workloads.ParquetBytes(rates)
						if err != nil {
							return err
						}
						return results.WriteFileAtomic(out, b)
					}
					return badInput(fmt.Errorf("--format must be csv or parquet, got %q", c.String("format")))
				},
			},
			{
				Name:      "plot",
				Usage:     "draw a workload: rate over time and hourly profile (PNG + SVG)",
				ArgsUsage: "NAME|SCENARIO.yaml|TRACE",
				Flags:     append([]cli.Flag{&cli.StringFlag{Name: "out", Usage: "file name without extension (default: runs/workload-NAME)"}}, scheduleFlags...),
				Action: func(c *cli.Context) error {
					rates, label, err := resolveRates(c)
					if err != nil {
						return err
					}
					out := c.String("out")
					if out == "" {
						os.MkdirAll("runs", 0o755)
						out = filepath.Join("runs", "workload-"+strings.TrimSuffix(filepath.Base(label), filepath.Ext(label)))
					}
					return printPaths(figures.PlotRates(out, label, rates))
				},
			},
			eventsCommand(),
		},
	}
}

func eventsCommand() *cli.Command {
	return &cli.Command{
		Name:  "events",
		Usage: "write a workload's real events as JSON lines to stdout (pipe into a Kafka producer)",
		Description: "NAME picks the generator: ysb… → YSB ad events (--format full|compact), iot… → IoT vehicle\n" +
			"positions (the rate is the number of active vehicles). With --rate the rate is constant;\n" +
			"otherwise it follows the named workload's schedule. --mapping writes YSB's ad → campaign table.",
		ArgsUsage: "NAME|SCENARIO.yaml",
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "rate", Usage: "constant rate in " + rateUsage + "50000 or 50k/s"},
			&cli.StringFlag{Name: "format", Value: "full", Usage: "YSB: full (7-field JSON) or compact ({ts,id,et})"},
			&cli.BoolFlag{Name: "mapping", Usage: "YSB: write the ad → campaign mapping instead of events"},
			&cli.StringFlag{Name: "start", Value: "2021-08-02T00:00:00Z", Usage: "event time of the first second (RFC 3339)"},
		}, scheduleFlags...),
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return badInput(fmt.Errorf("workload events needs a workload name, e.g. ysb-day or iot-day"))
			}
			name := c.Args().First()
			kind := ""
			switch {
			case strings.HasPrefix(filepath.Base(name), "ysb"):
				kind = "ysb"
			case strings.HasPrefix(filepath.Base(name), "iot"), strings.HasPrefix(filepath.Base(name), "traffic"):
				kind = "iot"
			default:
				return badInput(fmt.Errorf("%s: cannot tell the generator; use a name starting with ysb or iot", name))
			}
			start, err := time.Parse(time.RFC3339, c.String("start"))
			if err != nil {
				return badInput(fmt.Errorf("--start: %w", err))
			}
			seed := c.Uint64("seed")
			w := bufio.NewWriterSize(os.Stdout, 1<<20)
			defer w.Flush()
			campaigns := ysb.NewCampaigns(seed)
			if c.Bool("mapping") {
				if kind != "ysb" {
					return badInput(fmt.Errorf("--mapping is for YSB workloads"))
				}
				_, err := w.Write(campaigns.AppendMapping(nil))
				return err
			}
			var rates []float64
			if r := c.String("rate"); r != "" {
				rate, err := parseRateFlag("rate", r)
				if err != nil {
					return badInput(err)
				}
				d := sim.Duration(10)
				if s := c.String("duration"); s != "" {
					if d, err = sim.ParseDuration(s); err != nil || d <= 0 {
						return badInput(fmt.Errorf("--duration: give a positive duration such as 60s"))
					}
				}
				rates = make([]float64, int(math.Ceil(float64(d))))
				for i := range rates {
					rates[i] = float64(rate)
				}
			} else if name == "ysb" || name == "iot" {
				return badInput(fmt.Errorf("give --rate, or a workload with a schedule such as %s-day", name))
			} else if rates, _, err = resolveRates(c); err != nil {
				return err
			}
			var next func(dst []byte, rate int) []byte
			if kind == "ysb" {
				format, err := ysb.ParseFormat(c.String("format"))
				if err != nil {
					return badInput(err)
				}
				next = ysb.NewGenerator(campaigns, seed, start.UnixMilli(), format).AppendSecond
			} else {
				next = iot.NewGenerator(iot.DefaultGraph(), seed, start.UnixMilli()).AppendSecond
			}
			var buf []byte
			for _, r := range rates {
				buf = next(buf[:0], int(math.Round(r)))
				if _, err := w.Write(buf); err != nil {
					return nil // the reader went away (e.g. head): not an error
				}
			}
			return nil
		},
	}
}

// showRates prints the statistics of a schedule.
func showRates(label string, rates []float64) {
	sorted := append([]float64(nil), rates...)
	sort.Float64s(sorted)
	var total float64
	for _, r := range rates {
		total += r
	}
	q := func(p float64) float64 { return statistics.Quantile(sorted, p) } // sorted already: no work
	n := func(x float64) string { return textfmt.Number(x, 0) }
	fmt.Printf("%s: %s at 1 s (%s s)\n", label, sim.Duration(len(rates)), textfmt.Count(float64(len(rates))))
	fmt.Printf("  rate (records/s): min %s  mean %s  max %s\n", n(sorted[0]), n(total/float64(len(rates))), n(sorted[len(sorted)-1]))
	fmt.Printf("  percentiles: p5 %s  p25 %s  p50 %s  p75 %s  p95 %s  p99 %s\n", n(q(.05)), n(q(.25)), n(q(.5)), n(q(.75)), n(q(.95)), n(q(.99)))
	fmt.Printf("  total events: %s\n", textfmt.Count(total))
	means, byDay := figures.HourlyProfile(rates)
	if byDay {
		fmt.Println("  hourly profile (mean records/s by hour of day over all days):")
	} else {
		fmt.Println("  hourly profile (mean records/s per hour since start):")
	}
	peak := 0.0
	for _, m := range means {
		peak = math.Max(peak, m)
	}
	for h, m := range means {
		bar := ""
		if peak > 0 {
			bar = strings.Repeat("█", int(math.Round(40*m/peak)))
		}
		fmt.Printf("  %3d h %10s %s\n", h, n(m), bar)
	}
}
