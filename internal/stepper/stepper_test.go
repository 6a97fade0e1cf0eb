package stepper

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"io"
	"math"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/streamtwin/streamtwin/internal/run"
	"github.com/streamtwin/streamtwin/internal/twin"
	"github.com/streamtwin/streamtwin/models/policy"
	"github.com/streamtwin/streamtwin/results"
)

const scenarioPath = "../../python/streamtwin/scenarios/checkpoint-tuning.yaml"

// discard is a sink that keeps nothing.
type discard struct{}

func (discard) WriteSample(results.Sample) error { return nil }
func (discard) WriteEvent(results.Event) error   { return nil }

// A learner that holds every tick makes the run the scenario's own static
// policy makes: the same summary, and its costs are summary.json's counts.
func TestHoldingLearnerIsTheStaticRun(t *testing.T) {
	sc := loadScenario(t, scenarioPath)
	sc.Seed = 5
	ep, obs, err := Start(sc, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	ticks := 0
	for !obs.End {
		ticks++
		if want := time.Duration(ticks) * 10 * time.Second; obs.Now != want {
			t.Fatalf("tick %d at %v, want %v", ticks, obs.Now, want)
		}
		if obs, err = ep.Step(nil); err != nil {
			t.Fatal(err)
		}
	}
	if want := HelloOf(sc, 10*time.Second).Steps; ticks+1 != want {
		t.Errorf("%d observations, hello says %d", ticks+1, want)
	}
	sched, err := sc.Resolve()
	if err != nil {
		t.Fatal(err)
	}
	static, err := run.Stream(context.Background(), twin.Backend{}, sc, sched, discard{})
	if err != nil {
		t.Fatal(err)
	}
	got := obs.Summary
	got.WallTimeS, static.WallTimeS = 0, 0
	if !reflect.DeepEqual(got, static) {
		t.Errorf("the learner's run differs from the static run:\n got %+v\nwant %+v", got, static)
	}
	if obs.QoS != static.QoS || obs.WorkerSeconds != static.WorkerSeconds {
		t.Errorf("costs at the end %+v, %v worker-s; summary %+v, %v", obs.QoS, obs.WorkerSeconds, static.QoS, static.WorkerSeconds)
	}
	if static.Faults == 0 || static.QoS.LatencyViolationSeconds == 0 {
		t.Errorf("seed 5 of %s should crash a TaskManager and violate the latency bound: %+v", scenarioPath, static)
	}
}

// The rows handed out are each sample once, in order, ending with the
// end's rows: 7,200 rows of a 2 h run at 1 s (times 1…7200).
func TestRowsOnce(t *testing.T) {
	sc := loadScenario(t, scenarioPath)
	ep, obs, err := Start(sc, 30*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	next := 1.0
	for {
		for _, r := range obs.Rows {
			if r.TimeS != next {
				t.Fatalf("at %v: row at %v s, want %v s", obs.Now, r.TimeS, next)
			}
			next++
		}
		if obs.End {
			break
		}
		// The row that ends at a tick comes with the next one (as an external
		// policy's): rows 1…29 s at 30 s, then 30…59 s at 60 s, ….
		if first := obs.Now == 30*time.Second; first && len(obs.Rows) != 29 || !first && len(obs.Rows) != 30 {
			t.Errorf("at %v: %d rows", obs.Now, len(obs.Rows))
		}
		if obs, err = ep.Step(nil); err != nil {
			t.Fatal(err)
		}
	}
	if next != 7201 {
		t.Errorf("rows up to %v s, want 7200 s", next-1)
	}
}

// A learner's action is carried out at its tick, as an external policy's.
func TestActionsAreCarriedOut(t *testing.T) {
	sc := loadScenario(t, scenarioPath)
	ep, obs, err := Start(sc, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer ep.Close()
	if obs.Job.CheckpointInterval != 60*time.Second {
		t.Fatalf("starts at CI %v, want 60s", obs.Job.CheckpointInterval)
	}
	obs, err = ep.Step([]policy.Action{{Kind: policy.SetCheckpointInterval, Interval: 30 * time.Second, Reason: Name}})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 6 && obs.Job.CheckpointInterval != 30*time.Second; i++ { // stop-with-savepoint, then resubmission
		if obs, err = ep.Step(nil); err != nil {
			t.Fatal(err)
		}
	}
	if obs.Job.CheckpointInterval != 30*time.Second || obs.Job.State != "RUNNING" {
		t.Errorf("at %v: CI %v in state %s, want 30s RUNNING within a minute", obs.Now, obs.Job.CheckpointInterval, obs.Job.State)
	}
}

// request is one request of the stepping protocol.
func request(op uint32, integer uint64, number float64) []byte {
	b := make([]byte, RequestSize)
	binary.LittleEndian.PutUint32(b, op)
	binary.LittleEndian.PutUint64(b[8:], integer)
	binary.LittleEndian.PutUint64(b[16:], math.Float64bits(number))
	return b
}

// client reads hello and frames from a Serve over pipes.
type client struct {
	t       *testing.T
	in      io.Writer
	out     *bufio.Reader
	summary *results.Summary // of the last end frame
}

func (c *client) frame(req []byte) (head []float64, rows [][]float64) {
	c.t.Helper()
	if _, err := c.in.Write(req); err != nil {
		c.t.Fatal(err)
	}
	read := func() float64 {
		var b [8]byte
		if _, err := io.ReadFull(c.out, b[:]); err != nil {
			c.t.Fatal(err)
		}
		return math.Float64frombits(binary.LittleEndian.Uint64(b[:]))
	}
	for range Header {
		head = append(head, read())
	}
	for range int(head[len(head)-1]) {
		r := make([]float64, len(Columns))
		for j := range r {
			r[j] = read()
		}
		rows = append(rows, r)
	}
	if head[0] == 1 { // the end: summary.json follows, after its length
		var n [8]byte
		if _, err := io.ReadFull(c.out, n[:]); err != nil {
			c.t.Fatal(err)
		}
		js := make([]byte, binary.LittleEndian.Uint64(n[:]))
		if _, err := io.ReadFull(c.out, js); err != nil {
			c.t.Fatal(err)
		}
		c.summary = &results.Summary{}
		if err := json.Unmarshal(js, c.summary); err != nil {
			c.t.Fatalf("the end frame's summary: %v: %q", err, js)
		}
	}
	return head, rows
}

// The end frame carries the run's costs and its summary, and they agree.
func TestServeEnd(t *testing.T) {
	c, done := serve(t)
	c.frame(request(OpReset, 3, 0))
	steps := 0
	for {
		head, _ := c.frame(request(OpHold, 0, 0))
		steps++
		if head[0] == 1 {
			s := c.summary
			if s == nil || head[1] != 7200 || head[7] != float64(s.QoS.LatencyViolationSeconds) ||
				head[8] != float64(s.QoS.RecoveryViolations) || head[9] != s.WorkerSeconds || s.DurationS != 7200 {
				t.Fatalf("end frame %v, summary %+v", head, s)
			}
			break
		}
	}
	if steps != 720 {
		t.Errorf("%d steps to the end, want 720", steps)
	}
	c.in.Write(request(OpClose, 0, 0))
	if err := <-done; err != nil {
		t.Error(err)
	}
}

func serve(t *testing.T) (*client, chan error) {
	sc := loadScenario(t, scenarioPath)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		err := Serve(inR, outW, sc, 10*time.Second)
		outW.CloseWithError(io.EOF)
		done <- err
	}()
	c := &client{t: t, in: inW, out: bufio.NewReader(outR)}
	line, err := c.out.ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	var hello Hello
	if err := json.Unmarshal([]byte(line), &hello); err != nil {
		t.Fatal(err)
	}
	if hello.Protocol != Protocol || hello.Steps != 721 || hello.IntervalS != 10 || hello.RecoveryBoundS != 240 ||
		!reflect.DeepEqual(hello.Columns, Columns) || hello.CheckpointS != 60 {
		t.Fatalf("hello: %s", line)
	}
	return c, done
}

// The protocol: a reset with a seed gives the same frames every time (a
// run abandoned half-way leaves nothing behind), and a request it cannot
// carry out ends it with an error that says which.
func TestServe(t *testing.T) {
	goroutines := runtime.NumGoroutine()
	c, done := serve(t)
	trajectory := func(seed uint64) [][]float64 {
		head, _ := c.frame(request(OpReset, seed, 0))
		heads := [][]float64{head}
		for i := 0; i < 40; i++ {
			req := request(OpHold, 0, 0)
			if i == 3 {
				req = request(OpInterval, 0, 20)
			}
			head, rows := c.frame(req)
			if len(rows) != 10 || rows[9][0] != head[1]-1 {
				t.Fatalf("step %d: %d rows ending at %v s, want 10 up to %v s", i, len(rows), rows[len(rows)-1][0], head[1]-1)
			}
			heads = append(heads, head)
		}
		return heads
	}
	a := trajectory(9)
	trajectory(10)
	if b := trajectory(9); !reflect.DeepEqual(a, b) {
		t.Errorf("two resets with seed 9 differ:\n%v\n%v", a, b)
	}
	if ci := a[len(a)-1][3]; ci != 20 {
		t.Errorf("the CI after set_checkpoint_interval 20 is %v", ci)
	}
	if _, err := c.in.Write(request(OpRescale, 0, 0)); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err == nil || !strings.Contains(err.Error(), "rescale: parallelism 0 is out of range (allowed: 1 to 32768)") {
		t.Errorf("rescale to 0: %v", err)
	}
	time.Sleep(10 * time.Millisecond)
	if n := runtime.NumGoroutine(); n > goroutines+2 { // the two pipe goroutines of this test at most
		t.Errorf("%d goroutines after Serve returned, %d before", n, goroutines)
	}
}

func TestServeRefuses(t *testing.T) {
	for _, tc := range []struct {
		name string
		req  []byte
		want string
	}{
		{"step before reset", request(OpHold, 0, 0), "a step before the first reset"},
		{"unknown op", request(7, 0, 0), "unknown request 7"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, done := serve(t)
			if _, err := c.in.Write(tc.req); err != nil {
				t.Fatal(err)
			}
			if err := <-done; err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, want %q", err, tc.want)
			}
		})
	}
	c, done := serve(t)
	c.frame(request(OpReset, 1, 0))
	if _, err := c.in.Write(request(OpInterval, 0, -1)); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err == nil || !strings.Contains(err.Error(), "-1 s is not a checkpoint interval") {
		t.Errorf("CI -1: %v", err)
	}
	var buf bytes.Buffer
	if err := Serve(bytes.NewReader(request(OpClose, 0, 0)), &buf, loadScenario(t, scenarioPath), time.Second); err != nil {
		t.Errorf("close: %v", err)
	}
}
