package app

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"syscall"

	"github.com/urfave/cli/v2"

	"github.com/streamtwin/streamtwin/internal/run"
	"github.com/streamtwin/streamtwin/internal/scenario"
	"github.com/streamtwin/streamtwin/live/cluster"
	"github.com/streamtwin/streamtwin/live/driver"
	"github.com/streamtwin/streamtwin/live/prometheus"
	"github.com/streamtwin/streamtwin/live/rest"
	"github.com/streamtwin/streamtwin/live/scrape"
	"github.com/streamtwin/streamtwin/results/textfmt"
	"github.com/streamtwin/streamtwin/sim"
)

func init() { liveExtra = append(liveExtra, liveRunCommand()) }

// defaultJobJar is where `make live-jobs` puts the Java jobs.
const defaultJobJar = "live/jobs/target/streamtwin-jobs.jar"

func liveRunCommand() *cli.Command {
	return &cli.Command{
		Name:      "run",
		Usage:     "replay a scenario's schedule against the real Flink job and Kafka broker; writes the simulator's files",
		ArgsUsage: "SCENARIO.yaml",
		Description: "Creates the input and output topics (the scenario's partitions), uploads and submits the job\n" +
			"(job.template ysb or traffic-monitoring, with the scenario's parallelism and CI), produces the\n" +
			"workload's real events at the schedule's per-second rates, kills the TaskManagers of the\n" +
			"schedule's faults (Khaos-aligned ones 3 s before a checkpoint, from the REST checkpoint\n" +
			"statistics) and restarts them after job.cluster.restart_delay, runs the scenario's policy\n" +
			"(CI changes by stop-with-savepoint + resubmit) and samples metrics every second. It always\n" +
			"cancels its jobs and deletes its topics and jar, also on Ctrl-C.\n" +
			"With a monitoring section (on `live up --prometheus`), its live sampler turns Prometheus's scraping\n" +
			"on and off after the training part, and every sampler is replayed on the host's real metrics:\n" +
			"tradeoff.csv, hostmetrics.parquet and monitoring-live.csv (docs/monitoring.md, \"Live\").\n" +
			"Against a cluster of `streamtwin live up` (--dir), or an existing one with --flink and --kafka\n" +
			"(no fault injection there: its TaskManagers are not ours to kill).",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "variant", Usage: "run this variant"},
			setFlag(),
			&cli.StringFlag{Name: "out", Usage: "run folder (default runs/live-<scenario>[/<variant>])"},
			&cli.StringFlag{Name: "dir", Value: ".streamtwin-live", Usage: "the local cluster's folder (streamtwin live up)"},
			&cli.StringFlag{Name: "flink", Usage: "REST URL of an existing Flink cluster, e.g. http://flink:8081"},
			&cli.StringFlag{Name: "kafka", Usage: "bootstrap servers of an existing Kafka, e.g. kafka:9092"},
			&cli.StringFlag{Name: "jar", Value: defaultJobJar, Usage: "the job jar (build it with make live-jobs)"},
			&cli.BoolFlag{Name: "force", Usage: "write into an --out holding files streamtwin did not write, beside them (they are never touched)"},
			&cli.BoolFlag{Name: "exactly-once", Usage: "run the job with an exactly-once Kafka sink and audit the sink against the input at the end (views lost or duplicated → summary.json sink_audit; job.template ysb)"},
		},
		Action: func(c *cli.Context) error {
			f, err := loadScenario(c)
			if err != nil {
				return err
			}
			var names []string
			if v := c.String("variant"); v != "" {
				names = []string{v}
			}
			runs, err := selectVariants(f, names)
			if err != nil {
				return err
			}
			if len(runs) != 1 {
				return badInput(fmt.Errorf("%s has %d variants: live mode replays one at a time, pick it with --variant", f.Path, len(runs)))
			}
			out := c.String("out")
			if out == "" {
				out = filepath.Join("runs", "live-"+runs[0].Name)
				if runs[0].Variant != "" {
					out = filepath.Join(out, runs[0].Variant)
				}
			}
			if _, err := os.Stat(c.String("jar")); err != nil {
				return badInput(fmt.Errorf("live run: --jar %s: no such job jar (build it with `make live-jobs`, or pass --jar)", c.String("jar")))
			}
			if c.Bool("exactly-once") && runs[0].Job.Template != "ysb" {
				return badInput(fmt.Errorf("%s: job.template: --exactly-once audits YSB view counts, so it needs ysb (got %q)", f.Path, runs[0].Job.Template))
			}
			env := driver.Env{Jar: c.String("jar"), Log: os.Stderr, ExactlyOnce: c.Bool("exactly-once")}
			var cl *cluster.Cluster
			switch {
			case c.IsSet("flink") != c.IsSet("kafka"):
				return badInput(errors.New("an existing cluster needs both --flink URL and --kafka BROKERS"))
			case c.IsSet("flink"):
				env.REST, env.Bootstrap = rest.New(c.String("flink")), c.String("kafka")
				env.StateDir = filepath.Join(c.String("dir"), "state")
			default:
				cl, err = cluster.Attach(c.String("dir"))
				if err != nil {
					return badInput(fmt.Errorf("%w: start one with `streamtwin live up --dir %s`, or use --flink/--kafka", err, c.String("dir")))
				}
				ep := cl.Endpoints()
				env.REST, env.Bootstrap, env.Cluster, env.StateDir = rest.New(ep.REST), ep.Kafka, cl, filepath.Join(cl.Dir(), "state")
			}
			// Khaos needs its models: from policy.profile, or profiled on the
			// twin first, as `run` does; they are inlined into the run
			// folder's scenario.yaml.
			if runs, err = withKhaosModels(f, runs, out); err != nil {
				return err
			}
			sc := runs[0]
			output := run.Output{Durable: true, Force: c.Bool("force")}
			var session *scrape.Session
			if sc.Monitoring != nil {
				if session, err = monitoringSession(f.Path, sc, cl); err != nil {
					return err
				}
				env.Beside, output.Monitoring = session.Run, session.Evaluate
			}
			// the live driver executes the run; the run folder is written as `run` writes it
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			sum, err := run.ToDir(ctx, driver.Backend{Env: env}, sc, out, output)
			if err != nil {
				return refusedAt(f.Path, err)
			}
			if session != nil {
				fmt.Print(session.Accounting())
			}
			fmt.Printf("%s: %s s replayed live; %s → %s\n", sc.Name, textfmt.Number(sum.DurationS, 0), faultsPhrase(sum), out)
			if a := sum.SinkAudit; a != nil {
				fmt.Printf("sink audit: %s in, %s counted; %s lost, %s duplicated\n", textfmt.Plural(int(a.RecordsIn), "view"), textfmt.Count(float64(a.RecordsOut)), textfmt.Count(float64(a.RecordsLost)), textfmt.Count(float64(a.RecordsDuplicated)))
			}
			return nil
		},
	}
}

// monitoringSession is the monitoring side of a live run of sc, whose
// section needs a live sampler and live queries, and the local cluster's
// Prometheus with its ground-truth job; what is missing is refused before
// the run starts.
func monitoringSession(path string, sc scenario.Scenario, cl *cluster.Cluster) (*scrape.Session, error) {
	refused := map[string]string{}
	for field, msg := range sc.Monitoring.LiveProblems() {
		refused["monitoring."+field] = msg
	}
	if len(refused) > 0 {
		return nil, badInput(scenario.ProblemsAt(path, refused))
	}
	if cl == nil {
		return nil, badInput(fmt.Errorf("%s: monitoring: a live run measures the host with the local cluster's Prometheus: run it on `streamtwin live up --prometheus` (--dir), not --flink/--kafka", path))
	}
	pc, err := cl.Prometheus()
	if err != nil {
		return nil, badInput(fmt.Errorf("%s: monitoring: %w", path, err))
	}
	conf, err := prometheus.ReadFile(cl.PrometheusEndpoints().Config)
	if err != nil {
		return nil, err
	}
	if !slices.ContainsFunc(conf.ScrapeConfigs, func(s prometheus.ScrapeConfig) bool { return s.JobName == prometheus.TruthJob }) {
		return nil, badInput(fmt.Errorf("%s: monitoring: the cluster's Prometheus has no job %s, the ground truth (an older live up): restart it with `streamtwin live down --dir %s && streamtwin live up --prometheus --dir %s`",
			path, prometheus.TruthJob, cl.Dir(), cl.Dir()))
	}
	return &scrape.Session{Client: pc, Spec: *sc.Monitoring, Seeds: sim.Seeds{Root: sc.Seed}, Seconds: int(sc.Duration),
		Log: func(format string, args ...any) { fmt.Fprintf(os.Stderr, format+"\n", args...) }}, nil
}
