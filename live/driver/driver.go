package driver

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/streamtwin/streamtwin/internal/control"
	lifecycle "github.com/streamtwin/streamtwin/internal/run"
	"github.com/streamtwin/streamtwin/internal/scenario"
	"github.com/streamtwin/streamtwin/live/rest"
	"github.com/streamtwin/streamtwin/models/policy"
	"github.com/streamtwin/streamtwin/results"
	"github.com/streamtwin/streamtwin/results/textfmt"
	"github.com/streamtwin/streamtwin/workloads/iot"
	"github.com/streamtwin/streamtwin/workloads/ysb"
)

// Cluster is what fault injection and rescaling need of the cluster: a
// local one (live/cluster) can kill, stop and restart its TaskManager
// processes, numbered from 1 like their resource ids tm-1, tm-2, ….
type Cluster interface {
	TaskManagers() int
	KillTaskManager(i int) error
	StopTaskManager(i int) error
	RestartTaskManager(i int) error
	Running(i int) bool

	// the faults beyond a crash (inject.go), each with its undoing
	FreezeTaskManager(i int) error
	ThawTaskManager(i int) error
	ThrottleTaskManager(i int, cores float64) error
	UnthrottleTaskManager(i int) error
	StopKafka() error
	StartKafka() error
	KillJobManager() error
	StartJobManager() error
	ReadOnly(dir string) error
	Writable(dir string) error
	// FaultLimits are the fault kinds this machine cannot inject, with why.
	FaultLimits() map[string]string
}

// Env is where a run happens.
type Env struct {
	REST      *rest.Client
	Bootstrap string  // Kafka bootstrap servers
	Cluster   Cluster // nil: an external cluster, where faults cannot be injected
	Jar       string  // the job jar (live/jobs)
	StateDir  string  // checkpoints, savepoints and the YSB mapping live here
	Log       io.Writer
	// ExactlyOnce runs the job with an exactly-once Kafka sink and audits
	// the sink topic against the input after the run (audit.go; ysb only).
	ExactlyOnce bool
	// Beside runs beside the run from its start (the run's clock: second k
	// is (start+k s, start+k+1 s]), e.g. a monitoring session; the run
	// waits for it after its last second, and its error fails the run.
	// ctx ends when the run is interrupted, not at its last second.
	Beside func(ctx context.Context, start time.Time) error
}

// Sink receives the run's rows (results.RunWriter is one).
type Sink = lifecycle.Sink

// Backend is a live cluster as a run.Backend (internal/run): the lifecycle
// builds the policy, checks the scenario against Capabilities and writes
// the run folder; Execute replays the run on the cluster.
type Backend struct{ Env Env }

// Name: "live".
func (Backend) Name() string { return "live" }

// Capabilities asks the cluster what it carries out (capabilities), giving
// it 10 s to answer.
func (b Backend) Capabilities(ctx context.Context) (control.Capabilities, error) {
	ping, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	return capabilities(ping, b.Env)
}

// Execute replays p live and streams its rows to sink. The scenario's
// policy, forced actions and faults are driven by the same controller as
// in the simulator (internal/control), with this run as its backend. It
// always cancels the jobs and deletes the topics and jar it created.
func (b Backend) Execute(ctx context.Context, p *lifecycle.Plan, sink lifecycle.Sink) (results.Summary, error) {
	return execute(ctx, p, b.Env, sink)
}

// jobOf maps a scenario's job template to the Java job and its generator.
func jobOf(sc scenario.Scenario) (entry string, err error) {
	switch sc.Job.Template {
	case "ysb":
		return "streamtwin.jobs.YahooStreamingBenchmark", nil
	case "traffic-monitoring":
		return "streamtwin.jobs.TrafficMonitoring", nil
	}
	return "", fmt.Errorf("live mode runs the jobs of live/jobs: set job.template to ysb or traffic-monitoring (got %q)", sc.Job.Template)
}

// run is the state of one live run.
type run struct {
	sc      scenario.Scenario
	sched   *scenario.Schedule
	env     Env
	entry   string
	in, out string
	kafka   *kgo.Client
	adm     *kadm.Client
	jarID   string
	start   time.Time

	mu    sync.Mutex
	jobID string
	// submitted are the IDs of every job the run submitted; cleanup
	// cancels those still active
	submitted []string
	ci        float64
	par       int
	vertices  map[string]int         // the vertices' own parallelism as the last rescale asked it (operator or REST names); nil: all at par
	seenCkpt  map[checkpointKey]bool // the checkpoints written as events (checkpoints.go)

	// the run's state by concern (embedded: their fields read as the
	// run's); what more than one goroutine uses is behind mu
	recording    // the rows and what they are made of
	jobWatch     // the job's state and restarts as the samples saw them (restarts.go)
	faultEffects // what the injected faults changed (inject.go)
	reconfigurer // the reconfigurations under way (reconfigure.go, rescale.go)
	detailing    // per-TaskManager and per-operator metrics (detail.go)

	// the controller's side: its clock loop, and what it registered
	clock *clock
	ctl   *control.Controller
	hooks []func() // checkpoint-trigger hooks, called on the clock's loop
	ctx   context.Context
	stop  context.CancelFunc
	wg    sync.WaitGroup
	errs  chan error
}

// recording is what the run records: its rows, and what the samples and
// the summary are made of.
type recording struct {
	events    []results.Event
	samples   []results.Sample
	latencies []float64 // ms, records that reached the sink since the last sample
	produced  float64   // records produced so far
	wanted    float64   // records the schedule asked for so far
	// staleSamples counts samples whose positions came from the source's
	// record count because Flink's offsets stood still (see staleAfter)
	staleSamples int
}

func (r *run) logf(format string, args ...any) {
	if r.env.Log != nil {
		fmt.Fprintf(r.env.Log, "live: "+format+"\n", args...)
	}
}

// now is the run's clock: seconds since the producer started.
func (r *run) now() float64 { return time.Since(r.start).Seconds() }

func (r *run) event(e results.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if e.TimeS == 0 {
		e.TimeS = r.now()
	}
	r.events = append(r.events, e)
}

// execute is Backend.Execute on env.
func execute(ctx context.Context, p *lifecycle.Plan, env Env, sink Sink) (sum results.Summary, err error) {
	wall := time.Now()
	sc, sched := p.Scenario, p.Schedule
	entry, err := jobOf(sc)
	if err != nil {
		return sum, err
	}
	if env.ExactlyOnce && sc.Job.Template != "ysb" {
		return sum, fmt.Errorf("the sink audit of an exactly-once run counts YSB views per window: set job.template to ysb (got %q)", sc.Job.Template)
	}
	tag := fmt.Sprintf("%s-%d", strings.ReplaceAll(sc.Name, "_", "-"), time.Now().UnixNano()%1e9)
	r := &run{sc: sc, sched: sched, env: env, entry: entry, in: tag + "-in", out: tag + "-out",
		ci: float64(sc.Job.Checkpoint.Interval), par: sc.Job.Parallelism, seenCkpt: map[checkpointKey]bool{}, errs: make(chan error, 8)}
	if r.kafka, err = kgo.NewClient(kgo.SeedBrokers(strings.Split(env.Bootstrap, ",")...),
		kgo.ProducerLinger(5*time.Millisecond), kgo.RequiredAcks(kgo.LeaderAck()), kgo.DisableIdempotentWrite(),
		kgo.ProducerBatchMaxBytes(1<<20)); err != nil {
		return sum, err
	}
	defer r.kafka.Close()
	r.adm = kadm.NewClient(r.kafka)
	defer r.cleanup()
	if err := r.setup(ctx); err != nil {
		return sum, err
	}
	r.ctx, r.stop = context.WithCancel(ctx)
	defer r.stop()
	r.start = time.Now()
	r.runningAt = r.start
	r.clock = newClock(r.start)
	if d, ok := p.Policy.(policy.DetailUser); ok && d.UsesDetail() {
		r.useDetail = true
	}
	for _, f := range sched.Faults {
		r.useDetail = r.useDetail || f.Busiest // the busiest TaskManager is picked by its CPU
	}
	if r.ctl, err = p.Control(r); err != nil {
		return sum, err
	}
	for _, f := range []func(context.Context) error{r.produce, r.consumeLatency, r.sample, r.clock.run} {
		r.wg.Add(1)
		go func() {
			defer r.wg.Done()
			if err := f(r.ctx); err != nil && !errors.Is(err, context.Canceled) {
				r.Fail(err)
			}
		}()
	}
	beside, ended := make(chan error, 1), make(chan struct{})
	if env.Beside != nil {
		// on the caller's ctx, cancelled only when the run fails or is
		// interrupted: it may need a few seconds after the run's last one
		bctx, bcancel := context.WithCancel(ctx)
		defer bcancel()
		go func() {
			err := env.Beside(bctx, r.start)
			if err != nil && !errors.Is(err, context.Canceled) {
				r.Fail(err) // at once: the run stops, it does not go on without it
			}
			beside <- err
		}()
		go func() {
			select {
			case <-ended:
			case <-r.ctx.Done():
				bcancel()
			}
		}()
	} else {
		beside <- nil
	}
	select {
	case <-time.After(time.Duration(float64(sc.Duration) * float64(time.Second))):
		close(ended)
	case <-r.ctx.Done():
	}
	r.stop()
	r.wg.Wait()
	<-beside // its error, if any, is the run's (Fail)
	var runErr error
	select {
	case runErr = <-r.errs:
	default:
		runErr = ctx.Err()
	}
	if runErr != nil {
		return sum, runErr
	}
	if r.wanted > 0 && r.produced < 0.98*r.wanted {
		r.logf("the producer achieved %s records/s of the schedule's %s (%s %%): the results describe the achieved input (input_rate)",
			textfmt.Number(r.produced/float64(sc.Duration), 0), textfmt.Number(r.wanted/float64(sc.Duration), 0), textfmt.Number(100*r.produced/r.wanted, 0))
	}
	if r.staleSamples > 0 {
		r.logf("Flink's source offsets stood still in %s while the source emitted records; their positions come from the source's record count", textfmt.Plural(r.staleSamples, "sample"))
	}
	var audit *results.SinkAudit
	if env.ExactlyOnce {
		if audit, err = r.drainAndAudit(ctx); err != nil {
			return sum, err
		}
		n := func(x int64) string { return textfmt.Count(float64(x)) }
		r.logf("sink audit: %s in, %s counted, %s lost, %s duplicated; %s, %s missing, %s emitted twice",
			textfmt.Plural(int(audit.RecordsIn), "view"), n(audit.RecordsOut), n(audit.RecordsLost), n(audit.RecordsDuplicated),
			textfmt.Plural(audit.Windows, "window"), n(int64(audit.WindowsMissing)), n(int64(audit.WindowsDuplicated)))
		if audit.WindowsMissing > 0 {
			at := func(ms int64) float64 { return float64(ms-r.start.UnixMilli()) / 1000 }
			r.logf("sink audit: missing windows end between %.1f s and %.1f s of the run", at(audit.FirstMissingEndMs), at(audit.LastMissingEndMs))
		}
	}
	sum, err = r.finish(sink, time.Since(wall).Seconds())
	sum.SinkAudit = audit
	return sum, err
}

// setup creates the topics, writes the YSB mapping, uploads the jar and
// submits the job.
func (r *run) setup(ctx context.Context) error {
	parts := int32(r.sc.Kafka.Partitions)
	tctx, cancel := context.WithTimeout(ctx, 10*time.Second) // a black-holed broker is retried for minutes otherwise
	_, err := r.adm.CreateTopics(tctx, parts, 1, nil, r.in, r.out)
	cancel()
	if err != nil {
		return fmt.Errorf("creating topics on %s: %w (hint: is the broker up? streamtwin live up)", r.env.Bootstrap, err)
	}
	if err := os.MkdirAll(r.env.StateDir, 0o755); err != nil {
		return err
	}
	if r.sc.Job.Template == "ysb" {
		if err := os.WriteFile(r.mappingPath(), ysb.NewCampaigns(r.sc.Seed).AppendMapping(nil), 0o644); err != nil {
			return err
		}
	}
	if r.jarID, err = r.env.REST.UploadJar(ctx, r.env.Jar); err != nil {
		return err
	}
	id, err := r.submit(ctx, r.ci, r.par, "")
	if err != nil {
		return err
	}
	r.jobID = id
	r.logf("job %s submitted (%s, parallelism %d, CI %gs); input topic %s", id, r.entry, r.par, r.ci, r.in)
	if _, err := r.waitRunning(ctx, id); err != nil {
		return err
	}
	if r.sc.Job.Rescale.FromCheckpoint() {
		// the cluster starts with the TaskManagers the job needs, as a
		// Deployment with its initial replicas
		o, err := r.env.REST.Overview(ctx)
		if err != nil || o.TaskManagers == 0 {
			return fmt.Errorf("reading the cluster's slots: %v", err)
		}
		slots := o.SlotsTotal / o.TaskManagers
		return r.stopIdleTaskManagers(ctx, (r.par+slots-1)/slots)
	}
	return nil
}

func (r *run) mappingPath() string { return filepath.Join(r.env.StateDir, "ysb-mapping.txt") }

func fileURI(p string) string {
	abs, err := filepath.Abs(p)
	if err != nil {
		abs = p
	}
	return "file://" + abs
}

// submit runs the job with CI ci (s) and parallelism par, from a savepoint
// if one is given.
func (r *run) submit(ctx context.Context, ci float64, par int, savepoint string) (string, error) {
	// named after the input topic: cleanup finds every job of the run by it
	args := []string{"--job-name", r.in, "--bootstrap", r.env.Bootstrap, "--input-topic", r.in, "--output-topic", r.out,
		"--group", r.in + "-job", "--parallelism", fmt.Sprint(par),
		"--checkpoint-interval", fmt.Sprint(int64(math.Round(ci * 1000))), "--state-backend", stateBackend(r.sc),
		"--tolerable-failed-checkpoints", fmt.Sprint(r.sc.Job.Checkpoint.TolerableFailures),
		"--checkpoint-dir", fileURI(filepath.Join(r.env.StateDir, "checkpoints"))}
	if r.sc.Job.Template == "ysb" {
		args = append(args, "--mapping", r.mappingPath())
	}
	if r.env.ExactlyOnce {
		args = append(args, "--delivery-guarantee", "exactly-once")
	}
	// Not cancelled with ctx: Flink creates the job even when the client
	// gives up on the request, and only a returned ID lets cleanup cancel
	// it at once.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Minute)
	defer cancel()
	id, err := r.env.REST.RunJar(ctx, r.jarID, rest.RunRequest{EntryClass: r.entry, ProgramArgsList: args, Parallelism: par,
		SavepointPath: savepoint, AllowNonRestoredState: true})
	if err == nil {
		r.mu.Lock()
		r.submitted = append(r.submitted, id)
		r.mu.Unlock()
	}
	return id, err
}

// stateBackend: RocksDB with incremental checkpoints is what the scenario's
// job config means by incremental (the Khaos jobs); hashmap otherwise.
func stateBackend(sc scenario.Scenario) string {
	if sc.Job.Checkpoint.Incremental {
		return "rocksdb"
	}
	return "hashmap"
}

// waitRunning waits until every task of job id runs and returns the job
// as Flink then showed it.
func (r *run) waitRunning(ctx context.Context, id string) (rest.Job, error) {
	deadline := time.Now().Add(90 * time.Second)
	for time.Now().Before(deadline) {
		j, err := r.env.REST.Job(ctx, id)
		if err == nil && j.State == "RUNNING" && allRunning(j) {
			return j, nil
		}
		if err == nil && (j.State == "FAILED" || j.State == "CANCELED") {
			return j, fmt.Errorf("job %s is %s right after submission; see the JobManager log", id, j.State)
		}
		select {
		case <-ctx.Done():
			return rest.Job{}, ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
	return rest.Job{}, fmt.Errorf("job %s did not reach RUNNING in 90 s (not enough free slots?)", id)
}

func allRunning(j rest.Job) bool {
	for _, v := range j.Vertices {
		if v.Status != "RUNNING" {
			return false
		}
	}
	return len(j.Vertices) > 0
}

// tasksRunningAt is the run time at which every task of job j ran again:
// the last subtask's RUNNING timestamp, to the millisecond, where the
// sampler sees it up to a second late. ok is false when Flink cannot tell.
func (r *run) tasksRunningAt(ctx context.Context, j rest.Job) (at float64, ok bool) {
	last := int64(0)
	for _, v := range j.Vertices {
		ms, ok, err := r.env.REST.SubtasksRunningSince(ctx, j.ID, v.ID)
		if err != nil || !ok {
			return 0, false
		}
		last = max(last, ms)
	}
	at = float64(last-r.start.UnixMilli()) / 1000
	return at, last > 0 && at > 0
}

// cleanup cancels the run's jobs and deletes its jar and topics, even after
// an error or an interrupt.
func (r *run) cleanup() {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	r.mu.Lock()
	ours := map[string]bool{}
	for _, id := range r.submitted {
		ours[id] = true
	}
	r.mu.Unlock()
	// Every job still active that the run submitted or named, until a
	// listing shows none: the driver may have given up on a submission
	// that Flink still carries out.
	for range 5 {
		jobs, err := r.env.REST.Jobs(ctx)
		if err != nil { // cancel what it can name without a listing
			for id := range ours {
				_ = r.env.REST.Cancel(ctx, id)
			}
			break
		}
		left := 0
		for _, j := range jobs {
			if active(j.State) && (j.Name == r.in || ours[j.ID]) {
				left++
				_ = r.env.REST.Cancel(ctx, j.ID)
			}
		}
		if left == 0 {
			break
		}
		if sleepCtx(ctx, time.Second) != nil {
			break
		}
	}
	if r.jarID != "" {
		_ = r.env.REST.DeleteJar(ctx, r.jarID)
	}
	if r.adm != nil {
		_, _ = r.adm.DeleteTopics(ctx, r.in, r.out)
	}
	r.mu.Lock()
	stopped := r.stopped
	r.mu.Unlock()
	for i := range stopped { // the cluster as the run found it
		if err := r.env.Cluster.RestartTaskManager(i); err != nil {
			r.logf("starting TaskManager tm-%d again: %v", i, err)
		}
	}
}

// active: a job state that holds slots or will.
func active(state string) bool {
	switch state {
	case "RUNNING", "RESTARTING", "CREATED", "INITIALIZING", "RECONCILING", "FAILING", "CANCELLING":
		return true
	}
	return false
}

func (r *run) currentJob() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.jobID
}

// produce sends second s's events at the start of second s, as the
// dos-group producers do; when a second takes longer than a second to send,
// the schedule slips and the achieved rate is what input_rate shows.
func (r *run) produce(ctx context.Context) error {
	startMs := r.start.UnixMilli()
	var next func([]byte, int) []byte
	if r.sc.Job.Template == "ysb" {
		next = ysb.NewGenerator(ysb.NewCampaigns(r.sc.Seed), r.sc.Seed, startMs, ysb.Full).AppendSecond
	} else {
		next = iot.NewGenerator(iot.DefaultGraph(), r.sc.Seed, startMs).AppendSecond
	}
	var buf []byte
	n := int(float64(r.sc.Duration))
	for s := 0; s < n; s++ {
		due := r.start.Add(time.Duration(s) * time.Second)
		if d := time.Until(due); d > 0 {
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(d):
			}
		}
		want := int(math.Round(r.sched.Rates.Arrived(float64(s+1)) - r.sched.Rates.Arrived(float64(s))))
		buf = next(buf[:0], want)
		lines := 0
		for rest := buf; len(rest) > 0; lines++ {
			i := bytes.IndexByte(rest, '\n')
			if i < 0 {
				i = len(rest)
			}
			// kgo keeps the value until it is acknowledged: copy it out of buf
			r.kafka.Produce(ctx, &kgo.Record{Topic: r.in, Value: append([]byte(nil), rest[:i]...)}, nil)
			rest = rest[min(i+1, len(rest)):]
		}
		r.mu.Lock()
		r.produced += float64(lines)
		r.wanted += float64(want)
		r.mu.Unlock()
	}
	return r.kafka.Flush(ctx)
}
