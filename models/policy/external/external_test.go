package external_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"github.com/streamtwin/streamtwin/internal/jsonproc"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/streamtwin/streamtwin/internal/run"
	"github.com/streamtwin/streamtwin/internal/scenario"
	"github.com/streamtwin/streamtwin/internal/twin"
	"github.com/streamtwin/streamtwin/models/policy"
	"github.com/streamtwin/streamtwin/models/policy/external"
	"github.com/streamtwin/streamtwin/results"
)

// TestMain makes the test binary a policy process too: `TEST fake-policy
// MODE` speaks the protocol and misbehaves at tick 2 as MODE says.
func TestMain(m *testing.M) {
	if len(os.Args) > 2 && os.Args[1] == "fake-policy" {
		fakePolicy(os.Args[2])
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func fakePolicy(mode string) {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(nil, 16<<20)
	out := bufio.NewWriter(os.Stdout)
	say := func(s string) { out.WriteString(s + "\n"); out.Flush() }
	for in.Scan() {
		var msg struct {
			Type         string
			Tick         int
			Samples      []map[string]any
			Capabilities struct{ Actions []string }
		}
		if err := json.Unmarshal(in.Bytes(), &msg); err != nil {
			fmt.Fprintln(os.Stderr, "fake policy: bad message:", err)
			os.Exit(3)
		}
		switch msg.Type {
		case "hello":
			switch mode {
			case "protocol2":
				say(`{"type":"ready","protocol":2}`)
			case "requires":
				say(`{"type":"ready","protocol":1,"requires":["rescale","teleport"]}`)
			case "silent-hello":
				time.Sleep(time.Hour)
			default:
				say(`{"type":"ready","protocol":1,"name":"fake-` + mode + `","requires":["set_checkpoint_interval"]}`)
			}
			continue
		case "goodbye":
			return
		}
		act := `[]`
		if msg.Tick == 1 {
			ci := "20"
			if v := os.Getenv("FAKE_POLICY_CI_S"); v != "" { // given by the scenario's env
				ci = v
			}
			act = `[{"kind":"set_checkpoint_interval","interval_s":` + ci + `,"reason":"fake: tick 1"}]`
		}
		if msg.Tick == 2 {
			switch mode {
			case "crash":
				fmt.Fprintln(os.Stderr, "Traceback: ZeroDivisionError: division by zero")
				os.Exit(1)
			case "hang":
				time.Sleep(time.Hour)
			case "malformed":
				say(`ok`)
				continue
			case "unknown":
				act = `[{"kind":"explode","reason":"boom"}]`
			case "typo":
				act = `[{"kind":"set_checkpoint_interval","intervall_s":5}]`
			case "rescale":
				act = `[{"kind":"rescale","parallelism":3}]`
			}
		}
		say(fmt.Sprintf(`{"type":"actions","tick":%d,"actions":%s}`, msg.Tick, act))
	}
}

// scenarioFor is a 2-minute run steered by the fake policy in mode.
func scenarioFor(t *testing.T, mode, onError string) scenario.Scenario {
	t.Helper()
	yaml := fmt.Sprintf(`name: external-%s
seed: 7
duration: 2m
workload: {shape: constant, rate: 10000/s}
job: {parallelism: 2, checkpoint: {interval: 10s}}
policy:
  external:
    command: [%q, fake-policy, %s]
    timeout: 500ms
    on_error: %s
`, mode, os.Args[0], mode, onError)
	sc, err := scenario.ParseRun(filepath.Join(t.TempDir(), "s.yaml"), []byte(yaml), "", nil)
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

func TestFailureModes(t *testing.T) {
	for _, tc := range []struct {
		mode string
		want []string // in the error of an on_error: fail run
	}{
		{"crash", []string{"exited (exit status 1) at tick 2 (t=20s) before replying", "ZeroDivisionError"}},
		{"hang", []string{"did not reply at tick 2 (t=20s) within 500ms"}},
		{"malformed", []string{"reply at tick 2 (t=20s): not valid: invalid character 'o'", `"ok"`}},
		{"unknown", []string{"tick 2 (t=20s): action 0: unknown kind \"explode\" (allowed: set_checkpoint_interval, rescale, rescale_vertices, trigger_savepoint, note)"}},
		{"typo", []string{"tick 2 (t=20s): not valid: json: unknown field \"intervall_s\""}},
		{"protocol2", []string{"speaks protocol 2; streamtwin speaks 1"}},
		{"requires", []string{`requires "teleport", which is no action`}},
		{"silent-hello", []string{"did not reply at hello within"}},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			t.Parallel()
			sc := scenarioFor(t, tc.mode, "fail")
			if tc.mode == "silent-hello" {
				sc = withStartTimeout(t, sc, "300ms")
			}
			dir := filepath.Join(t.TempDir(), "run")
			_, err := run.ToDir(context.Background(), twin.Backend{}, sc, dir, run.Output{})
			if err == nil {
				t.Fatal("the run succeeded")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q\nlacks %q", err, w)
				}
			}
			if _, serr := os.Stat(dir); !os.IsNotExist(serr) {
				t.Errorf("the failed run left %s behind (stat: %v)", dir, serr)
			}
		})
	}
}

func withStartTimeout(t *testing.T, sc scenario.Scenario, d string) scenario.Scenario {
	t.Helper()
	yaml := fmt.Sprintf("name: x\nduration: 1m\nworkload: {shape: constant, rate: 1000/s}\npolicy: {external: {command: [%q, fake-policy, silent-hello], start_timeout: %s}}\n", os.Args[0], d)
	s2, err := scenario.ParseRun(filepath.Join(t.TempDir(), "s.yaml"), []byte(yaml), "", nil)
	if err != nil {
		t.Fatal(err)
	}
	sc.Policy = s2.Policy
	return sc
}

// With on_error: hold the run completes; each failure is a policy_error
// event, the job keeps the interval of tick 1, and a dead process is not
// asked again.
func TestHold(t *testing.T) {
	for _, tc := range []struct {
		mode   string
		errors int // policy_error events
		want   string
	}{
		{"crash", 1, "exited (exit status 1) at tick 2 (t=20s) before replying"},
		{"hang", 1, "did not reply at tick 2 (t=20s) within 500ms"},
		{"malformed", 1, "not valid: invalid character 'o'"},
		{"unknown", 1, `unknown kind "explode"`},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			t.Parallel()
			dir := filepath.Join(t.TempDir(), "run")
			if _, err := run.ToDir(context.Background(), twin.Backend{}, scenarioFor(t, tc.mode, "hold"), dir, run.Output{}); err != nil {
				t.Fatal(err)
			}
			events, err := results.ReadEvents(filepath.Join(dir, "events.parquet"))
			if err != nil {
				t.Fatal(err)
			}
			var errs []string
			decisions := 0
			for _, e := range events {
				switch e.Kind {
				case results.KindPolicyError:
					errs = append(errs, e.Reason)
				case results.KindPolicyDecision:
					decisions++
				}
			}
			if len(errs) != tc.errors || !strings.Contains(errs[0], tc.want) || !strings.Contains(errs[0], "holding") {
				t.Errorf("policy_error events %q; want %d containing %q", errs, tc.errors, tc.want)
			}
			if decisions != 1 {
				t.Errorf("%d decisions; want the one of tick 1", decisions)
			}
			samples, err := results.ReadSamples(filepath.Join(dir, "timeseries.parquet"))
			if err != nil {
				t.Fatal(err)
			}
			if ci := samples[len(samples)-1].CheckpointIntervalS; ci != 20 {
				t.Errorf("final checkpoint interval %g s; want 20 s from tick 1", ci)
			}
		})
	}
}

// An action the backend cannot do is refused at that tick, naming the backend.
func TestActionTheBackendCannotDo(t *testing.T) {
	p, err := external.New(external.Settings{Settings: jsonproc.Settings{Command: []string{os.Args[0], "fake-policy", "rescale"}, Timeout: 2}})
	if err != nil {
		t.Fatal(err)
	}
	info := policy.RunInfo{Backend: "live", BackendName: "this live cluster", Actions: []policy.ActionKind{policy.SetCheckpointInterval, policy.Note}}
	if err := p.Begin(info); err != nil {
		t.Fatal(err)
	}
	defer p.End("end of test")
	obs := policy.Observation{Window: []results.Sample{{TimeS: 1, InputRate: 5}}, Job: policy.JobStatus{State: "RUNNING"}}
	if a, err := p.StepErr(10*time.Second, obs); err != nil || len(a) != 1 || a[0].Interval != 20*time.Second {
		t.Fatalf("tick 1: %v, %v; want the 20 s interval", a, err)
	}
	_, err = p.StepErr(20*time.Second, obs)
	want := "action 0: rescale: this live cluster cannot do it (it can: set_checkpoint_interval, note)"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("tick 2: %v; want %q", err, want)
	}
}

// A process that needs an action the backend lacks is refused before the run.
func TestRequiresRefusedBeforeTheRun(t *testing.T) {
	p, err := external.New(external.Settings{Settings: jsonproc.Settings{Command: []string{os.Args[0], "fake-policy", "ok"}}})
	if err != nil {
		t.Fatal(err)
	}
	err = p.Begin(policy.RunInfo{BackendName: "this live cluster", Actions: []policy.ActionKind{policy.Rescale, policy.Note}})
	want := "policy fake-ok requires set_checkpoint_interval, which this live cluster cannot do (it can: rescale, note)"
	if err == nil || err.Error() != want {
		t.Errorf("Begin: %v; want %q", err, want)
	}
}

func TestStartFails(t *testing.T) {
	p, err := external.New(external.Settings{Settings: jsonproc.Settings{Command: []string{"/nonexistent/policy"}}})
	if err != nil {
		t.Fatal(err)
	}
	err = p.Begin(policy.RunInfo{})
	if err == nil || !strings.Contains(err.Error(), "policy process [/nonexistent/policy]: start:") {
		t.Errorf("Begin: %v", err)
	}
}

func TestSettingsValidation(t *testing.T) {
	for _, tc := range []struct {
		cfg  external.Settings
		want string
	}{
		{external.Settings{}, "policy.external.command: missing"},
		{external.Settings{Settings: jsonproc.Settings{Command: []string{"x"}}, OnError: "retry"}, `policy.external.on_error must be fail or hold, got "retry"`},
		{external.Settings{Settings: jsonproc.Settings{Command: []string{"x"}, Timeout: -1}}, "policy.external.timeout must not be negative"},
		{external.Settings{Settings: jsonproc.Settings{Command: []string{"x"}}, Window: -5}, "policy.external.window must be at least 1 sample"},
	} {
		if _, err := external.New(tc.cfg); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("New(%+v): %v; want %q", tc.cfg, err, tc.want)
		}
	}
}

// The scenario's env reaches the process: the fake policy asks at tick 1
// for the interval FAKE_POLICY_CI_S says.
func TestEnvReachesTheProcess(t *testing.T) {
	t.Setenv("FAKE_POLICY_CI_S", "20") // inherited, replaced by the scenario's
	src := fmt.Sprintf(`name: env
seed: 7
duration: 1m
workload: {shape: constant, rate: 10000/s}
job: {parallelism: 2, checkpoint: {interval: 10s}}
policy:
  external:
    command: [%q, fake-policy, ok]
    env: {FAKE_POLICY_CI_S: 37}
`, os.Args[0])
	sc, err := scenario.ParseRun(filepath.Join(t.TempDir(), "s.yaml"), []byte(src), "", nil)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "run")
	if _, err := run.ToDir(context.Background(), twin.Backend{}, sc, dir, run.Output{}); err != nil {
		t.Fatal(err)
	}
	samples, err := results.ReadSamples(filepath.Join(dir, "timeseries.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	if ci := samples[len(samples)-1].CheckpointIntervalS; ci != 37 {
		t.Errorf("final checkpoint interval %g s; want 37 s, from the scenario's env", ci)
	}
}

// A bad env is refused before the run, naming the field (and, in a
// scenario file, its line).
func TestEnvRefused(t *testing.T) {
	src := "name: x\nduration: 1m\nworkload: {shape: constant, rate: 1000/s}\npolicy:\n  external:\n    command: [python3, p.py]\n    env: {A=B: c}\n"
	_, err := scenario.ParseRun(filepath.Join(t.TempDir(), "s.yaml"), []byte(src), "", nil)
	if want := `s.yaml:7: policy.external.env: name "A=B" contains '='`; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("ParseRun: %v; want %q", err, want)
	}
	_, err = external.New(external.Settings{Settings: jsonproc.Settings{Command: []string{"x"}, Env: jsonproc.Env{"": "c"}}})
	if want := "policy.external.env: a variable's name cannot be empty"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("New: %v; want %q", err, want)
	}
}
