package app

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/streamtwin/streamtwin/live"
	"github.com/streamtwin/streamtwin/live/cluster"
	"github.com/streamtwin/streamtwin/results/textfmt"
)

// liveExtra holds more `live` subcommands; another file of this package
// appends to it from an init function (e.g. `live run`).
var liveExtra []*cli.Command

func liveCommand() *cli.Command {
	return &cli.Command{
		Name:  "live",
		Usage: "run a real Flink session cluster and Kafka broker on this machine (from Maven jars)",
		Description: "Flink " + live.Pinned().Flink + " (1 JobManager, N TaskManagers) and Kafka " + live.Pinned().Kafka +
			" (KRaft, one node) on 127.0.0.1,\n" +
			"started from jars that Maven resolves into ~/.cache/streamtwin/live (STREAMTWIN_LIVE_CACHE overrides).\n" +
			"Needs java 17+ on PATH, and mvn while the jars are not cached.",
		Subcommands: liveSubcommands(),
	}
}

func liveSubcommands() []*cli.Command {
	return append([]*cli.Command{liveUpCommand(), liveDownCommand(), liveStatusCommand()}, liveExtra...)
}

func liveDirFlag() cli.Flag {
	return &cli.StringFlag{Name: "dir", Value: ".streamtwin-live", Usage: "state folder: config, logs, data, pids.json"}
}

// liveContext ends on Ctrl-C or SIGTERM, so that Up stops what it started.
func liveContext(c *cli.Context) (context.Context, context.CancelFunc) {
	return signal.NotifyContext(c.Context, os.Interrupt, syscall.SIGTERM)
}

func noArgs(c *cli.Context) error {
	if c.NArg() > 0 {
		return badInput(fmt.Errorf("live %s takes flags only, got %q", c.Command.Name, c.Args().First()))
	}
	return nil
}

func liveUpCommand() *cli.Command {
	def := cluster.DefaultConfig()
	return &cli.Command{
		Name:  "up",
		Usage: "start Kafka, a JobManager and TaskManagers; wait until healthy",
		Description: "Prints the Flink REST URL and the Kafka bootstrap address. The processes keep running\n" +
			"after this command returns; stop them with `streamtwin live down`. Logs: <dir>/log/<name>.log.",
		Flags: []cli.Flag{
			&cli.IntFlag{Name: "taskmanagers", Value: def.TaskManagers, Usage: "number of TaskManager processes"},
			&cli.IntFlag{Name: "slots", Value: def.Slots, Usage: "task slots per TaskManager"},
			liveDirFlag(),
			&cli.IntFlag{Name: "rest-port", Value: def.Ports.REST, Usage: "Flink REST and web UI port"},
			&cli.IntFlag{Name: "kafka-port", Value: def.Ports.Kafka, Usage: "Kafka broker port"},
			&cli.IntFlag{Name: "jm-rpc-port", Value: def.Ports.JobManagerRPC, Usage: "JobManager RPC port"},
			&cli.IntFlag{Name: "controller-port", Value: def.Ports.KafkaController, Usage: "Kafka KRaft controller port"},
			&cli.StringFlag{Name: "tm-memory", Value: def.TaskManagerMemory, Usage: "taskmanager.memory.process.size of each TaskManager"},
			&cli.StringFlag{Name: "state-backend", Value: def.StateBackend, Usage: "hashmap or rocksdb"},
			&cli.Float64Flag{Name: "tm-cpu", Usage: "limit each TaskManager to this many cores (a cgroup CPU quota, like a pod's CPU limit; needs root), e.g. 0.5; 0: no limit"},
			&cli.StringFlag{Name: "scheduler", Value: "default", Usage: "default, or adaptive: rescales from a checkpoint (job.rescale.mode: checkpoint), the TaskManagers started and stopped as the parallelism needs"},
			&cli.BoolFlag{Name: "prometheus", Usage: "also start node-exporter (cpu, meminfo, diskstats, netdev) and a Prometheus server scraping it and Flink's Prometheus reporter every second (Debian's prometheus and prometheus-node-exporter)"},
			&cli.IntFlag{Name: "prometheus-port", Value: cluster.DefaultPrometheusPorts.Prometheus, Usage: "Prometheus port (with --prometheus)"},
			&cli.IntFlag{Name: "node-exporter-port", Value: cluster.DefaultPrometheusPorts.NodeExporter, Usage: "node-exporter port (with --prometheus)"},
			&cli.IntFlag{Name: "flink-metrics-port", Value: cluster.DefaultPrometheusPorts.FlinkMetrics, Usage: "Flink's Prometheus reporter: the JobManager's port; TaskManager i uses this + i (with --prometheus)"},
			&cli.DurationFlag{Name: "timeout", Value: def.StartTimeout, Usage: "how long to wait for a healthy cluster"},
			&cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "print only the endpoints"},
		},
		Action: func(c *cli.Context) error {
			if err := noArgs(c); err != nil {
				return err
			}
			cfg := cluster.Config{
				Dir:          c.String("dir"),
				TaskManagers: c.Int("taskmanagers"),
				Slots:        c.Int("slots"),
				Ports: cluster.Ports{
					JobManagerRPC:   c.Int("jm-rpc-port"),
					REST:            c.Int("rest-port"),
					Kafka:           c.Int("kafka-port"),
					KafkaController: c.Int("controller-port"),
				},
				TaskManagerMemory: c.String("tm-memory"),
				TaskManagerCPU:    c.Float64("tm-cpu"),
				StateBackend:      c.String("state-backend"),
				StartTimeout:      c.Duration("timeout"),
				Prometheus:        c.Bool("prometheus"),
				PrometheusPorts: cluster.PrometheusPorts{
					Prometheus:   c.Int("prometheus-port"),
					NodeExporter: c.Int("node-exporter-port"),
					FlinkMetrics: c.Int("flink-metrics-port"),
				},
			}
			// zero means default inside cluster.Config: reject it here
			for _, name := range []string{"taskmanagers", "slots", "rest-port", "kafka-port", "jm-rpc-port", "controller-port",
				"prometheus-port", "node-exporter-port", "flink-metrics-port"} {
				if c.Int(name) <= 0 {
					return badInput(fmt.Errorf("--%s must be positive, got %d", name, c.Int(name)))
				}
			}
			if c.Duration("timeout") <= 0 {
				return badInput(fmt.Errorf("--timeout must be positive"))
			}
			switch c.String("scheduler") {
			case "default":
			case "adaptive":
				cfg.FlinkConfig = cluster.AdaptiveScheduler()
			default:
				return badInput(fmt.Errorf("--scheduler must be default or adaptive, got %q", c.String("scheduler")))
			}
			if err := cfg.Validate(); err != nil {
				return badInput(err)
			}
			if !c.Bool("quiet") {
				cfg.Log = func(format string, args ...any) {
					fmt.Fprintf(os.Stderr, "live: "+format+"\n", args...)
				}
			}
			ctx, stop := liveContext(c)
			defer stop()
			t0 := time.Now()
			cl, err := cluster.Up(ctx, cfg)
			if err != nil {
				var ce *cluster.ConfigError
				if errors.As(err, &ce) || errors.Is(err, cluster.ErrPortInUse) || errors.Is(err, cluster.ErrAlreadyRunning) {
					return badInput(err)
				}
				return err
			}
			ep := cl.Endpoints()
			fmt.Fprintf(c.App.Writer, "flink  %s\nkafka  %s\n", ep.REST, ep.Kafka)
			if pe := cl.PrometheusEndpoints(); pe.Prometheus != "" {
				fmt.Fprintf(c.App.Writer, "prometheus  %s (scrapes %s and Flink's reporters %s every 1s)\n",
					pe.Prometheus, pe.NodeExporter, strings.Join(pe.Flink, " "))
			}
			if !c.Bool("quiet") {
				fmt.Fprintf(c.App.Writer, "up in %.1fs: Flink %s, %s × %s, Kafka %s; state in %s\n"+
					"stop with: streamtwin live down --dir %s\n",
					time.Since(t0).Seconds(), cl.State().Flink, textfmt.Plural(cfg.TaskManagers, "TaskManager"), textfmt.Plural(cfg.Slots, "slot"), cl.State().Kafka, cl.Dir(), c.String("dir"))
			}
			return nil
		},
	}
}

func liveDownCommand() *cli.Command {
	return &cli.Command{
		Name:  "down",
		Usage: "stop the live cluster of --dir (SIGTERM, SIGKILL after a grace period)",
		Description: "Exit code 0 also when no cluster runs in --dir (it says so): cleanup scripts can call it\n" +
			"blindly.",
		Flags: []cli.Flag{liveDirFlag()},
		Action: func(c *cli.Context) error {
			if err := noArgs(c); err != nil {
				return err
			}
			cl, err := cluster.Attach(c.String("dir"))
			if errors.Is(err, cluster.ErrNoCluster) {
				// idempotent, so that cleanup scripts can call it blindly
				fmt.Fprintf(c.App.Writer, "nothing to stop: %v\n", err)
				return nil
			}
			if err != nil {
				return err
			}
			t0 := time.Now()
			n := 0
			for _, p := range cl.Processes() {
				if p.Alive {
					n++
				}
			}
			ctx, stop := context.WithTimeout(c.Context, 2*time.Minute)
			defer stop()
			if err := cl.Down(ctx); err != nil {
				return err
			}
			fmt.Fprintf(c.App.Writer, "stopped %s in %.1fs (%s)\n", textfmt.Plural(n, "process"), time.Since(t0).Seconds(), cl.Dir())
			return nil
		},
	}
}

func liveStatusCommand() *cli.Command {
	return &cli.Command{
		Name:  "status",
		Usage: "show the processes of --dir and what Flink and Kafka answer",
		Description: "Exit code 0 when every process runs, /overview shows all TaskManagers and Kafka answers;\n" +
			"1 otherwise.",
		Flags: []cli.Flag{liveDirFlag()},
		Action: func(c *cli.Context) error {
			if err := noArgs(c); err != nil {
				return err
			}
			cl, err := cluster.Attach(c.String("dir"))
			if err != nil {
				if errors.Is(err, cluster.ErrNoCluster) {
					return badInput(err)
				}
				return err
			}
			w := c.App.Writer
			st := cl.State()
			ep := cl.Endpoints()
			fmt.Fprintf(w, "cluster in %s: Flink %s, Kafka %s, up since %s\n", cl.Dir(), st.Flink, st.Kafka,
				st.Created.Local().Format(time.DateTime))
			healthy := true
			for _, p := range cl.Processes() {
				if p.Alive {
					fmt.Fprintf(w, "  %-13s pid %-7d running  RSS %4d MiB  CPU %6.1fs  %s\n",
						p.Name, p.PID, p.RSSKiB/1024, p.CPU.Seconds(), p.Log)
				} else {
					healthy = false
					fmt.Fprintf(w, "  %-13s %-11s stopped  %s\n", p.Name, "", p.Log)
				}
			}
			ctx, stop := context.WithTimeout(c.Context, 5*time.Second)
			defer stop()
			if o, err := cl.Overview(ctx); err != nil {
				healthy = false
				fmt.Fprintf(w, "flink  %s: %v\n", ep.REST, err)
			} else {
				if o.TaskManagers != st.TaskManagers {
					healthy = false
				}
				fmt.Fprintf(w, "flink  %s: %d/%s, %d/%s free, %s running (%d finished, %d cancelled, %d failed)\n",
					ep.REST, o.TaskManagers, textfmt.Plural(st.TaskManagers, "TaskManager"), o.SlotsAvailable, textfmt.Plural(o.SlotsTotal, "slot"),
					textfmt.Plural(o.JobsRunning, "job"), o.JobsFinished, o.JobsCancelled, o.JobsFailed)
			}
			if md, err := cl.KafkaMetadata(ctx); err != nil {
				healthy = false
				fmt.Fprintf(w, "kafka  %s: %v\n", ep.Kafka, err)
			} else {
				var topics []string // a run's, not Kafka's own (__consumer_offsets)
				for name, td := range md.Topics {
					if !td.IsInternal {
						topics = append(topics, name)
					}
				}
				slices.Sort(topics)
				fmt.Fprintf(w, "kafka  %s: %s, controller %d, %s\n", ep.Kafka, textfmt.Plural(len(md.Brokers), "broker"), md.Controller, textfmt.Plural(len(topics), "topic"))
				for _, name := range topics {
					fmt.Fprintf(w, "  topic %s\n", name)
				}
			}
			if pe := cl.PrometheusEndpoints(); pe.Prometheus != "" {
				if ps, err := cl.PrometheusStatus(ctx); err != nil || !ps.Ready {
					healthy = false
					fmt.Fprintf(w, "prometheus  %s: not ready (%v)\n", pe.Prometheus, err)
				} else {
					if ps.TargetsUp < ps.Targets || !ps.NodeExporter {
						healthy = false
					}
					off := "none"
					if len(ps.Off) > 0 {
						off = strings.Join(ps.Off, ", ")
					}
					fmt.Fprintf(w, "prometheus  %s: %d/%d targets up (node-exporter, Flink's reporters), scrape interval 1s, families off: %s\n",
						pe.Prometheus, ps.TargetsUp, ps.Targets, off)
				}
			}
			if !healthy {
				return cli.Exit("live cluster not healthy", 1)
			}
			return nil
		},
	}
}
